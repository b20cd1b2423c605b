"""Seed 004 (Wang & E): relative positional encodings of T5 type, p * phi(t - s), and the memory kernels they can
build. A dot-product-free attention layer with H heads realises exactly the kernels sum_h alpha_h e^{-p_h s} (lin
RPE, phi = -s) or sum_h alpha_h s^{-p_h} (log RPE, phi = -log s), once each head's softmax normaliser is folded
into its value; so how well H heads approximate a memory kernel rho is a question about sums of exponentials or
powers. Theorems 4.1 and 6.1 of the paper give upper bounds; this module measures the best H-head kernel directly.

Stored points (see `compute`):

- exact: the small exact checks (T5 bucket table, head allocation, bound crossover, Prop. B.1, the LP of
  Prop. 5.2(B), the folding identity).
- fit (one per kernel, RPE family and window S): the best H-head kernel for every H of the grid, by variable
  projection (Gauss-Newton on the rates with Kaufman's Jacobian, least squares for the values) inside l1
  reweighting rounds, from several starts, in float64; l1 and l2 errors on s >= 1 (the residual stream carries
  x_t, so the s = 0 tap is free for both families).
- train (one per training kernel and context length): one-layer DP-free models with lin or log RPE, attention as a
  causal FFT convolution, trained with lib.science.engine on x_t ~ U[-1, 1] and the linear target y = rho * x, for which
  the test MSE is Var(x) ||k - rho||_2^2 exactly.

This module is the computation only (what the stored numbers depend on); the page's readers of the stored points,
claims, tables and figures are in lib/rpe_decay_page.py, which no computation imports.

    >>> import lib.core.params as p; import lib.chapters.rpe_decay.page as page; from lib.core.store import Store
    >>> P = p.resolve("rpe_decay", "quick"); results = compute(P, Store("rpe_decay", "quick"), "cpu"); page.claims(P, results)
"""
from __future__ import annotations

import contextlib
import math
import time

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from lib.science import engine
from lib.science.stats import generator, seed_of
from lib.core.store import Store, environment

FAMILIES = ("lin", "log")
EXACT_MAX = 4096      # windows up to this many taps are summed exactly; longer ones on a geometric grid
N_EXACT, N_GEO = 512, 400
TABLE1 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 10, 10, 10,
          11, 11, 11, 11, 11, 11, 11, 11]   # Table 1 of the paper: -r(t - s) for t - s = 0..30
VAR_X = 1.0 / 3.0     # Var(x) for x ~ U[-1, 1]
FLOOR = 1e-6         # below this the fits are at float64's ill-conditioning floor (guide: ~6e-7)
GROWTH = 1.5         # check 13: an error above GROWTH x the best at smaller H is an optimiser failure
REFIT = 4            # ... and is refitted with REFIT x, then REFIT^2 x the restarts (the guide: "rerun with more restarts")
UNDERFLOW = 230.0     # e^-230 ~ 1e-100: smaller column entries are set to 0 (their squares would be subnormal, ~100x slower)


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


def basis(family: str, theta: np.ndarray, s: np.ndarray):
    """Columns of the folded H-head kernel and their derivatives in theta: lin p = e^theta, column e^{-p s};
    log p = 1 + e^theta (p > 1, the paper's class), column s^{-p}. Returns (E, dE/dtheta), each (len(s), H)."""
    if family == "lin":
        p = np.exp(theta)
        arg = -np.outer(s, p)
        E = np.where(arg > -UNDERFLOW, np.exp(np.maximum(arg, -UNDERFLOW)), 0.0)
        return E, -s[:, None] * p[None, :] * E
    q = np.exp(theta)
    L = np.log(s)
    arg = -np.outer(L, 1.0 + q)
    E = np.where(arg > -UNDERFLOW, np.exp(np.maximum(arg, -UNDERFLOW)), 0.0)
    return E, -L[:, None] * q[None, :] * E


def rates(family: str, theta) -> np.ndarray:
    theta = np.asarray(theta, float)
    return np.exp(theta) if family == "lin" else 1.0 + np.exp(theta)


# ------------------------------------------------------------------------------------------- the kernels
def kernel_name(k: dict) -> str:
    return {"power": lambda: f"power beta={k['beta']:g}", "exp": lambda: f"exp cutoff tau={k['tau']:g}",
            "bump": lambda: f"bump T={k['T']}, w={k['w']:g}", "delta": lambda: f"delta T={k['T']}"}[k["kind"]]()


