"""The claim rows of the sparse_variable_creation page (`ROWS`, `HEADLINES`, `claims`): each row's rule (a rule
object of lib.core.rules) decides it and writes its text, so every threshold is typed once with whose it is; each
measure reads the stored points through results.py; `explain` is the finding the page shows under the table when a
row fails or is censored. The worlds of their power are in claims/power.py. Page-side: no computation imports this.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (21, [('A1', True), ('A2', True)])
"""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from lib.chapters.sparse_variable_creation import results as rs
from lib.chapters.sparse_variable_creation.claims.checks import CHECKS, parts
from lib.chapters.sparse_variable_creation.results import ANCHOR_T, CONFIDENCE, DECIDES, PAPER, PAPER_T, SHIFT_LEVEL
from lib.core import gate
from lib.core.claims import Headline, Measured, Row, Scope, evaluate
from lib.core.interval_rules import Laws, ShareInterval, Significance
from lib.core.rules import PAPER as BY_PAPER
from lib.core.rules import All, AtLeast, AtMost, Share, number
from lib.core.tables import named_grid

FIT_LOSS = 1e-4       # a training loss below this counts as fitted (A10)
PARITY_ACC = 0.99     # test accuracy at which a parity seed counts as learnt (A14, A15; the paper's Fig. 3)
SMALL_T = Scope("T", hi=50)            # A14 reads T up to 50, A15 beyond it (App. C.2: nothing learnt beyond T = 50)
LARGE_T = Scope("T", lo=51)
ATTENTION_T = Scope("T", lo=11)        # A16: T where 3 planted positions are a small share of the context
ANCHOR_M = (100, 200)                  # Fig. 2 right: m = 100 overfits and m = 200 generalises at T = ANCHOR_T
UPPER_Z = float(norm.ppf(CONFIDENCE))  # A11b: the exponent's one-sided upper bound, exponent + UPPER_Z SE

RULE_A9 = AtLeast(r"$m^* - \log_2\binom{T}{3}$", 0.0, strict=True, by=BY_PAPER, where="at every $T$", ranged=True,
                  why=r"a critical sample size above the bits that name $\mathcal I$")
RULE_A10 = All((Share("runs with train accuracy 100%", at_least=0.95, why="of the paper's 100%"),
                Share(f"runs with train loss < {number(FIT_LOSS)}", at_least=0.95, binomial=True,
                      why="of the paper's 100%")))
RULE_A11A = ShareInterval("at every $T$, the best $m$'s success count", p=0.5, confidence=CONFIDENCE,
                          why="some $m$ above 1/2: a critical sample size in the grid")
RULE_A11B = AtMost(f"one-sided {CONFIDENCE:.0%} upper bound of the exponent $\\alpha$ of $m^* = cT^\\alpha$ "
                   f"($\\alpha$ + {UPPER_Z:.3g} SE)", 1, strict=True, spread="SE", by=BY_PAPER,
                   why="sublinear growth, Fig. 2 and 4", unsure="on a fit in which success does not rise with $m$")
RULE_A11C = Laws(r"the log law $a + b\ln T$", favoured="log", factor=DECIDES, why="Royall's fairly strong evidence; "
                 "between, the grid cannot tell the laws apart")
RULE_A12 = ShareInterval(f"success count at $T = {ANCHOR_T}$: below 1/2 at $m = {ANCHOR_M[0]}$, above at "
                         f"$m = {ANCHOR_M[1]}$", p=0.5, want=0, confidence=CONFIDENCE,
                         why="the two example curves of Fig. 2, read as a claim")
RULE_A13A = AtLeast("rise of the success fraction from the smallest to the largest $m$", 0.5, where="at every $T$")
RULE_A13B = Significance(r"the log law's $T$ term against one curve for every $T$ (likelihood-ratio test)",
                         level=SHIFT_LEVEL)
RULE_A14A = Share(f"seeds that reach test accuracy {PARITY_ACC}", at_least=0.5, where="at every $T$")
RULE_A14B = AtLeast("change of the median transition iteration from each $T$ to the next", 0.0, strict=True,
                    why=f"a seed that never reaches {PARITY_ACC} enters as later than the run",
                    unsure=f"between two consecutive $T$ whose median seed never reached {PARITY_ACC}")
