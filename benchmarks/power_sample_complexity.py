"""The power of sample_complexity's restated claim rules (lib/chapters/sample_complexity/claims/power.py): pass rates of each
row's own function on simulated reruns of the paper profile, from a faithful world and from worlds without the
effect, with the spreads measured on the committed paper results. Also prints, for paper-means, how often a faithful
rerun has at most k means beyond |z| = 3, the table its ALLOWED comes from.

    python benchmarks/power_sample_complexity.py              # about a minute on one CPU core
    python benchmarks/power_sample_complexity.py --sims 1000
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lib.chapters.sample_complexity import compute  # noqa: E402
from lib.chapters.sample_complexity.claims import figure1, power  # noqa: E402
from lib.chapters.sample_complexity.results import authors, summarize, wide  # noqa: E402
from lib.core import params  # noqa: E402
from lib.core.store import Store  # noqa: E402
from lib.core.sweep import collect  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=300)
    args = ap.parse_args()
    P = params.resolve("sample_complexity", "paper")
    records = collect(compute.points(P), Store("sample_complexity", "paper", stored_only=True), "cpu", log=None)
    table = summarize(P, records)

    spreads = power.measured_spreads(table, P)
    rng = np.random.default_rng(1)
    counts = []
    for _ in range(args.sims):
        sim, ref = {}, {}
        for (panel, m), (N, seed_sd, draw_sd) in spreads.items():
            true = np.array([authors.paper_means(panel)[m][n] for n in N], float)
            sim.setdefault(panel, {})[m] = {authors.CLAIM_TEST[panel]: power.entry(power.draw_runs(rng, true, seed_sd,
                                                                                                     draw_sd, 3, 5), N)}
            ref.setdefault(panel, {})[m] = dict(zip(N, power.draw_runs(rng, true, seed_sd, draw_sd, 1, 5).mean((1, 2))))
        counts.append(sum(abs(r["z"]) > authors.BEYOND for r in authors.comparison(sim, P, ref)))
    counts = np.array(counts)
    print(f"paper-means, faithful reruns ({args.sims}): share with at most k of 33 beyond |z| = {authors.BEYOND:g}: "
          + ", ".join(f"k={k}: {np.mean(counts <= k):.3f}" for k in range(5)) + f"  (ALLOWED = {figure1.ALLOWED})")
    print("paper-means pass rates:", power.paper_means_rates(table, P, n_sim=args.sims))

    w = wide.series(table, P, "task")
    if w is not None:
        seed_sd = float(np.median(np.log(w["runs"]).std(1, ddof=1)))
        fits = wide.fit_laws(w["N"], w["runs"].mean(1))
        laws = {f"{law} law fitted to this run": (law, fits[law]["params"]) for law in wide.LAWS}
        print(f"1-tr-logN pass rates (N = {w['N']}, seed log sd {seed_sd:.3f}):",
              power.logn_rates(P, w["N"], seed_sd, n_sim=max(args.sims // 3, 20), laws=laws))
    print("4-ffn-gap pass rates:", power.gap_rates(table, P, n_sim=max(args.sims // 3, 20)))


if __name__ == "__main__":
    main()