def kernel_values(k: dict, s: np.ndarray) -> np.ndarray:
    """The memory kernel rho(s), unnormalised (normalise with `grid`'s weights)."""
    s = np.asarray(s, float)
    if k["kind"] == "power":
        return (s + 1.0) ** -k["beta"]
    if k["kind"] == "exp":
        return np.exp(-s / k["tau"]) / (1.0 + s)
    if k["kind"] == "bump":
        return np.exp(-((s - k["T"]) ** 2) / (2.0 * k["w"] ** 2))
    if k["kind"] == "delta":
        return (s == k["T"]).astype(float)
    raise ValueError(f"unknown kernel {k!r}")


def grid(S: float) -> tuple[np.ndarray, np.ndarray]:
    """Distances s >= 1 of a window of S taps (s = 0..S-1) and weights w with sum_s f(s) ~ sum_i w_i f(s_i):
    every integer when S <= EXACT_MAX, else the integers up to N_EXACT and a geometric grid of N_GEO points up to
    S - 1 with trapezoid weights (the sums over 10^12 taps the long windows need)."""
    last = int(S) - 1
    if last <= EXACT_MAX:
        s = np.arange(1, last + 1, dtype=float)
        return s, np.ones_like(s)
    head = np.arange(1, N_EXACT + 1, dtype=float)
    tail = np.geomspace(N_EXACT + 1, last, N_GEO)
    return np.concatenate([head, tail]), np.concatenate([np.ones_like(head), np.gradient(tail)])


def target(k: dict, S: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s, w, rho) with rho normalised to l1 norm 1 on s >= 1 of the window."""
    s, w = grid(S)
    rho = kernel_values(k, s)
    rho = np.where(np.abs(rho) < 1e-200, 0.0, rho)          # no subnormal numbers (they slow the fitter ~100x)
    return s, w, rho / np.sum(w * np.abs(rho))


def window_of(P: dict, k: dict) -> float:
    """Long windows for the decaying kernels, 6 T for the sparse ones (the reading guide's P4), at least 64 taps (more
    than any H of the grids: with fewer taps than heads the fit is degenerate)."""
    if k["kind"] in ("power", "exp"):
        return float(P["window"])
    return float(max(P["sparse_window_factor"] * k["T"], 64))


# --------------------------------------------------------------------------------------------- the fitter
def _solve(A: np.ndarray, b: np.ndarray):
    """Least-squares values and an orthonormal basis of A's range (SVD, singular values below 1e-15 dropped)."""
    try:
        U, sv, Vt = np.linalg.svd(A, full_matrices=False)
    except np.linalg.LinAlgError:
        return np.zeros(A.shape[1]), np.zeros((A.shape[0], 0))
    keep = sv > sv[0] * 1e-15 if sv.size and sv[0] > 0 else np.zeros(sv.shape, bool)
    U, sv, Vt = U[:, keep], sv[keep], Vt[keep]
    return Vt.T @ ((U.T @ b) / sv), U


def theta_box(family: str, S: float) -> tuple[float, float, float, float]:
    """(lo, hi) bounds of theta and (lo, hi) of the starting rates: lin p in [1/S, 2] (p down to e^-45 allowed),
    where S is the extent of the target (see `extent`); log p - 1 in [0.05, 8] (down to e^-12)."""
    if family == "lin":
        return -45.0, 6.0, math.log(1.0 / S), math.log(2.0)
    return -12.0, 5.0, math.log(0.05), math.log(8.0)


def extent(s: np.ndarray, w: np.ndarray, rho: np.ndarray, tail: float = 1e-12) -> float:
    """The first distance s whose tail mass (at s and beyond) is below `tail` (at least 2): lin heads start with
    decay lengths up to it, not up to the window (for e^(-s/10)/(1+s) on 10^12 taps: about 250, not 10^12)."""
    mass = np.cumsum((w * np.abs(rho))[::-1])[::-1]
    beyond = np.nonzero(mass < tail)[0]
    return float(max(s[beyond[0]] if len(beyond) else s[-1], 2.0))


