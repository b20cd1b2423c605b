"""The rules and measures of rpe_decay's claims about the kernel fits (their rows are in claims/__init__.py), each a
statistic of the stored fit points decided by its rule object (RULE_*, lib.core.rules), which writes the rule's text:
this book's calibrated claims about the best fit found (7-12) and the fitter's guard 13; and why a row about the best
fit found fails (`fitter_explain`). Page-side: no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> RULE_SLOPE_POWER.decide(_slope_power(P, results)).passed, RULE_SLOPE_POWER.bound   # row 10a: log heads' rate
    (True, 1)
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rpe_decay.claims.exact import parts
from lib.chapters.rpe_decay.compute import window_of
from lib.chapters.rpe_decay.experiments.fit import FLOOR, GROWTH, Kernel, grows_with_H
from lib.chapters.rpe_decay.experiments.train import FAMILIES
from lib.chapters.rpe_decay.results import errors, fmt
from lib.chapters.rpe_decay.results.fits import largest_value
from lib.core.claims import Measured
from lib.core.rules import BOOK as CALIBRATED
from lib.core.rules import PAPER, All, AtLeast, AtMost, Holds, number
from lib.core.tables import named_grid
from lib.science.stats import loglog_slope

NO_RATE = r"none: Thm 6.1(B) guarantees no rate at $\beta$ = 1.2 (it needs $\beta \ge 2.02$)"
FITS = "a band about 10× from independent fits"     # claims 7-12: bands this book calibrated on independent fits
CONTEXT_S = (512.0, 1e6)                              # 8b: the windows its growth is read between
# The rules, one object per row (lib.core.rules): each threshold typed once, its text generated from it, with whose
# number it is ("paper", "book's calibration", "exact") and why.
RULE_HEAVY_TAIL_LOG = AtMost(r"$E_{\log}(8)$", 1e-4, why=FITS)
RULE_HEAVY_TAIL_LIN = All((AtLeast(r"best $E_{\rm lin}(8)$ found", 1e-2), AtLeast(r"its ratio to $E_{\log}(8)$", 100, why=FITS)))
RULE_CONTEXT_LOG = AtMost(r"$E_{\log}$", 1e-5, where="at every $S$", why=FITS)
RULE_CONTEXT_LIN = All((Holds(r"best $E_{\rm lin}$ found increases with $S$", by=CALIBRATED),
                        AtLeast(f"its growth from $S$ = {number(CONTEXT_S[0])} to {number(CONTEXT_S[1])}", 100, why=FITS)))
RULE_EXP_KERNEL_LIN = All((AtMost(r"$E_{\rm lin}(8)$", 1e-4), AtMost(r"$E_{\rm lin}(16)$", 1e-5, why=FITS)))
RULE_EXP_KERNEL_LOG = AtLeast(r"best $E_{\log}(16)$ found over $E_{\rm lin}(16)$", 100, why=FITS)
RULE_SLOPE_POWER = AtLeast(r"log-log slope of $E_{\log}$'s fall over $H$", 1, by=PAPER,
                           why=r"the theorem's guaranteed rate, $n \le \lfloor 0.99\beta\rfloor - 1 = 1$")
RULE_SLOPE_EXP = AtLeast(r"fall of $E_{\rm lin}$ from $H = 2$ to $H = 16$ (a ratio)", 1e3, why=FITS)
RULE_RELATIVE_BUMP = All((AtMost(r"$E_{\rm lin}$", 5e-2, where="at every $T$"),
                          AtMost("its spread (max/min) across $T$", 2, strict=True),
                          AtLeast(r"best $E_{\log}$ found $-$ $E_{\rm lin}$", 0.0, strict=True, where="at every $T$",
                                  why=FITS)))
RULE_SHARP_NEAR = All((AtMost("lin at $H = 4$", 1e-3), AtMost("log at $H = 2$", 1e-3, why=FITS)))
RULE_SHARP_FAR = AtLeast(r"the best fit of each family found, $H \le 16$,", 0.5, why=FITS)
RULE_MONOTONE = AtMost(r"error($H$) / min over $H' < H$", GROWTH, where=f"where that min is above "
                       f"{number(FLOOR)}", why="larger is an optimiser failure: $H$ heads contain every smaller set")


# ------------------------------------------------------------------------------------------------ measures
# Claims 7-12 hold this run's fits to bands this book calibrated on independent fits (about 10x margins); 13 guards
# the fitter. Each measure takes (P, results); a row is left out when the page's parameters do not contain its kernel.
def _power(results, P, beta, family, S=None):
    return errors(results, Kernel("power", beta=beta), family, float(P["window"]) if S is None else S)


def _heavy_tail(P, results):
    lin, log = _power(results, P, 1.2, "lin"), _power(results, P, 1.2, "log")
    if not (lin and log and 8 in lin and 8 in log):
        return None
    return lin[8]["l1"], log[8]["l1"]


def band_margin(e: float, band: float) -> str:
    """How far a deterministic fit's error is from its band (one fit per point: there is no spread over seeds)."""
    r = band / max(e, 1e-300)
    return f"×{r:.0f} below the band" if r >= 1 else f"×{1 / r:.1f} above the band"


