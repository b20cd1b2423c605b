"""The rules and measures of rpe_decay's claims about the kernel fits (their rows are in claims/__init__.py): this
book's calibrated claims about the best fit found (7-12), each read on the fits converged in their starts (the
"converged" points, with their starts and convergence in the row's text, censored where one did not converge), and
the fitter's guard 13 on every 4-start fit. Each rule object (RULE_*, lib.core.rules) decides and writes its text.
Page-side: no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> RULE_SLOPE_POWER.decide(_slope_power(P, results)).passed, RULE_SLOPE_POWER.rule.bound   # row 10a: log heads
    (True, 1)
"""
from __future__ import annotations

import numpy as np

from lib.chapters.rpe_decay.claims.exact import parts
from lib.chapters.rpe_decay.compute import window_of
from lib.chapters.rpe_decay.experiments.fit import FLOOR, GROWTH, Kernel, grows_with_H
from lib.chapters.rpe_decay.experiments.train import FAMILIES
from lib.chapters.rpe_decay.results import errors, fmt
from lib.core.claims import Measured, Scope
from lib.core.rules import BOOK as CALIBRATED
from lib.core.rules import PAPER, All, AtLeast, AtMost, Holds, Needs, number
from lib.core.tables import named_grid
from lib.science.stats import loglog_slope

NO_RATE = r"none: Thm 6.1(B) guarantees no rate at $\beta$ = 1.2 (it needs $\beta \ge 2.02$)"
UPPER = "none: the paper proves upper bounds only"
FITS = "a band about 10× from independent fits"     # claims 7-12: bands this book calibrated on independent fits
# Rows 11 and 12b: bands set from converged fits over five seeds of the fitter (benchmarks/rpe_decay_fit_seeds.py)
SEEDS = "converged fits over 5 seeds of the fitter"
SPREAD_11 = 3        # 11: the lin errors across T spread no more than this: over seeds one T's spread up to 2.6x
CONTEXT_S = (512.0, 1e6)                              # 8b: the windows its growth is read between
SLOPE_H = Scope("H", hi=8)                            # 10a: the H its slope is read over
FALL_H = Scope("H", 2, 16)                            # 10b: the H its fall is read between
FAR_H = Scope("H", hi=16)                             # 12b: the H its best fits are taken over
NEAR_H = Scope("H", hi=8)                             # 12b: the H lin heads stay far at


def converged(rule):
    """A fit row's rule: decided only on fits converged in their starts (censored where one is not)."""
    return Needs(AtMost("fits not converged in their starts", 0), rule)


RULE_HEAVY_TAIL_LOG = converged(AtMost(r"$E_{\log}(8)$", 1e-4, why=FITS))
RULE_HEAVY_TAIL_LIN = converged(All((AtLeast(r"best $E_{\rm lin}(8)$ found", 1e-2),
                                     AtLeast(r"its ratio to $E_{\log}(8)$", 100, why=FITS))))
RULE_CONTEXT_LOG = converged(AtMost(r"$E_{\log}$", 1e-5, where="at every $S$", why=FITS))
RULE_CONTEXT_LIN = converged(All((Holds(r"best $E_{\rm lin}$ found increases with $S$", by=CALIBRATED),
                                  AtLeast(f"its growth from $S$ = {number(CONTEXT_S[0])} to {number(CONTEXT_S[1])}",
                                          100, why=FITS))))
RULE_EXP_KERNEL_LIN = converged(All((AtMost(r"$E_{\rm lin}(8)$", 1e-4), AtMost(r"$E_{\rm lin}(16)$", 1e-5, why=FITS))))
RULE_EXP_KERNEL_LOG = converged(AtLeast(r"best $E_{\log}(16)$ found over $E_{\rm lin}(16)$", 100, why=FITS))
RULE_SLOPE_POWER = converged(AtLeast(r"log-log slope of $E_{\log}$'s fall over $H$", 1, by=PAPER,
                                     why=r"the theorem's guaranteed rate, $n \le \lfloor 0.99\beta\rfloor - 1 = 1$"))
RULE_SLOPE_EXP = converged(AtLeast(rf"fall of $E_{{\rm lin}}$ from $H = {FALL_H.lo}$ to $H = {FALL_H.hi}$ (a ratio)",
                                   1e3, why=FITS))
RULE_RELATIVE_BUMP = converged(All((AtMost(r"$E_{\rm lin}$", 5e-2, where="at every $T$"),
                                    AtMost("its spread (max/min) across $T$", SPREAD_11, why=SEEDS + ": 2.6× at one T"),
                                    AtLeast(r"best $E_{\log}$ found $-$ $E_{\rm lin}$", 0.0, strict=True,
                                            where="at every $T$", why=FITS))))
RULE_SHARP_NEAR = converged(All((AtMost("lin at $H = 4$", 1e-3), AtMost("log at $H = 2$", 1e-3, why=FITS))))
RULE_SHARP_FAR = converged(All((AtLeast(rf"the best log fit found, {FAR_H.text},", 0.5),
                                AtLeast(rf"the best lin fit found, {NEAR_H.text},", 0.5,
                                        why=SEEDS + ": every one 1.00; 16 lin heads 0.014–0.54, not ruled"))))