def levenberg_marquardt(fj, x0: np.ndarray, lo: float, hi: float, max_nfev: int, xtol: float = 1e-12,
                        ftol: float = 1e-12, gtol: float = 1e-10) -> tuple[np.ndarray, int]:
    """Minimise |r(x)|^2 for x in [lo, hi]^n, where fj(x) -> (r, J) gives the residuals and their Jacobian.

    Marquardt's scaling (D = the largest column norms of J seen so far) and Nielsen's damping update; each step
    solves the damped problem min |J d + r|^2 + lam |D d|^2 as an augmented least-squares problem (no normal
    equations) and is projected onto the box. Plain numpy, so the same inputs give the same optimum in any
    process: scipy 1.17's C port of MINPACK did not (12 of 66 paper-grid fits changed with the order of the fits, and
    even one fit alone in identical fresh processes sometimes came out different).

        >>> x, n = levenberg_marquardt(lambda x: (x - 3.0, np.eye(1)), np.zeros(1), -10, 10, 20)   # x ~ [3.]
    """
    x = np.clip(np.asarray(x0, float), lo, hi)
    r, J = fj(x)
    nfev, cost = 1, float(r @ r)
    D = np.zeros(len(x))
    lam, nu = 0.1, 2.0                                     # damping relative to the scaled J^T J (~1)
    while nfev < max_nfev and np.isfinite(cost) and cost > 0:
        D = np.maximum(D, np.linalg.norm(J, axis=0))
        scale = np.where(D > 0, D, 1.0)
        if np.max(np.abs(J.T @ r) / scale) <= gtol * math.sqrt(cost):
            break                                          # r is orthogonal to every column of J: stationary
        A = np.vstack([J, np.diag(math.sqrt(lam) * scale)])
        step = np.linalg.lstsq(A, np.concatenate([-r, np.zeros(len(x))]), rcond=None)[0]
        xn = np.clip(x + step, lo, hi)
        rn, Jn = fj(xn)
        nfev += 1
        costn = float(rn @ rn)
        moved = np.linalg.norm(scale * (xn - x))
        if np.isfinite(costn) and costn < cost:
            predicted = cost - float(np.sum((r + J @ (xn - x)) ** 2))
            gain = (cost - costn) / predicted if predicted > 0 else 1.0
            lam, nu = lam * max(1 / 3, 1 - (2 * gain - 1) ** 3), 2.0
            done = cost - costn <= ftol * cost or moved <= xtol * (np.linalg.norm(scale * x) + xtol)
            x, r, J, cost = xn, rn, Jn, costn
            if done:
                break
        else:
            lam, nu = lam * nu, nu * 2
            if moved <= xtol * (np.linalg.norm(scale * x) + xtol):
                break                                      # the damped step has shrunk to nothing
    return x, nfev


def fit_kernel(rho, s, w, family: str, H: int, S: float, restarts: int = 4, rounds: int = 4, seed: int = 0,
               max_nfev: int = 100, geometric_start: bool = True) -> dict:
    """Best H-head kernel of one family for the target rho on the points s with weights w.

    Variable projection: for rates theta the values alpha are the weighted least-squares solution, so only theta
    is optimised (`levenberg_marquardt` with Kaufman's Jacobian -P_perp dA/dtheta alpha). Round 0 minimises the
    l2 error sum w r^2; rounds 1..`rounds` reweight by 1/max(|r|, 1e-14) towards the l1 error sum w |r|
    (IRLS). Restart 0 starts from rates geometric on the whole starting range (unless `geometric_start` is False:
    a refit, which has fitted that start already), every other restart from rates on a random sub-range with jitter. Returns the best l1 error with its rates and values, and the best l2 error.
    """
    rng = np.random.default_rng(seed)
    lo, hi, a0, b0 = theta_box(family, min(S, extent(s, w, rho)))
    best = {"l1": math.inf, "l2": math.inf, "theta": None, "alpha": None, "nfev": 0}
    for r in range(restarts):
        geometric = r == 0 and geometric_start
        a, b = (a0, b0) if geometric else tuple(np.sort(rng.uniform(a0, b0, 2)))
        th = np.linspace(a, b, H) if H > 1 else np.array([(a + b) / 2])
        if not geometric:
            th = th + rng.normal(0.0, 0.3, H)
        weights = w.copy()
        for _ in range(rounds + 1):
            sw = np.sqrt(np.maximum(weights / weights.max(), 1e-30))
            bw = sw * rho

            def fj(t, sw=sw, bw=bw):
                """Residuals and Kaufman's Jacobian from one SVD."""
                E, dE = basis(family, t, s)
                alpha, U = _solve(sw[:, None] * E, bw)
                J = -(sw[:, None] * dE) * alpha[None, :]
                return bw - sw * (E @ alpha), J - U @ (U.T @ J)

            th, nfev = levenberg_marquardt(fj, th, lo, hi, max_nfev * H)
            best["nfev"] += nfev
            E = basis(family, th, s)[0]
            alpha = _solve(sw[:, None] * E, bw)[0]
            res = rho - E @ alpha
            l1, l2 = float(np.sum(w * np.abs(res))), float(np.sqrt(np.sum(w * res ** 2)))
            if np.isfinite(l1) and l1 < best["l1"]:
                best.update(l1=l1, theta=th.copy(), alpha=alpha.copy())
            if np.isfinite(l2):
                best["l2"] = min(best["l2"], l2)
            weights = w / np.maximum(np.abs(res), 1e-14)
    best["p"] = rates(family, best["theta"])
    return best


