"""The sample-complexity hierarchy: Figure 1 and Theorem 1 of Mousavi-Hosseini, Sanford, Wu, Erdogdu (2025)."""
READS: tuple[str, ...] = ()
# What the paper profile reproduces (lib.core.runner.SCALE_KINDS): Figure 1 as the authors' code runs it, and more
PAPER_SCALE = ("exact", "Figure 1 as the authors' code runs it (5 seeds, the 500-unit GRU, 5,000 test prompts), with every "
               "model also on two further task draws and the Transformer's wide sweep beyond the figure")
