"""The implementation checks of the sparse_variable_creation page (`CHECKS`, rows A1-A8): the softmax bounds and the
constructions of App. B, built with the lemmas' weights and evaluated exactly (the "exact" point), each row's rule a
rule object of lib.core.rules. Page-side: no computation imports this module."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lib.chapters.sparse_variable_creation.results import EXACT_TOL, minimal_R_fit
from lib.core.claims import Measured, Row
from lib.core.rules import EXACT, PAPER, All, AtLeast, AtMost, Holds, Within
from lib.core.tables import named_grid

RULE_A1 = All((AtMost(r"max $\lVert\Delta p\rVert_1 / \lVert\Delta z\rVert_\infty$", 2, by=PAPER),
               AtMost(r"$\lVert J\rVert_{1,1}$ formula's error and its error at uniform $p$ (value $2(1-1/T)$)",
                      EXACT_TOL, by=EXACT),
               AtMost(r"max $\lVert J\rVert_{1,1}$", 2, strict=True, by=PAPER)))
RULE_A2 = AtMost("measured / bound", 1, by=PAPER)
RULE_A3 = All((AtMost("error", 0.25, by=PAPER, why=r"$\gamma/4$ with $\gamma = 1$"),
               AtMost(r"distance of $\lVert W_Q\rVert_F, \lVert W_K\rVert_F, \lVert W_V\rVert_F, \lVert W_C\rVert_F$ "
                      r"from $\log 8T, \sqrt s, \sqrt 2, 1$", EXACT_TOL, by=EXACT)))
RULE_A4A = AtLeast(r"$\log(8T/\gamma) - R_{\min}$", 0.0, by=PAPER, where="at every $T$")
RULE_A4B = All((Within(r"slope of $R_{\min}$ on $\ln T$", 0.9, 1.1), AtLeast("its $R^2$", 0.99, strict=True)))
RULE_A5 = All((AtMost(r"error minus the lemma's bound $2T/e^R$", 0.0, tol=1e-12, by=PAPER),
               AtMost(r"distance of $\lVert P^\top\rVert _{2,1}$ and $\lVert W_K\rVert _F$ from $s$ and 1", EXACT_TOL,
                      by=EXACT)))
RULE_A6 = All((AtMost(r"errors (value and attention $1/(r+1)$) over $\gamma$", Fraction(1, 4), by=PAPER,
                      why="the lemma's"),
               AtMost(r"$\lVert W_K\rVert_F$", 4, tol=EXACT_TOL, by=PAPER, why="$s + 1$ at $s = 3$"),
               AtMost(r"$\lVert W_V\rVert_F$", 6, tol=EXACT_TOL, by=PAPER, why="$2s$"),
               AtMost(r"$\lVert W_C\rVert_F$", 3, tol=EXACT_TOL, by=PAPER, why="$s$")))
NET_ERROR = AtMost("error", EXACT_TOL, strict=True, by=EXACT, where="on every input")     # A7 and A8's exact networks
RULE_A7 = All((NET_ERROR, Holds("widths $(4(s+1), 2(s+1))$")))
RULE_A8 = All((NET_ERROR, Holds("widths $(4s2^s, 2^{s+1})$")))

def _ex(results):
    return results["exact"]["result"]


def parts(text: str, *values, **kw) -> Measured:
    """An All row's Measured: one part per value, with no spread of its own."""
    return Measured(tuple(Measured(v) for v in values), text, **kw)


def _lipschitz(P, results):
    r = _ex(results)["lipschitz"]
    return parts(f"max ratio {r['max_ratio']:.4f} over {r['pairs']:,} pairs; $\\lVert J\\rVert _{{1,1}}$ formula error "
                f"{r['jacobian_formula_err']:.1e}, uniform {r['uniform_err']:.1e}",
                r["max_ratio"], max(r["jacobian_formula_err"], r["uniform_err"]), r["jacobian_max"])


def _truncation(P, results):
    r = _ex(results)["truncation"]
    return Measured(r["max_ratio_to_bound"], f"largest measured / bound {r['max_ratio_to_bound']:.4f} "
                    f"({r['instances']} instances)")


def _b2(P, results):
    rows = _ex(results)["b2"]
    err = max(r["err"] for r in rows)
    norm_off = max(max(abs(r["Wq"] - r["R"]), abs(r["Wk"] - math.sqrt(r["s"])), abs(r["Wv"] - math.sqrt(2)),
                       abs(r["Wc"] - 1)) for r in rows)
    return parts(f"max error {err:.4f}; norms off by {norm_off:.1e}", err, norm_off,
                where="; ".join(named_grid(k, sorted({r[k] for r in rows})) for k in ("T", "s")))


