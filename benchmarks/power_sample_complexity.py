"""A check of paper-means' bound, and the power table of sample_complexity's rules on the committed paper results.

paper-means holds each (panel, model) pair's |z| (its mean log-ratio to the authors' over its N, in units of its SE)
to a Bonferroni bound (claims/figure1.py's RULE_MEANS). This script simulates reruns of the same models, each this
run's stored runs resampled point by point (per N: task draws, then seeds within each drawn draw) against an authors'
mean drawn from the same N's stored draws (one draw, its R seeds resampled), so every N keeps its own seed and draw
spread, and prints how often the largest |z| stays within the bound (a faithful rerun of the authors' models should:
about 95%) and its quantiles. It then prints the power table the page shows (page.power: each row's rule on the
stored runs resampled, moved onto the authors' means, and without the mechanism; claims/power.py).

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
from lib.chapters.sample_complexity.results import MODELS, authors, summarize  # noqa: E402
from lib.chapters.sample_complexity.results.bootstrap import resampled  # noqa: E402
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


def largest_z(P: dict, records: dict, sims: int, seed: int = 1) -> np.ndarray:
    """Per simulated rerun of the same models, the largest |z| over the (panel, model) pairs: this run's runs resampled
    point by point (results.bootstrap.resampled) against a simulated authors' mean drawn from the same N's stored
    draws (`reference`)."""
    rng = np.random.default_rng(seed)
    table = summarize(P, records)
    out = []
    for _ in range(sims):
        ref = reference(table, rng)
        _, by_pair = authors.pairs(P, resampled(P, records, rng), ref)
        out.append(max(abs(z) for _, z in by_pair.values()))
    return np.array(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=1000)
    ap.add_argument("--no-power", action="store_true", help="the check only")
    args = ap.parse_args()
    P, records = stored("sample_complexity")
    z = largest_z(P, records, args.sims)
    bound = figure1.RULE_MEANS.bound
    print(f"paper-means, {args.sims} simulated reruns of the same models: largest |z| within {bound} in "
          f"{np.mean(z <= bound):.3f}; quantiles 50/90/95/99%: "
          + ", ".join(f"{q:.2f}" for q in np.quantile(z, [.5, .9, .95, .99])))
    if not args.no_power:
        print(to_markdown(page.power(P, records, 200)))


if __name__ == "__main__":
    main()
