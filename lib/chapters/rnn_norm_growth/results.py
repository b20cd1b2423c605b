"""Reading the rnn_norm_growth points (lib.chapters.rnn_norm_growth.compute) into the tables and fits that the claim
rows (claims/) and the figures use. The phase diagram: per (architecture, task, N) the median best test MSE per width,
each run's end (experiments.phase.STATUS), the critical width d_h* with the interval censoring leaves of it, the slope
of d_h*(N) and its censoring-aware range and seed bootstrap, the count of runs by how they ended. Beyond it: the norm
table with its fits, the packing geometry, the A.2 fit, the memoriser's fit and its crossover with the trained runs.
Last, the page's tables of these numbers that need no claim row (packing, crossover) and the cells where a phase
diagram stops (`unreached_cells`, `unreached_markdown`) and the phase table (`phase_markdown`, d_h* written as the
claim rows write it, `dstar_text`). Page-side: no computation imports this module.

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> e = phase_table(P, results)[("gru", "1str")]; e["dstar"].round(1), round(e["slope_min"], 2)   # d_h*(N = 4, 8, 16)
    (array([ 3.9,  8. , 16. ]), 1.02)
    >>> nt = norm_table(P, results)["1str"]; round(nt["lipr_slope"], 2), round(nt["lipr_se"], 2)
    (0.56, 0.16)
    >>> [(c["arch"], c["task"], c["N"]) for c in unreached_cells(P, results)]   # where a diagram stops
    [('elman', '1str', 16)]
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rnn_norm_growth.compute import TASKS
from lib.core.store import result_array
from lib.core.tables import markdown_table
from lib.science.stats import BELOW_GRID, log_crossing, loglog_slope

LABELS = {"gru": "bidirectional GRU", "elman": "bidirectional Elman RNN, readout $U$",
          "1str": "1STR", "simple": "simple-1STR"}


def runs_per_width(P: dict, rec: dict) -> int:
    """A phase point's runs per width, read from its lists, not n_seeds (a power world may draw k times the seeds)."""
    return len(rec["result"]["samples"]) // len(P["widths"])


def widest(P: dict, rec: dict, field: str) -> np.ndarray:
    """A per-run field of a phase point (width-major) at its widest width; no runs where rec is None (not trained)."""
    return result_array(rec, field)[-runs_per_width(P, rec):] if rec is not None else np.zeros(0)


def unlearned(P: dict, results: dict, task: str, arch: str = "elman") -> list:
    """The chapter's one rule for an N whose networks did not learn: the N of the profile at which no widest run of
    `arch` on `task` reached the threshold. Every number a claim row reads from the widest runs there is unknown
    (their geometry is that of networks that never learned; they have no value at the threshold)."""
    return [N for N in sorted(P["phase_N"]) if not np.isfinite(widest(P, results["phase"][(arch, task, N)], "samples")).any()]


# =================================================================================================== the phase diagram
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
    seeds: experiments.phase.STATUS codes), "dstar", "lo", "hi", "slope" (fit of the estimates), "slope_min", "slope_max"
    (`slope_range`), "censored" (runs undecided at the cap)}}."""
    out = {}
    Ns, W = sorted(P["phase_N"]), len(P["widths"])
    for arch in P["archs"]:
        for task in TASKS:
            med, frac, status, bounds = [], [], [], []
            for N in Ns:
                rec = results["phase"][(arch, task, N)]
                best = result_array(rec, "best_mse").reshape(W, -1)
                st = result_array(rec, "status").reshape(W, -1)
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
                                 "slope_min": smin, "slope_max": smax,
                                 "censored": int(sum((st == 2).sum() for st in status))}
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
    Ns, W = sorted(P["phase_N"]), len(P["widths"])
    best = [result_array(results["phase"][(arch, task, N)], "best_mse").reshape(W, -1) for N in Ns]
    med = [np.median(np.take_along_axis(b[None], rng.integers(0, b.shape[1], (draws, *b.shape)), 2), 2) for b in best]
    x = np.log(np.asarray(Ns, float))
    w = (x - x.mean()) / float(np.sum((x - x.mean()) ** 2))
    dstar = np.stack([critical_widths(P["widths"], m, P["threshold"]) for m in med], 1)      # (draws, len N)
    return np.log(dstar) @ w                    # the least-squares slope; NaN where a d* is NaN


def boot_se(draws) -> float:
    """The sd of a bootstrap's finite draws; NaN where fewer than half are finite (most resamples lack a d*)."""
    ok = np.isfinite(draws)
    return float(np.std(draws[ok], ddof=1)) if ok.mean() >= 0.5 else math.nan


