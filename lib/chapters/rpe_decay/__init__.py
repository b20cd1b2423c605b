"""T5-type relative position encodings and memory kernels: Theorems 4.1 and 6.1 of Wang & E (2024)."""
READS: tuple[str, ...] = ()