RULE_MONOTONE = AtMost(r"error($H$) / min over $H' < H$", GROWTH, where=f"where that min is above "
                       f"{number(FLOOR)}", why="larger is an optimiser failure: $H$ heads contain every smaller set")


def fits(P, results, kernel: Kernel, *Hs, S: float | None = None, need=()) -> dict | None:
    """{(family, H): the converged fit} of both families at every H of Hs (every H if none) in the page's window for
    the kernel (or S); None where one of Hs or a (family, H) of `need` is missing (a row reads no other H)."""
    S = window_of(P, kernel) if S is None else S
    got = {f: errors(results, kernel, f, S, part="converged") for f in FAMILIES}
    if not all(got.values()) or not all(H in got[f] for f in FAMILIES for H in Hs):
        return None
    e = {(f, H): e for f in FAMILIES for H, e in got[f].items() if not Hs or H in Hs}
    return e if set(need) <= set(e) else None


def measured(value, text: str, used: list[dict], **kw) -> Measured:
    """A fit row's Measured: its text with the starts of the fits it read, how far the best of half of them is from
    the best (fits below the float64 floor FLOOR converge by reaching it), and how many did not converge (the gate)."""
    starts, above = [e["starts"] for e in used], [e for e in used if e["l1"] > FLOOR]
    moved = max((e["half"] / e["l1"] - 1 for e in above), default=0.0)
    bad = sum(not e["converged"] for e in used)
    floor = f", {len(used) - len(above)} below the float64 floor {number(FLOOR)}" if len(above) < len(used) else ""
    span = f"{min(starts)}" if min(starts) == max(starts) else f"{min(starts)}–{max(starts)}"
    note = (f"; fits converged in {span} starts (the best of half of them within {moved:.1%} of "
            f"the best{floor})" + (f", {bad} not converged" if bad else ""))
    return Measured(value, text + note, gate=bad, **kw)


def band_margin(e: float, band: float) -> str:
    """How far a deterministic fit's error is from its band (one fit per point: there is no spread over seeds)."""
    r = band / max(e, 1e-300)
    return f"×{r:.0f} below the band" if r >= 1 else f"×{1 / r:.1f} above the band"


HEAVY = Kernel("power", beta=1.2)
EXP = Kernel("exp", tau=10.0)


def _heavy_tail_log(P, results):
    e = fits(P, results, HEAVY, 8)
    if e is None:
        return None
    g = e["log", 8]["l1"]
    return measured(g, f"$E_{{\\log}}(8)$ {fmt(g)} ({band_margin(g, RULE_HEAVY_TAIL_LOG.rule.bound)})",
                    [e["log", 8]], paper=NO_RATE, where=f"window $S$ = {float(P['window']):.0e}")


def _heavy_tail_lin(P, results):
    e = fits(P, results, HEAVY, 8)
    if e is None:
        return None
    lin, ratio = e["lin", 8]["l1"], e["lin", 8]["l1"] / max(e["log", 8]["l1"], 1e-300)
    return measured(parts(lin, ratio), f"best $E_{{\\rm lin}}(8)$ found {fmt(lin)}, {ratio:.0f}× $E_{{\\log}}(8)$",
                    list(e.values()), paper=UPPER, where=f"window $S$ = {float(P['window']):.0e}")


def _context(P, results, family):
    """(where, windows, [fit of `family` at context_H], [its error]), one per window of the sweep at beta = 1.2."""
    if 1.2 not in P["context_betas"]:
        return None
    H0, Ss = P["context_H"], sorted(P["context_windows"])
    got = [fits(P, results, HEAVY, H0, S=S) for S in Ss]
    if None in got:
        return None
    used = [e[family, H0] for e in got]
    return f"$H$ = {H0}, $S$ = " + ", ".join(f"{S:g}" for S in Ss), Ss, used, [e["l1"] for e in used]


def _context_log(P, results):
    c = _context(P, results, "log")
    if c is None:
        return None
    where, _, used, E = c
    return measured(np.array(E), r"$E_{\log}$ " + ", ".join(map(fmt, E))
                    + f" ({band_margin(max(E), RULE_CONTEXT_LOG.rule.bound)})", used, paper=NO_RATE, where=where)


def _context_lin(P, results):
    c = _context(P, results, "lin")
    if c is None or not set(CONTEXT_S) <= set(c[1]):
        return None
    where, Ss, used, E = c
    growth = E[Ss.index(CONTEXT_S[1])] / E[Ss.index(CONTEXT_S[0])]
    ends = " to ".join(f"{S:g}".replace("e+0", "e") for S in CONTEXT_S)          # "512 to 1e6"
    return measured(parts(all(b > a for a, b in zip(E, E[1:])), growth), r"best $E_{\rm lin}$ found "
                    + ", ".join(map(fmt, E)) + f" (×{growth:.0f} from {ends})", used, paper=UPPER, where=where)


