"""rpe_decay's arms, one module each (compute.py lists their points; none of them imports compute.py):

- `exact`: the paper's RPEs and the exact checks 1-6 (T5's buckets, Thm 4.1's head allocation and bound factors,
  Prop. B.1, the LP of Prop. 5.2(B), the folding identity), in numpy;
- `fit`: the memory kernels and the best H-head kernel of each RPE family by variable projection, in float64;
- `train`: Part C, one-layer DP-free models with lin or log RPE trained on the linear target y = rho * x;
- `apph`: experiments 4a and 4b of the NeurIPS version's Appendix H in their setup, in two current-token conventions.
"""
