"""The rules and measures of rpe_decay's claims about the kernel fits (their rows are in claims/__init__.py): this
book's calibrated claims about the best fit found (7-12), each read on the fits converged in their starts at
P["fitter_seeds"] independent seeds of the fitter (results.across_seeds: a fit counts where every stored seed
converged in its starts, the seeds' bests agree within the fitter's 5% and the best is better than the do-nothing
fit; a row that reads any other fit is censored, with the reason; the rules' text quotes the paper profile's
SEEDS, and a run at another count its own), and the fitter's guard 13 on every 4-start fit. Each rule object
(RULE_*, lib.core.rules) decides and writes its text. Page-side: no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> RULE_SLOPE_POWER.decide(_slope_power(P, results)).passed, RULE_SLOPE_POWER.rule.bound   # row 10a: log heads
    (True, 1)
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rpe_decay.claims.exact import parts
from lib.chapters.rpe_decay.compute import window_of
from lib.chapters.rpe_decay.experiments.fit import CONVERGED, FLOOR, GROWTH, Kernel, grows_with_H
from lib.chapters.rpe_decay.experiments.train import FAMILIES
from lib.chapters.rpe_decay.results import errors, fmt, heads_needed
from lib.core.claims import Measured, Scope
from lib.core.rules import All, AtLeast, AtMost, Holds, Needs, number
from lib.core.tables import named_grid
from lib.science.stats import loglog_slope

NO_RATE = r"none: Thm 6.1(B) guarantees no rate at $\beta$ = 1.2 (it needs $\beta \ge 2.02$)"
UPPER = "none: the paper proves upper bounds only"
# Claims 7-12's thresholds: this book's calibration, each between the row's fits (its faithful world) and the fits
# of its world without the mechanism (the other family's, or no rate), which lie decades apart on every stored run
APART = "between this row's fits and its world without the mechanism's, decades apart"
# 11: the largest spread across T that 5 fitter seeds give the lin fits (each T at any one seed: 2.9×,
# benchmarks/rpe_decay_fit_seeds.json) and the smallest the log fits give (its world without scale-covariance:
# 5.1×); the bar sits between them, at their geometric mean
SPREAD_11 = 3.8
CONTEXT_S = (512.0, 1e6)                              # 8b: the windows its growth is read between
SLOPE_H = Scope("H", hi=8)                            # 10a: the H its slope is read over
FALL_H = Scope("H", 2, 16)                            # 10b: the H its fall is read between
FAR_H = Scope("H", hi=16)                             # 12b: the H its heads are counted over
REACH = 0.1                                           # 12b: the l1 error whose fewest heads it orders
SEEDS = 3                                             # the paper profile's fitter_seeds (a test holds them equal)


unsettled_words = lambda n: (f"fits not settled (fewer than {n} fitter seed{'s' if n > 1 else ''}, one not converged in "
                              f"its starts, seeds apart by more than {CONVERGED:.0%}, or no better than the do-nothing fit)")
UNSETTLED = unsettled_words(SEEDS)


class Settled(Needs):
    """A fit row's rule: decided only on settled fits (censored, with the reason, where one is not); its text quotes
    the paper profile's SEEDS fitter seeds, and a run at another count (Measured.n: P["fitter_seeds"]) its own."""

    def expected(self, m: Measured) -> str:
        return "" if m.n == SEEDS else self.rule.text + self.clause.replace(UNSETTLED, unsettled_words(m.n))


settled = lambda rule: Settled(AtMost(UNSETTLED, 0), rule)


RULE_HEAVY_TAIL_LOG = settled(AtMost(r"$E_{\log}(8)$", 1e-4, why=APART))
RULE_HEAVY_TAIL_LIN = settled(All((AtLeast(r"best $E_{\rm lin}(8)$ found", 1e-2),
                                    AtLeast(r"its ratio to $E_{\log}(8)$", 100, why=APART))))
RULE_CONTEXT_LOG = settled(AtMost(r"$E_{\log}$", 1e-5, where="at every $S$", why=APART))
RULE_CONTEXT_LIN = settled(All((Holds(r"best $E_{\rm lin}$ found increases with $S$"),
                                 AtLeast(f"its growth from $S$ = {number(CONTEXT_S[0])} to {number(CONTEXT_S[1])}",
                                         100, why=APART))))