def _heavy_tail_log(P, results):
    e = _heavy_tail(P, results)
    return e and Measured(e[1], f"$E_{{\\log}}(8)$ {fmt(e[1])} ({band_margin(e[1], RULE_HEAVY_TAIL_LOG.bound)})",
                          paper=NO_RATE, where=f"window $S$ = {float(P['window']):.0e}")


def _heavy_tail_lin(P, results):
    e = _heavy_tail(P, results)
    ratio = e[0] / max(e[1], 1e-300) if e else None
    return e and Measured(parts(e[0], ratio), f"best $E_{{\\rm lin}}(8)$ found {fmt(e[0])}, {ratio:.0f}× $E_{{\\log}}(8)$",
                          paper="none: the paper proves upper bounds only",
                          where=f"window $S$ = {float(P['window']):.0e}")


def _context_errors(P, results):
    if 1.2 not in P["context_betas"]:
        return None
    H0, Ss = P["context_H"], sorted(P["context_windows"])
    El = [_power(results, P, 1.2, "lin", S).get(H0, {}).get("l1", math.nan) for S in Ss]
    Eg = [_power(results, P, 1.2, "log", S).get(H0, {}).get("l1", math.nan) for S in Ss]
    return H0, Ss, El, Eg


def _context_log(P, results):
    c = _context_errors(P, results)
    if c is None:
        return None
    H0, Ss, _, Eg = c
    return Measured(np.array(Eg), r"$E_{\log}$ " + ", ".join(map(fmt, Eg))
                    + f" ({band_margin(max(Eg), RULE_CONTEXT_LOG.bound)})",
                    paper=NO_RATE, where=f"$H$ = {H0}, $S$ = " + ", ".join(f"{S:g}" for S in Ss))


def _context_lin(P, results):
    c = _context_errors(P, results)
    if c is None or not set(CONTEXT_S) <= set(c[1]):
        return None
    H0, Ss, El, _ = c
    mono = all(b > a for a, b in zip(El, El[1:]))
    growth = El[Ss.index(CONTEXT_S[1])] / El[Ss.index(CONTEXT_S[0])]
    ends = " to ".join(f"{S:g}".replace("e+0", "e") for S in CONTEXT_S)          # "512 to 1e6"
    return Measured(parts(mono, growth), r"best $E_{\rm lin}$ found " + ", ".join(map(fmt, El))
                    + f" (×{growth:.0f} from {ends})", paper="none: the paper proves upper bounds only",
                    where=f"$H$ = {H0}, $S$ = " + ", ".join(f"{S:g}" for S in Ss))


def _exp(results, P):
    return [errors(results, Kernel("exp", tau=10.0), f, float(P["window"])) for f in FAMILIES]


def _exp_kernel_lin(P, results):
    ex_lin, _ = _exp(results, P)
    if not (8 in ex_lin and 16 in ex_lin):       # the rule is stated at H = 8 and 16: no other H stands in
        return None
    l8, l16 = ex_lin[8]["l1"], ex_lin[16]["l1"]
    return Measured(parts(l8, l16), f"$E_{{\\rm lin}}(8)$ {fmt(l8)}, $E_{{\\rm lin}}(16)$ {fmt(l16)}",
                    paper=r"Thm 6.1(A): lin, $O(H^{-n})$, $n \le 9$")


def _exp_kernel_log(P, results):
    ex_lin, ex_log = _exp(results, P)
    if not (16 in ex_lin and 16 in ex_log):
        return None
    l16, g16 = ex_lin[16]["l1"], ex_log[16]["l1"]
    ratio = g16 / max(l16, 1e-300)
    return Measured(ratio, f"best $E_{{\\log}}(16)$ found {fmt(g16)}, ×{ratio:.0e} $E_{{\\rm lin}}(16)$",
                    paper="none: the paper proves upper bounds only")