def contrast_numbers(P: dict, results: dict, arch: str) -> dict:
    """The contrast rows' numbers: each task's slope entry of phase_table, the smallest and largest difference of the
    slopes (1STR minus simple-1STR) the censoring allows ("lo", "hi"), the bootstrap SE of the difference at the
    estimates ("se", NaN where fewer than half the resamples have a crossing at every N)."""
    t = phase_table(P, results)
    a, b = t[(arch, "1str")], t[(arch, "simple")]
    with np.errstate(invalid="ignore"):
        lo, hi = a["slope_min"] - b["slope_max"], a["slope_max"] - b["slope_min"]
        diff = slope_bootstrap(P, results, arch, "1str", seed=1) - slope_bootstrap(P, results, arch, "simple", seed=2)
    # inf - inf: both slopes unbounded the same way, so their difference is unbounded both ways
    lo, hi = (-math.inf if np.isnan(lo) else float(lo)), (math.inf if np.isnan(hi) else float(hi))
    return {"1str": a, "simple": b, "lo": lo, "hi": hi, "se": boot_se(diff)}


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


# =============================================================== beyond the phase diagram: norms, packing, A.2, memoriser
def _loglog_fit(x, y) -> tuple[float, float]:
    """Least-squares slope of log y on log x over runs, and its standard error (NaN with fewer than 3 runs)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(set(x)) < 2:
        return float("nan"), float("nan")
    A = np.c_[np.log(x), np.ones(len(x))]
    coef, *_ = np.linalg.lstsq(A, np.log(y), rcond=None)
    se = float("nan")
    if len(x) > 2:
        s2 = float(np.sum((np.log(y) - A @ coef) ** 2) / (len(x) - 2))
        se = float(math.sqrt(s2 / np.sum((np.log(x) - np.log(x).mean()) ** 2)))
    return float(coef[0]), se


def norm_table(P: dict, results: dict) -> dict:
    """Elman runs of the widest width that reached the threshold: (L ||U|| r_h)^2 per N and task, and the fit
    (slope and its standard error); also the samples those runs took to reach the threshold, and their slope; on
    1STR the fixed-accuracy quantity (Lip rad)^2 (experiments.phase.lipschitz_on_states: the readout's Lipschitz constant on
    the states it sees times their radius) with its fit ("lipr", "lipr_slope", "lipr_se")."""
    out = {}
    for task in TASKS:
        Ns, vals, steps, lipr = [], [], [], []
        for N in sorted(P["phase_N"]):
            rec = results["phase"].get(("elman", task, N))
            v, n = widest(P, rec, "product_sq"), widest(P, rec, "samples")
            ok = np.isfinite(n)
            Ns += [N] * int(ok.sum())
            vals += list(v[ok])
            steps += list(n[ok])
            if rec and "pack_lipr_sq" in rec["result"]:
                lipr += list(result_array(rec, "pack_lipr_sq")[ok])
        Ns, vals = np.array(Ns, float), np.array(vals, float)
        slope, se = _loglog_fit(Ns, vals)
        out[task] = {"N": Ns, "value": vals, "slope": slope, "se": se, "samples": np.array(steps, float),
                     "samples_slope": float(np.polyfit(np.log(Ns), np.log(steps), 1)[0]) if len(set(Ns)) >= 2 else float("nan")}
        if len(lipr) == len(Ns):
            out[task]["lipr"] = np.array(lipr, float)
            out[task]["lipr_slope"], out[task]["lipr_se"] = _loglog_fit(Ns, lipr)
    return out


def norm_unknown(P: dict, results: dict) -> dict:
    """The N of the profile where the widest Elman runs on 1STR leave (Lip rad)^2 at the threshold unknown: "none"
    where no widest run reached the threshold (`unlearned`), "cut" where some of those that did not were cut off by
    the cap (a run that plateaued above it has no such value; one cut off might still get there, at any value). An
    unknown value at one N lets the log-log slope over the profile's N take any value: the norm rows read censored."""
    none = unlearned(P, results, "1str")
    cut = [N for N in sorted(P["phase_N"]) if N not in none and (widest(P, results["phase"][("elman", "1str", N)],
                                                                        "status") == 2).any()]
    return {"none": none, "cut": cut}


def packing_table(P: dict, results: dict) -> dict:
    """Per task: N, participation ratio (mean over the widest runs) and its log-log slope, the N at which none of
    those runs reached the threshold ("unlearned"); on 1STR the Phi distances."""
    out = {}
    for task in TASKS:
        Ns = sorted(P["phase_N"])
        recs = [results["phase"][("elman", task, N)] for N in Ns]
        pr = np.array([result_array(r, "pack_pr").mean() for r in recs])
        e = {"N": Ns, "pr": pr, "slope": loglog_slope(Ns, pr),
             "best": np.array([widest(P, r, "best_mse").mean() for r in recs]),
             "unlearned": unlearned(P, results, task)}
        if task == "1str":
            e |= {k: np.array([result_array(r, f"pack_{k}").mean() for r in recs])
                  for k in ("dist_median", "g_dist_median", "phi_mse")}
        out[task] = e
    return out


