"""What the rpe_decay page shows from the stored points: the tables and summaries of the page text. The readers of the
stored fits are in read.py, the claim rows in rows.py and the figures in figures.py beside it (their names are
re-exported here, so the page imports one module). It reads results and computes no stored number, so editing it
leaves the chapter's results current (compute.py holds the computation).

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (24, [('1-t5-buckets', True), ('2-allocation', True)])
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rpe_decay.apph_page import apph_findings, apph_numbers, apph_summary
from lib.chapters.rpe_decay.compute import FAMILIES, Kernel, main_kernels, window_of
from lib.chapters.rpe_decay.exact import TABLE1
from lib.chapters.rpe_decay.read import (
    PRECISION_MARGIN,
    errors,
    fmt,
    furthest_from_floor,
    guaranteed_rate,
    heads_needed,
    label,
    point_counts,
    reachable,
    train_table,
    training_floor,
)
from lib.chapters.rpe_decay.rows import BEST, BOOK, ROWS, claims
from lib.core.tables import markdown_table
from lib.science.stats import loglog_slope

__all__ = ["BEST", "BOOK", "PRECISION_MARGIN", "ROWS", "apph_findings", "apph_numbers", "apph_summary", "claims",
           "errors", "findings_markdown", "fmt", "furthest_from_floor", "guaranteed_rate", "heads_needed", "label",
           "partc_findings", "point_counts", "reachable", "train_table", "training_floor"]


# ------------------------------------------------------------------------------------------ page text
def t5_table(results: dict) -> str:
    t5 = results["exact"]["result"]["t5"]
    n = list(range(len(t5)))
    return markdown_table(["$t - s$", *n], [["$-r$ (this page)", *t5], ["$-r$ (Table 1)", *TABLE1]])


def error_table(P: dict, results: dict) -> str:
    """l1 errors of the best H-head kernel, every main kernel, both families."""
    Hs = sorted(set(P["H_grid"]) | {P["rel_bump_H"]})      # the relative bumps are also fitted at rel_bump_H
    rows = []
    for k in main_kernels(P):
        S = window_of(P, k)
        for f in FAMILIES:
            e = errors(results, k, f, S)
            rows.append([label(k), f"{S:.0e}" if S > 1e4 else f"{S:g}", f] + [fmt(e[H]["l1"]) if H in e else ""
                                                                                   for H in Hs])
    return markdown_table(["kernel", "window $S$", "RPE"] + [f"$H$ = {H}" for H in Hs], rows)


def main_summary(P: dict, results: dict) -> str:
    W = float(P["window"])
    out = []
    for b in P["betas"]:
        el, eg = (errors(results, Kernel("power", beta=float(b)), f, W) for f in FAMILIES)
        if 8 in el and 8 in eg:
            out.append(f"$\\beta$ = {b:g}: {fmt(el[8]['l1'])} (lin) against {fmt(eg[8]['l1'])} (log)")
    txt = (f"At $H = 8$ heads on the power laws (window $S$ = {W:.0e}) the best kernels have $\\ell^1$ errors "
           + "; ".join(out) + ". ")
    for t in P["taus"]:
        el, eg = (errors(results, Kernel("exp", tau=float(t)), f, W) for f in FAMILIES)
        if 8 in el:
            txt += (f"On the exponential kernel with $\\tau$ = {t:g} the order is reversed: {fmt(el[8]['l1'])} (lin) "
                    f"against {fmt(eg[8]['l1'])} (log). ")
    return txt


def context_summary(P: dict, results: dict) -> str:
    H0, Ss = P["context_H"], sorted(P["context_windows"])
    parts = []
    for b in P["context_betas"]:
        el = [errors(results, Kernel("power", beta=float(b)), "lin", S).get(H0, {}).get("l1", math.nan) for S in Ss]
        eg = [errors(results, Kernel("power", beta=float(b)), "log", S).get(H0, {}).get("l1", math.nan) for S in Ss]
        parts.append(f"for $\\beta$ = {b:g} the lin error goes from {fmt(el[0])} at $S$ = {Ss[0]:g} to {fmt(el[-1])} at "
                     f"$S$ = {Ss[-1]:.0e} (×{el[-1] / el[0]:.0f}), while the log error stays between {fmt(min(eg))} and "
                     f"{fmt(max(eg))}")
    return f"With $H$ = {H0} heads, " + "; ".join(parts) + "."


def memory_summary(P: dict, results: dict) -> str:
    Hmax, eps = max(P["H_grid"]), P["eps_memory"]
    parts = []
    for T in P["delta_T"]:
        k = Kernel("delta", T=T)
        h = [heads_needed(errors(results, k, f, window_of(P, k)), eps) for f in FAMILIES]
        parts.append(f"$T$ = {T}: " + " / ".join(f"{v:.0f}" if np.isfinite(v) else f"> {Hmax}" for v in h))
    return (f"Heads needed for an $\\ell^1$ error ≤ {eps:g} on a delta at distance $T$ (lin / log): " + "; ".join(parts)
            + ".")


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


def slope_table(P: dict, results: dict) -> str:
    """Fitted log-log slopes of the matched pairs over H <= 8 (and over the whole grid), against Thm 6.1's rate."""
    W = float(P["window"])
    rows = []
    for k in [k for k in main_kernels(P) if k.kind in ("power", "exp")]:
        for f in FAMILIES:
            e = errors(results, k, f, W)
            if not e:
                continue
            Hs = sorted(e)
            small = [H for H in Hs if H <= 8]
            n = guaranteed_rate(k, f)
            rows.append([label(k), f, n if n else "none", f"{-loglog_slope(small, [e[H]['l1'] for H in small]):.2f}",
                         f"{-loglog_slope(Hs, [max(e[H]['l1'], 1e-16) for H in Hs]):.2f}",
                         f"{fmt(e[Hs[-1]]['l1'])} ($H$ = {Hs[-1]})"])
    return markdown_table(["kernel", "RPE", "guaranteed $n$ (Thm 6.1)", "slope over $H \\le 8$", "slope over the grid",
                           "error at the largest $H$"], rows)


