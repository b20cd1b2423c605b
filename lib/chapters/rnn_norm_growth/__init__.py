"""RNN width and norm growth: Prop. 8, Theorems 7 and 9 of Mousavi-Hosseini et al. (2025)."""
READS: tuple[str, ...] = ()