@contextlib.contextmanager
def single_thread():
    """One BLAS thread (threadpoolctl) and one torch thread inside the block, restored after. The fits are many
    small SVDs and the CPU training small FFTs: on a shared 2-core machine a second thread adds spin-waiting, not
    speed (the same numbers either way)."""
    with threadpool_limits(limits=1), engine.one_cpu_thread("cpu"):
        yield


def fit_spec(P: dict, k: dict, family: str, S: float, H_list=None) -> dict:
    return {"kind": "fit", "kernel": k, "family": family, "S": float(S), "H": list(H_list or P["H_grid"]),
            "restarts": P["restarts"], "rounds": P["irls_rounds"], "max_nfev": P["max_nfev"], "seed": P["seed"],
            "grid": [EXACT_MAX, N_EXACT, N_GEO]}


def run_fit(spec: dict) -> dict:
    """Every H of the point, each fitted independently (no warm start from a smaller H: check 13 tests that)."""
    t0 = time.perf_counter()
    s, w, rho = target(spec["kernel"], spec["S"])
    out = {"H": spec["H"], "l1": [], "l2": [], "p": [], "alpha": [], "nfev": [], "restarts": []}
    with single_thread():
        _fit_all(spec, s, w, rho, out)
    out["wall_s"] = time.perf_counter() - t0
    return out


def grows_with_H(best_below: float, e: float) -> float:
    """How far the error e at H exceeds the best at smaller H (1.0 where it does not, or where that best is at the
    float64 floor): H heads contain every smaller set, so a ratio above GROWTH is an optimiser failure."""
    return e / best_below if best_below > FLOOR else 1.0


def _fit_all(spec, s, w, rho, out):
    """Fit each H; where the error grows with H beyond GROWTH, refit with REFIT x then REFIT^2 x the restarts from
    fresh random starts and keep the best (the reading guide's remedy for check 13). `out["restarts"]` records the
    starts each H took, so the page can say which fits needed more; check 13 still fails if none of them helps."""
    for i, H in enumerate(spec["H"]):
        best, l2, starts, nfev = None, math.inf, 0, 0
        for attempt in range(3):
            n = spec["restarts"] * REFIT ** attempt
            f = fit_kernel(rho, s, w, spec["family"], H, spec["S"], n, spec["rounds"],
                           seed_of(spec["seed"], "fit", kernel_name(spec["kernel"]), spec["family"], spec["S"], H,
                                   *(["refit", attempt] if attempt else [])), spec["max_nfev"],
                           geometric_start=attempt == 0)
            starts, nfev, l2 = starts + n, nfev + f["nfev"], min(l2, f["l2"])     # l2: the best of every attempt
            best = f if best is None or f["l1"] < best["l1"] else best
            if i == 0 or grows_with_H(min(out["l1"]), best["l1"]) <= GROWTH:
                break
        for key in ("l1", "p", "alpha"):
            out[key].append(best[key])
        out["l2"].append(l2)
        out["nfev"].append(nfev)
        out["restarts"].append(starts)


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


