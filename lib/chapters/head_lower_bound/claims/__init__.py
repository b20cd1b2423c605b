"""The head_lower_bound claim check as data: `ROWS`, one `lib.core.claims.Row` per check or claim (its rule, its
measure and, where it has one, its finding), `HEADLINES`, the paper's claims they test, and `claims(P, results)`.
The measures and rules are in one module per topic: `heads` (the calculator and the H sweeps), `a2` (the A.2
construction and Figure 2) and `scaling` (samples-to-threshold against N); their power, in `power`. Nothing here
computes a stored number, and no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row["id"], row["passed"]) for row in rows][:2]
    (18, [('calc-bayes', True), ('calc-mlp', True)])
"""
from __future__ import annotations

from lib.chapters.head_lower_bound.claims import a2, heads, scaling
from lib.core.claims import Headline, Row, evaluate
from lib.core.rules import number

FIGURE2 = ("Figure 2 (paper); trained on simple-1STR as the authors' script does, where their caption says 1STR (a "
           "deviation from the caption; `figure2_task`)")
# What only a bug can break (an identity, a bound that holds for every parameter, a property of a construction): checks.
# What training, random codes or the paper's figure could refute: claims, each with its source.
ROWS = [
    Row("calc-bayes", "check", "Prop. 21 (proof, Lemma 40)",
        r"The exact Bayes predictor from $\mathbf A\mathbf x$ has risk $2(q-\operatorname{rank}\mathbf A)/q$ "
        "(Monte Carlo, every rank)",
        heads.RULE_CALC_BAYES, heads.calc_bayes),
    Row("calc-mlp", "check", "Prop. 21 (proof, Lemma 40)",
        r"A fitted MLP regressor of $y$ from $\mathbf A\mathbf x$ does not beat the Bayes risk",
        heads.RULE_CALC_MLP, heads.calc_mlp),
    Row("5-floor-prop21", "check", "Prop. 21",
        r"Prop. 21, block-diagonal $\mathbf W_{QK}$: no trained model with $H<q$ beats $1-H/q$ on the positions $i\ge N/2$",
        heads.RULE_FLOOR_PROP21, heads.floor_prop21),
    Row("7-floor-prop3", "check", "Prop. 3", r"Prop. 3, unrestricted $\mathbf W_{QK}$: no trained model beats $1-H(q+d)/(qd)$",
        heads.RULE_FLOOR_PROP3, heads.floor_prop3),
    Row("4-floor-h1", "check", "Prop. 21",
        r"Prop. 21's data and block-diagonal $\mathbf W_{QK}$: no $H=1$ run gets its FVU on the positions $i\ge N/2$ below a "
        r"threshold under $1-1/q$, at any $N$",
        scaling.RULE_FLOOR_H1, scaling.floor_h1),
    Row("11-assumption3", "check", "Assumption 3",
        r"The A.2 position codes satisfy Assumption 3 (unit norm, overlaps at most $1/2$)",
        a2.RULE_ASSUMPTION3, a2.assumption3),
    Row("11-alpha-bounds", "check", "Lemma 11 (proof)",
        r"A.2 under Assumption 3: the worst target's $\alpha^*$ lies between $\ln\frac{(N-1)(1-\varepsilon)}{\varepsilon}/2$ "
        r"(overlaps ≥ −1) and $2\ln\frac{(N-1)(1-\varepsilon)}{\varepsilon}$ (overlaps ≤ 1/2); the (2,1) norm of "
        r"$\mathbf W_{QK}$ is $\alpha^* d_e$", a2.RULE_ALPHA_BOUNDS, a2.alpha_bounds),
    Row("11-alpha-logN", "check", r"Lemma 11 ($\log N$)",
        r"A.2: the worst target's $\alpha^*(N)$ follows $a+b\ln N$ better than $a+bN^{1/4}$ or $a+bN^{1/2}$ (no training "
        r"enters: the construction and the codes fix $\alpha^*$, between two multiples of $\ln N$; an implementation "
        "property)",
        a2.RULE_ALPHA_LOGN, a2.alpha_log_n),
    Row("6-rank-used", "check", "Prop. 21 (proof): zero error needs rank $q$",
        r"Every trained Prop. 21 model that gets the data right passes on all $q$ directions: the attention onto the "
        rf"relevant keys has $q$ singular values above ${number(heads.RANK_TOL)}\,\sigma_1$",
        heads.RULE_RANK_USED, heads.rank_used),
    Row("5-reach-prop21", "claim", "Theorem 4 (constrained ERM with $H=q$ heads); for training: hypothesis (this book)",
        "With $H=q$ heads a trained model gets the Prop. 21 data right",
        heads.RULE_REACH, heads.reach_prop21),
    Row("5-reach-fraction", "claim", r"Theorem 4 (constrained ERM with $H=q$ heads; its remark extends it to $H\ge q$); for "
        "training: hypothesis (this book)",
        rf"Training with $H\ge q$ heads gets the Prop. 21 data right in at least {number(heads.REACH_SHARE)} of the runs, "
        "not in one lucky run (a run that stalls has two heads on one key: its relative rank is below $q$)",
        heads.RULE_REACH_FRACTION, heads.reach_fraction, explain=heads.reach_finding),
    Row("7-below-floor-prop3", "claim", "Theorem 4 against Prop. 3; for training: hypothesis (this book)",
        r"Prop. 3, unrestricted $\mathbf W_{QK}$: trained models with $H\ge q$ heads go below the floor of $H=q-1$ heads, "
        "so the same training is held at a floor only where heads are missing (without it `7-floor-prop3` cannot fail)",
        heads.RULE_BELOW_FLOOR_PROP3, heads.below_floor_prop3, explain=heads.prop3_note),
    Row("control-one-head", "claim", "Remark after Prop. 3 (one head suffices); trained: hypothesis (this book)",
        r"Sparse averaging $y_i=\frac1q\sum_j\langle\mathbf u,\mathbf x_{t_{ij}}\rangle$ needs one head: a trained $H=1$ "
        "model gets it right where the square link is held at $1-1/q$",
        heads.RULE_CONTROL, heads.control_one_head),
    Row("4-scaling", "claim", "Theorem 4 (constrained ERM with $H=q$ heads: samples polylogarithmic in $N$); for "
        "training: hypothesis (this book)",
        r"qSTR: $H=q$ heads trained with AdamW reach the FVU threshold at every $N$, with samples-to-threshold growing "
        r"slower than $\sqrt N$: "
        rf"a power $N^p$ fitted to every run's count has $p<{number(scaling.MAX_POWER)}$ (whether the growth is "
        "polylogarithmic is not tested: "
        "the AIC beside it says which law fits best)",
        scaling.RULE_SCALING, scaling.scaling_claim, explain=scaling.scaling_finding),
    Row("figure2-diagonal", "claim", FIGURE2, "Fig. 2: the A.2 diagonal stands out of its block",
        a2.RULE_DIAGONAL, a2.figure2_diagonal),
    Row("figure2-outside", "claim", FIGURE2 + "; the authors' script",
        "Fig. 2: everything outside the A.2 block is near zero (weight decay removes what the task does not use)",
        a2.RULE_OUTSIDE, a2.figure2_outside),
    Row("figure2-top", "claim", FIGURE2, "Fig. 2: the $d_e$ largest entries lie on the A.2 diagonal",
        a2.RULE_TOP, a2.figure2_top),
    Row("figure2-sign", "claim", "Eq. A.2; " + FIGURE2, "Fig. 2: the diagonal is positive, as A.2 ($\\alpha > 0$) says",
        a2.RULE_SIGN, a2.figure2_sign),
]

