"""Sparse variable creation: log T capacity of bounded-norm attention, exact sparse Boolean functions, the planted
sparse AND and sparse parities (Edelman, Goel, Kakade & Zhang 2022, Thm 4.2, Cor. 4.4, Lemmas B.2-B.8, Sec. 5)."""
READS: tuple[str, ...] = ()   # chapters whose stored results this chapter's page reads (they run first)
# What the paper profile reproduces (lib.core.runner.SCALE_KINDS)
PAPER_SCALE = ("subset", "the planted AND at T = 100, 200, 400 of the paper's 11 lengths to 800, m in steps of 25 (the "
               "paper: 10), 12 trials per (T, m) (the paper: 50); sparse parity at the paper's T and budget with 3 seeds "
               "(the paper: 10); the page lists every omission")
