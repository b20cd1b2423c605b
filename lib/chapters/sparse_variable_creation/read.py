"""Readers of the sparse_variable_creation points: the success table, the critical sample size m* with its bootstrap
and its censoring (a T without m* in the grid is a bound, never dropped), the fits of m* against T, the weight norms,
the parity transitions and the least query scale. Page-side: no computation imports this module.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> bounds(results)  # {T: (lo, hi)}: m* where the grid has one, else (largest m, inf)
    {100: (75.0, 75.0), 200: (100.0, 100.0), 400: (200.0, inf)}
"""
from __future__ import annotations

import math

import numpy as np

from lib.science.stats import loglog_slope

EXACT_TOL = 1e-9
ANCHOR_T = 400           # Fig. 2 right: the T at which the paper shows m = 100 overfitting and m = 200 generalising
BOOTSTRAPS = 50          # the paper's bootstrap samples for the critical sample size
PAPER_T = "the paper's T from 100 to 800 (paper profile): at small T the constants, not the growth, set the critical sample size"
# The paper's own grid and settings (App. C.1, C.2), against which a profile's omissions are listed.
PAPER = {"and_T": [100, 150, 200, 250, 300, 350, 400, 500, 600, 700, 800], "and_m": list(range(50, 201, 10)),
         "and_trials": 50, "and_iters": 1000, "eval_every": 10, "n_val": 10000, "d_model": 64, "heads": 16,
         "dropout": 0.1, "embd_dropout": True, "lr": 1e-3, "weight_decay": 1e-4, "parity_T": [10, 15, 20],
         "parity_trials": 10, "parity_iters": 10000, "parity_batch": 2048}
NORMS = ("capacity", "qk_norm", "v_norm", "pos_norm")


def and_table(results: dict) -> dict:
    """{T: {"m": sorted ms, "success": (n_m, trials) bool array}} from the stored points."""
    out = {}
    for T, rec in sorted(results.get("and", {}).items()):
        r = rec["result"]
        m, s = np.array(r["m"]), np.array(r["success"], bool)
        ms = sorted(set(m.tolist()))
        out[T] = {"m": ms, "success": np.stack([s[m == v] for v in ms])}
    return out


def critical_m(ms, success: np.ndarray) -> float:
    """The smallest m whose success fraction exceeds 1/2 (NaN if none)."""
    frac = success.mean(1)
    above = np.flatnonzero(frac > 0.5)
    return float(ms[above[0]]) if len(above) else float("nan")


def critical_with_se(ms, success: np.ndarray, seed: int = 0) -> tuple[float, float]:
    """m* and its bootstrap standard error (trials resampled within every m, BOOTSTRAPS times)."""
    rng = np.random.default_rng(seed)
    n = success.shape[1]
    boots = [critical_m(ms, np.take_along_axis(success, rng.integers(0, n, success.shape), 1)) for _ in range(BOOTSTRAPS)]
    boots = np.array(boots)
    return critical_m(ms, success), float(np.nanstd(boots, ddof=1)) if np.isfinite(boots).sum() > 1 else float("nan")


def criticals(results: dict) -> dict:
    return {T: critical_with_se(np.array(t["m"]), t["success"], seed=T) for T, t in and_table(results).items()}


def bounds(results: dict) -> dict:
    """{T: (lo, hi)}: m* where the grid has one (lo = hi), else censored: m* exceeds the largest m (hi = inf)."""
    out = {}
    for T, t in and_table(results).items():
        m = critical_m(np.array(t["m"]), t["success"])
        out[T] = (m, m) if np.isfinite(m) else (float(t["m"][-1]), math.inf)
    return out


def mstar_text(b: dict) -> str:
    """The bounds of m* (`bounds`) as the page writes them: "75, 100, > 200"."""
    return ", ".join(f"{lo:.0f}" if np.isfinite(hi) else f"> {lo:.0f}" for lo, hi in b.values())


def attention_on_planted(results: dict, min_T: int = 11) -> dict:
    """{T: (mean, SE, top3)} over the successful trials at every T >= min_T with one: the [CLS] attention mass on the
    planted bits (averaged over heads and samples by run_and), its standard error over trials (NaN for one trial),
    and per success whether the three positions weighed most are the planted ones."""
    out = {}
    for T, rec in sorted(results.get("and", {}).items()):
        r = rec["result"]
        s = np.array(r["success"], bool)
        if T >= min_T and s.any():
            a = np.array(r["planted_attention"])[s]
            se = float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else float("nan")
            out[T] = (float(a.mean()), se, np.array(r["top3_is_planted"], bool)[s].tolist())
    return out