def _exp_kernel_lin(P, results):
    e = fits(P, results, EXP, need=[("lin", 8), ("lin", 16)])
    if e is None:
        return None
    l8, l16 = e["lin", 8]["l1"], e["lin", 16]["l1"]
    return measured(parts(l8, l16), f"$E_{{\\rm lin}}(8)$ {fmt(l8)}, $E_{{\\rm lin}}(16)$ {fmt(l16)}",
                    [e["lin", 8], e["lin", 16]], paper=r"Thm 6.1(A): lin, $O(H^{-n})$, $n \le 9$")


def _exp_kernel_log(P, results):
    e = fits(P, results, EXP, 16)
    if e is None:
        return None
    l16, g16 = e["lin", 16]["l1"], e["log", 16]["l1"]
    ratio = g16 / max(l16, 1e-300)
    return measured(ratio, f"best $E_{{\\log}}(16)$ found {fmt(g16)}, ×{ratio:.0e} $E_{{\\rm lin}}(16)$",
                    list(e.values()), paper=UPPER)


def _slope_power(P, results):
    b3 = errors(results, Kernel("power", beta=3.0), "log", float(P["window"]), part="converged")
    if not b3:
        return None
    Hs = SLOPE_H(sorted(b3))
    slope = -loglog_slope(Hs, [b3[H]["l1"] for H in Hs])
    return measured(slope, f"slope {slope:.2f}", [b3[H] for H in Hs],
                    paper=r"Thm 6.1(B): $n \le \lfloor 0.99\beta\rfloor - 1 = 1$", where=named_grid("H", Hs))


def _slope_exp(P, results):
    e = fits(P, results, EXP, need=[("lin", FALL_H.lo), ("lin", FALL_H.hi)])
    if e is None:
        return None
    a, b = e["lin", FALL_H.lo], e["lin", FALL_H.hi]
    return measured(a["l1"] / b["l1"], f"{fmt(a['l1'])} → {fmt(b['l1'])} (×{a['l1'] / b['l1']:.0e})", [a, b],
                    paper=r"Thm 6.1(A): $O(H^{-n})$, $n \le 9$")


def bumps(P) -> list[Kernel]:
    """Row 11's relative-width bumps, one per T."""
    return [Kernel("bump", T=T, w=T * P["rel_bump_frac"]) for T in P["rel_bump_T"]]


def _relative_bump(P, results):
    H = P["rel_bump_H"]
    e = [fits(P, results, k, H) for k in bumps(P)]
    if len(e) < 2 or None in e:                       # stated at H = rel_bump_H only
        return None
    lins, logs = [x["lin", H]["l1"] for x in e], [x["log", H]["l1"] for x in e]
    spread = max(lins) / min(lins)
    return measured(parts(np.array(lins), spread, np.array(logs) - np.array(lins)),
                    r"$E_{\rm lin}$ " + ", ".join(map(fmt, lins)) + f" (spread {spread:.2f}×); best "
                    + r"$E_{\log}$ found " + ", ".join(map(fmt, logs)), [f for x in e for f in x.values()],
                    paper="none; this book's calibration fits: lin about 2e-2 at every $T$, log 0.19–0.64",
                    where=f"width $T$/{1 / P['rel_bump_frac']:g}; {named_grid('T', P['rel_bump_T'])}; $H$ = {H}")


def _sharp_memory_near(P, results):
    e = fits(P, results, Kernel("delta", T=2), need=[("lin", 4), ("log", 2)]) if 2 in P["delta_T"] else None
    if e is None:
        return None
    l4, g2 = e["lin", 4]["l1"], e["log", 2]["l1"]
    return measured(parts(l4, g2), f"lin(4) {fmt(l4)}, log(2) {fmt(g2)}", [e["lin", 4], e["log", 2]],
                    paper=r"Thm 4.1: $O(H^{-n})$ with an $e^{0.01T}$ or $T^{1.01}$ factor", where="delta at $T = 2$")


def _sharp_memory_far(P, results):
    e = fits(P, results, Kernel("delta", T=8), need=[("lin", FAR_H.hi)]) if 8 in P["delta_T"] else None
    if e is None:
        return None
    read = {(f, H): x for (f, H), x in e.items() if H in (FAR_H if f == "log" else NEAR_H)([H])}
    best = lambda f: min((x["l1"], H) for (g, H), x in read.items() if g == f)
    log, lin, far = best("log"), best("lin"), e["lin", FAR_H.hi]
    return measured(parts(log[0], lin[0]), f"best log found {log[0]:.2f} ($H$ = {log[1]}), best lin found {lin[0]:.2f} "
                    f"at {NEAR_H.text}; at $H$ = {FAR_H.hi} lin {fmt(far['l1'])} (best of {far['starts']} starts, not "
                    "ruled: it depends on the fitter's seed)", list(read.values()), paper=UPPER, where="delta at $T = 8$")


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
    """Why a fit row fails or is censored: its measured column says where (a row about the best fit found is refuted
    by a better fit, and a fit that did not converge in its starts leaves its row censored)."""
    return ("its measured column says where this run misses the rule (a band this book calibrated on independent fits "
            "or on converged fits over the fitter's seeds), with the starts of the fits it read")