RULE_A15 = Share(f"seed reaches test accuracy {PARITY_ACC}", at_most=0, by=BY_PAPER)
RULE_A16 = All((AtLeast(r"[CLS] attention mass on $\mathcal I$ summed over the heads", 0.5, where="at every $T$",
                        spread="SE over trials", why="half of one head's, which Prop. 4.7 needs"),
                AtLeast("its excess over the heads' uniform share $3H/(T+1)$", 0.0, strict=True, why="above chance"),
                AtLeast(r"share of successes whose top 3 positions are $\mathcal I$", 0.9,
                        why="the planted bits, not a spread of mass")))


def _floor(P, results):
    b = rs.bounds(results)
    if not b:
        return None
    lo, hi = (np.array([v[i] - rs.floor_bits(T) for T, v in b.items()]) for i in (0, 1))
    return Measured(lo, ", ".join(f"T={T}: {m} vs {rs.floor_bits(T):.1f}" for T, m in zip(b, rs.mstar_text(b).split(", ")))
                    + f" (the grid's smallest $m$: {P['and_m'][0]})", lo=lo, hi=hi)


def _fits_train(P, results):
    acc, loss = (np.concatenate([rec["result"][k] for rec in results["and"].values()])
                 for k in ("final_train_acc", "min_train_loss"))
    k_acc, k_loss = int((acc == 1).sum()), int((loss < FIT_LOSS).sum())
    scale = "" if P["and_iters"] >= 1000 else "the paper's 1000 iterations (paper profile): this run trains for fewer"
    return Measured((Measured(k_acc, n=len(acc)), Measured(k_loss, n=len(loss))),
                    f"train accuracy 100% in {k_acc / len(acc):.0%}, loss < {number(FIT_LOSS)} in "
                    f"{k_loss / len(loss):.0%} of {len(acc)} runs", paper="100% of runs", scale=scale)


def count_text(k: int, n: int, m) -> str:
    lo, hi = rs.interval(k, n)
    return f"{k}/{n} at m = {m} [{float(lo):.2f}, {float(hi):.2f}]"


def _in_grid(P, results):
    """A11a, per T: side +1 where some m's count has its interval above 1/2 (shown: the first such m), -1 where every
    m's lies below (the largest m), 0 where neither (the m with the largest count, the largest of ties)."""
    g = {}
    for T, v in rs.and_table(results).items():
        k, n = v["success"].sum(1), v["success"].shape[1]
        side = rs.side_of_half(k, np.full(len(k), n))
        s = 1 if (side == 1).any() else -1 if (side == -1).all() else 0
        i = int(np.argmax(side == 1)) if s == 1 else len(k) - 1 - (int(np.argmax(k[::-1])) if s == 0 else 0)
        g[T] = (s, v["m"][i], int(k[i]), n)
    text = "; ".join(f"T={T}: " + {1: "above 1/2", -1: "every m below 1/2", 0: "undecided"}[s]
                     + f", {count_text(k, n, m)}" for T, (s, m, k, n) in g.items())
    undecided = [T for T, (s, *_) in g.items() if s == 0]
    return Measured([k for _, _, k, _ in g.values()], text, n=[n for *_, n in g.values()],
                    where=f"m from {P['and_m'][0]} to {P['and_m'][-1]}",
                    censored=f"{named_grid('T', undecided)} (the best count's {CONFIDENCE:.0%} interval contains 1/2)")


def scale_note(P):
    return "" if min(P["and_T"]) >= 100 and max(P["and_T"]) >= 4 * min(P["and_T"]) else PAPER_T


def _fitted_mstar(f: dict, T: float) -> float:
    """c T^alpha of an exponent fit; inf where it lies beyond float range (a fit whose success barely rises with m
    puts ln c and alpha there)."""
    try:
        return math.exp(f["ln_c"]) * T ** f["alpha"]
    except OverflowError:
        v = f["ln_c"] + f["alpha"] * math.log(T)
        return math.exp(v) if v < 709 else math.inf


def _exponent(P, results):
    """A11b: the one-sided upper bound of alpha in m* = c T^alpha, fitted to every (T, m) cell (results.exponent_fit);
    unsure (censored where it fails) where success does not rise with m in the fit."""
    t = rs.and_table(results)
    if len(t) < 3:
        return None
    f, T = rs.exponent_fit(rs.cells(t)), (min(t), max(t))
    up = f["alpha"] + UPPER_Z * f["se"]
    if not np.isfinite(up):
        return Measured(up, "success does not rise with $m$ in the fit", unsure=True, scale=scale_note(P))
    m = [_fitted_mstar(f, x) for x in T]
    return Measured(up, f"exponent {f['alpha']:.3f}, SE {f['se']:.3f}: upper bound {up:.2f}; fitted $m^*$ {m[0]:.0f} at "
                    f"T = {T[0]} → {m[1]:.0f} at T = {T[1]} (in proportion to T: {m[0] * T[1] / T[0]:.0f})",
                    spread=f["se"], scale=scale_note(P))