def a2_fit(results: dict) -> dict:
    """alpha*(N), its stored fit against ln N (a2.compare_fits) and R^2; NaN under two N (one point fits no line)."""
    alpha = np.array((r := results["a2"]["result"])["alpha_star"], float)
    fit = r["compare"]["fits"]["ln N"] if len(set(r["N"])) > 1 else dict.fromkeys(("slope", "intercept", "rss"), math.nan)
    r2 = 1 - fit["rss"] / spread if (spread := float(((alpha - alpha.mean()) ** 2).sum())) > 0 else math.nan
    return {"N": np.array(r["N"], float), "alpha": alpha, "slope": fit["slope"], "intercept": fit["intercept"], "r2": r2}


def memoriser_fit(results: dict) -> dict:
    """The memoriser's ||vec Theta||^2 against n: every draw, the median over draws, its log-log slope and the
    least-squares line log y = slope log n + intercept; the same for the optimally rescaled interpolant."""
    r = results["memoriser"]["result"]
    n = np.array(r["n"], float)
    # each training error against the rounding bound sqrt(K) u R_i of a sum of K = n + D terms of size R_i
    out = {"n": n, "rounding": np.array(r["rounding_ratio"], float) / np.sqrt(n + r["D"])[:, None]}
    for key, name in (("theta_sq", ""), ("norm_sq_balanced", "balanced_")):
        vals = np.array(r[key], float)
        med = np.median(vals, 1)
        slope, icpt = np.polyfit(np.log(n), np.log(med), 1)
        out |= {f"{name}all": vals, f"{name}median": med, f"{name}slope": float(slope), f"{name}intercept": float(icpt)}
    return out


def crossover_table(P: dict, results: dict, fit: dict | None = None) -> dict:
    """Per N, the widest Elman runs on 1STR that reached the threshold: the lower bound of Thm 9's proof on the
    ||vec Theta||^2 of a network that generalises, L_y (L^2 ||U||^2)^(1/L_y) with L_y = 2 in the theorem's
    normalisation r_h = 1 (which moves r_h into U: 2 L ||U||_op r_h), and their measured ||vec Theta||^2; the median
    of each over runs, and n*, the n at which the memoriser's fitted ||vec Theta||^2 reaches it (NaN with no runs);
    the log-log slopes of the bound and of its n* against N. `fit`: memoriser_fit(results), if already computed."""
    fit = fit or memoriser_fit(results)
    n_at = lambda g: float(np.exp((np.log(g) - fit["intercept"]) / fit["slope"])) if np.isfinite(g) else float("nan")
    out = {k: [] for k in ("N", "runs", "bound", "theta_sq", "n_bound", "n_theta")}
    for N in sorted(P["phase_N"]):
        rec = results["phase"].get(("elman", "1str", N))
        ok = np.isfinite(widest(P, rec, "samples"))
        bound = 2 * np.sqrt(widest(P, rec, "product_sq")[ok])
        theta_sq = widest(P, rec, "theta")[ok] ** 2
        med = lambda v: float(np.median(v)) if len(v) else float("nan")
        out["N"].append(N)
        out["runs"].append(int(ok.sum()))
        out["bound"].append(med(bound))
        out["theta_sq"].append(med(theta_sq))
        out["n_bound"].append(n_at(out["bound"][-1]))
        out["n_theta"].append(n_at(out["theta_sq"][-1]))
    out = {k: np.array(v) for k, v in out.items()}
    return out | {"bound_slope": loglog_slope(out["N"], out["bound"]), "n_bound_slope": loglog_slope(out["N"], out["n_bound"])}


# ================================================================================== the page's tables of stored numbers
def dstar_text(e: dict) -> str:
    """d* per N as measured (an entry of phase_table): the estimate; "≤ w" at the floor of the grid, "lo to w" below
    an undecided width, "> w" where no width reaches."""
    def one(v, lo, hi):
        if not np.isfinite(hi):
            return f"> {lo:g}" if lo > 0 else "none"
        if lo == hi:
            return f"{v:.1f}"
        return f"≤ {hi:.1f}" if lo == 0 else f"{lo:g} to {hi:.1f}"
    return ", ".join(one(*t) for t in zip(e["dstar"], e["lo"], e["hi"]))


def signed(v: float) -> str:
    return "+∞" if v == math.inf else "−∞" if v == -math.inf else f"{v:+.2f}"


def slope_interval(e: dict, fmt=signed) -> str:
    """A d* slope's censoring-aware range, "[+0.98, +∞]"; the one value where nothing is censored."""
    lo, hi = fmt(e["slope_min"]), fmt(e["slope_max"])
    return lo if lo == hi else f"[{lo}, {hi}]"


