"""The rules and measures of rpe_decay's claims about the kernel fits (their rows are in claims/__init__.py): this
book's calibrated claims about the best fit found (7-12) and the fitter's guard 13, each a statistic of the stored
fit points decided by its rule object (RULE_*, lib.core.rules), which writes the rule's text. Page-side: no
computation imports it.

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
from lib.core.claims import Measured, Scope
from lib.core.rules import BOOK as CALIBRATED
from lib.core.rules import PAPER, All, AtLeast, AtMost, Holds, number
from lib.core.tables import named_grid
from lib.science.stats import loglog_slope

NO_RATE = r"none: Thm 6.1(B) guarantees no rate at $\beta$ = 1.2 (it needs $\beta \ge 2.02$)"
UPPER = "none: the paper proves upper bounds only"
FITS = "a band about 10× from independent fits"     # claims 7-12: bands this book calibrated on independent fits
CONTEXT_S = (512.0, 1e6)                              # 8b: the windows its growth is read between
SLOPE_H = Scope("H", hi=8)                            # 10a: the H its slope is read over
FALL_H = Scope("H", 2, 16)                            # 10b: the H its fall is read between
FAR_H = Scope("H", hi=16)                             # 12b: the H its best fits are taken over
RULE_HEAVY_TAIL_LOG = AtMost(r"$E_{\log}(8)$", 1e-4, why=FITS)
RULE_HEAVY_TAIL_LIN = All((AtLeast(r"best $E_{\rm lin}(8)$ found", 1e-2), AtLeast(r"its ratio to $E_{\log}(8)$", 100, why=FITS)))
RULE_CONTEXT_LOG = AtMost(r"$E_{\log}$", 1e-5, where="at every $S$", why=FITS)
RULE_CONTEXT_LIN = All((Holds(r"best $E_{\rm lin}$ found increases with $S$", by=CALIBRATED),
                        AtLeast(f"its growth from $S$ = {number(CONTEXT_S[0])} to {number(CONTEXT_S[1])}", 100, why=FITS)))
RULE_EXP_KERNEL_LIN = All((AtMost(r"$E_{\rm lin}(8)$", 1e-4), AtMost(r"$E_{\rm lin}(16)$", 1e-5, why=FITS)))
RULE_EXP_KERNEL_LOG = AtLeast(r"best $E_{\log}(16)$ found over $E_{\rm lin}(16)$", 100, why=FITS)
RULE_SLOPE_POWER = AtLeast(r"log-log slope of $E_{\log}$'s fall over $H$", 1, by=PAPER,
                           why=r"the theorem's guaranteed rate, $n \le \lfloor 0.99\beta\rfloor - 1 = 1$")
RULE_SLOPE_EXP = AtLeast(rf"fall of $E_{{\rm lin}}$ from $H = {FALL_H.lo}$ to $H = {FALL_H.hi}$ (a ratio)", 1e3, why=FITS)
RULE_RELATIVE_BUMP = All((AtMost(r"$E_{\rm lin}$", 5e-2, where="at every $T$"),
                          AtMost("its spread (max/min) across $T$", 2, strict=True),
                          AtLeast(r"best $E_{\log}$ found $-$ $E_{\rm lin}$", 0.0, strict=True, where="at every $T$",
                                  why=FITS)))
RULE_SHARP_NEAR = All((AtMost("lin at $H = 4$", 1e-3), AtMost("log at $H = 2$", 1e-3, why=FITS)))
RULE_SHARP_FAR = AtLeast(r"the best fit of each family found, $H \le 16$,", 0.5, why=FITS)
RULE_MONOTONE = AtMost(r"error($H$) / min over $H' < H$", GROWTH, where=f"where that min is above "
                       f"{number(FLOOR)}", why="larger is an optimiser failure: $H$ heads contain every smaller set")


def fit(P, results, kernel: Kernel, family: str, S: float | None = None) -> dict:
    """{H: the best fit} of one kernel and family, in the window the page fits it in (or S)."""
    return errors(results, kernel, family, window_of(P, kernel) if S is None else S)


def l1s(P, results, kernel: Kernel, *Hs, S: float | None = None) -> dict | None:
    """{(family, H): l1} of both families at every H of Hs, or None where a fit lacks one (a row is read at the H its
    rule names and at no other)."""
    got = {f: fit(P, results, kernel, f, S) for f in FAMILIES}
    if not all(H in got[f] for f in FAMILIES for H in Hs):
        return None
    return {(f, H): got[f][H]["l1"] for f in FAMILIES for H in Hs}


def band_margin(e: float, band: float) -> str:
    """How far a deterministic fit's error is from its band (one fit per point: there is no spread over seeds)."""
    r = band / max(e, 1e-300)
    return f"×{r:.0f} below the band" if r >= 1 else f"×{1 / r:.1f} above the band"


