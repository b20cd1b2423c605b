"""Sparse variable creation: log T capacity of bounded-norm attention, exact sparse Boolean functions, the planted
sparse AND and sparse parities (Edelman, Goel, Kakade & Zhang 2022, Thm 4.2, Cor. 4.4, Lemmas B.2-B.8, Sec. 5)."""
READS: tuple[str, ...] = ()   # chapters whose stored results this chapter's page reads (they run first)
