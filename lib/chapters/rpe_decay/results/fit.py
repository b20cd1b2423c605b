"""The kernel fits' stored points read into the page's tables and summaries (Parts A and B): T5's buckets against
Table 1, the best H-head errors of every main kernel, the context-length sweep, the heads a sharp memory needs, the
fitted slopes against Thm 6.1's rates, the relative-width bumps, and the largest value a best fit combines. Claims
7-13 (claims/fit.py) judge these fits.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> print(error_table(P, results).splitlines()[0][:45])      # a Markdown table, one row per kernel and RPE
    | kernel | window $S$ | RPE | $H$ = 1 | $H$ =
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rpe_decay.compute import main_kernels, window_of
from lib.chapters.rpe_decay.experiments.exact import TABLE1
from lib.chapters.rpe_decay.experiments.fit import Kernel
from lib.chapters.rpe_decay.experiments.train import FAMILIES
from lib.chapters.rpe_decay.results import errors, fmt, guaranteed_rate, heads_needed, label
from lib.core.tables import markdown_table
from lib.science.stats import loglog_slope


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


def error_summary(P: dict, results: dict) -> str:
    """The error table in short: every main kernel's l1 error at H = 8 and at the grid's largest H, lin beside log."""
    H, rows = max(P["H_grid"]), []
    for k in main_kernels(P):
        e = [errors(results, k, f, window_of(P, k)) for f in FAMILIES]
        rows.append([label(k)] + [fmt(x[h]["l1"]) if h in x else "" for h in (8, H) for x in e])
    return markdown_table(["kernel"] + [f"{f}, $H$ = {h}" for h in (8, H) for f in FAMILIES], rows)


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
