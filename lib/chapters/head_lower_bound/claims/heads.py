"""The head_lower_bound rows on the H sweeps: the Bayes-risk calculator behind Prop. 21's floor, the floors of
Prop. 21 and Prop. 3, what H >= q heads reach and the one-head control; with the numbers the page quotes about them.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> r = reach_numbers(P, results); r["reach_k"], r["reach_n"], r["reach_bar"], round(r["luck_pass"], 2)
    (4, 6, 3, 0.32)
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lib.chapters.head_lower_bound.compute import lower_bound
from lib.chapters.head_lower_bound.results import RANK_TOL, REACH, heads_runs, relative_rank, result_of
from lib.core.claims import Measured
from lib.core.rules import EXACT, All, AtLeast, AtMost, number

FLOOR_SE = 3          # standard errors of the test set a run may sit below its floor (or must sit below one)
LUCK = Fraction(1, 3)  # the chance per run of a world where training finds the solution by luck (5-reach-fraction)


def _floor_rule(value: str, floor: str, why: str) -> AtLeast:
    """A floor held run by run: (value - floor) / se at least -FLOOR_SE."""
    return AtLeast(rf"$(\mathrm{{{value}}} - {floor})/\mathrm{{se}}$", -FLOOR_SE, where="at every run", spread="SE",
                   why=why)


# The rules, one per row.
RULE_REACH = AtMost("best FVU at $H=q$", REACH, spread="SE", why="the FVU that counts as getting the data right")
RULE_CALC_BAYES = All((AtMost(r"max $|z|$ of the Monte-Carlo risk against the formula at ranks $< q$", FLOOR_SE,
                              spread="SE", why="its Monte-Carlo noise"),
                       AtMost(r"the risk at rank $q$", 1e-9, by=EXACT, why="0 up to rounding")))
RULE_CALC_MLP = _floor_rule("MSE", r"2(q-\operatorname{rank}\mathbf A)/q", "the Bayes risk less the fit's Monte-Carlo noise")
RULE_FLOOR_PROP21 = _floor_rule("FVU", "(1-H/q)", "Prop. 21's floor less the test set's noise")
RULE_FLOOR_PROP3 = All((AtLeast("runs with a non-vacuous bound", 1, by=EXACT),
                        _floor_rule("FVU", "(1-H(q+d)/(qd))", "Prop. 3's floor less the test set's noise")))
RULE_RANK_USED = AtMost(rf"runs at FVU ≤ {number(REACH)} whose relative rank ($\sigma_k/\sigma_1 > {number(RANK_TOL)}$) "
                        "is not $q$", 0, why="the relative rank's tolerance; zero error needs rank $q$, Prop. 21's proof")
RULE_REACH_FRACTION = AtLeast(rf"share of the $H \ge q$ runs at FVU ≤ {number(REACH)}", Fraction(1, 2), spread="SE",
                              why="most runs: training, not one lucky run, finds the solution")
REACH_SHARE = RULE_REACH_FRACTION.bound     # share of the H >= q runs that must reach FVU <= REACH
RULE_BELOW_FLOOR_PROP3 = AtLeast(rf"share of the $H\ge q$ runs at FVU + {FLOOR_SE} se < $1-(q-1)(q+d)/(qd)$",
                                 Fraction(1, 2), spread="SE")
RULE_CONTROL = AtMost("FVU (mean link, $H=1$)", REACH, where=r"with $\operatorname{Var}(y_i)=1/q$", spread="SE")


def _formula(c: dict) -> str:
    return ", ".join(f"{f:.3f}" for f in c["formula"])


def _z(value, floor, se) -> np.ndarray:
    """(value - floor) / se per run (a zero se floored at 1e-12)."""
    return (np.asarray(value, float) - np.asarray(floor, float)) / np.maximum(np.asarray(se, float), 1e-12)


def _share(P: dict, q: int, k: int, n: int, Hmax: int, said: str, paper: str, where: str) -> Measured:
    """k of the n runs with H = q..Hmax as a share, its binomial SE (p(1-p) floored at 1/(4n), a spread at p = 0 or
    1), what else the run `said` and the grid `where`: 5-reach-fraction's and 7-below-floor-prop3's shape."""
    p = k / n
    se = math.sqrt(max(p * (1 - p), 0.25 / n) / n)
    return Measured(p, f"{k} of {n} ({p:.2f} ± {se:.2f}); {said}", spread=se, paper=paper,
                    where=rf"$H={q},\dots,{Hmax}$, {P['n_seeds']} seeds each{where}")


# ------------------------------------------------------------------------------------- the Bayes-risk calculator
def calc_bayes(P, results):
    """Ranks below q: the Monte-Carlo risk against the formula, in SEs. Rank q: y is a function of A x, so the risk is
    0 up to rounding, held to 1e-9 rather than to an SE that would itself be 0."""
    c = result_of(results, "calculator")
    formula = np.asarray(c["formula"])
    z = np.abs(_z(c["bayes"], formula, c["bayes_se"]))[formula > 0]
    exact = max(np.asarray(c["bayes"])[formula == 0])
    return Measured((Measured(z, spread=1.0), Measured(exact)),
                    ", ".join(f"{b:.3f}±{s:.3f}" for b, s in zip(c["bayes"], c["bayes_se"]))
                    + f"; ranks < q: max |z| = {max(z):.1f}; rank q: {exact:.1e}", paper=_formula(c))


def calc_mlp(P, results):
    c = result_of(results, "calculator")
    return Measured(_z(c["mlp"], c["formula"], c["mlp_se"]), ", ".join(f"{m:.3f}" for m in c["mlp"]), spread=1.0,
                    paper=_formula(c))


def _floor_runs(results: dict, setting: str, keep) -> tuple[list, np.ndarray, str]:
    """The runs of `setting` whose (H, floor) `keep` selects, as (H, floor), their z against the floor (NaN: none),
    and their FVU in words: what the floor checks of Prop. 21 and Prop. 3 decide and show."""
    runs = [(H, b, f, s) for H, b, f, s, _ in heads_runs(result_of(results, setting)) if keep(H, b)]
    z = _z(*zip(*[(f, b, s) for _, b, f, s in runs])) if runs else np.array([np.nan])
    return [(H, b) for H, b, _, _ in runs], z, " / ".join(f"H={H}: {f:.3f}±{s:.3f}" for H, _, f, s in runs)


# --------------------------------------------------------------------------------------------- Prop. 21's data
def floor_prop21(P, results):
    q = P["p21_q"]
    _, z, text = _floor_runs(results, "prop21", lambda H, b: H < q)
    return Measured(z, text, spread=1.0, paper=" / ".join(f"{max(0, 1 - H / q):.2f}" for H in range(1, q)),
                    where=f"$d={P['p21_d']}$, $q={q}$")


def reach_prop21(P, results):
    """The best H = q run, and the chance 1 - (1 - k/n)^n that a rerun (the faithful world's resample) has one."""
    runs = heads_runs(result_of(results, "prop21"), P["p21_q"])
    best_q, se = min((f, s) for H, _, f, s, _ in runs)
    k = sum(f <= REACH for _, _, f, _, _ in runs)
    rerun = 1 - (1 - k / len(runs)) ** len(runs)
    return Measured(best_q, f"{best_q:.3f} ± {se:.3f} ({k} of {len(runs)} runs reach it: a rerun of them passes "
                    f"with chance {rerun:.2f})", spread=max(se, 1e-12), paper="0 (Thm 4: $H=q$ suffices)")


def rank_used(P, results):
    """Every run, of any H, at FVU <= REACH: zero error needs all q directions (Prop. 21's proof)."""
    q = P["p21_q"]
    done = [(H, f, relative_rank(sv)) for H, _, f, _, sv in heads_runs(result_of(results, "prop21")) if f <= REACH]
    if not done:
        return None
    return Measured(sum(r != q for _, _, r in done), "; ".join(f"H={H}: FVU {f:.3f}, rank {r}" for H, f, r in done),
                    paper=f"rank {q} wherever the error is 0", where=f"{len(done)} runs at FVU ≤ {REACH}")


def reach_numbers(P: dict, results: dict) -> dict:
    """What 5-reach-fraction decides on and the page quotes: k of the n H >= q runs at FVU <= REACH, the fewest that
    pass RULE_REACH_FRACTION (the bar), the chance that runs reaching by luck (LUCK each) clear it, the stalled ranks."""
    q = P["p21_q"]
    runs = [(H, f, relative_rank(sv)) for H, _, f, _, sv in heads_runs(result_of(results, "prop21")) if H >= q]
    k, n = sum(f <= REACH for _, f, _ in runs), len(runs)
    bar = min(j for j in range(n + 1) if RULE_REACH_FRACTION.holds(j / n))
    luck = sum(math.comb(n, j) * float(LUCK) ** j * (1 - float(LUCK)) ** (n - j) for j in range(bar, n + 1))
    return {"reach_k": k, "reach_n": n, "reach_level": REACH, "reach_share": float(REACH_SHARE), "reach_bar": bar,
            "luck": number(LUCK), "luck_pass": luck, "Hmax": max(H for H, _, _ in runs),
            "stalled": "; ".join(f"H={H}: {f:.2f} (rank {rk})" for H, f, rk in runs if f > REACH) or "none",
            "stall_ranks": ", ".join(str(rk) for _, f, rk in runs if f > REACH) or "none", "rank_tol": RANK_TOL}


def reach_fraction(P, results):
    """The share of H >= q runs that reach, with its binomial SE; the grid says the bar in runs and luck's chance."""
    r = reach_numbers(P, results)
    return _share(P, P["p21_q"], r["reach_k"], r["reach_n"], r["Hmax"], said=f"stalled: {r['stalled']}",
                  paper="Thm 4: $H=q$ suffices (for the constrained ERM, not for training)",
                  where=f": the bar is {r['reach_bar']} of {r['reach_n']} runs, which runs that reach by luck, each "
                        f"with chance {r['luck']}, clear with chance {r['luck_pass']:.2f}")


def reach_finding(P: dict, results: dict, row: dict) -> str:
    n = reach_numbers(P, results)
    return (f"{n['reach_k']} of the {n['reach_n']} Prop. 21 runs with H ≥ q reach FVU ≤ {number(REACH)}, fewer than "
            f"{number(REACH_SHARE)} of them; the stalled runs' relative ranks: {n['stall_ranks']} (below q: two heads "
            "on one token).")


# ---------------------------------------------------------------------------------------------- Prop. 3's data
def prop3_reach(P: dict, results: dict) -> dict:
    """Whether the Prop. 3 arm learns: k of its n H >= q runs FLOOR_SE SEs below the floor of H = q - 1, their FVU,
    whether 7-floor-prop3 can bite (where that share passes), and the H with a non-vacuous bound."""
    q, d = P["p3_q"], P["p3_d"]
    floor = float(lower_bound("prop3", q - 1, q, d))
    runs = [(H, f, s) for H, _, f, s, _ in heads_runs(result_of(results, "prop3")) if H >= q]
    k, n = sum(f + FLOOR_SE * s < floor for _, f, s in runs), len(runs)
    live = [(H, float(lower_bound("prop3", H, q, d))) for H in range(1, q)]
    live = [(H, b) for H, b in live if b > 0]
    return {"floor": floor, "k": k, "n": n, "passed": RULE_BELOW_FLOOR_PROP3.holds(k / n),
            "median": float(np.median([f for _, f, _ in runs])), "best": min(f for _, f, _ in runs),
            "worst": max(f for _, f, _ in runs), "Hmax": max(H for H, _, _ in runs),
            "live": ", ".join(f"$H={H}$ ({b:.3f})" for H, b in live) or "none", "n_live": len(live),
            "live_text": ", ".join(f"H = {H} ({b:.3f})" for H, b in live) or "none"}   # for prose glue (no math)


def _prop3_where(P: dict, r: dict) -> str:
    return (f"$d={P['p3_d']}$, $q={P['p3_q']}$: a non-vacuous bound at {r['live']} only, so the arm tests the floor "
            f"at {r['n_live']} head count{'s' * (r['n_live'] != 1)}, not how it falls with $H$")


def floor_prop3(P, results):
    runs, z, text = _floor_runs(results, "prop3", lambda H, b: b > 0)
    return Measured((Measured(len(runs)), Measured(z, spread=1.0)), text or "-",
                    paper=" / ".join(f"H={H}: {b:.2f}" for H, b in sorted(set(runs))) or "vacuous",
                    where=_prop3_where(P, prop3_reach(P, results)))


def below_floor_prop3(P, results):
    r = prop3_reach(P, results)
    q = P["p3_q"]
    return _share(P, q, r["k"], r["n"], r["Hmax"], where="; " + _prop3_where(P, r),
                  said=f"FVU {r['best']:.3f} to {r['worst']:.3f} (median {r['median']:.3f}) against {r['floor']:.3f}",
                  paper=f"Thm 4: $H=q$ suffices; Prop. 3 floor at $H={q - 1}$: {r['floor']:.3f}")


def prop3_note(P: dict, results: dict, row: dict | None = None) -> str:
    """Whether 7-floor-prop3 can bite: the sentence under the heads table, and 7-below-floor-prop3's finding."""
    r = prop3_reach(P, results)
    q = P["p3_q"]
    said = (f"{r['k']} of the {r['n']} Prop. 3 runs with H ≥ q end below the floor of H = {q - 1} head{'s' * (q > 2)}, "
            f"{r['floor']:.3f} (their FVU: {r['best']:.3f} to {r['worst']:.3f})")
    if r["passed"]:
        return (said + ": the training learns the task wherever no head is missing, so a run with fewer heads that "
                "stays above its floor is held there by the missing heads, and the check `7-floor-prop3` can bite.")
    return (said + ": the training does not learn the task even where no head is missing, so the check "
            "`7-floor-prop3` cannot bite on this run (a model that learns nothing stays above any floor).")


# ------------------------------------------------------------------------------------------ the one-head control
def control_one_head(P, results):
    q = P["p21_q"]
    ctl, se = min((f, s) for H, _, f, s, _ in heads_runs(result_of(results, "control"), 1))
    sq1 = min(f for H, _, f, _, _ in heads_runs(result_of(results, "prop21"), 1))
    return Measured(ctl, f"{ctl:.3f} ± {se:.3f} (square link: {sq1:.3f})", spread=max(se, 1e-12),
                    paper=f"about 0 (square link: ≥ {1 - 1 / q:.2f})")
