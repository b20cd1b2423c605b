"""The FFN span argument: Theorem 6 and Appendix B of Mousavi-Hosseini et al. (2025). Its page compares with the
FFN of Figure 1(b), read from the sample_complexity chapter's stored points."""
READS: tuple[str, ...] = ("sample_complexity",)
# What the paper profile reproduces (lib.core.runner.SCALE_KINDS)
PAPER_SCALE = ("book", "Theorem 6 at the paper's token dimension (d = 10) with the authors' FFN widths, N = 4, 6, 8")
