"""Step 6: sparse_variable_creation's planted-AND points at T = 100, 200, 400, recomputed by the code in this tree.

The planted-AND arm still has its own full-batch loop (lib.science.batched_transformer.train_full_batch); moving it
onto lib.science.training.fit, as every other trained model is, changes code that its stored points reach, and only
an identical recomputation on the kind of device that computed them lets `restamp` carry them over. This step
recomputes the paper profile's three AND points (12 trials, m = 50 to 200 in steps of 25) with whatever code the tree
holds, into the scratch store, with the constructions and the parity runs from the committed paper points: run once
as main stands (the baseline: the same kind of GPU reproduces the committed H200 point at T = 400, or shows by how
much it moves) and once after the port, then diff the two and the committed points. The committed T = 100 and
T = 200 points were computed on the CPU: a GPU recomputation is evidence for the T = 400 point only.

    python3 benchmarks/gpu/step6_svc_and_baseline.py --commit 0123abcdef     # $OUT/step6_svc_and_baseline.tar.gz
    .venv/bin/python benchmarks/gpu/step6_svc_and_baseline.py --device cpu --tiny --out /tmp/o   # seconds, on a CPU
"""
from __future__ import annotations

import sys

import common

STEP, CHAPTER = "step6_svc_and_baseline", "sparse_variable_creation"
TINY = ["and_T=[4, 6]", "and_m=[4, 8]", "and_trials=2", "and_iters=10", "eval_every=5", "n_val=32"]


def is_and(point) -> bool:
    return type(point.spec).__name__ == "AndPoint"


def main(argv=None) -> int:
    ap = common.parser(__doc__.split("\n\n")[0], jobs=1)
    ap.add_argument("--tag", default="", help="appended to the step's name (and its tarball's): e.g. 'ported'")
    args = ap.parse_args(argv)
    step = STEP + (f"_{args.tag}" if args.tag else "")
    return common.run(step, CHAPTER, args, TINY if args.tiny else [], recompute=is_and)


if __name__ == "__main__":
    sys.exit(main())
