"""The claim rows of the sparse_variable_creation page (`ROWS`, `claims`), each measure a function of the profile P and
the stored points, through the readers of read.py. Page-side: no computation imports this module.

    >>> rows = claims(P, results)
"""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from lib.chapters.sparse_variable_creation import scaling as sc
from lib.chapters.sparse_variable_creation.read import (
    ANCHOR_T,
    EXACT_TOL,
    PAPER_T,
    and_table,
    attention_on_planted,
    bounds,
    fits,
    floor_bits,
    minimal_R_fit,
    transition,
)
from lib.core.claims import Row, Verdict, evaluate

ATTENTION_MIN = 0.5   # book's calibration: the heads' summed [CLS] attention on I, at least half of one head's
TOP3_MIN = 0.9        # book's calibration: share of successes whose three most attended positions are I


def _ex(results):
    return results["exact"]["result"]


def _lipschitz(P, results):
    r = _ex(results)["lipschitz"]
    ok = (r["max_ratio"] <= 2 and r["jacobian_formula_err"] <= EXACT_TOL and r["uniform_err"] <= EXACT_TOL
          and r["jacobian_max"] < 2)
    return Verdict(f"max ratio {r['max_ratio']:.4f} over {r['pairs']:,} pairs; $\\lVert J\\rVert _{{1,1}}$ formula error "
                   f"{r['jacobian_formula_err']:.1e}, uniform {r['uniform_err']:.1e}", ok)


def _truncation(P, results):
    r = _ex(results)["truncation"]
    return Verdict(f"largest measured / bound {r['max_ratio_to_bound']:.4f} ({r['instances']} instances)",
                   r["max_ratio_to_bound"] <= 1)


def _b2(P, results):
    rows = _ex(results)["b2"]
    err = max(r["err"] for r in rows)
    norm = max(max(abs(r["Wq"] - r["R"]), abs(r["Wk"] - math.sqrt(r["s"])), abs(r["Wv"] - math.sqrt(2)), abs(r["Wc"] - 1))
               for r in rows)
    return Verdict(f"max error {err:.4f}; norms off by {norm:.1e}", err <= 0.25 and norm <= EXACT_TOL,
                   where=f"T = {sorted({r['T'] for r in rows})}, s = {sorted({r['s'] for r in rows})}")


def _minR_bound(P, results):
    rows = _ex(results)["minimal_R"]
    gap = min(r["R_lemma"] - r["R_min"] for r in rows)
    return Verdict(f"min over T of $\\log 8T - R_{{\\min}}$ = {gap:.3f}", gap >= 0)


def _minR_slope(P, results):
    f = minimal_R_fit(results)
    T = [r["T"] for r in _ex(results)["minimal_R"]]
    return Verdict(f"slope {f['slope']:.3f}, $R^2$ = {f['r2']:.4f}", 0.9 <= f["slope"] <= 1.1 and f["r2"] > 0.99,
                   where=f"T = {T[0]} to {T[-1]}")


def _b3(P, results):
    rows = _ex(results)["b3"]
    ok = all(r["err"] <= r["bound"] + 1e-12 and abs(r["P_21"] - 3) <= EXACT_TOL and abs(r["Wk"] - 1) <= EXACT_TOL for r in rows)
    return Verdict(f"max error {max(r['err'] for r in rows):.4f} (bound {max(r['bound'] for r in rows):.2f}); "
                   f"$\\lVert P^\\top\\rVert _{{2,1}}$ = {rows[0]['P_21']:.0f}", ok)


def _b4(P, results):
    rows = _ex(results)["b4"]
    ok = all(r["err"] <= r["gamma"] / 4 and r["att_err"] <= r["gamma"] / 4 and r["Wk"] <= 4 + EXACT_TOL
             and r["Wv"] <= 6 + EXACT_TOL and r["Wc"] <= 3 + EXACT_TOL for r in rows)
    return Verdict(f"max error {max(r['err'] for r in rows):.4f}, attention off 1/(r+1) by {max(r['att_err'] for r in rows):.4f} "
                   f"(allowed $\\gamma/4$ = {rows[0]['gamma'] / 4})", ok)