def exact_spec(P: dict) -> dict:
    return {"kind": "exact", "seed": P["seed"], "fold_S": 4096}


def run_exact(spec: dict) -> dict:
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed_of(spec["seed"], "exact"))
    n = np.arange(0, 31)
    alloc = []
    for trial in range(6):               # random memories T_k and rates n, both bound factors of Thm 4.1
        M, nn, H = int(rng.integers(2, 6)), int(rng.integers(1, 5)), float(rng.integers(8, 65))
        T = np.sort(rng.integers(1, 400, M)).astype(float)
        for name, a in (("lin", np.exp(0.01 * T)), ("log", T ** 1.01)):
            num, closed = allocation_check(a, nn, H)
            alloc.append({"rpe": name, "T": T, "n": nn, "H": H, "numeric": num, "closed": closed,
                          "rel": abs(num - closed) / closed})
    z = np.linspace(1.0, 12.0, 200001)
    b1_log, b1_lin = prop_b1(z)
    S = spec["fold_S"]
    fold = {"lin": folding_error("lin", S, [0.003, 0.05, 0.7], [1.0, -2.0, 0.5], seed_of(spec["seed"], "fold")),
            "log": folding_error("log", S, [1.1, 1.7, 3.0], [1.0, -2.0, 0.5], seed_of(spec["seed"], "fold"))}
    lo, hi = crossover_roots()
    Ts = np.arange(2, 2001)
    lin_smaller = np.exp(0.01 * Ts) < Ts ** 1.01
    return {"t5": t5_bucket(n).tolist(), "t5_saturation": int(np.argmax(t5_bucket(np.arange(0, 400)) == 15)),
            "allocation": alloc, "crossover": [lo, hi],
            "lin_smaller_T": [int(Ts[lin_smaller].min()), int(Ts[lin_smaller].max())],
            "b1_log_ratio": b1_log, "b1_lin": b1_lin, "lp": prop52_lp(), "folding": fold,
            "wall_s": time.perf_counter() - t0}


# ----------------------------------------------------------------------------------------- the training
def softplus_inv(y: torch.Tensor) -> torch.Tensor:
    return y + torch.log(-torch.expm1(-y))


def model_kernel(params: dict, S: int, theta_scale: float) -> torch.Tensor:
    """(R, S) effective kernel k(s) of a one-layer DP-free model: sum_h c_h softmax_s(p_h phi(s)) + w0 1{s=0}.

    Per run: heads h with buf.mask = 1 (the run's H), RPE type from buf.log (0: lin, p = softplus(theta);
    1: log, p = 1 + softplus(theta)); theta = theta_scale * u, so that AdamW's step on theta is theta_scale times
    its step on the other weights (a separate learning rate for the rates through one optimiser)."""
    u, c, w0 = params["u"], params["c"], params["w0"]
    theta = theta_scale * u
    is_log = params["buf.log"][:, :, None] > 0.5                        # (R, 1, 1)
    p = torch.where(is_log, 1.0 + torch.nn.functional.softplus(theta)[:, :, None],
                    torch.nn.functional.softplus(theta)[:, :, None])    # (R, H, 1)
    s = torch.arange(S, device=u.device, dtype=u.dtype)
    phi = torch.where(is_log, -torch.log(s.clamp(min=1.0)), -s)         # (R, 1, S)
    bias = (p * phi).masked_fill(is_log & (s == 0), -math.inf)
    a = torch.softmax(bias, -1)
    k = torch.einsum("rh,rhs->rs", c * params["buf.mask"], a)
    return torch.cat([k[:, :1] + w0, k[:, 1:]], 1)


def causal_conv(x: torch.Tensor, k: torch.Tensor, S: int) -> torch.Tensor:
    """(R, B, S): sum_{s<S} k(s) x_{t-s} at the last S positions t = S..2S-1 of sequences x (R, B, 2S), by FFT of
    size 2S (no wrap-around reaches those positions); k (R, S) or (S,)."""
    kf = torch.fft.rfft(k, n=2 * S)
    y = torch.fft.irfft(torch.fft.rfft(x, n=2 * S) * (kf[:, None, :] if kf.dim() == 2 else kf), n=2 * S)
    return y[..., S:]


