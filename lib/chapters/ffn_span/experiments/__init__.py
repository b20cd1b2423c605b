"""The ffn_span chapter's five arms, one module each, every one a point spec (a frozen dataclass) and its run
function: `span` (GD and AdamW on one training set), `visibility` (the visible fraction and the oracle, by Monte
Carlo), `readout` (the span-restricted least-squares learner), `ffn` (GD-trained FFNs over the n grid, plain and
rotated; also the simple-1STR prompts every training arm draws) and `transformer` (the rotation test's
Transformers). compute.py builds their specs from the parameters and lists the points; no module here imports it."""