def _symmetric(P, results):
    rows = _ex(results)["symmetric"]
    err = max(r["err"] for r in rows)
    widths = all(r["widths"] == [4 * (r["s"] + 1), 2 * (r["s"] + 1)] for r in rows)
    n = sum(r["inputs"] for r in rows)
    return Verdict(f"max error {err:.1e} on {n:,} evaluations; widths $(4(s+1), 2(s+1))$: {widths}",
                   err < EXACT_TOL and widths, where=f"AND, OR, MAJ, PARITY, s = 1 to {P['symmetric_s_max']}")


def _general(P, results):
    rows = _ex(results)["general"]
    err = max(r["err"] for r in rows)
    widths = all(r["widths"] == [4 * r["s"] * 2 ** r["s"], 2 ** (r["s"] + 1)] for r in rows)
    return Verdict(f"max error {err:.1e}; widths $(4s2^s, 2^{{s+1}})$: {widths}", err < EXACT_TOL and widths,
                   where=f"random truth tables, s = 1 to {P['general_s_max']}")


def _floor(P, results):
    b = bounds(results)
    if not b:
        return None
    ok = all(lo > floor_bits(T) for T, (lo, hi) in b.items())          # a censored m* exceeds its bound lo
    return Verdict(", ".join(f"T={T}: {'' if np.isfinite(hi) else '> '}{lo:.0f} vs {floor_bits(T):.1f}"
                             for T, (lo, hi) in b.items()), ok,
                   expected=f"$m^* > \\log_2\\binom{{T}}{{3}}$ at every $T$ (the grid's smallest $m$: {P['and_m'][0]})")


def _margin(value: float, threshold: float, se: float) -> str:
    """The distance of a value from its threshold in units of its standard error over trials."""
    return f"margin {(value - threshold) / se:+.1f} SE" if np.isfinite(se) and se > 0 else "SE 0" if se == 0 else "one trial"


def _fits_train(P, results):
    r = [results["and"][T]["result"] for T in results["and"]]
    acc = np.concatenate([x["final_train_acc"] for x in r])
    loss = np.concatenate([x["min_train_loss"] for x in r])
    frac_acc, frac_loss = float((acc == 1).mean()), float((loss < 1e-4).mean())
    scale = "" if P["and_iters"] >= 1000 else "the paper's 1000 iterations (paper profile): this run trains for fewer"
    se = math.sqrt(0.95 * 0.05 / len(loss))            # binomial SE of a fraction at the threshold (0 or 1 has none)
    return Verdict(f"train accuracy 100% in {frac_acc:.0%}, loss < 1e-4 in {frac_loss:.0%} of {len(acc)} runs "
                   f"({_margin(frac_loss, 0.95, se)})",
                   frac_acc >= 0.95 and frac_loss >= 0.95, paper="100% of runs", scale=scale)


def count_text(k: int, n: int, m) -> str:
    lo, hi = sc.interval(k, n)
    return f"{k}/{n} at m = {m} [{float(lo):.2f}, {float(hi):.2f}]"


def grid_sides(results) -> dict:
    """{T: (side, m, k, n)}: +1 where some m's success count has its 95% interval above 1/2 (the first such m), -1
    where every m's lies below (the largest m), 0 where neither (the m with the largest count, the largest of ties)."""
    out = {}
    for T, v in and_table(results).items():
        k, n = v["success"].sum(1), v["success"].shape[1]
        side = sc.side_of_half(k, np.full(len(k), n))
        i = (int(np.flatnonzero(side == 1)[0]) if (side == 1).any() else len(k) - 1 if (side == -1).all()
             else len(k) - 1 - int(np.argmax(k[::-1])))
        out[T] = (1 if (side == 1).any() else -1 if (side == -1).all() else 0, v["m"][i], int(k[i]), n)
    return out