RULE_EXP_KERNEL_LIN = settled(All((AtMost(r"$E_{\rm lin}(8)$", 1e-4), AtMost(r"$E_{\rm lin}(16)$", 1e-5, why=APART))))
RULE_EXP_KERNEL_LOG = settled(AtLeast(r"best $E_{\log}(16)$ found over $E_{\rm lin}(16)$", 100, why=APART))
RULE_SLOPE_POWER = settled(AtLeast(r"log-log slope of $E_{\log}$'s fall over $H$", 1,
                                   why=r"Thm 6.1(B)'s rate $n \le \lfloor 0.99\beta\rfloor - 1 = 1$ read as a slope: "
                                   r"the theorem bounds the error by $C H^{-1}$ with an unknown $C$, which implies no "
                                   "slope on a finite grid; the stored fits' slope and the no-rate world's 0 lie on "
                                   "either side"))
RULE_SLOPE_EXP = settled(AtLeast(rf"fall of $E_{{\rm lin}}$ from $H = {FALL_H.lo}$ to $H = {FALL_H.hi}$ (a ratio)",
                                 1e3, why=APART))
RULE_RELATIVE_BUMP = settled(All((AtMost(r"$E_{\rm lin}$", 5e-2, where="at every $T$"),
                                   AtMost("its spread (max/min) across $T$", SPREAD_11,
                                          why="between the lin fits' largest spread over 5 fitter seeds (2.9×) and "
                                              "the log fits' smallest (5.1×)"),
                                   AtLeast(r"best $E_{\log}$ found $-$ $E_{\rm lin}$", 0.0, strict=True,
                                           where="at every $T$", why=APART))))
RULE_SHARP_NEAR = settled(All((AtMost("lin at $H = 4$", 1e-3), AtMost("log at $H = 2$", 1e-3, why=APART))))
RULE_SHARP_FAR = settled(AtMost(rf"fewest lin heads over fewest log heads that reach $\ell^1 \le {REACH:g}$", 1,
                                why=r"Thm 4.1's factors at $T = 8$: $e^{0.08} < 8^{1.01}$ (check 3)"))
RULE_MONOTONE = AtMost(r"error($H$) / min over $H' < H$", GROWTH, where=f"where that min is above "
                       f"{number(FLOOR)}", why="larger is an optimiser failure: $H$ heads contain every smaller set")


def read(P, results, kernel: Kernel, *Hs, S: float | None = None, need=()) -> dict | None:
    """{(family, H): the fit across the fitter's seeds} of both families at every H of Hs (every H if none) in the
    page's window for the kernel (or S); None where one of Hs or a (family, H) of `need` is missing."""
    S = window_of(P, kernel) if S is None else S
    got = {f: errors(results, kernel, f, S, part="converged") for f in FAMILIES}
    if not all(got.values()) or not all(H in got[f] for f in FAMILIES for H in Hs):
        return None
    e = {(f, H): e for f in FAMILIES for H, e in got[f].items() if not Hs or H in Hs}
    return e if set(need) <= set(e) else None


def unsettled(used: list[dict], n: int) -> list[str]:
    """Why the fits a row reads are not settled, in words ([] where they are); n: the fitter seeds it needs."""
    few = min(len(e["seeds"]) for e in used)
    why = [f"needs {n} fitter seeds; {few} stored"] if few < n else []
    why += [f"{n} fit(s) {w}" for n, w in ((sum(not e["converged"] for e in used), "not converged in their starts"),
                                           (sum(e["spread"] > 1 + CONVERGED for e in used), "whose fitter seeds "
                                            f"are more than {CONVERGED:.0%} apart"),
                                           (sum(e["idle"] for e in used), "no better than the do-nothing fit "
                                            "(the zero kernel, error 1)")) if n]
    return why


def measured(P, value, text: str, used: list[dict], also=(), **kw) -> Measured:
    """A fit row's Measured: its text with the fitter seeds and starts of the fits it read and how far apart the
    seeds' bests are (fits at the float64 floor FLOOR agree by reaching it); censored where a fit is not settled;
    n: the fitter seeds it needs, P["fitter_seeds"]."""
    starts, above = [e["starts"] for e in used], [e for e in used if e["l1"] > FLOOR]
    span = f"{min(starts)}" if min(starts) == max(starts) else f"{min(starts)}–{max(starts)}"
    floor = f", {len(used) - len(above)} at the float64 floor {number(FLOOR)}" if len(above) < len(used) else ""
    apart = max((e["spread"] for e in above), default=1.0)
    why = unsettled(used, P["fitter_seeds"]) + list(also)
    gap = f"within {apart - 1:.1%} of each other" if apart < 2 else f"up to {apart:.0f}× apart"
    note = f"; fitter seeds a fit: {min(len(e['seeds']) for e in used)}, {span} starts in all, the seeds' bests {gap}{floor}"
    return Measured(value, text + note, n=P["fitter_seeds"], gate=len(why), censored="; ".join(why), **kw)