def slope_range(x, lo, hi) -> tuple[float, float]:
    """The smallest and largest least-squares slope of y on x over every y in [lo, hi] (a censored y has hi = inf,
    and where it can tilt the slope without limit that end is infinite)."""
    w = np.asarray(x, float) - np.mean(x)
    tilt = lambda down: sum(0.0 if wi == 0 else wi * (a if (wi > 0) == down else b) for wi, a, b in zip(w, lo, hi))
    return float(tilt(True) / np.sum(w ** 2)), float(tilt(False) / np.sum(w ** 2))


def censored_T(results: dict) -> list[int]:
    return [T for T, (lo, hi) in bounds(results).items() if not np.isfinite(hi)]


def fits(results: dict) -> dict:
    """Least-squares fits of m* against ln T and against T (two parameters each), their residual sums of squares,
    and the power-law exponent of m* in T with its censoring-aware range and bootstrap SE. A T without m* in the grid
    is never dropped: it enters at its bound (the largest m) in the point fits, which are then lower-bound fits, and
    with hi = inf in the range."""
    b = bounds(results)
    if len(b) < 3:
        return {}
    T = np.array(list(b), float)
    lo, hi = np.array([v[0] for v in b.values()]), np.array([v[1] for v in b.values()])
    out = {}
    for name, x in (("log", np.log(T)), ("linear", T)):
        coef = np.polyfit(x, lo, 1)
        out[name] = {"a": float(coef[1]), "b": float(coef[0]), "rss": float(np.sum((np.polyval(coef, x) - lo) ** 2))}
    out["exponent"] = loglog_slope(T, lo)
    with np.errstate(divide="ignore"):
        out["exp_min"], out["exp_max"] = slope_range(np.log(T), np.log(lo), np.log(hi))
    out["exp_se"] = exponent_se(results)
    out["ratio"] = float(lo[-1] / lo[0])
    out["T"] = (int(T[0]), int(T[-1]))
    out["censored"] = censored_T(results)
    return out


def exponent_se(results: dict, seed: int = 0) -> float:
    """Bootstrap SE of the power-law exponent of m* in T (trials resampled within every (T, m), BOOTSTRAPS times;
    a resample with a T censored enters at its bound, as in `fits`)."""
    rng, tab = np.random.default_rng(seed), and_table(results)
    T = np.array(list(tab), float)
    slopes = []
    for _ in range(BOOTSTRAPS):
        ms = []
        for t in tab.values():
            s = t["success"]
            m = critical_m(np.array(t["m"]), np.take_along_axis(s, rng.integers(0, s.shape[1], s.shape), 1))
            ms.append(m if np.isfinite(m) else t["m"][-1])
        slopes.append(loglog_slope(T, ms))
    return float(np.std(slopes, ddof=1))


def floor_bits(T: int) -> float:
    return math.log2(math.comb(T, 3))


def norm_table(results: dict) -> dict:
    """{T: {norm: (successes' median, failures' median)}} of the trained weights' norms (compute.weight_norms), and
    per norm the log-log slope in T of the successes' median, with T and its medians under "slope"."""
    out = {}
    for T, rec in sorted(results.get("and", {}).items()):
        r = rec["result"]
        if "capacity" not in r:
            return {}
        s = np.array(r["success"], bool)
        med = lambda v: float(np.median(v)) if len(v) else float("nan")
        out[T] = {k: (med(np.array(r[k])[s]), med(np.array(r[k])[~s])) for k in NORMS}
    T = np.array(list(out), float)
    return out | {"slope": {k: loglog_slope(T, [out[int(t)][k][0] for t in T]) for k in NORMS}} if out else {}


def transition(r: dict) -> list[float]:
    """Per seed: the first logged iteration at which the online batch accuracy reaches 0.99 (NaN: never)."""
    out = []
    for acc in r["acc"]:
        hit = np.flatnonzero(np.array(acc) >= 0.99)
        out.append(float(r["iters_logged"][hit[0]]) if len(hit) else float("nan"))
    return out


def minimal_R_fit(results: dict) -> dict:
    rows = results["exact"]["result"]["minimal_R"]
    x, y = np.log([r["T"] for r in rows]), np.array([r["R_min"] for r in rows])
    coef = np.polyfit(x, y, 1)
    r2 = 1 - np.sum((np.polyval(coef, x) - y) ** 2) / np.sum((y - y.mean()) ** 2)
    return {"slope": float(coef[0]), "intercept": float(coef[1]), "r2": float(r2)}