def _in_grid(P, results):
    """A11a: a critical sample size in the grid at every T, each T decided by its counts' 95% intervals."""
    g = grid_sides(results)
    text = "; ".join(f"T={T}: " + {1: "above 1/2", -1: "every m below 1/2", 0: "undecided"}[s] + f", {count_text(k, n, m)}"
                     for T, (s, m, k, n) in g.items())
    where = f"m from {P['and_m'][0]} to {P['and_m'][-1]}"
    if any(s == -1 for s, *_ in g.values()) or all(s == 1 for s, *_ in g.values()):
        return Verdict(text, all(s == 1 for s, *_ in g.values()), where=where)
    undecided = [T for T, (s, *_) in g.items() if s == 0]
    return Verdict(text, False, where=where,
                   censored=f"T = {undecided} (the best count's {sc.CONFIDENCE:.0%} interval contains 1/2)")


def scale_note(P):
    return "" if min(P["and_T"]) >= 100 and max(P["and_T"]) >= 4 * min(P["and_T"]) else PAPER_T


def _exponent(P, results):
    f = fits(results)
    if not f:
        return None
    cen = f"T = {f['censored']} (no $m^*$ up to m = {P['and_m'][-1]})" if f["censored"] else ""
    margin = (0.5 - f["exponent"]) / f["exp_se"] if f["exp_se"] > 0 else math.inf
    text = (f"exponent {f['exponent']:.3f}" + (" (censored T at their bound: a lower bound)" if cen else "")
            + f", bootstrap SE {f['exp_se']:.3f}: margin to 0.5 {margin:+.1f} SE; censoring-aware range "
            f"[{f['exp_min']:.2f}, {f['exp_max']:.2f}]; $m^*({f['T'][1]}) / m^*({f['T'][0]})$ = {f['ratio']:.2f} "
            f"(linear: {f['T'][1] / f['T'][0]:.1f})")
    if cen and f["exp_min"] < 0.5 - 1e-9 <= f["exp_max"]:
        return Verdict(text, False, censored=cen, scale=scale_note(P))
    return Verdict(text, f["exp_max"] < 0.5 - 1e-9, scale=scale_note(P))     # 0.5 itself is not below 0.5


def laws_text(cmp: dict, T) -> str:
    """The likelihood comparison as the page writes it: each law's log-likelihood and relative likelihood, the
    ratio of the log law's likelihood to the best other's, and the log law's m* at the grid's ends."""
    f = cmp["fits"]
    m = sc.mstar_of(f["log"], [T[0], T[-1]])
    return (", ".join(f"{law} {v['loglik']:.2f} ({cmp['weights'][law]:.2f})" for law, v in f.items())
            + f"; likelihood ratio log / best other {cmp['ratio']:.2f} ($\\ln$ {cmp['log_ratio']:+.2f}, decides beyond "
            f"$\\pm\\ln {sc.DECIDES:.0f}$ = ±{math.log(sc.DECIDES):.2f}); log law: $m^*$ = {m[0]:.0f} at T = {T[0]}, "
            f"{m[1]:.0f} at T = {T[-1]}")


def _laws(P, results):
    """A11c: one likelihood comparison of the three laws of m*(T) over every (T, m) cell (scaling.compare_laws)."""
    t = and_table(results)
    if len(t) < 3:
        return None
    cmp = sc.compare_laws(sc.cells(t))
    text = "log-likelihood (relative likelihood): " + laws_text(cmp, list(t))
    if not cmp["decided"]:
        return Verdict(text, False, scale=scale_note(P),
                       censored=f"undecided: the laws' likelihoods lie within a factor {sc.DECIDES:.0f} on this grid")
    return Verdict(text, cmp["decided"] == "log", scale=scale_note(P))