def bump_summary(P: dict, results: dict) -> str:
    """The relative-width bumps' errors at rel_bump_H, the H claim 11 is stated at (they are always fitted there)."""
    H, parts = P["rel_bump_H"], []
    for T in P["rel_bump_T"]:
        k = Kernel("bump", T=T, w=T * P["rel_bump_frac"])
        e = [errors(results, k, f, window_of(P, k)).get(H, {}).get("l1", math.nan) for f in FAMILIES]
        parts.append(f"$T$ = {T}: {fmt(e[0])} / {fmt(e[1])}")
    return (f"Bumps of width $T$/{1 / P['rel_bump_frac']:g}, $\\ell^1$ error at $H$ = {H} (lin / log): " + "; ".join(parts)
            + ".")


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


def partc_findings(P: dict, results: dict) -> str:
    """Part C in words, every number from the stored runs (the chapter's test checks them): how many exponents the
    log heads use, and claims 14a and 14b with what decides them."""
    from lib.chapters.rpe_decay.rows import BAND, matched, order_wins
    rows = train_table(results)
    if not rows:
        return ""
    floor, n = training_floor(rows)
    Hc = 8 if 8 in P["train_H"] else max(P["train_H"])
    out = []
    for name in sorted({r["kernel"] for r in rows}):
        S = max(r["S"] for r in rows if r["kernel"] == name)
        sel = [r for r in rows if r["kernel"] == name and r["S"] == S]
        k, good = sel[0]["k"], matched(sel[0]["k"])
        logs = {H: [distinct_exponents(r["p"]) for r in sorted(sel, key=lambda r: r["seed"])
                    if r["family"] == "log" and r["H"] == H] for H in sorted({r["H"] for r in sel})}
        m = {f: {r["seed"]: r["mse"] for r in sel if r["family"] == f and r["H"] == Hc} for f in FAMILIES}
        med = {f: float(np.median(list(m[f].values()))) for f in FAMILIES}
        out.append(f"**{label(k)}, $S$ = {S}.** The log heads end at "
                   + ", ".join(f"{'/'.join(map(str, v))} distinct exponents of $H$ = {H}" for H, v in logs.items())
                   + f" (per seed). At $H$ = {Hc} the medians are {fmt(med['lin'])} (lin) and {fmt(med['log'])} (log): "
                   f"{good}, the matched RPE, is lower in {order_wins(m, good)} of {len(m[good])} seeds.")
    beyond = beyond_band(results)
    out.append(f"**Claim 14b.** The training floor is {fmt(floor)} (the median of {n} precision-limited lin runs). "
               + (f"Beyond {BAND}× of max(optimum, floor) (medians over seeds): " + "; ".join(beyond) + "."
                  if beyond else f"Every group's median is within {BAND}× of max(optimum, floor)."))
    return "\n\n".join(out)


