"""The head_lower_bound rows on samples-to-threshold against N: the H = 1 runs held by Prop. 21 (4-floor-h1), and
the power fit and the AIC comparison of growth laws that 4-scaling decides on, with the sentences the page quotes.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> round(scaling_numbers(P, results)["p"], 2)
    0.23
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lib.chapters.head_lower_bound.results import SAMPLE_GROWTHS, power_fit, scaling_table
from lib.core.claims import Measured
from lib.core.rules import PAPER, AtMost, number
from lib.science import a2

RULE_FLOOR_H1 = AtMost("$H=1$ runs that cross the threshold", 0, by=PAPER,
                       why="Prop. 21 holds an $H=1$ run's FVU at $1-1/q$ or above, over the threshold")
# 4-scaling: a power N^p with p >= MAX_POWER is ruled out when p + SCALING_SE se < MAX_POWER (the book's calibration).
# Where runs never crossed, their counts are only bounded below (by the cap): the power fitted with them at the cap
# bounds p from below (`_power_floor`), so the row FAILs where that bound reaches MAX_POWER and is censored otherwise.
MAX_POWER, SCALING_SE = Fraction(1, 2), 2
RULE_SCALING = AtMost(rf"$p + {SCALING_SE}\,\mathrm{{se}}$", MAX_POWER, strict=True, spread="SE", ranged=True,
                      where=r"for the power $N^p$ fitted to every $H=q$ run's count (a run that never crossed counts at "
                            "the cap, which bounds $p$ from below)",
                      why=r"a growth as fast as $\sqrt N$ ruled out; a polylog's local slope $1/\ln N$ is 0.36 at "
                          "$N=16$, 0.18 at $N=256$")


def floor_h1(P, results):
    floor = 1 - 1 / P["scale_q"]
    if P["scale_threshold"] >= floor:
        return None                                   # Prop. 21 does not keep H = 1 above such a threshold
    h1 = scaling_table(P, results)[1]
    runs = [results["scaling"][N]["result"] for N in P["scale_N"]]
    best = min(f for r in runs for h, f in zip(r["heads"], r["best_fvu"]) if h == 1)
    return Measured(int((~np.isnan(h1["samples"])).sum()), f"censored {int(np.isnan(h1['samples']).sum())} of "
                    f"{h1['samples'].size}; lowest FVU on the 1,000 check prompts {best:.3f} (the best of every check: a "
                    "noisy minimum)", paper=f"FVU ≥ 1 − 1/q = {floor:.2f}",
                    where=f"$q={P['scale_q']}$, threshold {P['scale_threshold']}")


def scaling_numbers(P: dict, results: dict) -> dict | None:
    """What 4-scaling decides on and the page says: the power fit over every H = q run against MAX_POWER, and the AIC
    of a + b f(N) for each law of SAMPLE_GROWTHS. None where a run is censored (the fits need every count)."""
    tab = scaling_table(P, results)[P["scale_q"]]
    N, S = tab["N"], tab["samples"]
    if np.isnan(S).any():
        return None
    fit = power_fit(N, S)
    cmp = a2.compare_fits(np.repeat(N, S.shape[1]), S.ravel(), SAMPLE_GROWTHS)
    order = sorted(SAMPLE_GROWTHS, key=lambda k: cmp["fits"][k]["aic"])
    return {"p": fit["p"], "se": fit["se"], "runs": fit["runs"], "margin": (MAX_POWER - fit["p"]) / fit["se"],
            "passed": RULE_SCALING.holds(fit["p"] + SCALING_SE * fit["se"]),
            "aic": {k: cmp["fits"][k]["aic"] for k in SAMPLE_GROWTHS},
            "order": order, "aic_margin": cmp["margin"], "log_best": order[0] == "ln N" and cmp["margin"] >= 2}


GROWTH_LABEL = {"ln N": "a + b ln N", "N^1/2": "a + b√N", "N": "a + bN"}   # plain text: glued Markdown has no math


def growth_sentence(s: dict) -> str:
    """The power fit and the AIC comparison of 4-scaling in words: slower than sqrt N; polylog only where ln N wins."""
    best, second = s["order"][0], s["order"][1]
    ranked = ", ".join(f"{GROWTH_LABEL[k]} {s['aic'][k]:.1f}" for k in s["order"])
    power = (f"the power fit gives p = {s['p']:.2f} ± {s['se']:.2f}, "
             + (f"below {number(MAX_POWER)} by more than {SCALING_SE} standard errors" if s["passed"] else
                f"not below {number(MAX_POWER)} by {SCALING_SE} standard errors"))
    if s["log_best"]:
        return (f"{power}, and the AIC prefers {GROWTH_LABEL[best]} by {s['aic_margin']:.1f} ({ranked}): "
                + ("a growth slower than √N and consistent with a polylogarithm" if s["passed"] else
                   "the law fits, but the growth is not shown slower than √N"))
    close = "" if s["aic_margin"] >= 2 else ": no law is ahead of the next by 2 or more"
    return (f"{power}; the AIC ranks {ranked} (lowest first; {GROWTH_LABEL[best]} ahead of {GROWTH_LABEL[second]} by "
            f"{s['aic_margin']:.1f}{close}), so this grid does not single out ln N: "
            + ("what it shows is a cost that grows slower than √N, not that the cost is polylogarithmic"
               if s["passed"] else "it shows neither a polylogarithmic cost nor one slower than √N"))


def scaling_claim(P, results):
    """p + SCALING_SE se of the power fit (a polylog has local slope 1/ln N: 0.36 at N = 16, 0.18 at 256), the AIC of
    each law beside it; a run that never crossed is a bound, not a value: with any, the power is known only from below
    (_power_floor), and RULE_SCALING decides on that range."""
    S = scaling_table(P, results)[P["scale_q"]]["samples"]
    span = max(P["scale_N"]) / min(P["scale_N"])
    never = int(np.isnan(S).sum())
    about = {"paper": r"polylog $N$ (Thm 4); $\Omega(N)$ for an FFN (Thm 6)",
             "where": rf"$q={P['scale_q']}$, threshold {P['scale_threshold']}, "
                      rf"$N = {min(P['scale_N'])},\dots,{max(P['scale_N'])}$",
             "scale": "" if span >= 16 else (rf"$N$ spans a factor {span:.0f}: telling $\log N$ from $N^{{1/2}}$ needs "
                                             "$N$ over a decade or more (the paper profile: 16 to 256)")}
    if never:               # runs above the cap bound the power from below only
        lo = _power_floor(scaling_table(P, results)[P["scale_q"]], P["scale_max_samples"])
        bound = f"with their counts at the cap, p ≥ {lo:.2f}" if lo > -math.inf else "p has no lower bound"
        return Measured(lo, f"{never} of {S.size} runs never crossed (n* > {P['scale_max_samples']:,}): {bound}",
                        lo=lo, hi=math.inf, censored=f"{never} runs never crossed; {bound}", **about)
    s = scaling_numbers(P, results)
    aic = ", ".join(f"{k}: {s['aic'][k]:.1f}" for k in SAMPLE_GROWTHS)
    shape = "slower than √N, consistent with ln N" if s["log_best"] else f"slower than √N; lowest AIC: {s['order'][0]}, not ln N"
    return Measured(s["p"] + SCALING_SE * s["se"], f"p = {s['p']:.2f} ± {s['se']:.2f} over {s['runs']} runs "
                    f"({s['margin']:.1f} SE below {number(MAX_POWER)}); AIC of " rf"$a+b\,f(N)$: {aic}"
                    + (f" ({shape})" if s["passed"] else ""), spread=s["se"], **about)


def _power_floor(tab: dict, cap: float) -> float:
    """A lower bound on the power fitted to every count where some runs never crossed: the fit with their counts at
    the cap. Raising a count at an N at or above the grid's mean ln N raises the least-squares slope, so the bound
    holds where every such run sits there; elsewhere there is none (-inf)."""
    S, x = tab["samples"], np.log(np.asarray(tab["N"], float))[:, None] * np.ones_like(tab["samples"])
    never = np.isnan(S)
    return -math.inf if np.any(x[never] < x.mean()) else power_fit(tab["N"], np.where(never, cap, S))["p"]


def scaling_finding(P: dict, results: dict, row: dict) -> str:
    """4-scaling's finding: growth_sentence, or the row's measured text where a censored run leaves nothing fitted."""
    sn = scaling_numbers(P, results)
    return row["measured"] if sn is None else growth_sentence(sn) + "."
