"""The power of rnn_norm_growth's restated rules (issue 36): rows 10a-contrast-* and 10b-norm* run on simulated
results drawn like the stored paper results (lib.chapters.rnn_norm_growth.claims.power says how), from a world with the
theorem's mechanism and one without it; prints each row's shares of pass / FAIL / censored.

    python benchmarks/rnn_norm_growth_power.py              # 200 simulations per world, about a minute on one core
    python benchmarks/rnn_norm_growth_power.py --sims 50
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))    # run as a script from anywhere, as the docstring says

from lib.chapters.rnn_norm_growth.claims import power  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=200)
    sims = ap.parse_args().sims
    fmt = lambda r: "  ".join(f"{k} {v:5.3f}" for k, v in r.items())
    print(f"10a-contrast-gru (the Elman row runs the same function), {sims} simulated diagrams per world:")
    for sigma in (power.SIGMA_RUN, 1.5 * power.SIGMA_RUN):
        for world, what in (("faithful", "simple-1STR flat, d* about 2"),
                            ("faithful-floor", "simple-1STR flat at the floor, d* about 1"),
                            ("null", "simple-1STR grows like 1STR, a quarter of its level")):
            print(f"  sigma {sigma:.2f}  {world:15s} ({what}): {fmt(power.contrast_power('gru', world, sims, sigma=sigma))}")
    print(f"10b-norm-lower and 10b-norm, {sims} simulated sets of widest runs (3 per N = 4, 8, 16) per world:")
    for slope, unknown, what in ((1.0, (), "faithful: slope 1"), (0.56, (), "the stored slope over N = 4, 8"),
                                 (0.0, (), "null: no growth"), (1.0, (16,), "faithful, no value at N = 16")):
        for row, r in power.norm_power(slope, sims, unknown_N=unknown).items():
            print(f"  {what:32s} {row:15s}: {fmt(r)}")


if __name__ == "__main__":
    main()
