"""What the planted-AND success tables can decide: the count intervals, the logistic laws of m*(T) and their
likelihoods. Page-side: no computation imports this module.

Every (T, m) cell holds k successes in n trials. A law of the critical sample size m*(T) = a + b g(T) makes the
success probability a logistic function of m - m*(T): logit p = (m - a - b g(T)) / s, a logistic regression of the
cells on (1, m, g(T)). Three laws, each with three parameters, so that their likelihoods compare directly:

- log: g = ln T (the paper's log T capacity, Sec. 5);
- power: g = T^(1/2) (the largest exponent A11b's calibration calls sublinear);
- linear: g = T.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> from lib.chapters.sparse_variable_creation.read import and_table
    >>> laws = compare_laws(cells(and_table(results))); round(laws["ratio"], 2), laws["decided"]   # "": undecided
    (0.72, '')
"""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import chi2

from lib.core.interval_rules import clopper_pearson

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
