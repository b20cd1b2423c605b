"""The critical width of the rnn_norm_growth phase diagram, with what censoring leaves of it: per (architecture,
task, N) the median best test MSE per width, each run's end (lib.chapters.rnn_norm_growth.train.STATUS), d_h* with
its interval, the slope of d_h*(N) and its censoring-aware range; and the count of runs by how they ended. Read by
the page (its tables and claims) and its figures; no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> e = phase_table(P, results)[("gru", "1str")]; e["dstar"].round(1), round(e["slope_min"], 2)   # d_h*(N = 4, 8, 16)
    (array([ 3.9,  8. , 16. ]), 1.02)
"""
from __future__ import annotations

import numpy as np

from lib.chapters.rnn_norm_growth.compute import TASKS
from lib.core.store import result_array
from lib.science.stats import BELOW_GRID, log_crossing, loglog_slope


def critical_width(widths, mse, threshold: float) -> float:
    """The width at which the median best test MSE first drops to `threshold` (interpolated in log width), NaN if
    no width gets there; the smallest width if it is there already (width_bounds then gives d* the interval
    (0, widths[0]])."""
    c = log_crossing(widths, mse, threshold)
    return float(widths[0]) if c == BELOW_GRID else c


def width_bounds(widths, median, decided_no, threshold: float) -> tuple[float, float, float]:
    """(estimate, lo, hi): the critical width from the median best MSE per width (`critical_width`), and the
    interval (lo, hi] its censoring leaves. Where the width just below the crossing was decided (each of its runs
    reached or plateaued, and their median is above the threshold), the estimate stands: lo = hi = estimate.
    Otherwise (some of its runs were cut off by the cap, undecided) d* may lie lower, down to the widest decided
    width below the crossing (lo, 0 if none). At the floor of the grid (its smallest width reaches) lo = 0: d* is
    at most that width; where no width reaches, hi = inf and lo is the widest decided width."""
    est = critical_width(widths, median, threshold)
    below = np.flatnonzero(np.asarray(median) <= threshold)
    j = int(below[0]) if len(below) else len(widths)
    if 0 < j < len(widths) and decided_no[j - 1]:
        return est, est, est
    lo = max([float(widths[k]) for k in range(j) if decided_no[k]], default=0.0)
    return est, lo, est if np.isfinite(est) else float("inf")


def slope_range(N, lo, hi) -> tuple[float, float]:
    """The smallest and largest least-squares slope of log d* against log N over every d*(N) in [lo, hi]: a
    censored value (lo = 0 or hi = inf) that could tilt the fit without limit makes that end infinite. The fit is
    linear in log d*, so each end puts every d* at the end of its interval that tilts the slope that way."""
    x = np.log(np.asarray(N, float))
    w = x - x.mean()
    with np.errstate(divide="ignore"):
        ylo, yhi = np.log(np.asarray(lo, float)), np.log(np.asarray(hi, float))
    tilt = lambda down: sum(0.0 if wi == 0 else wi * (a if (wi > 0) == down else b)
                            for wi, a, b in zip(w, ylo, yhi)) / float(np.sum(w ** 2))
    return float(tilt(True)), float(tilt(False))


def phase_table(P: dict, results: dict) -> dict:
    """{(arch, task): {"N", "median" (len N, len widths), "reached" (fraction of seeds), "status" (len N, widths,
    seeds: train.STATUS codes), "dstar", "lo", "hi", "slope" (fit of the estimates), "slope_min", "slope_max"
    (`slope_range`), "censored" (runs undecided at the cap)}}."""
    out = {}
    Ns, W, S = sorted(P["phase_N"]), len(P["widths"]), P["n_seeds"]
    for arch in P["archs"]:
        for task in TASKS:
            med, frac, status, bounds = [], [], [], []
            for N in Ns:
                rec = results["phase"][(arch, task, N)]
                best = result_array(rec, "best_mse").reshape(W, S)
                st = result_array(rec, "status").reshape(W, S)
                med.append(np.median(best, 1))
                frac.append((st == 0).mean(1))
                status.append(st)
                # a width is decided where every run ended by itself (reached or plateaued): its median is then
                # final, so a median above the threshold says no; a run cut off by the cap leaves it open
                decided_no = (st != 2).all(1) & (med[-1] > P["threshold"])
                bounds.append(width_bounds(P["widths"], med[-1], decided_no, P["threshold"]))
            dstar, lo, hi = (np.array(v) for v in zip(*bounds))
            smin, smax = slope_range(Ns, lo, hi)
            out[(arch, task)] = {"N": Ns, "median": np.array(med), "reached": np.array(frac), "status": np.array(status),
                                 "dstar": dstar, "lo": lo, "hi": hi, "slope": loglog_slope(Ns, dstar),
                                 "slope_min": smin, "slope_max": smax, "censored": int((np.array(status) == 2).sum())}
    return out