def train_spec(P: dict, k: dict, S: int) -> dict:
    return {"kind": "train", "kernel": k, "S": int(S), "H": list(P["train_H"]), "seeds": P["train_seeds"],
            "steps": P["train_steps"], "batch": P["train_batch"], "lr": P["train_lr"], "theta_lr": P["theta_lr"],
            "decay_frac": P["decay_frac"], "n_test": P["train_n_test"], "checks": P["train_checks"],
            "seed": P["seed"]}


def train_init(spec: dict, gen: torch.Generator, device) -> tuple[dict, list]:
    """Runs (family, H, seed) in that order, each with Hmax head slots and a mask. Initial rates as the reading
    guide proposes: lin p log-uniform on [1/S, 1], log p - 1 log-uniform on [0.05, 5]; values small."""
    Hs, n_seeds, S = spec["H"], spec["seeds"], spec["S"]
    runs = [(f, H, r) for f in FAMILIES for H in Hs for r in range(n_seeds)]
    R, Hm = len(runs), max(Hs)
    U = torch.rand(R, Hm, generator=gen, device=device, dtype=torch.float64)
    is_log = torch.tensor([f == "log" for f, _, _ in runs], device=device)[:, None]
    lo = torch.where(is_log, torch.tensor(math.log(0.05), device=device, dtype=torch.float64),
                     torch.tensor(math.log(1.0 / S), device=device, dtype=torch.float64))
    hi = torch.where(is_log, torch.tensor(math.log(5.0), device=device, dtype=torch.float64),
                     torch.tensor(0.0, device=device, dtype=torch.float64))
    theta = softplus_inv(torch.exp(lo + (hi - lo) * U))
    scale = spec["theta_lr"] / spec["lr"]
    mask = torch.tensor([[1.0 if h < H else 0.0 for h in range(Hm)] for _, H, _ in runs], device=device)
    params = {"u": (theta / scale).float(), "c": 0.01 * torch.randn(R, Hm, generator=gen, device=device),
              "w0": torch.zeros(R, 1, device=device), "buf.mask": mask, "buf.log": is_log.float()}
    return params, runs


