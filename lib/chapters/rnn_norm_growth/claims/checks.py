"""The implementation checks of the rnn_norm_growth page, on networks built by hand: Theorem 7's accumulator (exact,
its drift without the rectifier and none with it, its failure on qSTR), the Transformer's A.2 scale and Theorem 9's
memoriser with Lemma 37's random direction. Each row's rule (RULE_*) decides what its measure(P, results) found;
only a bug can break them. Page-side: no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> from lib.core.claims import evaluate
    >>> [(r["id"], r["passed"]) for r in evaluate(MEMORISER_ROWS, P, results)][:1]
    [('thm9-memoriser-exact', True)]
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lib.chapters.rnn_norm_growth.results import a2_fit, memoriser_fit
from lib.core.claims import Measured, Row
from lib.core.interval_rules import Laws
from lib.core.rules import EXACT, PAPER, All, AtLeast, AtMost, Holds, Within, number
from lib.core.tables import named_grid
from lib.science import a2
from lib.science.stats import loglog_slope

ROUND_ULPS = 64     # 9-rectified: the bound is attained, so met only to float64 rounding: this many ulps of the states

RULE_EXACT = All((AtMost("max MSE", 1e-6, strict=True, where="at every $N$", why="float64 rounding of an exact construction"),
                  Holds(r"every token coordinate within the gadget's range, $\lvert x\rvert \le B$", by=PAPER,
                        why="Prop. 26-28")))
RULE_DRIFT = Within("log-log slope of the error against $N$", 0.9, 1.1, why=r"App. C.1's $O(N\varepsilon)$: linear")
RULE_RECTIFIED = AtMost(r"(max error $-$ $\sqrt q\,\varepsilon$) over its float64 rounding, "
                        rf"${ROUND_ULPS}\,u\max\lvert x\rvert\sqrt{{qd}}$", 1, by=EXACT,
                        why="the bound is attained, so it holds to rounding")
RULE_FAILS_QSTR = AtLeast("MSE", 0.9, where="at every $N$", why="predicting 0 scores 1")
RULE_TRANSFORMER = Laws(r"$\ln N$", favoured="ln N", factor=2, criterion="aic", why="the usual AIC margin")
RULE_MEMORISER_EXACT = All((
    AtMost(r"every training error over its rounding bound $\sqrt{n+D}\,u R_i$", 1, by=EXACT,
           why=r"float64 rounding of its sums; $R_i$: the size of its terms, $D$: the input width, $u = 2^{-53}$"),
    AtMost("`BiRNN.forward` against `forward_at`, over the same bound", 1, by=EXACT),
    AtLeast("test MSE", 0.9, where="in every draw", why="a memoriser does not generalise; predicting 0 scores about 1")))
RULE_MEMORISER_SLOPE = Within("log-log slope", 2.5, 3.5, why=r"around Lemma 36's 3; its $(\mathbf w,\mathbf b)$ half is "
                              r"$(n+\lVert b'\rVert^2)\lVert y\rVert/(\sqrt{n+\lVert z\rVert^2}\,\varepsilon)"
                              r"\sim n/\varepsilon$, with $\varepsilon\sim n^{-2}$")
RULE_LEMMA37 = AtLeast("share of first draws that meet the event", Fraction(1, 3), by=PAPER, why="Lemma 37",
                       spread="binomial SE at the bar")


def _exact(P, results):
    c = results["construction"]["result"]
    Ns, mse, max_x = c["N"], np.array(c["mse_simple"], float), max(c["max_abs_x"])
    return Measured((Measured(mse), Measured(max_x <= P["gadget_B"])), f"max MSE {mse.max():.1e} over {named_grid('N', Ns)}; max "
                    f"$\\lvert x \\rvert$ = {max_x:.2f}, $B$ = {P['gadget_B']}",
                    paper="Thm 7 / Prop. 26-28: exact construction", where=f"$d_h = qd$ = {P['q'] * P['d']} "
                    f"per direction, $q$ = {P['q']}, $N$ from {min(Ns)} to {max(Ns)}")


def _drift(P, results):
    c = results["construction"]["result"]
    Ns, plain = c["N"], np.array(c["err_plain"], float)
    slope = loglog_slope(Ns, plain)
    return Measured(slope, f"slope {slope:.3f}; error {plain[0]:.2g} at $N$ = {Ns[0]}, {plain[-1]:.2g} at "
                    f"$N$ = {Ns[-1]}", paper="App. C.1: error $O(N\\varepsilon)$",
                    where=f"$\\varepsilon/2$ = {P['eps'] / 2:g}")


def _rectified(P, results):
    c = results["construction"]["result"]
    rect, bound = np.array(c["err_rect"], float), math.sqrt(P["q"]) * P["eps"]
    # The runs attain the bound (the same error at every N, to the last digits), so the error, a difference of
    # float64 states of size up to max|x| sqrt(qd), meets it only to their rounding: that far above it is equality.
    tol = ROUND_ULPS * np.finfo(float).eps * max(c["max_abs_x"]) * math.sqrt(P["q"] * P["d"])
    return Measured((rect.max() - bound) / tol, f"max {rect.max():.3g} ($N$ = {c['N'][int(np.argmax(rect))]}), "
                    f"$\\sqrt q\\,\\varepsilon$ = {bound:.3g}; max − bound = {rect.max() - bound:.1e} "
                    f"(float64 rounding: ±{tol:.0e})", paper="App. C.2 / Prop. 26: exact zero off target")


def _fails_qstr(P, results):
    full = np.array(results["construction"]["result"]["mse_full"], float)
    return Measured(full, f"MSE from {full.min():.2f} to {full.max():.2f}",
                    paper="Prop. 8: the state would have to hold all $N$ tokens", where=f"$q$ = {P['q']}")


def _transformer(P, results):
    fit, cmp = a2_fit(results), results["a2"]["result"]["compare"]
    aic = ", ".join(f"{k}: {cmp['fits'][k]['aic']:.1f}" for k in a2.GROWTHS)     # a fixed order: a reload sorts keys
    return Measured({k: cmp["fits"][k]["aic"] for k in a2.GROWTHS},
                    f"best {cmp['best']} (AIC {aic}); "
                    + (f"{fit['slope']:.2f} per unit of $\\ln N$, " if np.isfinite(fit["slope"]) else "one length: no slope, ")
                    + f"$\\alpha^*$ from {fit['alpha'][0]:.1f} to {fit['alpha'][-1]:.1f}",
                    paper=r"Lemma 11: $\lVert W_{QK}\rVert \lesssim (2 d_e q/d)\log(N\dots)$",
                    where=f"worst target's off-target mass {P['off_target']}, codes under Assumption 3, "
                    f"$N$ from {int(fit['N'][0])} to {int(fit['N'][-1])}")


def _memoriser_exact(P, results):
    r, fit = results["memoriser"]["result"], memoriser_fit(results)
    n = fit["n"]
    tol = np.sqrt(n + r["D"])[:, None]                         # sqrt(K) u R: the rounding of a sum of K = n + D terms
    fwd = np.array(r["forward_gap"], float) / (2.0 ** -53 * np.array(r["term_scale"], float))
    err, test, zero = (np.array(r[k], float) for k in ("train_err", "test_mse", "zero_mse"))
    worst = np.unravel_index(np.argmax(err), err.shape)
    return Measured(
        tuple(Measured(np.ravel(x)) for x in (fit["rounding"], fwd / tol, test)),      # every error, draw and position
        f"max training error {err.max():.1e} ($n$ = {int(n[worst[0]])}), at most {fit['rounding'].max():.2f} of the "
        f"rounding bound; `BiRNN.forward` at every position (16 prompts per set) equals `forward_at` to "
        f"{np.nanmax(fwd / tol):.2f} of it; test MSE median {np.median(test):.2f}, min {test.min():.2f} (predicting 0: "
        f"{np.median(zero):.2f})", paper="Lemma 36 / proof of Thm 9: zero point-wise training loss; a memoriser does "
        "not generalise", where=f"1STR, $N$ = {r['N']}, $d$ = {P['d']}, $n$ = {int(n[0])} to {int(n[-1])}, "
        f"{P['memo_draws']} draws per $n$")


def _memoriser_slope(P, results):
    fit = memoriser_fit(results)
    n = fit["n"]
    return Measured(fit["slope"], f"slope {fit['slope']:.2f}; median {fit['median'][0]:.3g} "
                    f"($n$ = {int(n[0])}) to {fit['median'][-1]:.3g} ($n$ = {int(n[-1])}); the same "
                    f"interpolant at its norm-minimising rescale: slope {fit['balanced_slope']:.2f}",
                    paper=r"Lemma 36: $\lVert\mathrm{vec}\,\Theta\rVert^2 = O(n^3)$")


def _lemma37(P, results):
    r = results["memoriser"]["result"]
    n = np.array(r["n"], float)
    first, gap = np.array(r["tries"]) == 1, np.array(r["gap"], float)
    bar = float(RULE_LEMMA37.bound)
    return Measured(first.mean(), f"{int(first.sum())} of {first.size} first draws ({first.mean():.2f}); the "
                    f"$v$ used met it in {int(np.sum(r['event']))} of {first.size}; median gap × $n^2$ = "
                    f"{np.median(gap * n[:, None] ** 2):.2f} (the lemma's $\\sqrt\\pi/3$ = "
                    f"{math.sqrt(math.pi) / 3:.2f})", spread=math.sqrt(bar * (1 - bar) / first.size),
                    paper=f"Lemma 37: probability ≥ {number(RULE_LEMMA37.bound)}")


CONSTRUCTION_ROWS = [
    Row("9-exact", "check", "Theorem 7", "The hand-built accumulator on simple-qSTR", RULE_EXACT, _exact),
    Row("9-drift", "check", "App. C.1", r"With a per-step bias of norm $\varepsilon/2$ per token block, the unrectified "
        "accumulator's state error grows linearly in $N$", RULE_DRIFT, _drift),
    Row("9-rectified", "check", "Prop. 26 (App. C.2)", "The same bias through the dead-zone rectifier: the state error "
        r"stays below $\sqrt q\,\varepsilon$ at every $N$", RULE_RECTIFIED, _rectified),
    Row("9-fails-qstr", "check", "Prop. 8", "The same fixed-width network on qSTR (every position its own indices; "
        "1STR for $q = 1$) does not retrieve", RULE_FAILS_QSTR, _fails_qstr),
]
# No training enters alpha*(N): the construction and the codes fix it between two multiples of ln N, so the row is an
# implementation check, like head_lower_bound's 11-alpha-logN.
TRANSFORMER_ROWS = [
    Row("10b-transformer", "check", "Lemma 11 ($\\log N$)",
        r"The Transformer's attention scale $\alpha^*(N)$ of Equation A.2 follows $a+b\ln N$ better than "
        r"$a+bN^{1/4}$ or $a+bN^{1/2}$ (no training enters: the construction and the codes fix $\alpha^*$; an "
        "implementation property)", RULE_TRANSFORMER, _transformer),
]
MEMORISER_ROWS = [
    Row("thm9-memoriser-exact", "check", "Lemma 36 / Theorem 9", "Thm 9's memoriser (Lemmas 36-38 as the Elman readout "
        "of width $m = n$, $U = 0$, recurrence 0), evaluated by `BiRNN`, on $n$ training prompts",
        RULE_MEMORISER_EXACT, _memoriser_exact),
    Row("thm9-memoriser-slope", "check", "Lemma 36", r"$\lVert\mathrm{vec}\,\Theta\rVert^2$ of the memoriser (median over draws) "
        "against $n$, log-log slope", RULE_MEMORISER_SLOPE, _memoriser_slope),
    Row("thm9-lemma37", "check", "Lemma 37", "A uniform random unit $v$ projects the $n$ tokens to scalars at least "
        r"$\sqrt\pi/(3n^2)$ apart with $\lVert z\rVert^2 \le 3n$", RULE_LEMMA37, _lemma37),
]