def _laws(P, results):
    t = rs.and_table(results)
    if len(t) < 3:
        return None
    cmp, T = rs.compare_laws(rs.cells(t)), list(t)
    m = rs.mstar_of(cmp["fits"]["log"], [T[0], T[-1]])
    text = ("log-likelihood (relative likelihood): "
            + ", ".join(f"{law} {v['loglik']:.2f} ({cmp['weights'][law]:.2f})" for law, v in cmp["fits"].items())
            + f"; likelihood ratio log / best other {cmp['ratio']:.2f} ($\\ln$ {cmp['log_ratio']:+.2f}, decides "
            f"beyond $\\pm\\ln {DECIDES:.0f}$ = ±{math.log(DECIDES):.2f}); log law: $m^*$ = {m[0]:.0f} at T = {T[0]}, "
            f"{m[1]:.0f} at T = {T[-1]}")
    return Measured({law: v["loglik"] for law, v in cmp["fits"].items()}, text, scale=scale_note(P),
                    censored=f"undecided: the laws' likelihoods lie within a factor {DECIDES:.0f} on this grid")


def _anchor(P, results):
    if ANCHOR_T not in results.get("and", {}) or not set(ANCHOR_M) <= set(P["and_m"]):
        return None
    t = rs.and_table(results)[ANCHOR_T]
    k, n = [int(t["success"][t["m"].index(m)].sum()) for m in ANCHOR_M], [t["success"].shape[1]] * 2
    sides = RULE_A12.sides(k, n)
    return Measured(k, ", ".join(map(count_text, k, n, ANCHOR_M)), n=n, want=[-1, 1],
                    censored=f"the {CONFIDENCE:.0%} interval at m = "
                    + " and ".join(str(m) for m, s in zip(ANCHOR_M, sides) if s == 0) + " contains 1/2")


def _rises(P, results):
    rise = {T: float(v["success"].mean(1)[-1] - v["success"].mean(1)[0]) for T, v in rs.and_table(results).items()}
    return Measured(list(rise.values()), ", ".join(f"T={T}: +{r:.2f}" for T, r in rise.items()))


def _shift(P, results):
    """A13b: the likelihood-ratio test of the log law's T term against one curve for every T (results.shift_test)."""
    t = rs.and_table(results)
    if len(t) < 2:
        return None
    st, T = rs.shift_test(rs.cells(t)), list(t)
    m = rs.mstar_of(st["fit"], [T[0], T[-1]])
    text = (f"log law: $m^*$ {m[0]:.0f} at T = {T[0]} → {m[1]:.0f} at T = {T[-1]} (b = {st['b']:.1f}); "
            f"against one curve for every T: $\\chi^2_1$ = {st['stat']:.1f}, one-sided p = {st['p']:.1e}")
    return Measured(st["b"], text, p=st["p"], censored=f"the grid cannot tell a shift from none (p ≥ {SHIFT_LEVEL})")


def _attention(P, results):
    """A16: per T, the successes' [CLS] attention mass on I summed over the H heads (the stored mean over heads
    times H), its margin in SE over trials. The points store no per-head mass, so the largest head's share, which
    Prop. 4.7's one head needs, is shown as the interval the sum allows: from the mean over heads to min(1, sum)."""
    att = rs.attention_on_planted(results, min_T=ATTENTION_T.lo)
    if not att:
        return None
    H = P["heads"]
    top = np.mean([x for _, _, hits in att.values() for x in hits])
    need = {T: max(RULE_A16.parts[0].bound, H * 3 / (T + 1)) for T in att}
    margin = lambda T, v, se: (f"margin {(H * v - need[T]) / (H * se):+.1f} SE" if np.isfinite(se) and se > 0
                               else "SE 0" if se == 0 else "one trial")
    return parts(", ".join(f"T={T}: {H * v:.2f} ({margin(T, v, se)}; uniform {H * 3 / (T + 1):.2f}; one head's share "
                          f"in [{v:.2f}, {min(1.0, H * v):.2f}])" for T, (v, se, _) in att.items())
                + f"; top 3 = planted in {top:.0%}", np.array([H * v for v, _, _ in att.values()]),
                np.array([v - 3 / (T + 1) for T, (v, _, _) in att.items()]), top)