def _anchor(P, results):
    """A12: the two cells of Fig. 2 right, each decided by its 95% interval against 1/2."""
    if ANCHOR_T not in results.get("and", {}) or not {100, 200} <= set(P["and_m"]):
        return None
    t = and_table(results)[ANCHOR_T]
    cell = {m: (int(s.sum()), len(s)) for m, s in zip(t["m"], t["success"])}
    (k1, n1), (k2, n2) = cell[100], cell[200]
    s1, s2 = sc.side_of_half([k1, k2], [n1, n2])
    text = f"{count_text(k1, n1, 100)}, {count_text(k2, n2, 200)}"
    if s1 == 1 or s2 == -1 or (s1 == -1 and s2 == 1):
        return Verdict(text, bool(s1 == -1 and s2 == 1))
    return Verdict(text, False, censored=f"the {sc.CONFIDENCE:.0%} interval at m = "
                   + " and ".join(str(m) for m, s in ((100, s1), (200, s2)) if s == 0) + " contains 1/2")


def _rises(P, results):
    t = and_table(results)
    rise = {T: float(v["success"].mean(1)[-1] - v["success"].mean(1)[0]) for T, v in t.items()}
    return Verdict(", ".join(f"T={T}: +{r:.2f}" for T, r in rise.items()), all(r >= 0.5 for r in rise.values()))


def _shift(P, results):
    """A13b: the success curves move right with T: the likelihood-ratio test of the log law's T term against one
    curve for every T (scaling.shift_test), one-sided at SHIFT_LEVEL; either direction decided, or neither."""
    t = and_table(results)
    if len(t) < 2:
        return None
    st = sc.shift_test(sc.cells(t))
    z, crit = math.copysign(math.sqrt(st["stat"]), st["b"]), float(norm.isf(sc.SHIFT_LEVEL))
    m = sc.mstar_of(st["fit"], [list(t)[0], list(t)[-1]])
    text = (f"log law: $m^*$ {m[0]:.0f} at T = {list(t)[0]} → {m[1]:.0f} at T = {list(t)[-1]} (b = {st['b']:.1f}); "
            f"against one curve for every T: $\\chi^2_1$ = {st['stat']:.1f}, one-sided p = {st['p']:.1e} "
            f"(signed z {z:+.1f}, margin {z - crit:+.1f} SE to {crit:.2f})")
    if st["side"] == 0:
        return Verdict(text, False, censored=f"the grid cannot tell a shift from none (p ≥ {sc.SHIFT_LEVEL})")
    return Verdict(text, st["side"] == 1)


def _attention(P, results):
    """A16: per T, the successes' [CLS] attention mass on I summed over the H heads (the stored mean over heads
    times H), with the margin to its threshold in SE over trials. The points store no per-head mass, so the largest
    head's share, which Prop. 4.7's one head needs, is shown as the interval the sum allows: at least the mean over
    heads and at most min(1, sum)."""
    att = attention_on_planted(results)
    if not att:
        return None
    H = P["heads"]
    top = np.mean([x for _, _, hits in att.values() for x in hits])
    need = {T: max(ATTENTION_MIN, H * 3 / (T + 1)) for T in att}
    ok = all(H * v >= ATTENTION_MIN and v > 3 / (T + 1) for T, (v, _, _) in att.items()) and top >= TOP3_MIN
    return Verdict(", ".join(f"T={T}: {H * v:.2f} ({_margin(H * v, need[T], H * se)}; uniform {H * 3 / (T + 1):.2f}; "
                             f"one head's share in [{v:.2f}, {min(1.0, H * v):.2f}])" for T, (v, se, _) in att.items())
                   + f"; top 3 = planted in {top:.0%}", ok)


def _parity(P, results):
    if not results.get("parity"):
        return None
    small = {T: np.mean(np.array(r["result"]["test_acc"]) >= 0.99) for T, r in results["parity"].items() if T <= 50}
    if not small:
        return None
    return Verdict(", ".join(f"T={T}: {f:.0%}" for T, f in small.items()), all(f >= 0.5 for f in small.values()))


