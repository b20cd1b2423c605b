"""The RPEs of Wang & E (2024) and the exact checks 1-6 (Table 1 of App. F.1, Thm 4.1, Prop. B.1, Prop. 5.2(B)): the
T5 bucket function of Table 1, the lin and log biases p * phi(s), softmax heads and the folding identity that turns
them into the kernels sum_h alpha_h e^{-p_h s} and sum_h alpha_h s^{-p_h}, Thm 4.1's head allocation and the crossover of its
bound factors, Prop. B.1's rounding inequalities and the LP of Prop. 5.2(B). compute.py's exact point (`ExactPoint`, `run_exact`)
runs `checks`; the claim rows 1-6 that judge them are in claims/exact.py.

    >>> checks(seed=0, fold_S=4096)["t5"] == TABLE1     # T5's buckets as the paper's Table 1 lists them
    True
"""
from __future__ import annotations

import math

import numpy as np

from lib.science.seeds import seed_of

TABLE1 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 10, 10, 10,
          11, 11, 11, 11, 11, 11, 11, 11]   # Table 1 of the paper: -r(t - s) for t - s = 0..30


# -------------------------------------------------------------------------------------------- the RPEs
def t5_bucket(n, B: int = 8, D: int = 128):
    """-r(n) of App. F.1: n below B, then B + floor(B log(n/B) / log(D/B)) up to D, then 2B - 1."""
    n = np.asarray(n, dtype=np.int64)
    with np.errstate(divide="ignore"):
        mid = B + np.floor(B * np.log(np.maximum(n, 1) / B) / np.log(D / B)).astype(np.int64)
    return np.where(n < B, n, np.where(n < D, np.minimum(mid, 2 * B - 1), 2 * B - 1))


def rpe_bias(kind: str, S: int, p) -> np.ndarray:
    """(H, S) bias p_h phi(s) of eq. (4) on distances s = 0..S-1: lin -p s; log -p log s, and -inf at s = 0."""
    p = np.atleast_1d(np.asarray(p, float))[:, None]
    s = np.arange(S, dtype=float)[None, :]
    if kind == "lin":
        return -p * s
    if kind == "log":
        with np.errstate(divide="ignore"):
            return np.where(s >= 1, -p * np.log(np.maximum(s, 1.0)), -np.inf)
    raise ValueError(f"unknown RPE kind {kind!r}; expected lin or log")


