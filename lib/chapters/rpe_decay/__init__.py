"""T5-type relative position encodings and memory kernels: Theorems 4.1 and 6.1 of Wang & E (2024)."""
READS: tuple[str, ...] = ()
# What the paper profile reproduces (lib.core.runner.SCALE_KINDS)
PAPER_SCALE = ("subset", "Appendix H's experiments 4a and 4b in their own setup (its other experiments are not about RPE decay); "
               "the fits of Theorems 4.1 and 6.1 and the trainings of Part C at this book's scale (the paper has no experiment "
               "for them)")
