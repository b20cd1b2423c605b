"""The calibration of paper-means' allowance, and the power table of sample_complexity's rules on the committed paper
results.

paper-means allows ALLOWED of its 33 means beyond |z| = 3 (claims/figure1.py): the number a faithful rerun stays
within in 95% of simulated reruns. A simulated rerun is this run's stored runs resampled point by point (per N: task
draws, then seeds within each drawn draw) against an authors' mean drawn from the same N's stored draws (one draw,
its R seeds resampled), so every N keeps its own seed and draw spread, never one pooled over N; this script prints
how often it has at most k means beyond |z| = 3. It then prints the power table the page shows (page.power: each
row's rule on the stored runs resampled, and on runs without the mechanism; claims/power.py).

    python benchmarks/power_sample_complexity.py              # about a minute on one CPU core
    python benchmarks/power_sample_complexity.py --sims 1000
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lib.chapters import stored  # noqa: E402
from lib.chapters.sample_complexity import page  # noqa: E402
from lib.chapters.sample_complexity.claims import figure1  # noqa: E402
from lib.chapters.sample_complexity.claims.power import resampled  # noqa: E402
from lib.chapters.sample_complexity.results import MODELS, authors, summarize  # noqa: E402
from lib.core.power import to_markdown  # noqa: E402


def reference(table: dict, rng) -> dict:
    """{panel: {model: {N: mean}}}: a simulated authors' mean at every compared N, R seeds of one task draw drawn from
    this run's stored draws at that N (a draw, then its seeds, with replacement): the authors' one draw is one more
    draw of the same task, with that N's own spread."""
    out = {}
    for panel, test in authors.CLAIM_TEST.items():
        for m in MODELS:
            e = table[panel][m][test]
            n, G, R = e["by_draw"].shape
            g, s = rng.integers(0, G, n), rng.integers(0, R, (n, R))
            out.setdefault(panel, {})[m] = dict(zip(e["N"], e["by_draw"][np.arange(n)[:, None], g[:, None], s].mean(1)))
    return out


def beyond_counts(P: dict, records: dict, sims: int, seed: int = 1) -> np.ndarray:
    """Per simulated faithful rerun, how many of the compared means lie beyond |z| = BEYOND: this run's runs resampled
    point by point (claims/power.resampled: per N, task draws then seeds within each) against a simulated authors'
    mean drawn from the same N's stored draws (`reference`). No spread is pooled over N or over draws."""
    rng = np.random.default_rng(seed)
    table = summarize(P, records)
    return np.array([sum(abs(r["z"]) > authors.BEYOND for r in authors.comparison(resampled(P, records, rng), P,
                                                                                   reference(table, rng)))
                     for _ in range(sims)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=1000)
    ap.add_argument("--no-power", action="store_true", help="the calibration only")
    args = ap.parse_args()
    P, records = stored("sample_complexity")
    counts = beyond_counts(P, records, args.sims)
    print(f"paper-means, simulated faithful reruns ({args.sims}): share with at most k of 33 beyond |z| = "
          f"{authors.BEYOND:g}: " + ", ".join(f"k={k}: {np.mean(counts <= k):.3f}" for k in range(6))
          + f"  (ALLOWED = {figure1.ALLOWED})")
    if not args.no_power:
        print(to_markdown(page.power(P, records, 200)))


if __name__ == "__main__":
    main()
