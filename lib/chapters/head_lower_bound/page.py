"""What the head_lower_bound page shows from the results of `lib.core.sweep.collect(compute.points(P), ...)`: the
claim check (`ROWS`), the tables and the numbers its prose quotes (the figures are in figures.py; the Figure 2 rows
in fig2_rows.py, the samples-to-threshold rows in scaling_rows.py). Nothing here computes a stored number, and no
computation imports it, so editing it leaves the chapter's stored results current.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row["id"], row["passed"]) for row in rows][:2]
    (18, [('calc-bayes', True), ('calc-mlp', True)])
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lib.chapters.head_lower_bound import fig2_rows, scaling_rows
from lib.chapters.head_lower_bound.compute import SETTINGS, lower_bound
from lib.chapters.head_lower_bound.fig2_rows import fig2_diagonal, fig2_outside, fig2_sign, fig2_top
from lib.chapters.head_lower_bound.scaling_rows import floor_h1, growth_sentence, scaling_claim, scaling_numbers
from lib.core.claims import Row, evaluate, unsettled
from lib.core.interval_rules import Laws
from lib.core.rules import EXACT, All, AtLeast, AtMost, number
from lib.core.tables import markdown_table
from lib.science import a2, qstr

# ---------------------------------------------------------------------------------------------------- claims
# The rules, one object per row (lib.core.rules; the Figure 2 and samples-to-threshold rows' in fig2_rows.py and
# scaling_rows.py): each decides its row and writes the rule's text, so a threshold is typed once, with whose it is.
FLOOR_SE = 3          # standard errors of the test set a run may sit below its floor (or must sit below one)
RULE_REACH = AtMost("best FVU at $H=q$", 0.05, spread="SE", why="the FVU that counts as getting the data right")
REACH = RULE_REACH.bound          # FVU that counts as "gets it right" (5-reach-fraction, 6-rank-used, the control)
RANK_TOL = 0.1    # sigma_k / sigma_1 above which a direction counts as used (the book's calibration)


def _floor_rule(value: str, floor: str, why: str) -> AtLeast:
    """A floor held run by run: (value - floor) / se at least -FLOOR_SE; the margin, of the worst run, in its SEs."""
    return AtLeast(rf"$(\mathrm{{{value}}} - {floor})/\mathrm{{se}}$", -FLOOR_SE, where="at every run", spread="SE",
                   why=why)


RULE_CALC_BAYES = All((AtMost(r"max $|z|$ of the Monte-Carlo risk against the formula at ranks $< q$", FLOOR_SE,
                              spread="SE", why="its Monte-Carlo noise"),
                       AtMost(r"the risk at rank $q$", 1e-9, by=EXACT, why="0 up to rounding")))
RULE_CALC_MLP = _floor_rule("MSE", r"2(q-\operatorname{rank}\mathbf A)/q", "the Bayes risk less the fit's Monte-Carlo noise")
RULE_FLOOR_PROP21 = _floor_rule("FVU", "(1-H/q)", "Prop. 21's floor less the test set's noise")
RULE_FLOOR_PROP3 = All((AtLeast("runs with a non-vacuous bound", 1, by=EXACT),
                        _floor_rule("FVU", "(1-H(q+d)/(qd))", "Prop. 3's floor less the test set's noise")))
RULE_ASSUMPTION3 = AtMost("lengths $N$ with a draw outside Assumption 3", 0, by=EXACT)
RULE_ALPHA_BOUNDS = AtLeast(r"every draw's distance inside its bounds on $\alpha^*$", 0.0, tol=1e-9, by=EXACT,
                            why="Lemma 11's proof")
RULE_ALPHA_LOGN = Laws(r"$\ln N$", favoured="ln N", factor=2, criterion="aic")
RULE_RANK_USED = AtMost(rf"runs at FVU ≤ {number(REACH)} whose relative rank ($\sigma_k/\sigma_1 > {number(RANK_TOL)}$) "
                        "is not $q$", 0, why="the relative rank's tolerance; zero error needs rank $q$, Prop. 21's proof")
RULE_REACH_FRACTION = AtLeast(rf"share of the $H \ge q$ runs at FVU ≤ {number(REACH)}", Fraction(1, 3), spread="SE",
                              why="until issue 36, half")
REACH_SHARE = RULE_REACH_FRACTION.bound     # share of the H >= q runs that must reach FVU <= REACH (see reach_rule_note)
RULE_BELOW_FLOOR_PROP3 = AtLeast(rf"share of the $H\ge q$ runs at FVU + {FLOOR_SE} se < $1-(q-1)(q+d)/(qd)$",
                                 Fraction(1, 2), spread="SE")
BELOW_SHARE = RULE_BELOW_FLOOR_PROP3.bound
RULE_CONTROL = AtMost("FVU (mean link, $H=1$)", REACH, where=r"with $\operatorname{Var}(y_i)=1/q$", spread="SE")


def _result(results: dict, name: str) -> dict:
    return results[name]["result"]


def _runs(res: dict, H=None):
    rows = zip(res["heads"], res["bound"], res["fvu"], res["fvu_se"], res["svals"])
    return [r for r in rows if H is None or r[0] == H]


def _formula(c: dict) -> str:
    return ", ".join(f"{f:.3f}" for f in c["formula"])


def _z(value, floor, se) -> np.ndarray:
    """(value - floor) / se per run (a zero se floored at 1e-12): what a floor rule holds to -FLOOR_SE."""
    return (np.asarray(value, float) - np.asarray(floor, float)) / np.maximum(np.asarray(se, float), 1e-12)


def _calc_bayes(P, results):
    """Ranks below q: the Monte-Carlo risk within FLOOR_SE standard errors of the formula. Rank q: the predictor is
    exact (y is a function of A x), so its risk is 0 up to rounding, held to 1e-9 rather than to a standard error
    that would itself be 0."""
    c = _result(results, "calculator")
    z = [abs(b - f) / max(se, 1e-12) for b, f, se in zip(c["bayes"], c["formula"], c["bayes_se"]) if f > 0]
    exact = [b for b, f in zip(c["bayes"], c["formula"]) if f == 0]
    return RULE_CALC_BAYES.decide((np.array(z), max(exact)), ", ".join(f"{b:.3f}±{s:.3f}" for b, s in
                                                                         zip(c["bayes"], c["bayes_se"]))
                                  + f"; ranks < q: max |z| = {max(z):.1f}; rank q: {max(exact):.1e}", spread=(1.0, None),
                                  paper=_formula(c))


def _calc_mlp(P, results):
    c = _result(results, "calculator")
    return RULE_CALC_MLP.decide(_z(c["mlp"], c["formula"], c["mlp_se"]), ", ".join(f"{m:.3f}" for m in c["mlp"]),
                                spread=1.0, paper=_formula(c))


def _floor_prop21(P, results):
    q = P["p21_q"]
    below = [(H, b, f, s) for H, b, f, s, _ in _runs(_result(results, "prop21")) if H < q]
    return RULE_FLOOR_PROP21.decide(_z(*zip(*[(f, b, s) for _, b, f, s in below])),
                                    " / ".join(f"H={H}: {f:.3f}±{s:.3f}" for H, _, f, s in below), spread=1.0,
                                    paper=" / ".join(f"{max(0, 1 - H / q):.2f}" for H in range(1, q)),
                                    where=f"$d={P['p21_d']}$, $q={q}$")


def _reach_prop21(P, results):
    best_q, se = min((f, s) for H, _, f, s, _ in _runs(_result(results, "prop21"), P["p21_q"]))
    return RULE_REACH.decide(best_q, f"{best_q:.3f} ± {se:.3f}", spread=max(se, 1e-12), paper="0 (Thm 4: $H=q$ suffices)")


def _relative_rank(svals) -> int:
    """Directions the attention passes on, relative to its largest: sigma_k / sigma_1 > RANK_TOL. An absolute
    tolerance counts every direction of an untrained model (near-uniform attention has all sigma_k > 1e-3)."""
    s = np.asarray(svals, float)
    return int(np.sum(s > RANK_TOL * s[0])) if s[0] > 0 else 0


def _rank_used(P, results):
    """Zero error needs all q directions (Prop. 21's proof): every run, of any H, that reaches FVU <= REACH."""
    q = P["p21_q"]
    done = [(H, f, _relative_rank(sv)) for H, _, f, _, sv in _runs(_result(results, "prop21")) if f <= REACH]
    if not done:
        return None
    return RULE_RANK_USED.decide(sum(r != q for _, _, r in done), "; ".join(f"H={H}: FVU {f:.3f}, rank {r}"
                                                                          for H, f, r in done),
                                 paper=f"rank {q} wherever the error is 0", where=f"{len(done)} runs at FVU ≤ {REACH}")


def reach_share(fvus, level: float = REACH) -> dict:
    """k of n runs at FVU <= level, the share p = k/n, its binomial standard error (p(1-p) floored at 1/(4n), a spread
    at p = 0 or 1) and the margin (p - REACH_SHARE)/se: the numbers 5-reach-fraction decides on."""
    k, n = sum(f <= level for f in fvus), len(fvus)
    p = k / n
    se = math.sqrt(max(p * (1 - p), 0.25 / n) / n)
    return {"k": k, "n": n, "p": p, "se": se, "margin": RULE_REACH_FRACTION.margin(p, se),
            "passed": RULE_REACH_FRACTION.holds(p)}


def _reach_fraction(P, results):
    """How many runs with H >= q heads reach the threshold: a share, with its binomial standard error, held to
    REACH_SHARE."""
    q = P["p21_q"]
    runs = [(H, f, _relative_rank(sv)) for H, _, f, _, sv in _runs(_result(results, "prop21")) if H >= q]
    r = reach_share([f for _, f, _ in runs])
    stalled = "; ".join(f"H={H}: {f:.2f} (rank {rk})" for H, f, rk in runs if f > REACH) or "none"
    return RULE_REACH_FRACTION.decide(r["p"], f"{r['k']} of {r['n']} ({r['p']:.2f} ± {r['se']:.2f}); stalled: {stalled}",
                                      spread=r["se"], paper="Thm 4: $H=q$ suffices (for the constrained ERM, not for "
                                      "training)", where=rf"$H={q},\dots,{max(x[0] for x in runs)}$, {P['n_seeds']} seeds each")


def _floor_prop3(P, results):
    rows = [(H, b, f, s) for H, b, f, s, _ in _runs(_result(results, "prop3")) if b > 0]
    z = _z(*zip(*[(f, b, s) for _, b, f, s in rows])) if rows else np.array([np.nan])
    return RULE_FLOOR_PROP3.decide((len(rows), z), " / ".join(f"H={H}: {f:.3f}±{s:.3f}" for H, _, f, s in rows) or "-",
                                   spread=(None, 1.0),
                                   paper=" / ".join(f"H={H}: {b:.2f}" for H, b in sorted({(H, b) for H, b, _, _ in rows}))
                                   or "vacuous",
                                   where=f"$d={P['p3_d']}$, $q={P['p3_q']}$")


def prop3_reach(P: dict, results: dict) -> dict:
    """Whether the Prop. 3 arm learns: its H >= q runs against the floor of H = q - 1 heads (each run below it by 3 of
    its test standard errors), as a share of runs with its binomial standard error and margin over BELOW_SHARE; the
    median FVU of those runs; and whether 7-floor-prop3 can bite (it can where this claim passes: the same training
    then gets below the floor wherever heads are not missing)."""
    q, d = P["p3_q"], P["p3_d"]
    floor = float(lower_bound("prop3", q - 1, q, d))
    runs = [(H, f, s) for H, _, f, s, _ in _runs(_result(results, "prop3")) if H >= q]
    k, n = sum(f + FLOOR_SE * s < floor for _, f, s in runs), len(runs)
    p = k / n
    se = math.sqrt(max(p * (1 - p), 0.25 / n) / n)
    return {"floor": floor, "k": k, "n": n, "p": p, "se": se, "margin": RULE_BELOW_FLOOR_PROP3.margin(p, se),
            "passed": RULE_BELOW_FLOOR_PROP3.holds(p), "median": float(np.median([f for _, f, _ in runs])),
            "best": min(f for _, f, _ in runs), "worst": max(f for _, f, _ in runs), "Hmax": max(H for H, _, _ in runs)}


def _below_floor_prop3(P, results):
    r = prop3_reach(P, results)
    q = P["p3_q"]
    return RULE_BELOW_FLOOR_PROP3.decide(r["p"], f"{r['k']} of {r['n']} ({r['p']:.2f} ± {r['se']:.2f}); FVU "
                   f"{r['best']:.3f} to {r['worst']:.3f} (median {r['median']:.3f}) against {r['floor']:.3f}",
                   spread=r["se"], paper=f"Thm 4: $H=q$ suffices; Prop. 3 floor at $H={q - 1}$: {r['floor']:.3f}",
                   where=rf"$d={P['p3_d']}$, $q={q}$, $H={q},\dots,{r['Hmax']}$, {P['n_seeds']} seeds each")


def prop3_note(P: dict, results: dict) -> str:
    """The sentence under the heads table on whether 7-floor-prop3 can bite, computed from the Prop. 3 runs."""
    r = prop3_reach(P, results)
    q = P["p3_q"]
    said = (f"{r['k']} of the {r['n']} Prop. 3 runs with H ≥ q end below the floor of H = {q - 1} head{'s' * (q > 2)}, "
            f"{r['floor']:.3f} (their FVU: {r['best']:.3f} to {r['worst']:.3f})")
    if r["passed"]:
        return (said + ": the training learns the task wherever no head is missing, so a run with fewer heads that "
                "stays above its floor is held there by the missing heads, and the check `7-floor-prop3` can bite.")
    return (said + ": the training does not learn the task even where no head is missing, so the check "
            "`7-floor-prop3` cannot bite on this run (a model that learns nothing stays above any floor).")


def _control(P, results):
    q = P["p21_q"]
    ctl, se = min((f, s) for H, _, f, s, _ in _runs(_result(results, "control"), 1))
    sq1 = min(f for H, _, f, _, _ in _runs(_result(results, "prop21"), 1))
    return RULE_CONTROL.decide(ctl, f"{ctl:.3f} ± {se:.3f} (square link: {sq1:.3f})", spread=max(se, 1e-12),
                               paper=f"about 0 (square link: ≥ {1 - 1 / q:.2f})")


def _a2_where(P, con) -> str:
    return f"worst target's off-target mass ≤ {P['off_target']}, $N = {min(con['N'])},\\dots,{max(con['N'])}$"


def _assumption3(P, results):
    con = _result(results, "construction")
    return RULE_ASSUMPTION3.decide(sum(not ok for ok in con["assumption3"]),
                                   f"{sum(con['assumption3'])} of {len(con['N'])} lengths, {P['a2_draws']} draws each",
                                   paper=r"Assumption 3: $|\langle\omega_i,\omega_j\rangle| \le 1/2$")


def _alpha_bounds(P, results):
    con = _result(results, "construction")
    inside = [min(a - lo, hi - a) for draws, lo, hi in zip(con["alpha_draws"], con["low"], con["high"]) for a in draws]
    return RULE_ALPHA_BOUNDS.decide(np.array(inside), ", ".join(
        f"$N$={N}: {a:.1f} ∈ [{lo:.1f}, {hi:.1f}], norm {n:.0f}" for N, a, lo, hi, n in
        zip(con["N"], con["alpha_star"], con["low"], con["high"], con["norm"])),
                   paper=r"Lemma 11: $\lVert\mathbf W_{QK}^\top\rVert_{2,1} \le \frac{2d_eq}{d}\log(\dots N\dots)$",
                   where=_a2_where(P, con))


def _alpha_log_n(P, results):
    con = _result(results, "construction")
    cmp = con["compare"]
    aic = ", ".join(f"{k}: {cmp['fits'][k]['aic']:.1f}" for k in a2.GROWTHS)     # a fixed order: a reload sorts keys
    return RULE_ALPHA_LOGN.decide({k: cmp["fits"][k]["aic"] for k in a2.GROWTHS},
                                  f"best {cmp['best']}, AIC {aic} (lead {cmp['margin']:.1f})",
                                  paper=r"$\alpha = O(\log N)$ (Lemma 11)", where=_a2_where(P, con))


FIG2 = "Figure 2 (paper)"
# What only a bug can break (an identity, a bound that holds for every parameter, a property of a construction): checks.
# What training, random codes or the paper's figure could refute: claims, each with its source.
ROWS = [
    Row("calc-bayes", "check", "Prop. 21 (proof, Lemma 40)",
        r"The exact Bayes predictor from $\mathbf A\mathbf x$ has risk $2(q-\operatorname{rank}\mathbf A)/q$ "
        "(Monte Carlo, every rank)",
        RULE_CALC_BAYES, _calc_bayes),
    Row("calc-mlp", "check", "Prop. 21 (proof, Lemma 40)",
        r"A fitted MLP regressor of $y$ from $\mathbf A\mathbf x$ does not beat the Bayes risk",
        RULE_CALC_MLP, _calc_mlp),
    Row("5-floor-prop21", "check", "Prop. 21",
        r"Prop. 21, block-diagonal $\mathbf W_{QK}$: no trained model with $H<q$ beats $1-H/q$ on the positions $i\ge N/2$",
        RULE_FLOOR_PROP21, _floor_prop21),
    Row("7-floor-prop3", "check", "Prop. 3", r"Prop. 3, unrestricted $\mathbf W_{QK}$: no trained model beats $1-H(q+d)/(qd)$",
        RULE_FLOOR_PROP3, _floor_prop3),
    Row("4-floor-h1", "check", "Prop. 21",
        r"Prop. 21's data and block-diagonal $\mathbf W_{QK}$: no $H=1$ run gets its FVU on the positions $i\ge N/2$ below a "
        r"threshold under $1-1/q$, at any $N$",
        scaling_rows.RULE_FLOOR_H1, floor_h1),
    Row("11-assumption3", "check", "Assumption 3",
        r"The A.2 position codes satisfy Assumption 3 (unit norm, overlaps at most $1/2$)", RULE_ASSUMPTION3, _assumption3),
    Row("11-alpha-bounds", "check", "Lemma 11 (proof)",
        r"A.2 under Assumption 3: the worst target's $\alpha^*$ lies between $\ln\frac{(N-1)(1-\varepsilon)}{\varepsilon}/2$ "
        r"(overlaps ≥ −1) and $2\ln\frac{(N-1)(1-\varepsilon)}{\varepsilon}$ (overlaps ≤ 1/2); the (2,1) norm of "
        r"$\mathbf W_{QK}$ is $\alpha^* d_e$", RULE_ALPHA_BOUNDS, _alpha_bounds),
    Row("11-alpha-logN", "check", r"Lemma 11 ($\log N$)",
        r"A.2: the worst target's $\alpha^*(N)$ follows $a+b\ln N$ better than $a+bN^{1/4}$ or $a+bN^{1/2}$ (no training "
        r"enters: the construction and the codes fix $\alpha^*$, between two multiples of $\ln N$; an implementation "
        "property)",
        RULE_ALPHA_LOGN, _alpha_log_n),
    Row("6-rank-used", "check", "Prop. 21 (proof): zero error needs rank $q$",
        r"Every trained Prop. 21 model that gets the data right passes on all $q$ directions: the attention onto the "
        r"relevant keys has $q$ singular values above $0.1\,\sigma_1$",
        RULE_RANK_USED, _rank_used),
    Row("5-reach-prop21", "claim", "Theorem 4", "With $H=q$ heads a trained model gets the Prop. 21 data right",
        RULE_REACH, _reach_prop21),
    Row("5-reach-fraction", "claim", "Theorem 4; for training: hypothesis (this book)",
        r"Training with $H\ge q$ heads gets the Prop. 21 data right in a clear share of runs, not in one lucky run (a run "
        "that stalls has two heads on one key: its relative rank is below $q$)",
        RULE_REACH_FRACTION, _reach_fraction),
    Row("7-below-floor-prop3", "claim", "Theorem 4 against Prop. 3; for training: hypothesis (this book)",
        r"Prop. 3, unrestricted $\mathbf W_{QK}$: trained models with $H\ge q$ heads go below the floor of $H=q-1$ heads, "
        "so the same training is held at a floor only where heads are missing (without it `7-floor-prop3` cannot fail)",
        RULE_BELOW_FLOOR_PROP3, _below_floor_prop3),
    Row("control-one-head", "claim", "Remark after Prop. 3 (one head suffices); trained: hypothesis (this book)",
        r"Sparse averaging $y_i=\frac1q\sum_j\langle\mathbf u,\mathbf x_{t_{ij}}\rangle$ needs one head: a trained $H=1$ "
        "model gets it right where the square link is held at $1-1/q$",
        RULE_CONTROL, _control),
    Row("4-scaling", "claim", "Theorem 4 (its polylog $N$ implies this)",
        r"qSTR: $H=q$ heads reach the FVU threshold at every $N$, with samples-to-threshold growing slower than $\sqrt N$: "
        "a power $N^p$ fitted to every run's count has $p<1/2$ (whether the growth is polylogarithmic is not tested: "
        "the AIC beside it says which law fits best)",
        scaling_rows.RULE_SCALING, scaling_claim),
    Row("fig2-diagonal", "claim", FIG2, "Fig. 2: the A.2 diagonal stands out of its block",
        fig2_rows.RULE_DIAGONAL, fig2_diagonal),
    Row("fig2-outside", "claim", FIG2 + "; the authors' script",
        "Fig. 2: everything outside the A.2 block is near zero (weight decay removes what the task does not use)",
        fig2_rows.RULE_OUTSIDE, fig2_outside),
    Row("fig2-top", "claim", FIG2, "Fig. 2: the $d_e$ largest entries lie on the A.2 diagonal",
        fig2_rows.RULE_TOP, fig2_top),
    Row("fig2-sign", "claim", "Eq. A.2", "Fig. 2: the diagonal is positive, as A.2 ($\\alpha > 0$) says",
        fig2_rows.RULE_SIGN, fig2_sign),
]


def claims(P: dict, results: dict) -> list[dict]:
    """Every row of ROWS, evaluated on this run's results."""
    return evaluate(ROWS, P, results)


def findings_markdown(P: dict, results: dict, rows: list[dict]) -> str:
    """One bullet per claim row whose badge is FAIL or censored (lib.core.claims.unsettled), its numbers taken from the
    stored points; an empty string when there is none.

        >>> from lib.chapters import stored; P, results = stored("head_lower_bound")
        >>> findings_markdown(P, results, claims(P, results))     # every claim of the paper results passes
        ''
    """
    bad = unsettled(rows)
    out = []
    if "7-below-floor-prop3" in bad:
        out.append("`7-below-floor-prop3`: " + prop3_note(P, results))
    if "5-reach-fraction" in bad:
        n = reach_numbers(P, results)
        out.append(f"`5-reach-fraction`: {n['reach_k']} of the {n['reach_n']} Prop. 21 runs with H ≥ q reach FVU ≤ "
                   f"{number(REACH)}, fewer than {number(REACH_SHARE)} of them; the stalled runs' relative ranks: "
                   f"{n['stall_ranks']} "
                   "(below q: two heads on one token).")
    if "4-scaling" in bad:
        sn = scaling_numbers(P, results)
        out.append("`4-scaling`: " + (bad["4-scaling"]["measured"] if sn is None else
                   f"p = {sn['p']:.2f} ± {sn['se']:.2f}, not below {number(scaling_rows.MAX_POWER)} by "
                   f"{scaling_rows.SCALING_SE} standard errors; "
                   + growth_sentence(sn) + "."))
    out += [f"`{k}`: {r['measured']} (rule: {r['expected']}); this page has no further analysis of it." for k, r in bad.items()
            if k not in ("7-below-floor-prop3", "5-reach-fraction", "4-scaling")]
    return "\n".join(f"- {b}" for b in out)


# ------------------------------------------------------------------------------------------ tables and notes
def heads_table(results: dict) -> str:
    rows = []
    for setting in SETTINGS:
        r = results[setting]["result"]
        for H, b, f, s, m in zip(r["heads"], r["bound"], r["fvu"], r["fvu_se"], r["mse_all"]):
            rows.append([setting, H, f"{b:.3f}", f"{f:.3f} ± {s:.3f}", f"{m:.3f}"])
    return markdown_table(["setting", "$H$", "floor", "measured (± se)", "average over all positions"], rows)


def reach_numbers(P: dict, results: dict) -> dict:
    """The numbers the H sweep's paragraph quotes (for Chapter.glue): Prop. 21 runs with H >= q, how many reach
    FVU <= REACH, and the relative rank of those that stall."""
    q = P["p21_q"]
    runs = [(f, _relative_rank(sv)) for H, _, f, _, sv in _runs(_result(results, "prop21")) if H >= q]
    stalled = [r for f, r in runs if f > REACH]
    return {"reach_k": sum(f <= REACH for f, _ in runs), "reach_n": len(runs), "reach_level": REACH,
            "reach_share": float(REACH_SHARE),
            "stall_ranks": ", ".join(str(r) for r in stalled) or "none", "rank_tol": RANK_TOL}


def code_overlaps(P: dict) -> dict:
    """How many pairs of qSTR's random position codes (Figure 2's N and task seed) break Assumption 3 (|overlap| > 1/2),
    for the sentence on why the A.2 construction repairs its codes."""
    task = qstr.QSTR(N=P["fig2_N"], d=P["fig2_d"], q=1, task_seed=P["task_seed"], d_e_rule=P["d_e_rule"])
    G = (task.E.double() @ task.E.double().T).fill_diagonal_(0)
    return {"bad_pairs": int((G.abs() > 0.5).sum()) // 2, "codes_N": P["fig2_N"]}


def check_set_se(P: dict, results: dict, check_prompts: int = 1000) -> float:
    """The standard error of an H = 1 run's FVU on a check set of `check_prompts` prompts, scaled from the Prop. 21
    H = 1 runs' test standard error (n_test prompts): what makes the best of many checks fall below the floor."""
    se = [s for H, _, _, s, _ in _runs(_result(results, "prop21"), 1)]
    return float(np.median(se)) * math.sqrt(P["n_test"] / check_prompts)


def construction_table(results: dict) -> str:
    """alpha*(N) of the worst target, per N: the draws' mean and range, the bounds, the (2,1) norm; then the fits."""
    a = results["construction"]["result"]
    rows = [[N, d_e, f"{m:.2f}", f"{min(d):.2f} to {max(d):.2f}", f"{lo:.2f} to {hi:.2f}", f"{n:.0f}"]
            for N, d_e, m, d, lo, hi, n in
            zip(a["N"], a["d_e"], a["alpha_star"], a["alpha_draws"], a["low"], a["high"], a["norm"])]
    table = markdown_table(["$N$", "$d_e$", r"$\alpha^*$ (mean)", "over draws", "bounds", r"$(2,1)$ norm $\alpha^* d_e$"], rows)
    label = {"ln N": r"$a+b\ln N$", "N^1/4": r"$a+bN^{1/4}$", "N^1/2": r"$a+bN^{1/2}$"}
    fits = [[label[k], f"{v['slope']:.3f}", f"{v['intercept']:.2f}", f"{v['rss']:.3f}", f"{v['aic']:.1f}"]
            for k, v in ((k, a["compare"]["fits"][k]) for k in a2.GROWTHS)]   # a fixed order: a reload sorts keys
    return table + "\n\n" + markdown_table(["fit", "$b$", "$a$", "residual sum of squares", "AIC"], fits)
