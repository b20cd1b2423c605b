"""The head_lower_bound rows on Equation A.2: the construction against Lemma 11 (11-*), and the trained Figure 2
(figure2-*): |W_Q^T W_K| against the A.2 block (results.figure2_stats), held to the paper's figure and to the authors'
script re-run.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> [row(P, results).value for row in (assumption3, figure2_top)]
    [0, 1.0]
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lib.chapters.head_lower_bound.results import figure2_stats, result_of
from lib.core.claims import Measured
from lib.core.interval_rules import Laws
from lib.core.rules import EXACT, AtLeast, AtMost
from lib.science import a2

# ------------------------------------------------------------------------------------------ the A.2 construction
RULE_ASSUMPTION3 = AtMost("lengths $N$ with a draw outside Assumption 3", 0, by=EXACT)
RULE_ALPHA_BOUNDS = AtLeast(r"every draw's distance inside its bounds on $\alpha^*$", 0.0, tol=1e-9, by=EXACT,
                            why="Lemma 11's proof")
RULE_ALPHA_LOGN = Laws(r"$\ln N$", favoured="ln N", factor=2, criterion="aic")


def _a2_where(P, con) -> str:
    return f"worst target's off-target mass ≤ {P['off_target']}, $N = {min(con['N'])},\\dots,{max(con['N'])}$"


def assumption3(P, results):
    con = result_of(results, "construction")
    return Measured(sum(not ok for ok in con["assumption3"]),
                    f"{sum(con['assumption3'])} of {len(con['N'])} lengths, {P['a2_draws']} draws each",
                    paper=r"Assumption 3: $|\langle\omega_i,\omega_j\rangle| \le 1/2$")


def alpha_bounds(P, results):
    con = result_of(results, "construction")
    inside = [min(a - lo, hi - a) for draws, lo, hi in zip(con["alpha_draws"], con["low"], con["high"]) for a in draws]
    return Measured(np.array(inside), ", ".join(
        f"$N$={N}: {a:.1f} ∈ [{lo:.1f}, {hi:.1f}], norm {n:.0f}" for N, a, lo, hi, n in
        zip(con["N"], con["alpha_star"], con["low"], con["high"], con["norm"])),
                    paper=r"Lemma 11: $\lVert\mathbf W_{QK}^\top\rVert_{2,1} \le \frac{2d_eq}{d}\log(\dots N\dots)$",
                    where=_a2_where(P, con))


def alpha_log_n(P, results):
    con = result_of(results, "construction")
    cmp = con["compare"]
    aic = ", ".join(f"{k}: {cmp['fits'][k]['aic']:.1f}" for k in a2.GROWTHS)     # a fixed order: a reload sorts keys
    return Measured({k: cmp["fits"][k]["aic"] for k in a2.GROWTHS}, f"best {cmp['best']}, AIC {aic} (lead {cmp['margin']:.1f})",
                    paper=r"$\alpha = O(\log N)$ (Lemma 11)", where=_a2_where(P, con))


# ------------------------------------------------------------------------------------------------------ Figure 2

# Figure 2 of the paper, read from its pixels for this book: the reference the page compares to.
PAPER_FIGURE2 = {"diag_mean": 36.0, "off_median": 5.0, "top_on_diag": "23 of 23", "ratio": "6-7x", "corr": 0.87}
# The authors' attention_weights.py re-run for this book at the paper's scale (N = 100, 50,000 prompts).
AUTHORS_RERUN = {"diag_mean": 35.6, "outside_median": 0.02, "steps": 3128}
FIGURE2_OUTSIDE = 1800   # AUTHORS_RERUN's diagonal over its outside median (35.6 / 0.02), rounded

# The Figure 2 rows: one run each, no spread over seeds, so no margin.
RULE_DIAGONAL = AtLeast("diagonal median / block off-diagonal median", 3,
                        why=f"half the paper's {PAPER_FIGURE2['ratio']}, read from its figure; one run, no spread over seeds")
RULE_OUTSIDE = AtLeast("diagonal mean / median outside the block", FIGURE2_OUTSIDE // 4,
                       why=f"a quarter of the authors' {FIGURE2_OUTSIDE:,}×; one run")
RULE_TOP = AtLeast("share of the $d_e$ largest entries on the A.2 diagonal", Fraction(20, 23),
                   why=f"20 of the paper's {PAPER_FIGURE2['top_on_diag']}, scaled to $d_e$; one run")
RULE_SIGN = AtLeast("share of the diagonal entries > 0", 0.9,
                    why="A.2 puts α > 0 on every one; 0.9 sits about 4 binomial SEs above the half a map without the "
                        "pattern gives at the paper's $d_e=23$; one run")


def figure2(P, results):
    trained = results["figure2"]["result"]
    return trained, figure2_stats(np.array(trained["M"]), P["figure2_d"], trained["d_e"])


def figure2_diagonal(P, results):
    _, st = figure2(P, results)
    ratio = st["diag_median"] / max(st["off_median"], 1e-12)       # medians: a few large entries move neither
    return Measured(ratio, f"{st['diag_median']:.1f} vs {st['off_median']:.2f} ({ratio:.1f}×)",
                    paper=f"{PAPER_FIGURE2['diag_mean']:.0f} vs {PAPER_FIGURE2['off_median']:.0f} ({PAPER_FIGURE2['ratio']})")


def figure2_outside(P, results):
    trained, st = figure2(P, results)
    ratio = st["diag_mean"] / max(st["outside_median"], 1e-12)
    steps = len(trained["epoch_loss"]) * math.ceil(P["figure2_train"] / 64)
    return Measured(ratio, f"{st['diag_mean']:.1f} vs {st['outside_median']:.3f} ({ratio:.0f}×) after {steps} steps",
                    paper=f"about {FIGURE2_OUTSIDE}× (the authors' script, {AUTHORS_RERUN['steps']:,} steps)")


def figure2_top(P, results):
    trained, st = figure2(P, results)
    return Measured(st["top_on_diag"] / trained["d_e"], f"{st['top_on_diag']} of {trained['d_e']}",
                    paper=PAPER_FIGURE2["top_on_diag"], where=f"$d_e={trained['d_e']}$")


def figure2_sign(P, results):
    _, st = figure2(P, results)
    return Measured(st["positive"], f"{100 * st['positive']:.0f}% positive", paper="not visible (absolute values plotted)")
