"""The rules and measures of rpe_decay's exact checks 1-6 (their rows are in claims/__init__.py), each a statistic of
the `exact` point (lib.chapters.rpe_decay.experiments.exact.checks) decided by its rule object (lib.core.rules,
lib.core.interval_rules), which writes the rule's text: Table 1's T5 buckets, Theorem 4.1's head allocation and bound
factors, Prop. B.1, Prop. 5.2(B) and the folding of heads into a kernel. Page-side: no computation imports it.

    >>> RULE_CROSSOVER.decide(Measured(parts(1.0101, 654.94, True), "roots")).passed   # a row's rule decides its numbers
    True
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from lib.chapters.rpe_decay.experiments.exact import TABLE1
from lib.core.claims import Measured
from lib.core.interval_rules import Near
from lib.core.rules import BOOK, EXACT, PAPER, All, AtMost, Holds, number

T5_SATURATION = 91                      # the first n at which T5's bucket reaches 2B - 1 = 15 (B = 8, D = 128)
LIN_SMALLER = (2, 654)                  # the integers T at which Thm 4.1's lin factor e^{0.01T} is below T^{1.01}
L2_V = (Fraction(1, 2), Fraction(1, 3), Fraction(1, 3), Fraction(-1, 3))   # Prop. 5.2(B)'s l2-optimal predictor

RULE_T5 = All((Holds(r"$-r(n)$ for $n = 0,\dots,30$ equal to Table 1", by=PAPER),
               Holds(rf"saturates at $2\mathcal B - 1 = 15$ from $n$ = {T5_SATURATION}", by=EXACT)))
RULE_ALLOCATION = AtMost(r"relative error of the optimiser's minimum to $(\sum_k a_k)^{n+1}H^{-n}$ ($H_k \propto a_k$)",
                         1e-6, strict=True, by=BOOK, why="the optimiser's tolerance")
RULE_CROSSOVER = All((Near("lower crossing $T$", 1.0101, tol=1e-4, by=EXACT),
                      Near("upper crossing $T$", 654.94, tol=5e-3, by=EXACT),
                      Holds(rf"lin factor smaller exactly for the integers ${LIN_SMALLER[0]} \le T \le {LIN_SMALLER[1]}$",
                            by=EXACT)))
RULE_PROP_B1 = All((AtMost(r"$\max\lvert\log[e^z] - z\rvert \cdot 2\min(e^z, [e^z])$", 1, tol=1e-12, by=PAPER),
                    AtMost(r"$\max\lvert [z] - z\rvert$", Fraction(1, 2), tol=1e-12, by=PAPER)))
RULE_PROP_52B = All((Near("LP optimum", 1, tol=1e-9, by=EXACT, why="at least the paper's 2/3"),
                     Near(r"sup error of the $\ell^2$-optimal predictor", Fraction(4, 3), tol=1e-9, by=EXACT),
                     Holds(r"the $\ell^2$-optimal predictor is (" + ", ".join(map(number, L2_V)) + ")", by=EXACT)))
RULE_FOLDING = AtMost("relative error of lin and log", 1e-12, by=BOOK, why="float64 rounding")


def parts(*values) -> tuple[Measured, ...]:
    """One Measured per part of an All rule, each holding only its value (the row's text is the All's)."""
    return tuple(map(Measured, values))


def _t5(P, results):
    ex = results["exact"]["result"]
    return Measured(parts(ex["t5"] == TABLE1, ex["t5_saturation"] == T5_SATURATION),
                    f"{' '.join(map(str, ex['t5']))}; 15 from $n$ = {ex['t5_saturation']}",
                    paper="Table 1: " + " ".join(map(str, TABLE1)))


def _allocation(P, results):
    alloc = results["exact"]["result"]["allocation"]
    rel = max(a["rel"] for a in alloc)
    return Measured(rel, f"max relative error {rel:.1e}", paper="proof of Thm 4.1", where=f"{len(alloc)} random cases")


def _crossover(P, results):
    ex = results["exact"]["result"]
    (lo, hi), (Tlo, Thi) = ex["crossover"], ex["lin_smaller_T"]
    return Measured(parts(lo, hi, (Tlo, Thi) == LIN_SMALLER), f"$T$ = {lo:.4f} and {hi:.2f}; lin smaller for "
                    f"{Tlo} ≤ $T$ ≤ {Thi}", paper="none (derived here from Thm 4.1's bound factors)")


def _prop_b1(P, results):
    ex = results["exact"]["result"]
    return Measured(parts(ex["b1_log_ratio"], ex["b1_lin"]), f"max {ex['b1_log_ratio']:.4f} and {ex['b1_lin']:.4f}",
                    paper="Prop. B.1")


def _prop_52b(P, results):
    lp = results["exact"]["result"]["lp"]
    return Measured(parts(lp["lp_opt"], lp["l2_sup"], bool(np.allclose(lp["l2_v"], [float(v) for v in L2_V]))),
                    f"LP {lp['lp_opt']:.4f}; $\\ell^2$-optimal ({', '.join(f'{v:.3f}' for v in lp['l2_v'])}), "
                    f"sup {lp['l2_sup']:.4f}", paper="Prop. 5.2(B): ≥ 2/3")


def _folding(P, results):
    fo = results["exact"]["result"]["folding"]
    return Measured([fo["lin"], fo["log"]], f"lin {fo['lin']:.1e}, log {fo['log']:.1e}", paper="proofs of Thms 4.1, 6.1")
