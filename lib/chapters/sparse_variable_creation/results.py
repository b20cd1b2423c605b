"""The sparse_variable_creation points read into the numbers that the claims and figures use. Page-side: no
computation imports this module.

- The readers: the success table, the critical sample size m* with its bootstrap and its censoring (a T without m* in
  the grid is a bound, never dropped), the weight norms, the parity transitions and the least query scale.
- What the success tables can decide: the count intervals, the logistic laws of m*(T) and their likelihoods. Every
  (T, m) cell holds k successes in n trials. A law m*(T) = a + b g(T) makes the success probability a logistic
  function of m - m*(T): logit p = (m - a - b g(T)) / s, a logistic regression of the cells on (1, m, g(T)). Three
  laws, each with three parameters, so that their likelihoods compare directly: log, g = ln T (the paper's log T
  capacity, Sec. 5); power, g = T^(1/2); linear, g = T. The exponent of m* in T (`exponent_fit`) is read the same
  way, from every cell, with the success a logistic function of ln m - ln m*(T), which fits the stored cells better
  than one in m (the curves flatten as m* grows).
- The page's tables of the stored numbers: the exact construction's errors and norms (`b2_table`), the planted
  AND by T (`and_summary`) and the weight norms (`norm_summary`).

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> bounds(results)  # {T: (lo, hi)}: m* where the grid decides it, else a bound (lo = 0 or hi = inf)
    {100: (100.0, 100.0), 200: (125.0, 125.0), 400: (175.0, 175.0)}
    >>> laws = compare_laws(cells(and_table(results))); round(laws["ratio"], 2), laws["decided"]   # "": undecided
    (1.27, '')
"""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import chi2

from lib.core.interval_rules import clopper_pearson
from lib.core.tables import markdown_table
from lib.science.stats import loglog_slope

EXACT_TOL = 1e-9
ANCHOR_T = 400           # Fig. 2 right: the T at which the paper shows m = 100 overfitting and m = 200 generalising
BOOTSTRAPS = 50          # the paper's bootstrap samples for the critical sample size
PAPER_T = "the paper's T from 100 to 800 (paper profile): at small T the constants, not the growth, set the critical sample size"
# The paper's own grid and settings (App. C.1, C.2), against which a profile's omissions are listed.
PAPER = {"and_T": [100, 150, 200, 250, 300, 350, 400, 500, 600, 700, 800], "and_m": list(range(50, 201, 10)),
         "and_trials": 50, "and_iters": 1000, "eval_every": 10, "n_val": 10000, "d_model": 64, "heads": 16,
         "dropout": 0.1, "embd_dropout": True, "lr": 1e-3, "weight_decay": 1e-4, "parity_T": [10, 15, 20],
         "parity_trials": 10, "parity_iters": 10000, "parity_batch": 2048}
NORMS = ("capacity", "qk_norm", "v_norm", "pos_norm")


def and_table(results: dict) -> dict:
    """{T: {"m": sorted ms, "success": (n_m, trials) bool array}} from the stored points."""
    out = {}
    for T, rec in sorted(results.get("and", {}).items()):
        r = rec["result"]
        m, s = np.array(r["m"]), np.array(r["success"], bool)
        ms = sorted(set(m.tolist()))
        out[T] = {"m": ms, "success": np.stack([s[m == v] for v in ms])}
    return out


def critical_m(ms, success: np.ndarray) -> float:
    """The smallest m whose success fraction exceeds 1/2 (NaN if none)."""
    frac = success.mean(1)
    above = np.flatnonzero(frac > 0.5)
    return float(ms[above[0]]) if len(above) else float("nan")


def critical_with_se(ms, success: np.ndarray, seed: int = 0) -> tuple[float, float]:
    """m* and its bootstrap standard error (trials resampled within every m, BOOTSTRAPS times)."""
    rng = np.random.default_rng(seed)
    n = success.shape[1]
    boots = [critical_m(ms, np.take_along_axis(success, rng.integers(0, n, success.shape), 1)) for _ in range(BOOTSTRAPS)]
    boots = np.array(boots)
    return critical_m(ms, success), float(np.nanstd(boots, ddof=1)) if np.isfinite(boots).sum() > 1 else float("nan")


def criticals(results: dict) -> dict:
    return {T: critical_with_se(np.array(t["m"]), t["success"], seed=T) for T, t in and_table(results).items()}