def phase_markdown(P: dict, results: dict) -> str:
    """The critical width d_h*(N) of every architecture and task, the runs censored at the cap, the fitted slope and
    its censoring-aware range.

        >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")
        >>> print(phase_markdown(P, results).splitlines()[0][:43])
        | architecture | task | $d_h^*$ ($N$ = 4) |
    """
    table = phase_table(P, results)
    Ns = table[(P["archs"][0], "1str")]["N"]
    fmt = lambda v: "∞" if v == math.inf else ("−∞" if v == -math.inf else f"{v:.2f}")
    return markdown_table(["architecture", "task", *(f"$d_h^*$ ($N$ = {N})" for N in Ns), "runs censored", "slope",
                           "slope range (censoring)"],
                          [[arch, LABELS[task], *dstar_text(e).split(", "), e["censored"], f"{e['slope']:.2f}",
                            slope_interval(e, fmt)] for (arch, task), e in table.items()])


def packing_markdown(P: dict, results: dict) -> str:
    """Per N: the participation ratios, the distances of Phi and of the labels, Phi's MSE and the best test MSE."""
    pk = packing_table(P, results)
    e = pk["1str"]
    return markdown_table(["$N$", "PR, 1STR", "PR, simple-1STR", r"median distance of $\Phi$", "of the labels",
                           r"MSE of $\Phi$ against $\mathbf g$", "best test MSE (1STR)"],
                          [[N, f"{e['pr'][i]:.1f}", f"{pk['simple']['pr'][i]:.1f}", f"{e['dist_median'][i]:.2f}",
                            f"{e['g_dist_median'][i]:.2f}", f"{e['phi_mse'][i]:.2f}", f"{e['best'][i]:.2f}"]
                           for i, N in enumerate(e["N"])])


def crossover_markdown(cx: dict) -> str:
    """The crossover table of `crossover_table`: per N, the generalising runs' norms and the memoriser's n*."""
    fmt = lambda v, f: format(v, f) if np.isfinite(v) else "no run"
    return markdown_table(["$N$", "runs at the threshold", r"lower bound $2\mathfrak L\lVert U\rVert_{op} r_h$",
                           r"measured $\lVert\mathrm{vec}\,\Theta\rVert^2$", "$n^*$ (bound)", "$n^*$ (measured)"],
                          [[N, cx["runs"][i], fmt(cx["bound"][i], ".0f"), fmt(cx["theta_sq"][i], ".0f"),
                            fmt(cx["n_bound"][i], ".1f"), fmt(cx["n_theta"][i], ".1f")] for i, N in enumerate(cx["N"])])


def unreached_cells(P: dict, results: dict) -> list[dict]:
    """The (architecture, task, N) of the phase diagram at which no run of any width reached the threshold: there the
    diagram of that architecture and task stops at the N below. Each with its runs, how many were cut off by the
    cap, the best test MSE any of them reached and at which width, and the point's wall time."""
    out = []
    for arch in P["archs"]:
        for task in ("1str", "simple"):
            for N in sorted(P["phase_N"]):
                rec = results["phase"][(arch, task, N)]
                status, best = result_array(rec, "status"), result_array(rec, "best_mse")
                if (status == 0).any():
                    continue
                k = int(np.argmin(best))
                out.append({"arch": arch, "task": task, "N": N, "runs": int(status.size), "cut": int((status == 2).sum()),
                            "best": float(best[k]), "width": int(P["widths"][k // runs_per_width(P, rec)]),
                            "wall_s": float(rec["result"].get("wall_s", np.nan)),
                            "below": [n for n in sorted(P["phase_N"]) if n < N]})
                break                                       # the diagram stops at the first such N
    return out


def unreached_markdown(P: dict, results: dict) -> str:
    """A sentence per cell of `unreached_cells` (where a diagram stops, and why), or one that says none stops."""
    return "\n".join(
        f"The {LABELS[c['arch']].split(',')[0]} on {LABELS[c['task']]} stops at $N$ = "
        f"{max(c['below'], default='none')} in this run: at $N$ = {c['N']} none of its {c['runs']} runs reached the "
        f"threshold {P['threshold']} ("
        + (f"all cut off by the cap of {P['max_samples']:,} samples" if c["cut"] == c["runs"] else
           f"{c['cut']} cut off by the cap of {P['max_samples']:,} samples, the others plateaued above it")
        + "); the best test MSE any of them reached was "
        f"{c['best']:.2f} (width {c['width']}). The cap is part of every point of the diagram, so a larger one "
        f"recomputes all of them, and this point alone, which took {c['wall_s']:,.0f} s, grows with the cap."
        for c in unreached_cells(P, results)) or "In this run every diagram reaches the threshold at every $N$."
