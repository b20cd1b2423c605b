"""Statistically meaningful approximation of Turing machines: Theorem 4.1 (and 3.1), Definition 2.2 and Claim 3.5
of Wei, Chen & Ma (2022)."""
READS: tuple[str, ...] = ()