def run_train(spec: dict, device: str) -> dict:
    """All (family, H, seed) runs of one kernel and context length as one batch through lib.science.engine: AdamW (no
    weight decay), `steps` steps of fresh sequences of length 2S, loss on the last S positions (a full window),
    the last `decay_frac` of the steps at a tenth of the learning rate (a second engine call from the first's
    weights). The error of each run is computed exactly from its kernel: MSE = Var(x) ||k - rho||_2^2."""
    t0 = time.perf_counter()
    S, k = spec["S"], spec["kernel"]
    gen = generator(spec["seed"], "train", kernel_name(k), S, device=device)
    s = np.arange(S, dtype=float)
    rho0 = kernel_values(k, s)
    rho0 = rho0 / np.abs(rho0[1:]).sum()                  # l1 norm 1 on s >= 1, as the fits
    rho = torch.tensor(rho0, dtype=torch.float32, device=device)
    params, runs = train_init(spec, gen, device)
    scale = spec["theta_lr"] / spec["lr"]
    forward = lambda p, x: causal_conv(x, model_kernel(p, S, scale), S)

    def sample(n_live, batch, g):
        x = torch.rand(n_live, batch, 2 * S, generator=g, device=device) * 2 - 1
        return x, causal_conv(x, rho, S)

    tests = [sample(len(runs), spec["n_test"], gen)]
    steps2 = int(round(spec["steps"] * spec["decay_frac"]))
    curves, check_steps, done = [], [], 0
    with single_thread() if torch.device(device).type == "cpu" else contextlib.nullcontext():
        for lr, steps in ((spec["lr"], spec["steps"] - steps2), (spec["lr"] / 10, steps2)):
            if steps <= 0:
                continue
            every = max(1, spec["steps"] // spec["checks"])
            cfg = engine.TrainConfig(lr=lr, weight_decay=0.0, batch_size=spec["batch"], check_every=every,
                                     max_samples=steps * spec["batch"])
            out = engine.train_to_threshold(forward, params, sample, tests, [-math.inf], cfg, gen)
            params = {kk: v.to(device) for kk, v in out.params.items()}
            curves.append(out.curves[:, :, 0])
            check_steps += [done + int(n) // spec["batch"] for n in out.check_samples]
            done += steps
    with torch.no_grad():
        p64 = {kk: v.double() for kk, v in params.items()}
        kern = model_kernel(p64, S, scale).cpu().numpy()
        theta = (scale * p64["u"]).cpu().numpy()
    err = kern - rho0[None, :]
    p_all = np.log1p(np.exp(theta)) + np.array([[1.0 if f == "log" else 0.0] for f, _, _ in runs])
    return {"runs": [list(r) for r in runs], "mse_exact": VAR_X * (err ** 2).sum(1), "l1": np.abs(err).sum(1),
            "test_mse": np.concatenate(curves)[-1], "curve_steps": check_steps, "curves": np.concatenate(curves),
            "p": [p_all[i, :H].tolist() for i, (_, H, _) in enumerate(runs)], "wall_s": time.perf_counter() - t0}


# --------------------------------------------------------------------------------------------- compute
def main_kernels(P: dict) -> list[dict]:
    return ([{"kind": "power", "beta": float(b)} for b in P["betas"]] + [{"kind": "exp", "tau": float(t)} for t in P["taus"]]
            + [{"kind": "bump", "T": int(T), "w": float(T) * P["rel_bump_frac"]} for T in P["rel_bump_T"]]
            + [{"kind": "bump", "T": int(T), "w": float(P["bump_width"])} for T in P["bump_T"]]
            + [{"kind": "delta", "T": int(T)} for T in P["delta_T"]])


def train_kernels(P: dict) -> list[dict]:
    return [{"kind": "power", "beta": float(b)} for b in P["train_betas"]] + [{"kind": "exp", "tau": float(t)} for t in P["train_taus"]]


def check_params(P: dict) -> list[tuple[str, str]]:
    bad = []
    for key in ("H_grid", "train_H", "context_windows", "delta_T", "bump_T", "rel_bump_T"):
        if list(P[key]) != sorted(set(P[key])):
            bad.append((key, "a strictly increasing list"))
    if P["context_H"] not in P["H_grid"]:
        bad.append(("context_H", f"one of H_grid = {P['H_grid']}"))
    if min(P["context_windows"]) < 64 or P["window"] < 64:
        bad.append(("context_windows" if min(P["context_windows"]) < 64 else "window", "windows of at least 64 taps"))
    return bad


def compute(P: dict, store: Store, device: str, force: bool = False, log=print) -> dict:
    """Every point of the chapter, loaded from the store when present, else computed and stored at once.
    The longest fits (long windows, many heads) go first, so parallel workers (`compute --jobs`) end together."""
    env = environment(device, store.chapter)
    out = {"exact": None, "fit": {}, "train": {}}

    def get(spec, fn, label):
        record, done = store.load_or_compute(spec, fn, env, force)
        if record is not None:
            log(f"{label:<44} " + (f"computed in {record['result']['wall_s']:6.1f} s" if done else "loaded from the store"))
        return record

    out["exact"] = get(exact_spec(P), lambda: run_exact(exact_spec(P)), "exact checks")
    jobs = []
    for k in main_kernels(P):
        for f in FAMILIES:
            jobs.append((k, f, window_of(P, k), None))
    for b in P["context_betas"]:
        for S in P["context_windows"]:
            for f in FAMILIES:
                jobs.append(({"kind": "power", "beta": float(b)}, f, float(S), None))
    for k in train_kernels(P):
        for S in P["train_S"]:
            for f in FAMILIES:
                jobs.append((k, f, float(S), P["train_H"]))
    seen = set()
    for k, f, S, Hs in sorted(jobs, key=lambda j: -j[2]):
        spec = fit_spec(P, k, f, S, Hs)
        key = (kernel_name(k), f, S, tuple(spec["H"]))
        if key in seen:
            continue
        seen.add(key)
        out["fit"][key] = get(spec, lambda spec=spec: run_fit(spec), f"fit {kernel_name(k)} {f} S={S:g}")
    for k in train_kernels(P):
        for S in sorted(P["train_S"], reverse=True):
            spec = train_spec(P, k, S)
            out["train"][(kernel_name(k), int(S))] = get(spec, lambda spec=spec: run_train(spec, device),
                                                         f"train {kernel_name(k)} S={S}")
    return out
