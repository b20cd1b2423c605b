"""The margins the turing_simulation chapter measures, as exact computations: the smallest perturbation of the
construction's weights that corrupts a decoded trace (a batched grid search along given directions), and the
all-layer margin of Claim 3.5's toy product network, with and without rounding.

    >>> rho_rounded_dp([1, 2, 16], grid=1001)   # about 0.5, 0.49, 0.49: rounding keeps the margin above 1/3
"""
from __future__ import annotations

import math

import numpy as np
import torch

from lib.science import tm_transformer as tt
from lib.science.stats import seed_of


# ----------------------------------------------------------------------------------------- trace corruption
def unit_direction(net: tt.Net, gen: torch.Generator) -> dict:
    """A uniformly random unit direction in the space of every weight of net (float64 normals, normalised)."""
    d = {k: torch.randn(v.shape, generator=gen, dtype=torch.float64).to(v) for k, v in net.params.items()}
    norm = math.sqrt(sum(float(v.double().pow(2).sum()) for v in d.values()))
    return {k: v / norm for k, v in d.items()}


def structured_direction(net: tt.Net) -> dict:
    """W2 of the transition layer scaled by (1 - t): the direction -W2^(1) (its t is reported, not its norm)."""
    d = {k: torch.zeros_like(v) for k, v in net.params.items()}
    d["W2"][:, 0] = -net.params["W2"][:, 0]
    return d


def fail_scales(net, dirs, scales, xs, traces, beta=None):
    """Run len(dirs) * len(scales) perturbed copies at once; (len(dirs), len(scales)) True where the trace fails."""
    D, G = len(dirs), scales.shape[1]
    rep = net.replicate(D * G)
    s = torch.as_tensor(scales.reshape(-1), dtype=torch.float64)
    params = {}
    for k, v in rep.params.items():
        delta = torch.stack([dirs[i][k][0] for i in range(D) for _ in range(G)])
        params[k] = v + s.view(-1, *([1] * (v.dim() - 1))).to(v) * delta
    out = tt.rollout(rep.with_params(params), xs, beta=beta)
    return (tt.first_mismatch(net, out, traces) <= net.T).reshape(D, G)


def smallest_failing(fail, lo, hi, G, rounds, D):
    """Per direction, the smallest scale in [lo, hi] whose perturbation fails: a log grid over [lo, hi], then
    `rounds - 1` log grids between the last passing and the first failing point. fail(scales (D, G)) -> bool (D, G).
    Returns (D,): the first failing scale found, inf where nothing up to hi fails, lo where lo already fails."""
    res = np.full(D, math.inf)
    a, b = np.full(D, float(lo)), np.full(D, float(hi))
    active = np.ones(D, bool)
    for _ in range(rounds):
        if not active.any():
            break
        grid = np.exp(np.linspace(np.log(a), np.log(b), G).T)
        f = fail(grid)
        for i in np.flatnonzero(active):
            if not f[i].any():                 # first round: nothing fails (res stays inf); later: b failed before (kept)
                active[i] = False
                continue
            k = int(f[i].argmax())
            res[i] = grid[i, k]
            if k == 0:
                active[i] = False
            else:
                a[i], b[i] = grid[i, k - 1], grid[i, k]
        a, b = np.where(active, a, lo), np.where(active, b, hi)
    return res


# ------------------------------------------------------------------------------------------ Claim 3.5's toy
def rho_product_formula(d):
    """rho of f = (prod W_i) x - 1/2 at W_i = 1, x = 1: the uniform perturbation with (1 - delta)^d = 1/2."""
    d = np.asarray(d, float)
    return np.sqrt(d) * (1 - 2 ** (-1 / d))


def rho_product_numeric(d: int, restarts: int, seed: int) -> float:
    """min ||delta||_2 s.t. prod(1 + delta_i) <= 1/2, by SLSQP from random starts (log form of the constraint)."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(seed_of(seed, "toy", d))
    best = math.inf
    for _ in range(restarts):
        x0 = -rng.uniform(0.0, 0.9, d) * (1 if d == 1 else rng.uniform(0.2, 1.0))
        r = minimize(lambda v: float(v @ v), x0, jac=lambda v: 2 * v, method="SLSQP",
                     bounds=[(-0.999, 1.0)] * d,
                     constraints=[{"type": "ineq", "fun": lambda v: -math.log(2) - np.log1p(v).sum(),
                                   "jac": lambda v: -1 / (1 + v)}], options={"maxiter": 500, "ftol": 1e-14})
        if r.success and np.prod(1 + r.x) <= 0.5 + 1e-9:
            best = min(best, math.sqrt(float(r.x @ r.x)))
    return best


def rho_rounded_dp(depths, grid: int = 2001) -> np.ndarray:
    """rho of round(W_d round(... round(W_1 x))) - 1/2 (round frozen), exactly up to a grid on [0, 1], by dynamic
    programming over layers: c_k(r) = the least squared perturbation of W_1..W_k that makes layer k's output
    <= r. Layer k outputs <= r iff W_k q <= s(r) = (r + 1)/3 for its input q, which costs max(0, 1 - s/q)^2
    (free when q <= s; round(z) <= r also holds for every z <= 1/3 when r >= 0). rho^2 = c_d(1/2)."""
    r = np.linspace(0.0, 1.0, grid)
    s = (r + 1) / 3
    q = r[None, :]
    step = np.maximum(0.0, 1 - s[:, None] / np.maximum(q, 1e-300)) ** 2          # (r, q)
    c = np.where(r >= 1, 0.0, np.inf)                                            # layer 0: x = 1 exactly
    half = int(np.argmin(np.abs(r - 0.5)))
    out, depths = {}, sorted(set(int(x) for x in depths))
    for k in range(1, max(depths) + 1):
        c_new = (step + c[None, :]).min(1)
        converged = np.array_equal(c_new, c)       # c_k stops changing: every deeper layer gives the same value
        c = c_new
        for dd in depths:
            if dd == k or (converged and dd > k):
                out[dd] = math.sqrt(c[half])
        if converged:
            break
    return np.array([out[k] for k in depths])