HEAVY = Kernel("power", beta=1.2)
EXP = Kernel("exp", tau=10.0)


def _heavy_tail_log(P, results):
    e = l1s(P, results, HEAVY, 8)
    return e and Measured(e["log", 8], f"$E_{{\\log}}(8)$ {fmt(e['log', 8])} "
                          f"({band_margin(e['log', 8], RULE_HEAVY_TAIL_LOG.bound)})",
                          paper=NO_RATE, where=f"window $S$ = {float(P['window']):.0e}")


def _heavy_tail_lin(P, results):
    e = l1s(P, results, HEAVY, 8)
    if e is None:
        return None
    ratio = e["lin", 8] / max(e["log", 8], 1e-300)
    return Measured(parts(e["lin", 8], ratio), f"best $E_{{\\rm lin}}(8)$ found {fmt(e['lin', 8])}, {ratio:.0f}× "
                    r"$E_{\log}(8)$", paper=UPPER, where=f"window $S$ = {float(P['window']):.0e}")


def _context(P, results, family):
    """(where, [E of `family` at context_H, one per window]) of the context-length sweep at beta = 1.2."""
    if 1.2 not in P["context_betas"]:
        return None
    H0, Ss = P["context_H"], sorted(P["context_windows"])
    E = [fit(P, results, HEAVY, family, S).get(H0, {}).get("l1", math.nan) for S in Ss]
    return f"$H$ = {H0}, $S$ = " + ", ".join(f"{S:g}" for S in Ss), Ss, E


def _context_log(P, results):
    c = _context(P, results, "log")
    return c and Measured(np.array(c[2]), r"$E_{\log}$ " + ", ".join(map(fmt, c[2]))
                          + f" ({band_margin(max(c[2]), RULE_CONTEXT_LOG.bound)})", paper=NO_RATE, where=c[0])


def _context_lin(P, results):
    c = _context(P, results, "lin")
    if c is None or not set(CONTEXT_S) <= set(c[1]):
        return None
    where, Ss, E = c
    growth = E[Ss.index(CONTEXT_S[1])] / E[Ss.index(CONTEXT_S[0])]
    ends = " to ".join(f"{S:g}".replace("e+0", "e") for S in CONTEXT_S)          # "512 to 1e6"
    return Measured(parts(all(b > a for a, b in zip(E, E[1:])), growth), r"best $E_{\rm lin}$ found "
                    + ", ".join(map(fmt, E)) + f" (×{growth:.0f} from {ends})", paper=UPPER, where=where)


def _exp_kernel_lin(P, results):
    e = l1s(P, results, EXP, 8, 16)
    return e and Measured(parts(e["lin", 8], e["lin", 16]), f"$E_{{\\rm lin}}(8)$ {fmt(e['lin', 8])}, "
                          f"$E_{{\\rm lin}}(16)$ {fmt(e['lin', 16])}", paper=r"Thm 6.1(A): lin, $O(H^{-n})$, $n \le 9$")


def _exp_kernel_log(P, results):
    e = l1s(P, results, EXP, 16)
    if e is None:
        return None
    ratio = e["log", 16] / max(e["lin", 16], 1e-300)
    return Measured(ratio, f"best $E_{{\\log}}(16)$ found {fmt(e['log', 16])}, ×{ratio:.0e} $E_{{\\rm lin}}(16)$",
                    paper=UPPER)