def _parity_runs(results, scope: Scope) -> dict:
    """{T: the stored parity result} of every T in the scope."""
    par = dict(sorted(results.get("parity", {}).items()))
    return {T: par[T]["result"] for T in scope(par)}


def _learnt(scope: Scope, suffix: str = ""):
    """A14a/A15: per T in the scope, how many seeds reach PARITY_ACC."""
    def measure(P, results):
        hit = {T: np.array(r["test_acc"]) >= PARITY_ACC for T, r in _parity_runs(results, scope).items()}
        if not hit:
            return None
        text = ", ".join(f"T={T}: {a.mean():.0%}{suffix}" for T, a in hit.items())
        return Measured([int(a.sum()) for a in hit.values()], text, n=[len(a) for a in hit.values()])
    return measure


def _parity_later(P, results):
    """Median transition per T, a seed that never reached PARITY_ACC entering as +inf (later than the run): the
    median is then exact while fewer than half the seeds are censored, else only "> iters"."""
    med = {T: float(np.median(np.nan_to_num(rs.transition(r), nan=math.inf)))
           for T, r in _parity_runs(results, SMALL_T).items()}
    if len(med) < 2:
        return None
    text = ", ".join(f"T={T}: {m:.0f}" if np.isfinite(m) else f"T={T}: > {P.get('parity_iters', 'the run')}"
                     for T, m in med.items())
    with np.errstate(invalid="ignore"):
        steps = np.diff(list(med.values()))      # -inf: a finite median after a censored one; NaN: two censored
    return Measured(steps, text, unsure=np.isnan(steps))


# ------------------------------------------------------- the findings (beyond the numbers the row's cell shows)
def _counts_decide(P, results, row) -> str:
    """What a count can decide with this run's trials per cell: where its 95% interval leaves 1/2."""
    n = P["and_trials"]
    side = rs.side_of_half(np.arange(n + 1), np.full(n + 1, n))
    below, above = np.flatnonzero(side == -1), np.flatnonzero(side == 1)
    text = (f"with {n} trials per $(T, m)$ a success count decides against 1/2 (its {CONFIDENCE:.0%} Clopper-Pearson "
            "interval on one side) " + (f"only at {below[-1]} or fewer, or at {above[0]} or more." if len(below)
                                        and len(above) else "at no count."))
    return text + (" The paper's model also drops out the embeddings, which this profile does not; in this low-data "
                   "regime a regulariser may move $m^*$." if PAPER["embd_dropout"] and P.get("embd_dropout") is False
                   else "")


def _explain_growth(P, results, row) -> str:
    b, f = rs.bounds(results), rs.exponent_fit(rs.cells(rs.and_table(results)))
    return (f"$m^*$ read off each $T$'s curve, as the paper reads it, is {rs.mstar_text(b)} at $T$ = "
            f"{', '.join(map(str, b))}; the fit over every $(T, m)$ cell reads the counts beyond the grid's ends too, "
            f"and with {P['and_trials']} trials per $(T, m)$ on {len(b)} values of $T$ its exponent has an SE of "
            f"{f['se']:.2f}.")


def _explain_laws(P, results, row) -> str:
    return (f"{len(rs.and_table(results))} values of $T$ with {P['and_trials']} trials each cannot tell $\\log T$ from "
            "$\\sqrt T$. Which grid would: the power table draws larger grids from the log and the $\\sqrt T$ laws "
            f"fitted to this run's cells, and a grid decides where the rule favours $\\log T$ in at least {gate.WITH:.0%} "
            f"of the draws from the log law and at most {gate.WITHOUT:.0%} of those from the $\\sqrt T$ law.")


def _explain_parity(P, results, row) -> str:
    share = P["parity_iters"] * P["parity_batch"] / (PAPER["parity_iters"] * PAPER["parity_batch"])
    return (f"this run trains {P['parity_trials']} seeds for {P['parity_iters']:,} iterations of {P['parity_batch']:,} "
            f"samples, the paper {PAPER['parity_trials']} for {PAPER['parity_iters']:,} of {PAPER['parity_batch']:,}. "
            + ("At a fraction of the paper's samples, a seed still on the plateau at the end may leave it later."
               if share < 1 else "A seed still on the plateau at the end did not make Figure 3's transition in the "
               "paper's time."))