def _parity_later(P, results):
    """Median transition per T <= 50, a seed that never reached 0.99 entering as +inf (its transition is later than
    the run): the median is then known exactly while fewer than half the seeds are censored, else only as "> iters"."""
    med = {T: float(np.median(np.nan_to_num(transition(r["result"]), nan=math.inf)))
           for T, r in sorted(results.get("parity", {}).items()) if T <= 50}
    if len(med) < 2:
        return None
    v = list(med.values())
    text = ", ".join(f"T={T}: {m:.0f}" if np.isfinite(m) else f"T={T}: > {P.get('parity_iters', 'the run')}"
                     for T, m in med.items())
    pairs = list(zip(v, v[1:]))
    if any(np.isfinite(a) and b < a for a, b in pairs if np.isfinite(b)) or any(not np.isfinite(a) and np.isfinite(b)
                                                                                 for a, b in pairs):
        return Verdict(text, False)
    if any(not np.isfinite(a) and not np.isfinite(b) for a, b in pairs):
        return Verdict(text, False, censored="the median seed never reached 0.99 at two consecutive T")
    return Verdict(text, True)


def _parity_large(P, results):
    large = {T: np.mean(np.array(r["result"]["test_acc"]) >= 0.99) for T, r in results.get("parity", {}).items() if T > 50}
    if not large:
        return None
    return Verdict(", ".join(f"T={T}: {f:.0%} learned" for T, f in large.items()), all(f == 0 for f in large.values()))