def _slope_power(P, results):
    b3 = fit(P, results, Kernel("power", beta=3.0), "log")
    if not b3:
        return None
    Hs = SLOPE_H(sorted(b3))
    slope = -loglog_slope(Hs, [b3[H]["l1"] for H in Hs])
    return Measured(slope, f"slope {slope:.2f}", paper=r"Thm 6.1(B): $n \le \lfloor 0.99\beta\rfloor - 1 = 1$",
                    where=named_grid("H", Hs))


def _slope_exp(P, results):
    e = l1s(P, results, EXP, FALL_H.lo, FALL_H.hi)
    if e is None:
        return None
    a, b = e["lin", FALL_H.lo], e["lin", FALL_H.hi]
    return Measured(a / b, f"{fmt(a)} → {fmt(b)} (×{a / b:.0e})", paper=r"Thm 6.1(A): $O(H^{-n})$, $n \le 9$")


def bumps(P) -> list[Kernel]:
    """Row 11's relative-width bumps, one per T."""
    return [Kernel("bump", T=T, w=T * P["rel_bump_frac"]) for T in P["rel_bump_T"]]


def _relative_bump(P, results):
    H = P["rel_bump_H"]
    e = [l1s(P, results, k, H) for k in bumps(P)]
    if len(e) < 2 or None in e:                       # stated at H = rel_bump_H only
        return None
    lins, logs = [x["lin", H] for x in e], [x["log", H] for x in e]
    spread = max(lins) / min(lins)
    return Measured(parts(np.array(lins), spread, np.array(logs) - np.array(lins)),
                    r"$E_{\rm lin}$ " + ", ".join(map(fmt, lins)) + f" (spread {spread:.2f}×); best "
                    + r"$E_{\log}$ found " + ", ".join(map(fmt, logs)),
                    paper="none; this book's calibration fits: lin about 2e-2 at every $T$, log 0.19–0.64",
                    where=f"width $T$/{1 / P['rel_bump_frac']:g}; {named_grid('T', P['rel_bump_T'])}; $H$ = {H}")


def _sharp_memory_near(P, results):
    if 2 not in P["delta_T"]:
        return None
    lin, log = fit(P, results, Kernel("delta", T=2), "lin"), fit(P, results, Kernel("delta", T=2), "log")
    if 4 not in lin or 2 not in log:
        return None
    l4, g2 = lin[4]["l1"], log[2]["l1"]
    return Measured(parts(l4, g2), f"lin(4) {fmt(l4)}, log(2) {fmt(g2)}",
                    paper=r"Thm 4.1: $O(H^{-n})$ with an $e^{0.01T}$ or $T^{1.01}$ factor", where="delta at $T = 2$")


def _sharp_memory_far(P, results):
    if 8 not in P["delta_T"]:
        return None
    best = {f: min((e["l1"], H) for H, e in fit(P, results, Kernel("delta", T=8), f).items() if H in FAR_H([H]))
            for f in FAMILIES}
    return Measured([v[0] for v in best.values()], ", ".join(f"best {f} found {v[0]:.2f} (H = {v[1]})"
                                                             for f, v in best.items()),
                    paper=UPPER, where="delta at $T = 8$")


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


def band_missed(P, results, row) -> str:
    """Why a row about a band of the calibration fits fails: its measured column says where."""
    return "its measured column says where this run misses the rule (a band this book calibrated on independent fits)"


def ill_conditioned(kernels, H):
    """Why a row about the best lin fit found (11, 12b) fails, with the fit's numbers: these fits combine huge values
    of opposite signs, and a better optimum found refutes a hypothesis about how large the best fit stays."""
    def explain(P, results, row):
        ks = kernels(P)
        big = largest_value(P, results, ks, "lin", H(P))
        return (f"{row['measured']}. A hypothesis about the best fit found (a better fit refutes it): these lin fits at "
                f"$H$ = {H(P)} combine values up to {big:.0e} of opposite signs, so which local optimum the fitter "
                "reaches depends on its starts, and this run's fitter found one beyond the band")
    return explain