def bounds(results: dict) -> dict:
    """{T: (lo, hi)}: m* where the grid decides it (lo = hi); else a bound, never a value: above the largest m (lo =
    the largest m, hi = inf) where no m succeeds in most trials, or at most the smallest m (lo = 0, hi = the smallest
    m) where that m already does."""
    out = {}
    for T, t in and_table(results).items():
        m = critical_m(np.array(t["m"]), t["success"])
        out[T] = ((float(t["m"][-1]), math.inf) if not np.isfinite(m) else (0.0, m) if m == t["m"][0] else (m, m))
    return out


def mstar_text(b: dict) -> str:
    """The bounds of m* (`bounds`) as the page writes them: "≤ 50, 100, > 200"."""
    return ", ".join(f"> {lo:.0f}" if not np.isfinite(hi) else f"≤ {hi:.0f}" if lo == 0 else f"{lo:.0f}"
                     for lo, hi in b.values())


def attention_on_planted(results: dict, min_T: int = 11) -> dict:
    """{T: (mean, SE, top3)} over the successful trials at every T >= min_T with one: the [CLS] attention mass on the
    planted bits (averaged over heads and samples by run_and), its standard error over trials (NaN for one trial),
    and per success whether the three positions weighed most are the planted ones."""
    out = {}
    for T, rec in sorted(results.get("and", {}).items()):
        r = rec["result"]
        s = np.array(r["success"], bool)
        if T >= min_T and s.any():
            a = np.array(r["planted_attention"])[s]
            se = float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else float("nan")
            out[T] = (float(a.mean()), se, np.array(r["top3_is_planted"], bool)[s].tolist())
    return out


def floor_bits(T: int) -> float:
    return math.log2(math.comb(T, 3))


def norm_table(results: dict) -> dict:
    """{T: {norm: (successes' median, failures' median)}} of the trained weights' norms (compute.weight_norms), and
    per norm the log-log slope in T of the successes' median, with T and its medians under "slope"."""
    out = {}
    for T, rec in sorted(results.get("and", {}).items()):
        r = rec["result"]
        if "capacity" not in r:
            return {}
        s = np.array(r["success"], bool)
        med = lambda v: float(np.median(v)) if len(v) else float("nan")
        out[T] = {k: (med(np.array(r[k])[s]), med(np.array(r[k])[~s])) for k in NORMS}
    T = np.array(list(out), float)
    return out | {"slope": {k: loglog_slope(T, [out[int(t)][k][0] for t in T]) for k in NORMS}} if out else {}


def transition(r: dict) -> list[float]:
    """Per seed: the first logged iteration at which the online batch accuracy reaches 0.99 (NaN: never)."""
    out = []
    for acc in r["acc"]:
        hit = np.flatnonzero(np.array(acc) >= 0.99)
        out.append(float(r["iters_logged"][hit[0]]) if len(hit) else float("nan"))
    return out


def minimal_R_fit(results: dict) -> dict:
    rows = results["exact"]["result"]["minimal_R"]
    x, y = np.log([r["T"] for r in rows]), np.array([r["R_min"] for r in rows])
    coef = np.polyfit(x, y, 1)
    r2 = 1 - np.sum((np.polyval(coef, x) - y) ** 2) / np.sum((y - y.mean()) ** 2)
    return {"slope": float(coef[0]), "intercept": float(coef[1]), "r2": float(r2)}


# The logistic laws of m*(T) and what a cell's count decides (the second half of the docstring)
LAWS = {"log": np.log, "power": np.sqrt, "linear": lambda T: np.asarray(T, float)}
LAW_TEXT = {"log": "$a + b\\,\\ln T$", "power": "$a + b\\sqrt{T}$", "linear": "$a + bT$"}
DECIDES = 8.0         # a likelihood ratio of 8 decides between laws (Royall's "fairly strong" evidence); between 1/8
                      # and 8 the grid cannot tell the laws apart
SHIFT_LEVEL = 0.05    # one-sided level of the likelihood-ratio test of a shift of m* with T
CONFIDENCE = 0.95     # Clopper-Pearson intervals of a cell's success probability
RIDGE = 1e-3          # on the standardised slopes: keeps a perfectly separated table (every cell 0 or 1) finite


def cells(table: dict) -> dict:
    """The and_table ({T: {"m", "success" (n_m, trials)}}) as flat cell arrays T, m, k (successes), n (trials)."""
    T, m, k, n = [], [], [], []
    for t, v in table.items():
        for mi, s in zip(v["m"], v["success"]):
            T.append(t), m.append(mi), k.append(int(np.sum(s))), n.append(len(s))
    return {"T": np.array(T, float), "m": np.array(m, float), "k": np.array(k, float), "n": np.array(n, float)}


