"""Heads against relevant tokens: Prop. 3 and 21, Theorem 4, Eq. A.2 and Figure 2 of Mousavi-Hosseini et al. (2025)."""
READS: tuple[str, ...] = ()