def findings_markdown(P: dict, results: dict, rows: list[dict]) -> str:
    """One bullet per claim whose badge is FAIL or censored (`lib.core.claims.unsettled`), naming it and saying
    why, with its numbers from the stored runs; "" where every claim settles."""
    from lib.chapters.rpe_decay.apph_page import explain as apph_explain
    from lib.core.claims import unsettled
    bad = unsettled(rows)
    why = {**apph_explain(P, results), **partc_explain(P, results), **fitter_explain(P, results, bad)}
    if "14a-train-order" in bad:
        why["14a-train-order"] = bad["14a-train-order"]["measured"]
    return "\n".join(f"- `{i}`: " + why.get(i, "its measured column says where this run misses the rule (a band this "
                                                "book calibrated on independent fits)") for i in bad)


def beyond_band(results: dict) -> list[str]:
    """The (kernel, family, H) groups whose median over seeds is beyond 14b's band, worst first: the median, what
    its heads can reach, the ratio, and what the fitter's optimum asks of the values."""
    from lib.chapters.rpe_decay.rows import BAND, group_ratios
    rows = train_table(results)
    floor, _ = training_floor(rows)
    groups = group_ratios(rows, floor)
    out = []
    for key, v in sorted(groups.items(), key=lambda kv: -float(np.median(kv[1]))):
        if float(np.median(v)) <= BAND:
            continue
        row = next(r for r in rows if tuple(r[k] for k in ("kernel", "S", "family", "H")) == key)
        m = float(np.median([r["mse"] for r in rows if tuple(r[k] for k in ("kernel", "S", "family", "H")) == key]))
        values = optimum_values(row)
        out.append(f"{label(row['k'])}, {key[2]}, $H$ = {key[3]}: {fmt(m)} against {fmt(reachable(row, floor))} "
                   f"({float(np.median(v)):.1f}×)" + (f", where {values}" if values else ""))
    return out


def partc_explain(P: dict, results: dict) -> dict[str, str]:
    """Why claim 14b comes out as it does on these runs (numbers from the runs; 14a's measured column says it)."""
    if not train_table(results):
        return {}
    beyond = beyond_band(results)
    return {"14b-train-floor": "groups beyond the band: " + "; ".join(beyond) if beyond else ""}


def largest_value(P: dict, results: dict, kernels: list, family: str, H: int) -> float:
    """The largest |value| among the best fits of `family` at H on `kernels` (each in its window)."""
    fits = [errors(results, k, family, window_of(P, k)) for k in kernels]
    return max((float(np.abs(e[H]["alpha"]).max()) for e in fits if H in e), default=math.nan)


def fitter_explain(P: dict, results: dict, bad: dict) -> dict[str, str]:
    """Why a row about the best fit found (11, 12b) fails, with the fit's numbers: these fits combine huge values of
    opposite signs, so which local optimum the fitter reaches depends on the floating-point path, and a better
    optimum found refutes a hypothesis about how large the best fit found stays."""
    what = {"11-relative-bump": ([Kernel("bump", T=T, w=T * P["rel_bump_frac"]) for T in P["rel_bump_T"]], "lin",
                                 P["rel_bump_H"]),
            "12b-sharp-memory-far": ([Kernel("delta", T=8)], "lin", 16)}
    out = {}
    for rid, (kernels, family, H) in what.items():
        if rid in bad:
            big = largest_value(P, results, kernels, family, H)
            out[rid] = (f"{bad[rid]['measured']}. A hypothesis about the best fit found (a better fit refutes it): these "
                        f"{family} fits at $H$ = {H} combine values up to {big:.0e} of opposite signs, so which local "
                        "optimum the fitter reaches depends on the floating-point path (a rerun on the same machine "
                        "gives the same bits), and this run's fitter found one beyond the band")
    return out