ROWS = [
    Row("A1", "check", "Cor. A.7",
        r"softmax is 2-Lipschitz from $\ell_\infty$ to $\ell_1$, and $\lVert J\rVert _{1,1} = 2\sum_i p_i(1-p_i) < 2$",
        r"ratio $\le 2$; formula exact; $2(1-1/T)$ at uniform $p$", _lipschitz),
    Row("A2", "check", "Lemma B.7", "truncating the small scores moves softmax by at most $2(T-s)/(s e^R)$ in $\\ell_1$",
        "measured / bound $\\le 1$", _truncation),
    Row("A3", "check", "Lemma B.2", "one head approximates $1 - 2r/s$ uniformly, with the lemma's weights",
        r"error $\le \gamma/4 = 0.25$; $\lVert W_Q\rVert_F = \log 8T$, $\lVert W_K\rVert_F = \sqrt s$, "
        r"$\lVert W_V\rVert_F = \sqrt 2$, "
        r"$\lVert W_C\rVert _F = 1$", _b2),
    Row("A4a", "check", "Lemma B.2", "the lemma's query scale suffices", r"$R_{\min} \le \log(8T/\gamma)$", _minR_bound),
    Row("A4b", "check", "Lemma B.2, Prop. 4.7 (query norm $O(\\log T)$)",
        "the least sufficient query scale of the construction grows like $\\ln T$ (a property of the construction)",
        r"slope of $R_{\min}$ on $\ln T$ in $[0.9, 1.1]$, $R^2 > 0.99$", _minR_slope),
    Row("A5", "check", "Lemma B.3", "trainable positions: exact scores $R$ on $\\mathcal I$",
        r"error $\le 2T/e^R$; $\lVert P^\top\rVert _{2,1} = s$, $\lVert W_K\rVert _F = 1$", _b3),
    Row("A6", "check", "Lemma B.4",
        "bag of vectors: the head approximates $(r-s)/(r+1)$, attention $1/(r+1)$ on [CLS] and the active bits",
        r"errors $\le \gamma/4$; $\lVert W_K\rVert_F \le s+1$, $\lVert W_V\rVert_F \le 2s$, $\lVert W_C\rVert_F \le s$",
        _b4),
    Row("A7", "check", "Lemma B.5 (with B.8)", "one head and a 3-layer ReLU MLP compute symmetric sparse functions exactly",
        "error $< 10^{-9}$ on every input", _symmetric),
    Row("A8", "check", "Lemma B.6 (with B.8)", "$s$ heads and a ReLU MLP compute any $s$-sparse function exactly",
        "error $< 10^{-9}$ on every input", _general),
    Row("A9", "check", "Sec. 5, information-theoretic bound",
        "the critical sample size exceeds the bits needed to name $\\mathcal I$ (on the paper's grid its smallest $m$, "
        "50, already exceeds $\\log_2\\binom{800}{3}$ = 26.3: a check of the grid, not a test of the theory)",
        r"$m^* > \log_2\binom{T}{3}$ at every $T$", _floor),
    Row("A10", "claim", "App. C.1 (\"in 100% of runs\")", "training always fits: failures are overfitting",
        "train accuracy 100% and loss $< 10^{-4}$ in $\\ge 95\\%$ of runs (this book's calibration of the paper's 100%)",
        _fits_train),
    Row("A11a", "claim", "Fig. 4 right", "a critical sample size exists in the grid at every $T$",
        f"at every $T$ some $m$'s success count has its {sc.CONFIDENCE:.0%} interval (Clopper-Pearson) above 1/2; FAIL "
        "where every $m$'s lies below; censored where the best count's contains 1/2", _in_grid),
    Row("A11b", "claim", "Fig. 2 and 4 (sublinear scaling)", "$m^*$ grows sublinearly in $T$",
        "power-law exponent of $m^*$ in $T$ below 0.5 (this book's calibration: the paper states $\\log T$) for every "
        "$m^*$ its censoring allows", _exponent),
    Row("A11c", "claim", "Sec. 5 ($\\log T$ capacity)",
        "$m^*(T) = a + b\\ln T$ (success a logistic function of $m - m^*(T)$ over every $(T, m)$ cell) is more likely "
        "than $a + b\\sqrt T$ and $a + bT$",
        f"likelihood ratio of the log law to the best other $\\ge {sc.DECIDES:.0f}$ (Royall's fairly strong evidence); "
        f"FAIL at $\\le 1/{sc.DECIDES:.0f}$; censored between (the grid cannot tell the laws apart)", _laws),
    Row("A12", "claim", "Fig. 2 right", "at $T = 400$, $m = 100$ overfits and $m = 200$ generalises",
        f"success count's {sc.CONFIDENCE:.0%} interval below 1/2 at $m=100$ and above at $m=200$ (the paper's Fig. 2); "
        "FAIL where either lies on the other side; censored where an interval contains 1/2", _anchor),
    Row("A13a", "claim", "Fig. 4 left", "the success fraction rises with $m$",
        "rise from the smallest to the largest $m$ $\\ge 0.5$ at every $T$ (this book's calibration)", _rises),
    Row("A13b", "claim", "Fig. 4 left", "the success curves shift right as $T$ grows (a shift only: every increasing law "
        "of $m^*$ shifts them; A11c asks which law)",
        f"the log law's $T$ term against one curve for every $T$: likelihood-ratio test one-sided at {sc.SHIFT_LEVEL} "
        "with $b > 0$ (this book's calibration); FAIL with $b < 0$; censored where neither is significant", _shift),
    Row("A14a", "claim", "Fig. 3", "sparse parities are learnable",
        "$\\ge 50\\%$ of seeds reach test accuracy 0.99 at every $T \\le 50$ (this book's calibration)", _parity),
    Row("A14b", "claim", "hypothesis (this book): App. C.2 presents no trend for parities, only that they can be fit",
        "the transition comes later for larger $T$",
        "median transition iteration non-decreasing in $T$ (a seed that never reaches 0.99 enters as later than the run)",
        _parity_later),
    Row("A15", "claim", "App. C.2 (weak negative)", "no parity is learnt beyond $T = 50$", "no seed reaches 0.99 at $T > 50$",
        _parity_large),
    Row("A16", "claim", "hypothesis of this book (Prop. 4.7's variable creation)",
        "successful runs attend from [CLS] to the planted bits (summed over the heads: Prop. 4.7 needs one head, and "
        "the mean over heads dilutes it)",
        f"[CLS] attention mass on $\\mathcal I$ summed over the heads $\\ge {ATTENTION_MIN}$ and above the heads' "
        f"uniform share $3H/(T+1)$; top 3 positions $= \\mathcal I$ in $\\ge {TOP3_MIN:.0%}$ (T $\\ge$ 11; this "
        "book's calibration)", _attention),
]


def claims(P: dict, results: dict) -> list[dict]:
    return evaluate(ROWS, P, results)
