"""Part C's stored training runs read into numbers: one row per run with the fitter's optimum for the same family,
window and H (`train_table`), the training floor measured from the lin runs' own precision (`training_floor`), what
each run can be asked to reach (`reachable`), and the page's table and summary of them. Claims 14a and 14b
(claims/train.py) judge these numbers.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> rows = train_table(results); len(rows) == sum(len(r["result"]["runs"]) for r in results["train"].values())
    True
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rpe_decay.experiments.fit import Kernel
from lib.chapters.rpe_decay.experiments.train import FAMILIES, VAR_X
from lib.chapters.rpe_decay.results import errors, fmt, label
from lib.core.tables import markdown_table


def train_table(results: dict) -> list[dict]:
    """One row per training run: kernel, S, family, H, seed, exact MSE, l1, and the VarPro optimum Var(x) E2^2."""
    rows = []
    for (name, S), rec in results["train"].items():
        r, k = rec["result"], Kernel(**rec["spec"]["kernel"])
        optima = {f: errors(results, k, f, float(S), rec["spec"]["H"]) for f in FAMILIES}   # once per sweep, not per run
        for i, (f, H, seed) in enumerate(r["runs"]):
            opt = optima[f].get(H, {})
            rows.append({"kernel": name, "k": k, "S": S, "family": f, "H": H, "seed": seed, "mse": r["mse_exact"][i],
                         "test_mse": r["test_mse"][i], "l1": r["l1"][i], "p": r["p"][i],
                         "opt": VAR_X * opt["l2"] ** 2 if opt.get("l2") is not None else math.nan,
                         "opt_p": opt.get("p"), "opt_alpha": opt.get("alpha")})
    return rows


GROUP = ("kernel", "S", "family", "H")   # a Part C group: its runs differ only by seed
IDENTICAL = 1e-3         # seeds whose log10 MSEs agree within this many decades are one effective run
PRECISION_MARGIN = 100   # a lin run is limited by training's precision where its optimum is this many times below it


def training_floor(rows: list[dict]) -> tuple[float, int]:
    """(floor, n): what float32 AdamW on this run's budget resolves, measured from the lin runs' own precision: the
    median trained MSE of the lin runs whose fitter optimum is at least PRECISION_MARGIN times below their trained MSE
    (their error is training's, not the architecture's), and how many such runs there are; (0.0, 0) if none. No run
    is dropped for it: every run is compared with max(optimum, floor) (`reachable`)."""
    lin = [r["mse"] for r in rows if r["family"] == "lin" and r["opt"] * PRECISION_MARGIN <= r["mse"]]
    return (float(np.median(lin)), len(lin)) if lin else (0.0, 0)


def reachable(row: dict, floor: float) -> float:
    """What a run can be asked to reach: the fitter's optimum, or the training floor where that is higher."""
    return max(row["opt"], floor)


def furthest_from_floor(rows: list[dict]) -> dict | None:
    """The training run with the largest MSE / max(optimum, floor), over every run."""
    floor, _ = training_floor(rows)
    return max(rows, key=lambda r: r["mse"] / reachable(r, floor), default=None)


def training_summary(P: dict, results: dict) -> str:
    """One line per (kernel, S, family, H): trained MSE and test MSE (medians over seeds), the fitter's optimum, the
    training floor where it is higher, and the ratio claim 14b holds to 10 (every run compared, none dropped)."""
    rows = train_table(results)
    if not rows:
        return ""
    floor, n = training_floor(rows)
    lines = []
    for key in sorted({(r["kernel"], r["S"], r["family"], r["H"]) for r in rows}):
        sel = [r for r in rows if (r["kernel"], r["S"], r["family"], r["H"]) == key]
        m, t, o = np.median([r["mse"] for r in sel]), np.median([r["test_mse"] for r in sel]), sel[0]["opt"]
        reach = reachable(sel[0], floor)
        lines.append([label(sel[0]["k"]), *key[1:], fmt(m), fmt(t), fmt(o), fmt(reach), f"{m / reach:.1f}"])
    return (f"The training floor is {fmt(floor)}: the median trained MSE of the {n} lin runs whose optimum is at least "
            f"{PRECISION_MARGIN}× below their own error (what float32 AdamW resolves on this budget).\n\n"
            + markdown_table(["kernel", "$S$", "RPE", "$H$", "trained MSE (median over seeds)",
                              "engine's test MSE (median)", r"optimum $\mathrm{Var}(x)\,E_2^2$",
                              "max(optimum, floor)", "ratio"], lines))


