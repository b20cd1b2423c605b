"""The calibration of paper-means' allowance, and the power table of sample_complexity's rules on the committed paper
results.

paper-means allows ALLOWED of its 33 means beyond |z| = 3 (claims/figure1.py): the number a faithful rerun stays
within in 95% of simulated reruns. A simulated rerun draws this book's G task draws of R seeds and the authors' one
draw of R seeds around the authors' means, log-normal with the seed and draw spreads measured on the stored runs
(results/authors.spreads); this script prints how often it has at most k means beyond |z| = 3. It then prints the
power table the page shows (page.power: each row's rule on the stored runs resampled, and on runs without the
mechanism; claims/power.py).

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
from lib.core.power import to_markdown  # noqa: E402


def draw_runs(rng, mean, seed_sd, draw_sd, G: int, R: int) -> np.ndarray:
    """(len(mean), G, R) log-normal runs: per N a mean, a draw offset per draw and a seed offset per run."""
    d = rng.standard_normal((len(mean), G, 1)) * draw_sd
    return mean[:, None, None] * np.exp(d + rng.standard_normal((len(mean), G, R)) * seed_sd[:, None, None])


def beyond_counts(table: dict, P: dict, sims: int, G: int = 3, R: int = 5, seed: int = 1) -> np.ndarray:
    """Per simulated faithful rerun, how many of the compared means lie beyond |z| = BEYOND."""
    rng = np.random.default_rng(seed)
    counts = []
    for _ in range(sims):
        sim, ref = {}, {}
        for panel, test in authors.CLAIM_TEST.items():
            for m in MODELS:
                e = table[panel][m][test]
                seed_var, draw_var = authors.spreads(e)
                draw_sd = 0.0 if np.isnan(draw_var) else float(np.sqrt(draw_var))
                true = np.array([authors.paper_means(panel)[m][n] for n in e["N"]], float)
                runs = draw_runs(rng, true, np.sqrt(seed_var), draw_sd, G, R)
                sim.setdefault(panel, {})[m] = {test: {"N": e["N"], "by_draw": runs, "mean": runs.mean((1, 2)),
                                                       "censored": np.zeros(len(true), int)}}
                ref.setdefault(panel, {})[m] = dict(zip(e["N"], draw_runs(rng, true, np.sqrt(seed_var), draw_sd, 1,
                                                                           R).mean((1, 2))))
        counts.append(sum(abs(r["z"]) > authors.BEYOND for r in authors.comparison(sim, P, ref)))
    return np.array(counts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=300)
    args = ap.parse_args()
    P, records = stored("sample_complexity")
    counts = beyond_counts(summarize(P, records), P, args.sims)
    print(f"paper-means, simulated faithful reruns ({args.sims}): share with at most k of 33 beyond |z| = "
          f"{authors.BEYOND:g}: " + ", ".join(f"k={k}: {np.mean(counts <= k):.3f}" for k in range(5))
          + f"  (ALLOWED = {figure1.ALLOWED})")
    print(to_markdown(page.power(P, records, 200)))


if __name__ == "__main__":
    main()
