"""Step 2: rnn_norm_growth's phase diagram where the CPU left its rows censored.

--part cap (the default): the paper profile with the sample cap doubled (max_samples 4,096,000): every phase point
is recomputed (the cap is part of each point's key), and the Elman RNN on 1STR at N = 16, whose 18 runs all
reached the paper profile's cap (best test MSE 0.38 against the threshold 0.3), gets twice the training. The rows
10a-width-1str-elman, 10a-contrast-elman, 10b-norm-lower, 10b-norm and 10c-separation read that diagram; the
construction, A.2 and memoriser points come from the committed paper points.

--part n32: the phase diagram at N = 4, 8, 16, 32 on 1STR and simple-1STR with widths 1 to 64, at the paper
profile's cap (every phase point and the memoriser, whose N is the largest, are new); with `--set
max_samples=4096000` too, the profile both parts together would make.

The phase points are small recurrent networks, launch-bound on a GPU: each trains as one process, --jobs of them at
once (the paper profile's 15 points took 242 s wall with --jobs 8 on an H200, its longest the Elman on 1STR at
N = 16 at the cap).

    python3 benchmarks/gpu/step2_rnn_norm_growth.py --commit 0123abcdef              # $OUT/step2_rnn_norm_growth.tar.gz
    python3 benchmarks/gpu/step2_rnn_norm_growth.py --part n32 --commit 0123abcdef   # $OUT/step2_rnn_norm_growth_n32.tar.gz
    .venv/bin/python benchmarks/gpu/step2_rnn_norm_growth.py --device cpu --tiny --out /tmp/o   # seconds, on a CPU
"""
from __future__ import annotations

import sys

import common

CHAPTER = "rnn_norm_growth"
PARTS = {"cap": ("step2_rnn_norm_growth", ["max_samples=4096000"]),
         "n32": ("step2_rnn_norm_growth_n32", ["phase_N=[4, 8, 16, 32]", "widths=[1, 2, 4, 8, 16, 32, 64]"])}
# Tiny: N = 4 and 8, two widths, one seed, a cap of 10 steps, few test and packing prompts, two tiny memoriser sizes
# (the construction and A.2 points keep the paper's keys); n32 the same at N = 4 and 32.
TINY_COMMON = ["widths=[1, 2]", "n_seeds=1", "max_samples=640", "min_samples=320", "check_every=5", "n_test=50",
               "readout_width=8", "packing_prompts=8", "memo_n=[4, 8]", "memo_draws=1"]
TINY = {"cap": ["phase_N=[4, 8]", *TINY_COMMON], "n32": ["phase_N=[4, 32]", *TINY_COMMON]}


def main(argv=None) -> int:
    ap = common.parser(__doc__.split("\n\n")[0], jobs=8)
    ap.add_argument("--part", choices=tuple(PARTS), default="cap",
                    help="cap: the paper profile at twice the sample cap (default); n32: N up to 32, widths up to 64")
    args = ap.parse_args(argv)
    step, sets = PARTS[args.part]
    if args.tiny:
        sets = TINY[args.part]
    return common.run(step, CHAPTER, args, sets)


if __name__ == "__main__":
    sys.exit(main())