def gap_summary(results: dict) -> str:
    """Where training is furthest from its floor (`furthest_from_floor`, as claim 14b): that run's learned rates next
    to the optimum's rates and values, which says whether the optimum is a combination gradient descent must find."""
    rows = train_table(results)
    w = furthest_from_floor(rows)
    if w is None:
        return ""
    seeds = [r for r in rows if all(r[k] == w[k] for k in ("kernel", "S", "family", "H"))]
    alpha = np.asarray(w["opt_alpha"], float)
    rates = lambda p: "(" + ", ".join(f"{x:.3f}" for x in sorted(p)) + ")"
    cancels = alpha.min() < 0 < alpha.max() and abs(alpha.sum()) < 0.5 * np.abs(alpha).max()
    cancel = (f" Its values have opposite signs and nearly cancel (sum {alpha.sum():.2f} from magnitudes up to "
              f"{np.abs(alpha).max():.2f})." if cancels else "")
    reach = reachable(w, training_floor(rows)[0])
    return (f"The largest gap to what the heads can reach is {label(w['k'])}, {w['family']} RPE, $H$ = {w['H']}, $S$ = "
            f"{w['S']}: trained MSE {fmt(w['mse'])} against max(optimum {fmt(w['opt'])}, floor) = {fmt(reach)} "
            f"({w['mse'] / reach:.0f}x). The trained rates p are "
            + "; ".join(rates(r["p"]) for r in seeds) + f" (one seed each); the optimum's are {rates(w['opt_p'])} with values "
            + "(" + ", ".join(f"{a:.3f}" for a in alpha[np.argsort(w["opt_p"])]) + ")." + cancel)


def distinct_exponents(p, rel: float = 0.02) -> int:
    """How many different exponents a run's heads ended at: heads within `rel` (relative) of their neighbour in
    sorted order count as one (merged heads are one head)."""
    q = np.sort(np.asarray(p, float))
    return int(1 + np.sum(q[1:] > q[:-1] * (1 + rel))) if len(q) else 0


def optimum_values(row: dict) -> str:
    """What the fitter's optimum of a training run asks of the values: "" unless they have opposite signs and
    reach above 10 in magnitude (a cancelling combination float32 AdamW does not find)."""
    alpha = np.asarray(row.get("opt_alpha") if row.get("opt_alpha") is not None else [0.0], float)
    if not (alpha.min() < 0 < alpha.max() and np.abs(alpha).max() > 10):
        return ""
    return (f"the fitter's optimum {fmt(row['opt'])} combines values up to {np.abs(alpha).max():.0e} of opposite signs, "
            "which float32 AdamW does not find")


def effective_runs(runs: list) -> int:
    """How many of a group's seeds differ: a seed whose log10 numbers all lie within IDENTICAL decades of an earlier
    seed's is the same run again (the seeds end on one attractor)."""
    kept: list[np.ndarray] = []
    for r in runs:
        v = np.log10(np.maximum(np.atleast_1d(np.asarray(r, float)), 1e-300))
        if not any(np.all(np.abs(v - k) < IDENTICAL) for k in kept):
            kept.append(v)
    return len(kept)


def margin(values, threshold: float, below: bool, stat: str = "worst") -> str:
    """The rule's margin in decades (> 0 on the passing side; `stat`: the worst seed or the median) and in units of the
    sd of log10 over seeds (none where the seeds are identical or one)."""
    lv = np.log10(np.maximum(np.asarray(values, float), 1e-300))
    d = (np.log10(threshold) - lv) if below else (lv - np.log10(threshold))
    m = float(d.min()) if stat == "worst" else float(np.median(d))
    if len(lv) < 2:
        sd, words = 0.0, "one seed"
    else:
        sd = float(lv.std(ddof=1))
        words = f"seeds identical (sd < {IDENTICAL:g} decades)" if sd < IDENTICAL else f"sd {sd:.2f} decades"
    z = f" = {m / sd:+.1f} sd over {len(lv)} seeds ({words})" if sd >= IDENTICAL else f"; {words}"
    return f"margin {m:+.1f} decades" + z


def floor_groups(results: dict):
    """Part C's rows, training floor, its count of runs, and {(kernel, S, family, H): each seed's trained MSE over
    max(optimum, floor)} (every run counts); None without runs."""
    rows = train_table(results)
    if not rows:
        return None
    floor, n = training_floor(rows)
    groups: dict[tuple, list[float]] = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in GROUP), []).append(r["mse"] / reachable(r, floor))
    return rows, floor, n, groups


def beyond_band(results: dict, band: float) -> list[str]:
    """The (kernel, family, H) groups whose median over seeds is beyond `band` (14b's), worst first: the median, what
    its heads can reach, the ratio, and what the fitter's optimum asks of the values."""
    rows, floor, _, groups = floor_groups(results) or ([], 0.0, 0, {})
    out = []
    for key, v in sorted(groups.items(), key=lambda kv: -float(np.median(kv[1]))):
        if float(np.median(v)) <= band:
            continue
        sel = [r for r in rows if tuple(r[k] for k in GROUP) == key]
        values = optimum_values(sel[0])
        out.append(f"{label(sel[0]['k'])}, {key[2]}, $H$ = {key[3]}: {fmt(float(np.median([r['mse'] for r in sel])))} "
                   f"against {fmt(reachable(sel[0], floor))} ({float(np.median(v)):.1f}×)"
                   + (f", where {values}" if values else ""))
    return out
