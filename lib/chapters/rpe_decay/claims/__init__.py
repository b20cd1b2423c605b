"""rpe_decay's claim and check rows, as data: each row names its source, what it states, the rule object that decides
it (lib.core.rules, which writes the rule's text), its measure (a statistic of the stored points, `measure(P,
results)`), the grid range it reads (`scope`) and its finding where it does not pass (`explain`). The rules and
measures are in one module per topic beside this one: the exact checks 1-6 (claims/exact.py), this book's calibrated
claims about the best fit found 7-12 and the fitter's guard 13 (claims/fit.py), the training claims 14a/14b
(claims/train.py), and the numbers of the NeurIPS version's Appendix H, H4a-H4b (claims/apph.py); the worlds the
rules' power is measured in are in claims/power.py. Page-side: no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (24, [('1-t5-buckets', True), ('2-allocation', True)])
"""
from __future__ import annotations

from lib.chapters.rpe_decay.claims import apph, exact, fit, train
from lib.chapters.rpe_decay.experiments.fit import REFIT
from lib.chapters.rpe_decay.results.train import PRECISION_MARGIN
from lib.core.claims import Headline, Row, evaluate

BOOK = "hypothesis (this book)"
# The paper proves upper bounds only; a row about how large an error stays is about the best fit this page's fitter
# found (a better fitter could lower it), so it is this book's hypothesis, never the theorem's.
BEST = "hypothesis (this book): best fit found"
NO_RATE = BOOK + r"; Thm 6.1(B) gives no rate at $\beta$ = 1.2"
MISSED = fit.band_missed
APP_H = "Appendix H, H.2.7-H.2.8 (NeurIPS version): its experiments 4a and 4b"
ROWS = [
    # checks 1-6: exact statements of the paper (claims/exact.py)
    Row("1-t5-buckets", "check", "Table 1 (paper), App. F.1",
        r"T5 bucket function with $\mathcal B = 8$, $\mathcal D = 128$: $-r(n)$ for $n = 0,\dots,30$, and its saturation",
        exact.RULE_T5, exact._t5),
    Row("2-allocation", "check", "Theorem 4.1 (proof)", r"Thm 4.1's head allocation: "
        r"$\min_{\sum_k H_k = H}\sum_k a_k^{n+1}H_k^{-n}$ with $a_k = e^{0.01T_k}$ or $T_k^{1.01}$, by a numerical optimiser",
        exact.RULE_ALLOCATION, exact._allocation),
    Row("3-crossover", "check", "Theorem 4.1", r"$e^{0.01T} = T^{1.01}$: the bound factors of Thm 4.1 cross",
        exact.RULE_CROSSOVER, exact._crossover),
    Row("4-prop-B1", "check", "Prop. B.1", r"Prop. B.1 on 200,001 points $z \in [1, 12]$", exact.RULE_PROP_B1, exact._prop_b1),
    Row("5-prop-5.2B", "check", "Prop. 5.2(B)", "Minimax error of any affine-in-tokens predictor (any DP-free "
        "one-layer Attn, any $H$, any RPE) on the toy $y = x_{t-g(x_t)}$, 27 configurations",
        exact.RULE_PROP_52B, exact._prop_52b),
    Row("6-folding", "check", "Theorems 4.1, 6.1 (proofs)", r"Softmax heads with $W_V = \alpha\,\times$ (the head's "
        r"normaliser) compute the kernel $\sum_h\alpha_h e^{-p_h s}$ (lin) or $\sum_h\alpha_h s^{-p_h}$ (log, $s = 0$ "
        "masked), window 4096, float64", exact.RULE_FOLDING, exact._folding),
    # 7-13: the kernel fits (claims/fit.py)
    Row("7a-heavy-tail-log", "claim", NO_RATE, r"Power law $\beta = 1.2$, $H = 8$: log heads approximate it to "
        r"$E_{\log}(8) \le 10^{-4}$",
        fit.RULE_HEAVY_TAIL_LOG, fit._heavy_tail_log, explain=MISSED),
    Row("7b-heavy-tail-lin", "claim", BEST, r"Power law $\beta = 1.2$, $H = 8$: the best lin fit found stays far above "
        "the log fit", fit.RULE_HEAVY_TAIL_LIN, fit._heavy_tail_lin, explain=MISSED),
    Row("8a-context-log", "claim", NO_RATE, r"Power law $\beta = 1.2$: log heads' error against the window $S$",
        fit.RULE_CONTEXT_LOG, fit._context_log, explain=MISSED),
    Row("8b-context-lin", "claim", BEST, r"Power law $\beta = 1.2$: the best lin fit found against the window $S$",
        fit.RULE_CONTEXT_LIN, fit._context_lin, explain=MISSED),
    Row("9a-exp-kernel-lin", "claim", "Theorem 6.1(A)", r"Exponential with cutoff, $\tau = 10$: lin heads converge fast",
        fit.RULE_EXP_KERNEL_LIN, fit._exp_kernel_lin, explain=MISSED),
    Row("9b-exp-kernel-log", "claim", BEST, r"Exponential with cutoff, $\tau = 10$: the best log fit found at $H = 16$",
        fit.RULE_EXP_KERNEL_LOG, fit._exp_kernel_log, explain=MISSED),
    Row("10a-slope-power", "claim", "Theorem 6.1(B) (its rate read as a slope: this book's)",
        r"Power law $\beta = 3$, log heads, {scope}: log-log slope of the "
        "error over $H$", fit.RULE_SLOPE_POWER, fit._slope_power, scope=fit.SLOPE_H, explain=MISSED),
    Row("10b-slope-exp", "claim", "Theorem 6.1(A)", r"Exponential with cutoff $\tau = 10$, lin heads: error over "
        "{scope}", fit.RULE_SLOPE_EXP, fit._slope_exp, scope=fit.FALL_H, explain=MISSED),
    Row("11-relative-bump", "claim", BEST, "Bump of width proportional to $T$, window $6T$: lin heads are "
        "scale-covariant (the same error at every $T$), log heads are not", fit.RULE_RELATIVE_BUMP, fit._relative_bump,
        explain=MISSED),
    Row("12a-sharp-memory-near", "claim", "Theorem 4.1", "Delta at $T = 2$ (Task I's kernel): both families reach it",
        fit.RULE_SHARP_NEAR, fit._sharp_memory_near, explain=MISSED),
    Row("12b-sharp-memory-far", "claim", "Theorem 4.1 (its bound factors' ordering, check 3)", "Delta at $T = 8$: "
        r"lin heads need no more heads than log heads to reach $\ell^1 \le 0.1$ ({scope}), as Thm 4.1's factors "
        r"order them below $T \approx 655$",
        fit.RULE_SHARP_FAR, fit._sharp_memory_far, scope=fit.FAR_H, explain=MISSED),
    Row("13-monotone-in-H", "check", "the fitter ($H$ heads contain every $H' < H$)", "Every fit: the error at $H$ is no "
        "larger than the best at smaller $H$ (fits at each $H$ are independent; a fit that grows is refitted with "
        f"{REFIT}×, then {REFIT ** 2}× the starts)", fit.RULE_MONOTONE, fit._monotone),
    # 14a, 14b: Part C's training (claims/train.py)
    Row("14a-train-order", "claim", APP_H + " (the same order, trained; this book's task: Part C)",
        "Trained one-layer DP-free models, linear target, largest $S$, {scope}: the "
        "matched RPE (log on power laws, lin on exponentials) has the lower test MSE",
        train.RULE_TRAIN_ORDER, train._train_order, scope=train.ORDER_H, explain=train.explain_order),
    Row("14b-train-floor", "claim", BOOK, r"Trained test MSE of every run against what its heads can reach: the "
        r"optimum $\mathrm{Var}(x)\,E_2(H)^2$ of the fitter (variable projection) for the same family, window and $H$, "
        "or the training floor where that is higher (the floor: the median trained MSE of the lin runs at least "
        f"{PRECISION_MARGIN}× above their own optimum)", train.RULE_TRAIN_FLOOR, train._train_floor,
        explain=train.explain_floor),
    # H4a-H4b: the four numbers Appendix H states (claims/apph.py), decided on two models: heads only, and with w0
    Row("H4a-log", "claim", apph.SOURCE.format("H.2.7, Table 8"), r"Experiment 4a, $\rho(t) = t^{-0.5}$: trained log-type "
        "RPE with one head (the smallest $H$ of the run)", apph.RULES["H4a-log"], apph._4a_log,
        explain=apph.EXPLAIN["H4a-log"]),
    Row("H4a-lin", "claim", apph.SOURCE.format("H.2.7, Table 8"), r"Experiment 4a, $\rho(t) = t^{-0.5}$: trained lin-type "
        "RPE with the most heads stays far from the target", apph.RULES["H4a-lin"], apph._4a_lin,
        explain=apph.EXPLAIN["H4a-lin"]),
    Row("H4b-lin", "claim", apph.SOURCE.format("H.2.8, Table 9"), r"Experiment 4b, $\rho(t) = e^{-5t}$: trained lin-type "
        "RPE with one head", apph.RULES["H4b-lin"], apph._4b_lin, explain=apph.EXPLAIN["H4b-lin"]),
    Row("H4b-log", "claim", apph.SOURCE.format("H.2.8, Table 9"), r"Experiment 4b, $\rho(t) = e^{-5t}$: trained log-type "
        "RPE with the most heads does no better than copying the current token (this book's restatement of the "
        "paper's 5.3e-4, which is above that baseline)", apph.RULES["H4b-log"], apph._4b_log,
        explain=apph.EXPLAIN["H4b-log"]),
]
HEADLINES = (
    Headline("log heads fit a heavy-tailed memory at every context length, and lin heads stay far from it, the "
             "farther the longer the context", ("7a-heavy-tail-log", "7b-heavy-tail-lin", "8a-context-log",
                                                 "8b-context-lin")),
    Headline("lin heads fit an exponentially decaying memory, and log heads stay far from it",
             ("9a-exp-kernel-lin", "9b-exp-kernel-log")),
    Headline("the error falls as a power of the number of heads, faster for exponential memories (Thm 6.1)",
             ("10a-slope-power", "10b-slope-exp")),
    Headline("sharp memories: both families reach a delta at distance 2, lin heads need no more heads than log heads "
             "at distance 8 (Thm 4.1), and lin heads fit a bump as well at every distance",
             ("11-relative-bump", "12a-sharp-memory-near", "12b-sharp-memory-far")),
    Headline("trained models: the RPE matched to the memory's decay trains lower, near what its heads can reach",
             ("14a-train-order", "14b-train-floor")),
    Headline("Appendix H's training: one matched head below the paper's 1e-5 (power law) and 1e-7 (exponential), the "
             "other RPE far above with up to 64 heads", ("H4a-log", "H4a-lin", "H4b-lin", "H4b-log")),
)


def claims(P: dict, results: dict) -> list[dict]:
    """The rows of ROWS this run can measure, evaluated on its points."""
    return evaluate(ROWS, P, results)