def interval(k, n, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson interval of a success probability seen k times in n trials (elementwise), at this chapter's
    confidence: the rules' own (lib.core.interval_rules.clopper_pearson), so that a count and its rule read one interval."""
    return clopper_pearson(k, n, confidence)


def side_of_half(k, n) -> np.ndarray:
    """Per cell: +1 where the 95% interval lies above 1/2, -1 where below, 0 where it contains 1/2 (undecided)."""
    lo, hi = interval(k, n)
    return np.where(lo > 0.5, 1, np.where(hi < 0.5, -1, 0))


def _loglik(eta, k, n) -> float:
    # k log p + (n - k) log(1 - p) with p = sigmoid(eta), stable for large |eta|
    return float(np.sum(k * -np.logaddexp(0, -eta) + (n - k) * -np.logaddexp(0, eta)))


def logistic(X: np.ndarray, k: np.ndarray, n: np.ndarray, iters: int = 200) -> tuple[np.ndarray, float]:
    """Binomial logistic regression of k of n on the columns of X (the first a constant), by Newton's method with
    step halving and a RIDGE on the standardised slopes; (coefficients in X's units, log-likelihood)."""
    mu, sd = X[:, 1:].mean(0), X[:, 1:].std(0)
    sd = np.where(sd > 0, sd, 1.0)
    Z = np.column_stack([np.ones(len(X)), (X[:, 1:] - mu) / sd])
    pen = np.r_[0.0, np.full(Z.shape[1] - 1, RIDGE)]
    obj = lambda b: _loglik(Z @ b, k, n) - 0.5 * float(np.sum(pen * b * b))
    b = np.zeros(Z.shape[1])
    cur = obj(b)
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(Z @ b)))
        grad = Z.T @ (k - n * p) - pen * b
        H = (Z * (n * p * (1 - p))[:, None]).T @ Z + np.diag(pen) + 1e-12 * np.eye(len(b))
        step = np.linalg.solve(H, grad)
        t = 1.0
        while t > 1e-8 and obj(b + t * step) < cur - 1e-12:
            t /= 2
        b, new = b + t * step, obj(b + t * step)
        if abs(new - cur) < 1e-10:
            cur = new
            break
        cur = new
    slopes = b[1:] / sd
    coef = np.r_[b[0] - float(np.sum(slopes * mu)), slopes]
    return coef, _loglik(Z @ b, k, n)


def fit_law(c: dict, law: str) -> dict:
    """One law fitted to every cell: m*(T) = a + b g(T) and the logistic scale s (logit p = (m - m*(T)) / s), with
    the log-likelihood. A fit whose success falls with m (s < 0) has no critical size: a and b are then NaN."""
    g = LAWS[law](c["T"])
    coef, ll = logistic(np.column_stack([np.ones_like(g), c["m"], g]), c["k"], c["n"])
    b0, b1, b2 = coef
    ok = b1 > 0
    return {"law": law, "loglik": ll, "s": 1 / b1 if ok else math.nan, "a": -b0 / b1 if ok else math.nan,
            "b": -b2 / b1 if ok else math.nan, "coef": coef.tolist()}


def mstar_of(fit: dict, T) -> np.ndarray:
    return fit["a"] + fit["b"] * LAWS[fit["law"]](np.asarray(T, float))


def compare_laws(c: dict) -> dict:
    """The three laws' fits, their relative likelihoods (each law's likelihood over the sum: equal parameter counts,
    so no penalty) and the ratio of the log law's likelihood to the best other's, with the decision: "log" where the
    ratio is at least DECIDES, "other" where at most 1/DECIDES, "" (undecided) between."""
    fits = {law: fit_law(c, law) for law in LAWS}
    ll = np.array([f["loglik"] for f in fits.values()])
    weights = np.exp(ll - ll.max())
    weights /= weights.sum()
    best_other = max(fits["power"]["loglik"], fits["linear"]["loglik"])
    log_ratio = fits["log"]["loglik"] - best_other
    decided = "log" if log_ratio >= math.log(DECIDES) else "other" if log_ratio <= -math.log(DECIDES) else ""
    return {"fits": fits, "weights": dict(zip(fits, weights.tolist())), "log_ratio": log_ratio,
            "ratio": math.exp(log_ratio), "decided": decided}


