"""RNN width and norm growth: Prop. 8, Theorems 7 and 9 of Mousavi-Hosseini et al. (2025)."""
READS: tuple[str, ...] = ()
# What the paper profile reproduces (lib.core.runner.SCALE_KINDS)
PAPER_SCALE = ("book", "Prop. 8 and Theorems 7 and 9 at N up to 16 on 1STR and simple-1STR, widths 1 to 32; the Elman's "
               "1STR diagram stops at N = 8")