HEADLINES = (
    Headline("fewer heads than relevant tokens per output leave an error floor that no amount of data removes "
             "(Props. 3 and 21)", ("calc-bayes", "calc-mlp", "5-floor-prop21", "7-floor-prop3", "4-floor-h1",
                                   "6-rank-used", "7-below-floor-prop3")),
    Headline("as many heads as relevant tokens suffice, and training finds them (Thm 4)",
             ("5-reach-prop21", "5-reach-fraction")),
    Headline("the samples a trained model needs grow slower than the square root of the sequence length (a trained "
             "counterpart of Thm 4's bound)", ("4-scaling",)),
    Headline("one head suffices where the label averages the relevant tokens (the remark after Prop. 3)",
             ("control-one-head",)),
    Headline("the construction's attention weights grow like the logarithm of the sequence length (Lemma 11, Eq. A.2)",
             ("11-assumption3", "11-alpha-bounds", "11-alpha-logN")),
    Headline("trained attention takes the pattern of the paper's construction (Eq. A.2, Figure 2)",
             ("figure2-diagonal", "figure2-outside", "figure2-top", "figure2-sign")),
)
assert sorted(i for h in HEADLINES for i in h.ids) == sorted(r.id for r in ROWS)     # every row in one headline


def claims(P: dict, results: dict) -> list[dict]:
    """Every row of ROWS, evaluated on this run's results."""
    return evaluate(ROWS, P, results)