def _slope_power(P, results):
    b3 = _power(results, P, 3.0, "log")
    if not b3:
        return None
    Hs = [H for H in sorted(b3) if H <= 8]
    slope = -loglog_slope(Hs, [b3[H]["l1"] for H in Hs])
    return Measured(slope, f"slope {slope:.2f}", paper=r"Thm 6.1(B): $n \le \lfloor 0.99\beta\rfloor - 1 = 1$",
                    where=named_grid("H", Hs))


def _slope_exp(P, results):
    ex_lin = _exp(results, P)[0]
    if not (ex_lin and 2 in ex_lin and 16 in ex_lin):
        return None
    drop = ex_lin[2]["l1"] / ex_lin[16]["l1"]
    return Measured(drop, f"{fmt(ex_lin[2]['l1'])} → {fmt(ex_lin[16]['l1'])} (×{drop:.0e})",
                    paper=r"Thm 6.1(A): $O(H^{-n})$, $n \le 9$")


def _relative_bump(P, results):
    H = P["rel_bump_H"]
    rb = {T: [errors(results, Kernel("bump", T=T, w=T * P["rel_bump_frac"]), f, window_of(P, Kernel("bump", T=T)))
              for f in FAMILIES] for T in P["rel_bump_T"]}
    if len(rb) < 2 or not all(H in el and H in eg for el, eg in rb.values()):   # stated at H = rel_bump_H only
        return None
    lins, logs = [el[H]["l1"] for el, _ in rb.values()], [eg[H]["l1"] for _, eg in rb.values()]
    spread = max(lins) / min(lins)
    return Measured(parts(np.array(lins), spread, np.array(logs) - np.array(lins)),
                    r"$E_{\rm lin}$ " + ", ".join(map(fmt, lins)) + f" (spread {spread:.2f}×); best "
                    + r"$E_{\log}$ found " + ", ".join(map(fmt, logs)),
                    paper="none; this book's calibration fits: lin about 2e-2 at every $T$, log 0.19–0.64",
                    where=f"width $T$/{1 / P['rel_bump_frac']:g}; {named_grid('T', P['rel_bump_T'])}; $H$ = {H}")


def _deltas(P, results):
    return {T: {f: errors(results, Kernel("delta", T=T), f, window_of(P, Kernel("delta", T=T))) for f in FAMILIES}
            for T in P["delta_T"]}


def _sharp_memory_near(P, results):
    d = _deltas(P, results)
    if 2 not in d or 4 not in d[2]["lin"] or 2 not in d[2]["log"]:
        return None
    l4, g2 = d[2]["lin"][4]["l1"], d[2]["log"][2]["l1"]
    return Measured(parts(l4, g2), f"lin(4) {fmt(l4)}, log(2) {fmt(g2)}",
                    paper=r"Thm 4.1: $O(H^{-n})$ with an $e^{0.01T}$ or $T^{1.01}$ factor", where="delta at $T = 2$")


def _sharp_memory_far(P, results):
    d = _deltas(P, results)
    if 8 not in d:
        return None
    best = {f: min((e["l1"], H) for H, e in d[8][f].items() if H <= 16) for f in FAMILIES}
    return Measured([v[0] for v in best.values()], ", ".join(f"best {f} found {v[0]:.2f} (H = {v[1]})"
                                                             for f, v in best.items()),
                    paper="none: the paper proves upper bounds only", where="delta at $T = 8$, $H \\le 16$")


def _monotone(P, results):
    """The error cannot grow with H (H heads contain every H' < H): a guard on the fitter, after its refits."""
    worst, where, refitted = 1.0, "", 0
    for (name, f, S, Hs), rec in results["fit"].items():
        e = np.array(rec["result"]["l1"], float)
        refitted += sum(n > rec["spec"]["restarts"] for n in rec["result"].get("restarts", []))
        for i in range(1, len(e)):
            ratio = grows_with_H(np.min(e[:i]), e[i])
            if ratio > worst:
                worst, where = ratio, f"{name}, {f}, S={S:g}, H={Hs[i]}"
    return Measured(worst, f"largest ratio {worst:.2f}" + (f" ({where})" if where else "")
                    + f"; {refitted} fit(s) refitted", paper="none (a guard on this book's fitter)",
                    where=f"{len(results['fit'])} kernel × family × window points")


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