def head_weights(kind: str, S: int, p) -> np.ndarray:
    """(H, S) attention weights of DP-free heads on a full window: the softmax over s of p_h phi(s)."""
    b = rpe_bias(kind, S, p)
    e = np.exp(b - b.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def folded_value(kind: str, S: int, p, alpha) -> np.ndarray:
    """W_V of the folding identity: alpha_h times the head's normaliser sum_{j<S} e^{-p j} (lin) or
    sum_{1<=j<S} j^{-p} (log); with it a softmax head computes the kernel alpha_h e^{-p_h s} (or alpha_h s^{-p_h})."""
    b = rpe_bias(kind, S, p)
    return np.asarray(alpha, float) * np.exp(b).sum(1)


def fitted_kernel(family: str, p, alpha, s) -> np.ndarray:
    p, s = np.asarray(p, float), np.asarray(s, float)
    E = np.exp(-np.outer(s, p)) if family == "lin" else np.exp(-np.outer(np.log(s), p))
    return E @ np.asarray(alpha, float)


# --------------------------------------------------------------------------------------- exact checks
def crossover_roots() -> tuple[float, float]:
    """The two solutions of e^{0.01 T} = T^{1.01} (T > 1): where the bound factors of Thm 4.1 cross."""
    from scipy.optimize import brentq

    f = lambda T: 0.01 * T - 1.01 * math.log(T)
    return brentq(f, 1.0 + 1e-12, 10.0), brentq(f, 10.0, 5000.0)


def allocation_check(a: np.ndarray, n: int, H: float) -> tuple[float, float]:
    """(numerical min, closed form) of sum_k a_k^{n+1} H_k^{-n} subject to sum H_k = H, H_k > 0.
    Thm 4.1's proof: the optimum is at H_k proportional to a_k, with value (sum a_k)^{n+1} H^{-n}."""
    from scipy.optimize import minimize

    a = np.asarray(a, float)
    M = len(a)
    # Optimise over the simplex by a softmax parametrisation, in log scale so that the tiny optimum is resolved.
    f = lambda z: math.log(np.sum(a ** (n + 1) * (H * np.exp(z - z.max()) / np.exp(z - z.max()).sum()) ** (-n)))
    res = minimize(f, np.zeros(M), method="BFGS", options={"gtol": 1e-12, "maxiter": 10000})
    res = minimize(f, res.x, method="Nelder-Mead", options={"xatol": 1e-12, "fatol": 1e-15, "maxiter": 20000})
    return float(math.exp(res.fun)), float(a.sum() ** (n + 1) * H ** (-n))


def prop_b1(z: np.ndarray) -> tuple[float, float]:
    """Prop. B.1 on a grid: max of |log[e^z] - z| * 2 min(e^z, [e^z]) and max of |[z] - z| (both <= 1 / ... )."""
    ez = np.exp(z)
    r = np.round(ez)
    return float(np.max(np.abs(np.log(r) - z) * 2 * np.minimum(ez, r))), float(np.max(np.abs(np.round(z) - z)))


def prop52_lp() -> dict:
    """Prop. 5.2(B): the minimax error of every affine predictor a0 x0 + a1 x_-1 + a2 x_-2 + b of the toy target
    y = x_{-g(x0)}, g(-1) = 0, g(0) = 1, g(1) = 2, over the 27 configurations in {-1, 0, 1}^3 (an LP), and the
    sup error of the l2-optimal affine predictor."""
    from scipy.optimize import linprog

    X = np.array([(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)], float)
    y = np.array([x[{-1: 0, 0: 1, 1: 2}[int(x[0])]] for x in X])
    F = np.hstack([X, np.ones((27, 1))])
    # variables (a0, a1, a2, b, t): minimise t subject to |F v - y| <= t
    A = np.vstack([np.hstack([F, -np.ones((27, 1))]), np.hstack([-F, -np.ones((27, 1))])])
    lp = linprog(np.r_[np.zeros(4), 1.0], A_ub=A, b_ub=np.r_[y, -y], bounds=[(None, None)] * 5, method="highs")
    v2 = np.linalg.lstsq(F, y, rcond=None)[0]
    return {"lp_opt": float(lp.fun), "lp_v": lp.x[:4], "l2_v": v2, "l2_sup": float(np.max(np.abs(F @ v2 - y))),
            "zero_sup": float(np.max(np.abs(y)))}


def folding_error(kind: str, S: int, p, alpha, seed: int = 0) -> float:
    """Max |softmax-head output - folded kernel output| / max |output| on random inputs over a full window:
    H softmax heads with W_V = folded_value(...) against sum_h alpha_h e^{-p_h s} (or s^{-p_h}) applied directly."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (64, S))                         # 64 windows, x[:, s] = x_{t-s}
    a = head_weights(kind, S, p)                            # (H, S)
    heads = x @ (a.T * folded_value(kind, S, p, alpha)).sum(1)
    s = np.arange(S, dtype=float)
    kern = fitted_kernel("lin", p, alpha, s) if kind == "lin" else np.r_[0.0, fitted_kernel("log", p, alpha, s[1:])]
    direct = x @ kern
    return float(np.max(np.abs(heads - direct)) / np.max(np.abs(direct)))


def checks(seed: int, fold_S: int) -> dict:
    """Every exact check: the T5 table and its saturation, 6 random head allocations (12 cases), Prop. B.1 on
    200,001 points, the folding identity on a window of fold_S taps, the crossover, and the LP."""
    rng = np.random.default_rng(seed_of(seed, "exact"))
    n = np.arange(0, 31)
    alloc = []
    for _ in range(6):                   # random memories T_k and rates n, both bound factors of Thm 4.1
        M, nn, H = int(rng.integers(2, 6)), int(rng.integers(1, 5)), float(rng.integers(8, 65))
        T = np.sort(rng.integers(1, 400, M)).astype(float)
        for name, a in (("lin", np.exp(0.01 * T)), ("log", T ** 1.01)):
            num, closed = allocation_check(a, nn, H)
            alloc.append({"rpe": name, "T": T, "n": nn, "H": H, "numeric": num, "closed": closed,
                          "rel": abs(num - closed) / closed})
    z = np.linspace(1.0, 12.0, 200001)
    b1_log, b1_lin = prop_b1(z)
    fold = {"lin": folding_error("lin", fold_S, [0.003, 0.05, 0.7], [1.0, -2.0, 0.5], seed_of(seed, "fold")),
            "log": folding_error("log", fold_S, [1.1, 1.7, 3.0], [1.0, -2.0, 0.5], seed_of(seed, "fold"))}
    lo, hi = crossover_roots()
    Ts = np.arange(2, 2001)
    lin_smaller = np.exp(0.01 * Ts) < Ts ** 1.01
    return {"t5": t5_bucket(n).tolist(), "t5_saturation": int(np.argmax(t5_bucket(np.arange(0, 400)) == 15)),
            "allocation": alloc, "crossover": [lo, hi],
            "lin_smaller_T": [int(Ts[lin_smaller].min()), int(Ts[lin_smaller].max())],
            "b1_log_ratio": b1_log, "b1_lin": b1_lin, "lp": prop52_lp(), "folding": fold}
