"""Statistically meaningful approximation of Turing machines: Theorem 4.1 (and 3.1), Definition 2.2 and Claim 3.5
of Wei, Chen & Ma (2022)."""
READS: tuple[str, ...] = ()
# What the paper profile reproduces (lib.core.runner.SCALE_KINDS)
PAPER_SCALE = ("book", "the construction of Theorem 4.1 on 7 catalogue and 100 random machines, T up to 2^10, and "
               "Claim 3.5's robustness for T = 16..512")
