"""Step 5: rpe_decay's Part C with the recipe found for beta = 1.2 at H = 4: ten times both learning rates, three
times the steps.

The paper profile with train_lr = 0.03, theta_lr = 0.1 and train_steps = 15,000 (the recipe `lr10_long` of
benchmarks/rpe_decay_partc_recipes.py, which brought beta = 1.2 at H = 4 within 10x of what its heads can reach:
median ratio 4.0 against 59 for the profile's recipe), at the paper profile's scale otherwise: both Part C kernels
(beta = 1.2 and tau = 10), S = 1024, H = 1, 2, 4, 8, 3 seeds, both RPE families. Two new points (one a kernel, every
(family, H, seed) in one batch); the fits and Appendix H come from the committed paper points. On one CPU thread
each point took about 500 s at 5,000 steps.

    python3 benchmarks/gpu/step5_rpe_partc.py --commit 0123abcdef               # $OUT/step5_rpe_partc.tar.gz
    .venv/bin/python benchmarks/gpu/step5_rpe_partc.py --device cpu --tiny --out /tmp/o   # seconds, on a CPU
"""
from __future__ import annotations

import sys

import common

STEP, CHAPTER = "step5_rpe_partc", "rpe_decay"
RECIPE = ["train_lr=0.03", "theta_lr=0.1", "train_steps=15000"]
# Tiny: the recipe's learning rates on a short window, few heads, one seed and 20 steps (Appendix H's points keep the
# paper's keys: they share train_checks; the fits at train_S are new, and small).
TINY = ["train_lr=0.03", "theta_lr=0.1", "train_steps=20", "train_S=[32]", "train_H=[1, 2]", "train_seeds=1",
        "train_batch=4", "train_n_test=8"]


def main(argv=None) -> int:
    ap = common.parser(__doc__.split("\n\n")[0], jobs=2)
    args = ap.parse_args(argv)
    return common.run(STEP, CHAPTER, args, TINY if args.tiny else RECIPE)


if __name__ == "__main__":
    sys.exit(main())
