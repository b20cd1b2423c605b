"""The head_lower_bound rows on the A.2 construction (Lemma 11): its position codes satisfy Assumption 3
(11-assumption3), the worst target's alpha* lies inside the bounds of Lemma 11's proof (11-alpha-bounds), and
alpha*(N) follows a + b ln N better than the powers of N (11-alpha-logN). Each row's function measures (it returns a
lib.core.claims.Measured); its rule decides.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> [rule.decide(row(P, results)).passed for rule, row in
    ...  ((RULE_ASSUMPTION3, assumption3), (RULE_ALPHA_BOUNDS, alpha_bounds), (RULE_ALPHA_LOGN, alpha_log_n))]
    [True, True, True]
"""
from __future__ import annotations

import numpy as np

from lib.chapters.head_lower_bound.results import result_of
from lib.core.claims import Measured
from lib.core.interval_rules import Laws
from lib.core.rules import EXACT, AtLeast, AtMost
from lib.science import a2

# The rules, one object per row (lib.core.rules): each decides its row and writes the rule's text.
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
