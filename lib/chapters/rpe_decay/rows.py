"""rpe_decay's claim rows, each a statistic of the stored points decided by its rule object (RULE_*, lib.core.rules),
which writes the rule's text: the exact checks 1-6 (exact_rows.py), the fitter's guard 13, this book's calibrated
claims about the best fit found (7-12), the training hypotheses 14a/14b, and the numbers of the NeurIPS version's
Appendix H (H4a-H4b, from apph_rows.py). The page shows them through `claims`.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (24, [('1-t5-buckets', True), ('2-allocation', True)])
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lib.chapters.rpe_decay import apph_rows, compute, exact_rows
from lib.chapters.rpe_decay.compute import FAMILIES, Kernel, window_of
from lib.chapters.rpe_decay.read import (
    PRECISION_MARGIN,
    errors,
    fmt,
    label,
    reachable,
    times,
    train_table,
    training_floor,
)
from lib.core.claims import Row, evaluate
from lib.core.rules import BOOK as CALIBRATED
from lib.core.rules import PAPER, All, AtLeast, AtMost, Holds, number
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
RULE_MONOTONE = AtMost(r"error($H$) / min over $H' < H$", compute.GROWTH, where=f"where that min is above "
                       f"{number(compute.FLOOR)}", why="larger is an optimiser failure: $H$ heads contain every smaller set")
RULE_TRAIN_ORDER = AtLeast("share of seeds in which the matched RPE has the lower test MSE", Fraction(2, 3),
                           where="for every kernel", why="this book's hypothesis")
RULE_TRAIN_FLOOR = AtMost("median over seeds of the trained MSE over max(optimum, floor)", 10,
                          where="for every kernel, family and $H$, every run counted", why="this book's hypothesis")


# ------------------------------------------------------------------------------------------------ claims
# Checks 1-6 are exact; claims 7-12 hold this run's fits to bands this book calibrated on independent fits (about 10x
# margins); 13 guards the fitter; 14 is a hypothesis about training; H4a-H4b are the NeurIPS version's Appendix H
# numbers (apph_rows.py). Each measure takes (P, results); a row is left out when the page's parameters do not contain
# its kernel.
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
    return e and RULE_HEAVY_TAIL_LOG.decide(e[1], f"$E_{{\\log}}(8)$ {fmt(e[1])} "
                                            f"({band_margin(e[1], RULE_HEAVY_TAIL_LOG.bound)})",
                                            paper=NO_RATE,
                                            where=f"window $S$ = {float(P['window']):.0e}")


def _heavy_tail_lin(P, results):
    e = _heavy_tail(P, results)
    ratio = e[0] / max(e[1], 1e-300) if e else None
    return e and RULE_HEAVY_TAIL_LIN.decide((e[0], ratio), f"best $E_{{\\rm lin}}(8)$ found {fmt(e[0])}, {ratio:.0f}× "
                                            "$E_{\\log}(8)$", paper="none: the paper proves upper bounds only",
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
    return RULE_CONTEXT_LOG.decide(np.array(Eg), r"$E_{\log}$ " + ", ".join(map(fmt, Eg))
                                   + f" ({band_margin(max(Eg), RULE_CONTEXT_LOG.bound)})",
                                   paper=NO_RATE,
                                   where=f"$H$ = {H0}, $S$ = " + ", ".join(f"{S:g}" for S in Ss))


def _context_lin(P, results):
    c = _context_errors(P, results)
    if c is None or not set(CONTEXT_S) <= set(c[1]):
        return None
    H0, Ss, El, _ = c
    mono = all(b > a for a, b in zip(El, El[1:]))
    growth = El[Ss.index(CONTEXT_S[1])] / El[Ss.index(CONTEXT_S[0])]
    ends = " to ".join(f"{S:g}".replace("e+0", "e") for S in CONTEXT_S)          # "512 to 1e6"
    return RULE_CONTEXT_LIN.decide((mono, growth), r"best $E_{\rm lin}$ found " + ", ".join(map(fmt, El))
                                   + f" (×{growth:.0f} from {ends})",
                                   paper="none: the paper proves upper bounds only",
                                   where=f"$H$ = {H0}, $S$ = " + ", ".join(f"{S:g}" for S in Ss))


def _exp(results, P):
    return [errors(results, Kernel("exp", tau=10.0), f, float(P["window"])) for f in FAMILIES]


def _exp_kernel_lin(P, results):
    ex_lin, _ = _exp(results, P)
    if not (8 in ex_lin and 16 in ex_lin):       # the rule is stated at H = 8 and 16: no other H stands in
        return None
    l8, l16 = ex_lin[8]["l1"], ex_lin[16]["l1"]
    return RULE_EXP_KERNEL_LIN.decide((l8, l16), f"$E_{{\\rm lin}}(8)$ {fmt(l8)}, $E_{{\\rm lin}}(16)$ {fmt(l16)}",
                                      paper=r"Thm 6.1(A): lin, $O(H^{-n})$, $n \le 9$")


def _exp_kernel_log(P, results):
    ex_lin, ex_log = _exp(results, P)
    if not (16 in ex_lin and 16 in ex_log):
        return None
    l16, g16 = ex_lin[16]["l1"], ex_log[16]["l1"]
    ratio = g16 / max(l16, 1e-300)
    return RULE_EXP_KERNEL_LOG.decide(ratio, f"best $E_{{\\log}}(16)$ found {fmt(g16)}, ×{ratio:.0e} $E_{{\\rm lin}}(16)$",
                                      paper="none: the paper proves upper bounds only")


def _slope_power(P, results):
    b3 = _power(results, P, 3.0, "log")
    if not b3:
        return None
    Hs = [H for H in sorted(b3) if H <= 8]
    slope = -loglog_slope(Hs, [b3[H]["l1"] for H in Hs])
    return RULE_SLOPE_POWER.decide(slope, f"slope {slope:.2f}", paper=r"Thm 6.1(B): $n \le \lfloor 0.99\beta\rfloor - 1 = 1$",
                                   where=f"$H$ in {Hs}")


def _slope_exp(P, results):
    ex_lin = _exp(results, P)[0]
    if not (ex_lin and 2 in ex_lin and 16 in ex_lin):
        return None
    drop = ex_lin[2]["l1"] / ex_lin[16]["l1"]
    return RULE_SLOPE_EXP.decide(drop, f"{fmt(ex_lin[2]['l1'])} → {fmt(ex_lin[16]['l1'])} (×{drop:.0e})",
                                 paper=r"Thm 6.1(A): $O(H^{-n})$, $n \le 9$")


def _relative_bump(P, results):
    H = P["rel_bump_H"]
    rb = {T: [errors(results, Kernel("bump", T=T, w=T * P["rel_bump_frac"]), f, window_of(P, Kernel("bump", T=T)))
              for f in FAMILIES] for T in P["rel_bump_T"]}
    if len(rb) < 2 or not all(H in el and H in eg for el, eg in rb.values()):   # stated at H = rel_bump_H only
        return None
    lins, logs = [el[H]["l1"] for el, _ in rb.values()], [eg[H]["l1"] for _, eg in rb.values()]
    spread = max(lins) / min(lins)
    return RULE_RELATIVE_BUMP.decide((np.array(lins), spread, np.array(logs) - np.array(lins)),
                                     r"$E_{\rm lin}$ " + ", ".join(map(fmt, lins)) + f" (spread {spread:.2f}×); best "
                                     + r"$E_{\log}$ found " + ", ".join(map(fmt, logs)),
                                     paper="none; this book's calibration fits: lin about 2e-2 at every $T$, log 0.19–0.64",
                                     where=f"width $T$/{1 / P['rel_bump_frac']:g}, $T$ in {P['rel_bump_T']}, $H$ = {H}")


def _deltas(P, results):
    return {T: {f: errors(results, Kernel("delta", T=T), f, window_of(P, Kernel("delta", T=T))) for f in FAMILIES}
            for T in P["delta_T"]}


def _sharp_memory_near(P, results):
    d = _deltas(P, results)
    if 2 not in d or 4 not in d[2]["lin"] or 2 not in d[2]["log"]:
        return None
    l4, g2 = d[2]["lin"][4]["l1"], d[2]["log"][2]["l1"]
    return RULE_SHARP_NEAR.decide((l4, g2), f"lin(4) {fmt(l4)}, log(2) {fmt(g2)}",
                                  paper=r"Thm 4.1: $O(H^{-n})$ with an $e^{0.01T}$ or $T^{1.01}$ factor",
                                  where="delta at $T = 2$")


def _sharp_memory_far(P, results):
    d = _deltas(P, results)
    if 8 not in d:
        return None
    best = {f: min((e["l1"], H) for H, e in d[8][f].items() if H <= 16) for f in FAMILIES}
    return RULE_SHARP_FAR.decide([v[0] for v in best.values()], ", ".join(f"best {f} found {v[0]:.2f} (H = {v[1]})"
                                                                          for f, v in best.items()),
                                 paper="none: the paper proves upper bounds only", where="delta at $T = 8$, $H \\le 16$")


def _monotone(P, results):
    """The error cannot grow with H (H heads contain every H' < H): a guard on the fitter, after its refits."""
    worst, where, refitted = 1.0, "", 0
    for (name, f, S, Hs), rec in results["fit"].items():
        e = np.array(rec["result"]["l1"], float)
        refitted += sum(n > rec["spec"]["restarts"] for n in rec["result"].get("restarts", []))
        for i in range(1, len(e)):
            ratio = compute.grows_with_H(np.min(e[:i]), e[i])
            if ratio > worst:
                worst, where = ratio, f"{name}, {f}, S={S:g}, H={Hs[i]}"
    return RULE_MONOTONE.decide(worst, f"largest ratio {worst:.2f}" + (f" ({where})" if where else "")
                                + f"; {refitted} fit(s) refitted", paper="none (a guard on this book's fitter)",
                                where=f"{len(results['fit'])} kernel × family × window points")


AT_FLOOR = 10     # 14a: a family whose median is within this factor of the training floor is at the floor
BAND = RULE_TRAIN_FLOOR.bound     # 14b: the median over seeds within this factor of max(optimum, floor); the page quotes it


def matched(k: Kernel) -> str:
    """The RPE matched to a kernel's decay: log on power laws, lin on exponentials."""
    return "log" if k.kind == "power" else "lin"


def order_wins(m: dict, good: str) -> int:
    """14a's count: the seeds in which the matched family's MSE is below the other's ({family: {seed: MSE}})."""
    other = "lin" if good == "log" else "log"
    return sum(m[good][s] < m[other][s] for s in m[good] if s in m[other])


def _train_order(P, results):
    rows = train_table(results)
    if not rows:
        return None
    floor, _ = training_floor(rows)
    Hc = 8 if 8 in P["train_H"] else max(P["train_H"])
    parts, at_floor, shares = [], [], []
    for name in sorted({r["kernel"] for r in rows}):
        S = max(r["S"] for r in rows if r["kernel"] == name)
        sel = [r for r in rows if r["kernel"] == name and r["S"] == S and r["H"] == Hc]
        good = matched(sel[0]["k"])
        m = {f: {r["seed"]: r["mse"] for r in sel if r["family"] == f} for f in FAMILIES}
        med = {f: float(np.median(list(m[f].values()))) for f in FAMILIES}
        wins = order_wins(m, good)
        shares.append(wins / P["train_seeds"])         # of the seeds the hypothesis is stated over
        part = (f"{label(sel[0]['k'])}: {good} better in {wins}/{len(m[good])} (medians lin {fmt(med['lin'])}, "
                f"log {fmt(med['log'])})")
        if not RULE_TRAIN_ORDER.holds(shares[-1]):
            if max(med.values()) <= AT_FLOOR * floor:      # both at what training resolves: the order is the optimiser's
                at_floor.append(S)
                opt = {f: next(r["opt"] for r in sel if r["family"] == f) for f in FAMILIES}
                part += (f": both within {AT_FLOOR}× the training floor {fmt(floor)}, their optima ({fmt(opt['lin'])} lin, "
                         f"{fmt(opt['log'])} log) below it, so the order measures the optimiser's precision, not the RPE")
            else:
                reach = {f: reachable(next(r for r in sel if r["family"] == f), floor) for f in FAMILIES}
                bad = "lin" if good == "log" else "log"
                part += (f": {good} stops at {times(med[good] / reach[good])}× what its heads can reach "
                         f"(max(optimum, floor)), {bad} at {times(med[bad] / reach[bad])}×")
        parts.append(part)
    # below scale only where the run is shorter than the S the hypothesis is stated at and both families sit at the
    # floor there; at S >= 1024 any failure is a finding about the hypothesis, shown as a failure
    scale = ("both RPEs at the training floor at $S$ < 1024; the hypothesis is stated at $S$ = 1024 (the paper profile)"
             if at_floor and all(S < 1024 for S in at_floor) else "")
    return RULE_TRAIN_ORDER.decide(np.array(shares), "; ".join(parts), paper="none (designed here)", scale=scale,
                                   where=f"$H$ = {Hc}")


def floor_ratios(rows: list[dict], floor: float) -> np.ndarray:
    """Each run's trained MSE over max(optimum, floor), every run (none dropped)."""
    return np.array([r["mse"] / reachable(r, floor) for r in rows])


GROUP = ("kernel", "S", "family", "H")


def group_ratios(rows: list[dict], floor: float) -> dict[tuple, list[float]]:
    """{(kernel, S, family, H): the ratios of its seeds}: every run enters its group."""
    out: dict[tuple, list[float]] = {}
    for r, x in zip(rows, floor_ratios(rows, floor)):
        out.setdefault(tuple(r[k] for k in GROUP), []).append(float(x))
    return out


def within_band(groups: dict[tuple, list[float]]) -> bool:
    """14b's rule (RULE_TRAIN_FLOOR): the median over seeds of every (kernel, S, family, H) within its band of
    max(optimum, floor)."""
    return RULE_TRAIN_FLOOR.holds(max(float(np.median(v)) for v in groups.values()))


def _train_floor(P, results):
    rows = train_table(results)
    if not rows:
        return None
    floor, n = training_floor(rows)
    ratio, groups = floor_ratios(rows, floor), group_ratios(rows, floor)
    med = {k: float(np.median(v)) for k, v in groups.items()}
    w = max(med, key=med.get)
    return RULE_TRAIN_FLOOR.decide(med[w], f"floor {fmt(floor)} (median of the {n} lin runs ≥ {PRECISION_MARGIN}× above "
                                   f"their optimum); the worst median ratio {med[w]:.1f} ({w[0]}, {w[2]}, H={w[3]}); "
                                   f"{sum(v <= BAND for v in med.values())} of {len(med)} groups and "
                                   f"{int((ratio <= BAND).sum())} of {len(ratio)} runs within {BAND}×; "
                                   f"{seed_margin(groups[w], BAND)}", paper="none (designed here)")


def seed_margin(ratios: list[float], bound: float) -> str:
    """The margin of the worst group's median under `bound` in decades, and in units of the spread over its seeds:
    "seeds identical" where that spread is below apph_rows.IDENTICAL decades (seeds that agree to three digits make
    any z-score meaningless)."""
    lv = np.log10(ratios)
    worst = math.log10(bound) - float(np.median(lv))
    sd = float(np.std(lv, ddof=1)) if len(lv) > 1 else 0.0
    if len(lv) < 2:
        return f"margin {worst:+.1f} decades (one seed)"
    if sd < apph_rows.IDENTICAL:
        return f"margin {worst:+.1f} decades (its seeds identical: sd < {apph_rows.IDENTICAL:g} decades)"
    return f"margin {worst:+.1f} decades = {worst / sd:+.1f} sd over its {len(lv)} seeds (sd {sd:.2f})"


BOOK = "hypothesis (this book)"
# The paper proves upper bounds only; a row about how large an error stays is about the best fit this page's fitter
# found (a better fitter could lower it), so it is this book's hypothesis, never the theorem's.
BEST = "hypothesis (this book): best fit found"
ROWS = exact_rows.ROWS + [
    Row("7a-heavy-tail-log", "claim", BOOK + r"; Thm 6.1(B) gives no rate at $\beta$ = 1.2",
        r"Power law $\beta = 1.2$, $H = 8$: log heads approximate it", RULE_HEAVY_TAIL_LOG, _heavy_tail_log),
    Row("7b-heavy-tail-lin", "claim", BEST, r"Power law $\beta = 1.2$, $H = 8$: the best lin fit found stays far above "
        "the log fit", RULE_HEAVY_TAIL_LIN, _heavy_tail_lin),
    Row("8a-context-log", "claim", BOOK + r"; Thm 6.1(B) gives no rate at $\beta$ = 1.2",
        r"Power law $\beta = 1.2$: log heads' error against the window $S$", RULE_CONTEXT_LOG, _context_log),
    Row("8b-context-lin", "claim", BEST, r"Power law $\beta = 1.2$: the best lin fit found against the window $S$",
        RULE_CONTEXT_LIN, _context_lin),
    Row("9a-exp-kernel-lin", "claim", "Theorem 6.1(A)", r"Exponential with cutoff, $\tau = 10$: lin heads converge fast",
        RULE_EXP_KERNEL_LIN, _exp_kernel_lin),
    Row("9b-exp-kernel-log", "claim", BEST, r"Exponential with cutoff, $\tau = 10$: the best log fit found at $H = 16$",
        RULE_EXP_KERNEL_LOG, _exp_kernel_log),
    Row("10a-slope-power", "claim", "Theorem 6.1(B)", r"Power law $\beta = 3$, log heads: log-log slope of the error "
        "over $H$", RULE_SLOPE_POWER, _slope_power),
    Row("10b-slope-exp", "claim", "Theorem 6.1(A)",
        r"Exponential with cutoff $\tau = 10$, lin heads: error from $H = 2$ to $H = 16$", RULE_SLOPE_EXP, _slope_exp),
    Row("11-relative-bump", "claim", BEST, "Bump of width proportional to $T$, window $6T$: lin heads are "
        "scale-covariant (the same error at every $T$), log heads are not", RULE_RELATIVE_BUMP, _relative_bump),
    Row("12a-sharp-memory-near", "claim", "Theorem 4.1", "Delta at $T = 2$ (Task I's kernel): both families reach it",
        RULE_SHARP_NEAR, _sharp_memory_near),
    Row("12b-sharp-memory-far", "claim", BEST, "Delta at $T = 8$: no fit found with $H \\le 16$ gets close",
        RULE_SHARP_FAR, _sharp_memory_far),
    Row("13-monotone-in-H", "check", "the fitter ($H$ heads contain every $H' < H$)", "Every fit: the error at $H$ is no "
        "larger than the best at smaller $H$ (fits at each $H$ are independent; a fit that grows is refitted with "
        f"{compute.REFIT}×, then {compute.REFIT ** 2}× the starts)",
        RULE_MONOTONE, _monotone),
    Row("14a-train-order", "claim", BOOK, "Trained one-layer DP-free models, linear target, largest $S$: the matched "
        "RPE (log on power laws, lin on exponentials) has the lower test MSE",
        RULE_TRAIN_ORDER, _train_order),
    Row("14b-train-floor", "claim", BOOK, r"Trained test MSE of every run against what its heads can reach: the "
        r"optimum $\mathrm{Var}(x)\,E_2(H)^2$ of the fitter (variable projection) for the same family, window and $H$, "
        "or the training floor where that is higher (the floor: the median trained MSE of the lin runs at least "
        f"{PRECISION_MARGIN}× above their own optimum)", RULE_TRAIN_FLOOR, _train_floor),
] + apph_rows.ROWS


def claims(P: dict, results: dict) -> list[dict]:
    """The rows of ROWS this run can measure, evaluated on its points."""
    return evaluate(ROWS, P, results)
