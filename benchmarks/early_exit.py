"""What an early exit from each test evaluation would save in Figure 1 (issue 41), projected from the stored paper points.

The engine evaluates every live run on all n_test prompts of each test set at every check, in chunks of eval_batch
prompts. A squared error is non-negative, so once a run's partial sum over the first chunks exceeds threshold x n_test,
its full mean is above the threshold whatever the rest holds: a check could stop a test set's chunk loop as soon as
every live run is past that bar, without changing any sample count. The learning curves would then be exact only at
the checks kept whole (here every `--full-every`-th), which is what the figures draw.

This script does not train. For every stored point and stored check it takes each live run's measured test MSE m and
projects where its partial sum crosses the bar: prompts are independent draws, so the sum after k prompts is about
k m, and a run with m > threshold t needs ceil(n t / m / eval_batch) chunks (all of them where m <= t: a passing
check needs its full mean). A chunk serves every live run of the batch, so a set's loop runs to the largest need.
Arithmetic is counted in forward passes times the model's FLOPs per forward (three per training sample, one per
evaluated prompt, as `compute._cost` counts them). Stored curves keep at most ~200 checks per point, evenly spaced,
so the fraction saved over the stored checks estimates the fraction over all of them.

    python benchmarks/early_exit.py               # the committed paper results, CPU chunking (1000 // runs)
    python benchmarks/early_exit.py --gpu         # a GPU's chunking (1000 prompts)
"""
from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lib.chapters import stored  # noqa: E402
from lib.chapters.sample_complexity.compute import PANELS, WIDTH, points  # noqa: E402
from lib.science import models, qstr  # noqa: E402


def point_forwards(spec, rec: dict, eval_batch: int, full_every: int) -> tuple[float, float, float]:
    """(training, evaluation as now, evaluation with the early exit) forward passes of one stored point."""
    curves = np.array(rec["curves"], dtype=float)            # (C, R, K); NaN where a run had stopped
    C, R, K = curves.shape
    n, t = spec.n_test, spec.threshold
    per_check = spec.check_every * spec.batch_size * 3
    train = now = exit_ = 0.0
    for c in range(C):
        live = ~np.isnan(curves[c]).all(1)                   # runs still training at this check
        L = int(live.sum())
        if not L:
            continue
        train += L * per_check
        for k in range(K):
            now += L * n
            if c % full_every == 0:
                exit_ += L * n
                continue
            m = curves[c, live, k]
            need = np.where(m > t, np.ceil(n * t / np.maximum(m, 1e-30) / eval_batch), math.ceil(n / eval_batch))
            exit_ += L * min(n, int(need.max()) * eval_batch)
    return train, now, exit_


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", action="store_true", help="a GPU's eval_batch (1000) instead of the CPU's (1000 // runs)")
    ap.add_argument("--full-every", type=int, default=10, help="checks kept whole for the learning curves (default 10)")
    args = ap.parse_args(argv)
    P, results = stored("sample_complexity")
    flops = defaultdict(lambda: np.zeros(3))                  # (panel, model) -> (train, eval now, eval with exit)
    for p in points(P):
        spec = p.spec
        if p.label[0][0] not in PANELS:
            continue                                          # Figure 1 only (not the wide sweep or the attention point)
        rec = results[p.label[0]]["result"]
        D = spec.d + 2 * qstr.embed_dim_rule(spec.N, spec.d_e_rule)
        f = models.forward_flops(spec.model, spec.N, D, spec.d, P[WIDTH[spec.model]])
        R = 1 if hasattr(spec, "run") else spec.n_seeds
        eb = 1000 if args.gpu else max(1, 1000 // R)
        flops[spec.panel, spec.model] += f * np.array(point_forwards(spec, rec, eb, args.full_every))
    print(f"eval_batch: {'1000 (GPU)' if args.gpu else '1000 // runs (CPU)'}; full evaluation every "
          f"{args.full_every}th check; FLOPs from the stored curves of Figure 1's paper points (all task draws)")
    print(f"{'panel':<6}{'model':<13}{'eval share':>11}{'eval saved':>12}{'total saved':>13}{'TFLOP now':>11}")
    total = np.zeros(3)
    for (panel, model), (tr, now, ex) in sorted(flops.items()):
        total += (tr, now, ex)
        print(f"{panel:<6}{model:<13}{now / (tr + now):>11.0%}{1 - ex / now:>12.0%}{(now - ex) / (tr + now):>13.0%}"
              f"{(tr + now) / 1e12:>11.1f}")
    tr, now, ex = total
    print(f"{'all':<19}{now / (tr + now):>11.0%}{1 - ex / now:>12.0%}{(now - ex) / (tr + now):>13.0%}"
          f"{(tr + now) / 1e12:>11.1f}")


if __name__ == "__main__":
    main()
