"""The sample-complexity hierarchy: Figure 1 and Theorem 1 of Mousavi-Hosseini, Sanford, Wu, Erdogdu (2025)."""
READS: tuple[str, ...] = ()