ROWS = [
    *CHECKS,
    Row("A9", "check", "Sec. 5, information-theoretic bound",
        "the critical sample size exceeds the bits needed to name $\\mathcal I$ (on the paper's grid its smallest $m$, "
        f"{PAPER['and_m'][0]}, already exceeds $\\log_2\\binom{{{PAPER['and_T'][-1]}}}{{3}}$ = "
        f"{rs.floor_bits(PAPER['and_T'][-1]):.1f}: a check of the grid, not a test of the theory)",
        RULE_A9, _floor),
    Row("A10", "claim", "App. C.1 (\"in 100% of runs\")", "training always fits: failures are overfitting",
        RULE_A10, _fits_train),
    Row("A11a", "claim", "Fig. 4 right", "a critical sample size exists in the grid at every $T$", RULE_A11A, _in_grid,
        explain=_counts_decide),
    Row("A11b", "claim", "Fig. 2 and 4, App. C.1 (\"sublinear scaling\"); deviation from the paper: $m^*$ is fitted to "
        "every $(T, m)$ cell, not read off each $T$'s curve, so that a $T$ whose $m^*$ lies beyond the grid still counts",
        "$m^*$ grows slower than in proportion to $T$: the exponent $\\alpha$ of $m^* = cT^\\alpha$, with the success a "
        "logistic function of $\\ln m - \\ln m^*(T)$ over every $(T, m)$ cell, is below 1 (whether like $\\log T$ or "
        "$\\sqrt T$ is A11c's question)", RULE_A11B, _exponent, explain=_explain_growth),
    Row("A11c", "claim", "Sec. 5 and App. C (\"the $\\log T$ dependence of the sample complexity\"); deviation from the "
        "paper: the laws are compared by their likelihood over every $(T, m)$ cell",
        "$m^*(T) = a + b\\ln T$ (success a logistic function of $m - m^*(T)$ over every $(T, m)$ cell) is more likely "
        "than $a + b\\sqrt T$ and $a + bT$", RULE_A11C,
        _laws, explain=_explain_laws),
    Row("A12", "claim", "Fig. 2 right (example curves in the overfitting and the correct regime at $T = 400$, "
        "$m$ = 100 and 200); reading them as success fractions below and above 1/2 is this book's",
        f"at $T = {ANCHOR_T}$, $m = {ANCHOR_M[0]}$ overfits and $m = {ANCHOR_M[1]}$ generalises", RULE_A12, _anchor,
        explain=_counts_decide),
    Row("A13a", "claim", "Fig. 4 left", "the success fraction rises with $m$", RULE_A13A, _rises),
    Row("A13b", "claim", "Fig. 4 left", "$m^*$ grows with $T$: the success curves shift right (every increasing law "
        "of $m^*$ shifts them; A11c asks which law)", RULE_A13B, _shift),
    Row("A14a", "claim", "Fig. 3", "sparse parities are learnable at {scope}", RULE_A14A, _learnt(SMALL_T),
        scope=SMALL_T, explain=_explain_parity),
    Row("A14b", "claim", "hypothesis (this book): App. C.2 presents no trend for parities, only that they can be fit",
        "the transition comes later for larger $T$ ({scope})", RULE_A14B, _parity_later, scope=SMALL_T,
        explain=_explain_parity),
    Row("A15", "claim", "App. C.2 (\"unable to scale this phenomenon (i.e. learn any parities) at context sizes above T = "
        "50\")",
        "no parity is learnt at {scope}", RULE_A15, _learnt(LARGE_T, " learnt"), scope=LARGE_T),
    Row("A16", "claim", "hypothesis (this book): Prop. 4.7's variable creation, looked for in the trained heads",
        "successful runs attend from [CLS] to the planted bits at {scope} (summed over the heads: Prop. 4.7 needs one "
        "head, and the mean over heads dilutes it)", RULE_A16, _attention, scope=ATTENTION_T),
]

HEADLINES = (
    Headline("there is a critical sample size m∗, the fewest training samples at which most trials generalise; with "
             "fewer, training fits and overfits (Fig. 2 and 4)", ("A10", "A11a", "A12", "A13a")),
    Headline("the samples needed grow with the sequence length T, but slower than T (Thm 4.2, Fig. 4)",
             ("A13b", "A11b")),
    Headline("the samples needed grow like log T, not √T (Sec. 5)", ("A11c",)),
    Headline("the trained heads attend to the three planted bits (Prop. 4.7, this book's test)", ("A16",)),
    Headline("sparse parities are learnt at T ≤ 20 and not beyond T = 50 (Fig. 3, App. C.2), later for larger T "
             "(this book's hypothesis)",
             ("A14a", "A14b", "A15")),
)


def claims(P: dict, results: dict) -> list[dict]:
    return evaluate(ROWS, P, results)