def _minR_bound(P, results):
    gap = min(r["R_lemma"] - r["R_min"] for r in _ex(results)["minimal_R"])
    return Measured(gap, f"min over T of $\\log 8T - R_{{\\min}}$ = {gap:.3f}")


def _minR_slope(P, results):
    f = minimal_R_fit(results)
    T = [r["T"] for r in _ex(results)["minimal_R"]]
    return parts(f"slope {f['slope']:.3f}, $R^2$ = {f['r2']:.4f}", f["slope"], f["r2"], where=f"T = {T[0]} to {T[-1]}")


def _b3(P, results):
    rows = _ex(results)["b3"]
    over = np.array([r["err"] - r["bound"] for r in rows])
    off = max(max(abs(r["P_21"] - 3), abs(r["Wk"] - 1)) for r in rows)
    return parts(f"max error {max(r['err'] for r in rows):.4f} (bound {max(r['bound'] for r in rows):.2f}); "
                f"$\\lVert P^\\top\\rVert _{{2,1}}$ = {rows[0]['P_21']:.0f}", over, off)


def _b4(P, results):
    rows = _ex(results)["b4"]
    errs = np.array([max(r["err"], r["att_err"]) / r["gamma"] for r in rows])
    norms = [np.array([r[k] for r in rows]) for k in ("Wk", "Wv", "Wc")]
    return parts(f"max error {max(r['err'] for r in rows):.4f}, attention off 1/(r+1) by "
                f"{max(r['att_err'] for r in rows):.4f} (allowed $\\gamma/4$ = {rows[0]['gamma'] / 4})", errs, *norms)


def _lookup(rule, widths, where: str, count: bool = False):
    """A7/A8: the exact Boolean constructions' largest error and whether every network has the widths `rule` states."""
    def measure(P, results):
        rows = _ex(results)["symmetric" if count else "general"]
        err = max(r["err"] for r in rows)
        ok = all(r["widths"] == widths(r["s"]) for r in rows)
        on = f" on {sum(r['inputs'] for r in rows):,} evaluations" if count else ""
        return parts(f"max error {err:.1e}{on}; {rule.parts[1].what}: {ok}", err, ok, where=where.format(**P))
    return measure


CHECKS = [
    Row("A1", "check", "Cor. A.7",
        r"softmax is 2-Lipschitz from $\ell_\infty$ to $\ell_1$, and $\lVert J\rVert _{1,1} = 2\sum_i p_i(1-p_i) < 2$",
        RULE_A1, _lipschitz),
    Row("A2", "check", "Lemma B.7", "truncating the small scores moves softmax by at most $2(T-s)/(s e^R)$ in $\\ell_1$",
        RULE_A2, _truncation),
    Row("A3", "check", "Lemma B.2", "one head approximates $1 - 2r/s$ uniformly, with the lemma's weights", RULE_A3, _b2),
    Row("A4a", "check", "Lemma B.2", "the lemma's query scale suffices", RULE_A4A, _minR_bound),
    Row("A4b", "check", "Lemma B.2, Prop. 4.7 (query norm $O(\\log T)$)",
        "the least sufficient query scale of the construction grows like $\\ln T$ (a property of the construction)",
        RULE_A4B, _minR_slope),
    Row("A5", "check", "Lemma B.3", "trainable positions: exact scores $R$ on $\\mathcal I$", RULE_A5, _b3),
    Row("A6", "check", "Lemma B.4",
        "bag of vectors: the head approximates $(r-s)/(r+1)$, attention $1/(r+1)$ on [CLS] and the active bits",
        RULE_A6, _b4),
    Row("A7", "check", "Lemma B.5 (with B.8)", "one head and a 3-layer ReLU MLP compute symmetric sparse functions exactly",
        RULE_A7, _lookup(RULE_A7, lambda s: [4 * (s + 1), 2 * (s + 1)], "AND, OR, MAJ, PARITY, s = 1 to {symmetric_s_max}",
                         count=True)),
    Row("A8", "check", "Lemma B.6 (with B.8)", "$s$ heads and a ReLU MLP compute any $s$-sparse function exactly",
        RULE_A8, _lookup(RULE_A8, lambda s: [4 * s * 2 ** s, 2 ** (s + 1)], "random truth tables, s = 1 to {general_s_max}")),
]