def shift_test(c: dict) -> dict:
    """Whether m* moves with T: the likelihood-ratio test of the log law against the same logistic with no T term
    (one curve for every T). b > 0 is a shift to the right; p is one-sided, in the direction of the fitted b."""
    full = fit_law(c, "log")
    _, ll0 = logistic(np.column_stack([np.ones_like(c["m"]), c["m"]]), c["k"], c["n"])
    stat = max(0.0, 2 * (full["loglik"] - ll0))
    p = 0.5 * float(chi2.sf(stat, 1))
    b = full["b"]
    side = 0 if not np.isfinite(b) or p >= SHIFT_LEVEL else (1 if b > 0 else -1)
    return {"b": b, "stat": stat, "p": p, "side": side, "fit": full}


def exponent_fit(c: dict) -> dict:
    """The growth of m* as a power of T, read from every cell: m*(T) = c T^alpha with the success a logistic function
    of ln m - ln m*(T) (logit p = (ln m - ln m*(T)) / sigma), a logistic regression of the cells on (1, ln m, ln T).
    alpha = -beta_T / beta_m, its SE by the delta method from the fit's Fisher information. A T whose m* lies beyond
    the grid still informs the fit through its counts. `rise` is beta_m: where it is not positive, success does not
    rise with m, alpha is NaN and the fit has no critical size (`coef` then holds (beta_0, beta_m, beta_T))."""
    X = np.column_stack([np.ones_like(c["m"]), np.log(c["m"]), np.log(c["T"])])
    coef, ll = logistic(X, c["k"], c["n"])
    b0, bm, bT = coef
    if not bm > 0:
        return {"rise": float(bm), "alpha": math.nan, "se": math.nan, "loglik": ll, "coef": coef.tolist()}
    p = 1 / (1 + np.exp(-(X @ coef)))
    cov = np.linalg.pinv((X * (c["n"] * p * (1 - p))[:, None]).T @ X)
    grad = np.array([0.0, bT / bm ** 2, -1 / bm])
    return {"rise": float(bm), "alpha": float(-bT / bm), "se": float(np.sqrt(grad @ cov @ grad)),
            "sigma": float(1 / bm), "ln_c": float(-b0 / bm), "loglik": ll}


def and_summary(results: dict) -> str:
    rows, crit = [], criticals(results)          # the bootstraps once, not once per T
    for T, t in and_table(results).items():
        mstar, se = crit[T]
        r = results["and"][T]["result"]
        pa, s = np.array(r["planted_attention"]), np.array(r["success"], bool)
        rows.append([T, " · ".join(f"{f:.2f}" for f in t["success"].mean(1)),
                     "none" if not np.isfinite(mstar) else f"{mstar:.0f} ± {se:.1f}", f"{floor_bits(T):.1f}",
                     f"{pa[s].mean():.2f}" if s.any() else "–", f"{3 / (T + 1):.2f}"])
    ms = next(iter(and_table(results).values()))["m"]
    return markdown_table(["$T$", f"success fraction at $m$ = {', '.join(map(str, ms))}", "$m^*$ ± bootstrap SE",
                           r"$\log_2\binom{T}{3}$", "[CLS] attention on $\\mathcal I$ (successes)", "uniform $3/(T+1)$"], rows)


def norm_summary(results: dict) -> str:
    nt = norm_table(results)
    if not nt:
        return "These stored points predate the weight norms: recompute with `--force`."
    f = lambda v: "–" if not np.isfinite(v) else f"{v:.3g}"
    rows = [[T, *(f"{f(v[k][0])} / {f(v[k][1])}" for k in NORMS)] for T, v in nt.items() if T != "slope"]
    rows.append(["slope", *(f"{nt['slope'][k]:.2f}" for k in NORMS)])
    return ("Each cell: successes / failures. Capacity: the factor of Cor. 4.4; slope: the successes' log-log slope "
            "in $T$.\n\n"
            + markdown_table(["$T$", "capacity", r"$\max_h B_{QK}^{\infty}$", r"$\max_h \lVert W_V^h\rVert_2$",
                              r"$B_P$"], rows))


def b2_table(results: dict) -> str:
    e = results["exact"]["result"]
    return markdown_table(["$T$", "$s$", "max error (every count pattern)", "max error (2,000 random $b$)",
                           r"$\lVert W_Q\rVert_F$", r"$\log 8T$", r"$\lVert W_K\rVert_F$", r"$\lVert W_V\rVert_F$",
                           r"$\lVert W_C\rVert_F$"],
                          [[r["T"], r["s"], f"{r['err']:.4f}", f"{r['err_random']:.4f}", f"{r['Wq']:.3f}", f"{r['R']:.3f}",
                            f"{r['Wk']:.3f}", f"{r['Wv']:.3f}", f"{r['Wc']:.3f}"] for r in e["b2"]])