def band_margin(e: float, band: float) -> str:
    """How far a fit's error is from its threshold, as a factor."""
    r = band / max(e, 1e-300)
    return f"×{r:.0f} below the threshold" if r >= 1 else f"×{1 / r:.1f} above the threshold"


def reads(kernel: Kernel, *Hs, need=()):
    """A fit row's measure(P, results) from measure(P, e), e the fits `read` finds (not measured where it finds none)."""
    def wrap(measure):
        def on(P, results):
            e = read(P, results, kernel, *Hs, need=need)
            return None if e is None else measure(P, e)
        return on
    return wrap


HEAVY, EXP = Kernel("power", beta=1.2), Kernel("exp", tau=10.0)


@reads(HEAVY, 8)
def _heavy_tail_log(P, e):
    g = e["log", 8]["l1"]
    return measured(P, g, f"$E_{{\\log}}(8)$ {fmt(g)} ({band_margin(g, RULE_HEAVY_TAIL_LOG.rule.bound)})",
                    [e["log", 8]], paper=NO_RATE, where=f"window $S$ = {float(P['window']):.0e}")


@reads(HEAVY, 8)
def _heavy_tail_lin(P, e):
    lin, ratio = e["lin", 8]["l1"], e["lin", 8]["l1"] / max(e["log", 8]["l1"], 1e-300)
    return measured(P, parts(lin, ratio), f"best $E_{{\\rm lin}}(8)$ found {fmt(lin)}, {ratio:.0f}× $E_{{\\log}}(8)$",
                    list(e.values()), paper=UPPER, where=f"window $S$ = {float(P['window']):.0e}")


def _context(P, results, family):
    """(where, windows, [fit of `family` at context_H], [its error]), one per window of the sweep at beta = 1.2."""
    if 1.2 not in P["context_betas"]:
        return None
    H0, Ss = P["context_H"], sorted(P["context_windows"])
    got = [read(P, results, HEAVY, H0, S=S) for S in Ss]
    if None in got:
        return None
    used = [e[family, H0] for e in got]
    return f"$H$ = {H0}, $S$ = " + ", ".join(f"{S:g}" for S in Ss), Ss, used, [e["l1"] for e in used]


def _context_log(P, results):
    c = _context(P, results, "log")
    if c is None:
        return None
    where, _, used, E = c
    return measured(P, np.array(E), r"$E_{\log}$ " + ", ".join(map(fmt, E))
                    + f" ({band_margin(max(E), RULE_CONTEXT_LOG.rule.bound)})", used, paper=NO_RATE, where=where)


def _context_lin(P, results):
    c = _context(P, results, "lin")
    if c is None or not set(CONTEXT_S) <= set(c[1]):
        return None
    where, Ss, used, E = c
    growth = E[Ss.index(CONTEXT_S[1])] / E[Ss.index(CONTEXT_S[0])]
    ends = " to ".join(f"{S:g}".replace("e+0", "e") for S in CONTEXT_S)          # "512 to 1e6"
    return measured(P, parts(all(b > a for a, b in zip(E, E[1:])), growth), r"best $E_{\rm lin}$ found "
                    + ", ".join(map(fmt, E)) + f" (×{growth:.0f} from {ends})", used, paper=UPPER, where=where)


@reads(EXP, need=[("lin", 8), ("lin", 16)])
def _exp_kernel_lin(P, e):
    l8, l16 = e["lin", 8]["l1"], e["lin", 16]["l1"]
    return measured(P, parts(l8, l16), f"$E_{{\\rm lin}}(8)$ {fmt(l8)}, $E_{{\\rm lin}}(16)$ {fmt(l16)}",
                    [e["lin", 8], e["lin", 16]], paper=r"Thm 6.1(A): lin, $O(H^{-n})$, $n \le 9$")


@reads(EXP, 16)
def _exp_kernel_log(P, e):
    l16, g16 = e["lin", 16]["l1"], e["log", 16]["l1"]
    ratio = g16 / max(l16, 1e-300)
    return measured(P, ratio, f"best $E_{{\\log}}(16)$ found {fmt(g16)}, ×{ratio:.0e} $E_{{\\rm lin}}(16)$",
                    list(e.values()), paper=UPPER)