def budget_summary(P: dict, results: dict) -> dict:
    """Over every run of the phase diagram: how many reached the threshold, plateaued above it or were censored at
    the cap, the cap, the samples of the slowest run that reached the threshold and their fraction of the cap."""
    recs = [results["phase"][(a, t, N)] for a in P["archs"] for t in TASKS for N in P["phase_N"]]
    status = np.concatenate([result_array(r, "status") for r in recs])
    samples = np.concatenate([result_array(r, "samples") for r in recs])
    slowest = float(np.nanmax(samples)) if np.isfinite(samples).any() else float("nan")
    return {"runs": int(status.size), "reached": int((status == 0).sum()), "plateau": int((status == 1).sum()),
            "censored": int((status == 2).sum()), "cap": int(P["max_samples"]), "slowest": slowest,
            "ratio": slowest / P["max_samples"]}


BOOT_DRAWS = 1000    # seed resamples behind the spread of a d* slope (`slope_bootstrap`)


def slope_bootstrap(P: dict, results: dict, arch: str, task: str, draws: int = BOOT_DRAWS, seed: int = 0) -> np.ndarray:
    """The slope of d*(N) through the estimates, recomputed on `draws` resamples of the seeds (with replacement,
    independently per width and N: every run is its own initialisation and data stream): its spread is the noise
    three seeds leave in the slope. A resample where some N has no crossing gives NaN. Fixed seed: a verdict read
    from it is the same on every rerun of the page.

        >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")
        >>> round(float(np.nanstd(slope_bootstrap(P, results, "gru", "simple"))), 2)
        0.21
    """
    rng = np.random.default_rng(seed)
    Ns, W, S = sorted(P["phase_N"]), len(P["widths"]), P["n_seeds"]
    best = [result_array(results["phase"][(arch, task, N)], "best_mse").reshape(W, S) for N in Ns]
    med = [np.median(np.take_along_axis(b[None], rng.integers(0, S, (draws, W, S)), 2), 2) for b in best]
    x = np.log(np.asarray(Ns, float))
    w = (x - x.mean()) / float(np.sum((x - x.mean()) ** 2))
    dstar = np.stack([critical_widths(P["widths"], m, P["threshold"]) for m in med], 1)      # (draws, len N)
    return np.log(dstar) @ w                    # the least-squares slope; NaN where a d* is NaN


def critical_widths(widths, mse, threshold: float) -> np.ndarray:
    """`critical_width` of every row of mse (rows, widths) at once (the same interpolation in log width).

        >>> critical_widths([1, 2, 4], [[0.9, 0.5, 0.2], [0.2, 0.1, 0.1]], 0.3)   # the second row is below at once
        array([3.1748021, 1.       ])
    """
    x, y = np.log(np.asarray(widths, float)), np.asarray(mse, float)
    below = y <= threshold
    j = np.where(below.any(1), below.argmax(1), -1)
    out = np.full(len(y), np.nan)
    out[j == 0] = float(widths[0])
    k = np.flatnonzero(j > 0)
    a, b = y[k, j[k] - 1], y[k, j[k]]
    out[k] = np.exp(x[j[k] - 1] + (a - threshold) / (a - b) * (x[j[k]] - x[j[k] - 1]))
    return out
