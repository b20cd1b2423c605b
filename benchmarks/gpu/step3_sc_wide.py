"""Step 3: Theorem 1 further out: sample_complexity's Transformer-only wide sweep at N = 256 and 512.

The paper profile with N_wide = [16, 32, 64, 128, 256, 512]: two new points, the Transformer on panel (a)'s task
(1STR) at N = 256 and 512 with the protocol of N = 16..128 (5 seeds, 5,000 test prompts per set, the 10^6 sample
cap, a check every 10 steps); every other point (Figure 1, its further task draws, the wide sweep to N = 128, the
attention point) comes from the committed paper points. The wide sweep's rows then read N = 4..512, over two
decades. The N = 128 point took 2,468 s on one CPU thread (30,720-31,360 samples a run).

    python3 benchmarks/gpu/step3_sc_wide.py --commit 0123abcdef                # $OUT/step3_sc_wide.tar.gz
    .venv/bin/python benchmarks/gpu/step3_sc_wide.py --device cpu --tiny --out /tmp/o   # seconds, on a CPU
"""
from __future__ import annotations

import sys

import common

STEP, CHAPTER = "step3_sc_wide", "sample_complexity"
WIDE = [16, 32, 64, 128, 256, 512]
# Tiny: one new wide point at N = 3 (not in N_a, so a wide point of its own) with the paper's protocol, seconds on a CPU.
TINY = [3, 16, 32, 64, 128]


def main(argv=None) -> int:
    ap = common.parser(__doc__.split("\n\n")[0], jobs=2)
    args = ap.parse_args(argv)
    return common.run(STEP, CHAPTER, args, [f"N_wide={TINY if args.tiny else WIDE}"])


if __name__ == "__main__":
    sys.exit(main())