def _slope_power(P, results):
    b3 = errors(results, Kernel("power", beta=3.0), "log", float(P["window"]), part="converged")
    if not b3:
        return None
    Hs = SLOPE_H(sorted(b3))
    slope = -loglog_slope(Hs, [b3[H]["l1"] for H in Hs])
    return measured(P, slope, f"slope {slope:.2f}", [b3[H] for H in Hs],
                    paper=r"Thm 6.1(B): $n \le \lfloor 0.99\beta\rfloor - 1 = 1$", where=named_grid("H", Hs))


@reads(EXP, need=[("lin", FALL_H.lo), ("lin", FALL_H.hi)])
def _slope_exp(P, e):
    a, b = e["lin", FALL_H.lo], e["lin", FALL_H.hi]
    return measured(P, a["l1"] / b["l1"], f"{fmt(a['l1'])} → {fmt(b['l1'])} (×{a['l1'] / b['l1']:.0e})", [a, b],
                    paper=r"Thm 6.1(A): $O(H^{-n})$, $n \le 9$")


def _relative_bump(P, results):
    H = P["rel_bump_H"]
    e = [read(P, results, Kernel("bump", T=T, w=T * P["rel_bump_frac"]), H) for T in P["rel_bump_T"]]   # one per T
    if len(e) < 2 or None in e:                       # stated at H = rel_bump_H only
        return None
    lins, logs = [x["lin", H]["l1"] for x in e], [x["log", H]["l1"] for x in e]
    spread = max(lins) / min(lins)
    return measured(P, parts(np.array(lins), spread, np.array(logs) - np.array(lins)),
                    r"$E_{\rm lin}$ " + ", ".join(map(fmt, lins)) + f" (spread {spread:.2f}×); best "
                    + r"$E_{\log}$ found " + ", ".join(map(fmt, logs)), [f for x in e for f in x.values()],
                    paper=UPPER,
                    where=f"width $T$/{1 / P['rel_bump_frac']:g}; {named_grid('T', P['rel_bump_T'])}; $H$ = {H}")


@reads(Kernel("delta", T=2), need=[("lin", 4), ("log", 2)])
def _sharp_memory_near(P, e):
    l4, g2 = e["lin", 4]["l1"], e["log", 2]["l1"]
    return measured(P, parts(l4, g2), f"lin(4) {fmt(l4)}, log(2) {fmt(g2)}", [e["lin", 4], e["log", 2]],
                    paper=r"Thm 4.1: $O(H^{-n})$ with an $e^{0.01T}$ or $T^{1.01}$ factor", where="delta at $T = 2$")


@reads(Kernel("delta", T=8))
def _sharp_memory_far(P, e):
    Hs, eps = FAR_H(sorted({H for _, H in e})), REACH
    need = {f: heads_needed({H: e[f, H] for H in Hs}, eps) for f in FAMILIES}
    shown = lambda f: f"{need[f]:.0f}" if math.isfinite(need[f]) else f"> {Hs[-1]}"
    both = [f"neither family reaches {eps:g} with $H \\le {Hs[-1]}$ (a larger grid of $H$ would tell)"]
    return measured(P, need["lin"] / need["log"] if math.isfinite(min(need.values())) else math.nan,
                    f"fewest heads to {eps:g}: lin {shown('lin')}, log {shown('log')}; best lin "
                    + ", ".join(f"{e['lin', H]['l1']:.2g}" for H in Hs) + ", log " + ", ".join(
                        f"{e['log', H]['l1']:.2g}" for H in Hs) + f" at {named_grid('H', Hs)}",
                    [e[f, H] for f in FAMILIES for H in Hs], also=[] if math.isfinite(min(need.values())) else both,
                    paper=r"Thm 4.1: lin's factor $e^{0.01T}$ below log's $T^{1.01}$ for $2 \le T \le 654$",
                    where="delta at $T = 8$")


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
    """Why a fit row fails or is censored, from its measured column (a row about the best fit found is refuted by a
    better fit; an unsettled fit leaves its row censored, and more fitter seeds settle only seeds that agree)."""
    why = row.get("censored") or "the rule misses"
    need = (" Fits at the do-nothing fit at every fitter seed need a fitter that leaves that plateau (more starts than "
            "the doubling stops at), not more seeds" if "do-nothing" in why else " Fitter seeds whose bests disagree "
            "are not settled by more seeds: it needs a fitter that reaches one optimum from every seed (more starts "
            "per seed)" if "apart" in why else "")
    return f"{why}: {row['measured']}.{need}"
