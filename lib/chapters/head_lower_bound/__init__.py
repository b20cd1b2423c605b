"""Heads against relevant tokens: Prop. 3 and 21, Theorem 4, Eq. A.2 and Figure 2 of Mousavi-Hosseini et al. (2025)."""
READS: tuple[str, ...] = ()
# What the paper profile reproduces (lib.core.runner.SCALE_KINDS)
PAPER_SCALE = ("subset", "the paper's Figure 2 (the authors' script, stopped where their run stopped); Prop. 3/21, Theorem 4's "
               "scaling and A.2 at this book's scale (the paper has no experiment for them)")
