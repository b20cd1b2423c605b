"""The margins the turing_simulation chapter measures: how far the construction is from failing. The smallest
perturbation of its weights that corrupts a decoded trace (a batched grid search along given directions: the
robustness points), the smallest inverse temperature at which softmax attention still gives exact traces (the
softmax points), and the all-layer margin of Claim 3.5's toy product network, with and without rounding (the toy
point). It is one of the chapter's two arms: compute.py lists these points with the exact-simulation ones (the other
arm, which compute.py holds) and imports `inputs` from here, which both arms draw their inputs with.

    >>> rho_rounded_dp([1, 2, 16], grid=1001).round(2)   # rounding keeps the margin above 1/3
    array([0.5 , 0.49, 0.49])
    >>> print(round(run_robust(RobustPoint("counter", 16, True, 1, 4, 0), "cpu")["t_struct"], 2))   # a coarse grid: 2 s
    0.46
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from lib.science import tm_run
from lib.science import tm_transformer as tt
from lib.science import turing as tu
from lib.science.seeds import seed_of


def inputs(tm, T, n, seed):
    """n inputs of machine tm for horizon T, drawn from the seed (the same for every point that asks)."""
    return tu.inputs(tm, T, n, np.random.default_rng(seed_of(seed, "inputs", tm.name, T)))


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
    out = tm_run.rollout(rep.with_params(params), xs, beta=beta)
    return (tm_run.first_mismatch(net, out, traces) <= net.T).reshape(D, G)


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


@dataclass(frozen=True)
class RobustPoint:
    """The smallest corrupting perturbation of one machine's construction at one horizon."""
    machine: str               # catalogue name
    T: int                     # horizon
    correction: bool           # with the rounding correction layers
    n_directions: int          # random unit directions (besides the structured one)
    grid: int                  # grid points per refinement round
    seed: int                  # seed of the input and the directions


def run_robust(spec: RobustPoint, device: str) -> dict:
    tm, T = tu.catalogue()[spec.machine], spec.T
    xs = inputs(tm, T, 1, spec.seed)
    traces = [tu.run(tm, x, T) for x in xs]
    net = tt.build(tm, T, correction=spec.correction, device=device)
    gen = torch.Generator().manual_seed(seed_of(spec.seed, "directions", T, spec.correction))
    dirs = [structured_direction(net)] + [unit_direction(net, gen) for _ in range(spec.n_directions)]
    radius = smallest_failing(lambda g: fail_scales(net, dirs, g, xs, traces), 1e-17, 10.0, spec.grid, 3, len(dirs))
    struct_norm = math.sqrt(float(net.params["W2"][0, 0].double().pow(2).sum()))
    size = tt.size(net)
    return {"T": T, "t_struct": radius[0], "struct_l2": radius[0] * struct_norm, "r_random": radius[1:],
            "alpha": size["l1"], "p": size["p"], "w": size["w"], "d": size["d"]}


@dataclass(frozen=True)
class SoftmaxPoint:
    """The smallest exact inverse temperature of one machine's construction at one horizon."""
    machine: str               # catalogue name
    T: int                     # horizon
    correction: bool           # with the rounding correction layers
    beta_max: float            # largest inverse temperature tried
    grid: int                  # grid points per refinement round
    seed: int                  # seed of the input


def run_softmax(spec: SoftmaxPoint, device: str) -> dict:
    """beta*: the smallest inverse temperature on a grid over [0.5, beta_max] from which every larger grid value
    gives an exact decoded trace, refined between the grid points either side."""
    tm, T = tu.catalogue()[spec.machine], spec.T
    xs = inputs(tm, T, 1, spec.seed)
    traces = [tu.run(tm, x, T) for x in xs]
    net = tt.build(tm, T, correction=spec.correction, device=device)

    def ok(betas):
        rep = net.replicate(len(betas))
        out = tm_run.rollout(rep, xs, beta=torch.as_tensor(betas, dtype=torch.float64, device=device))
        return tm_run.first_mismatch(net, out, traces) > T

    grid = np.exp(np.linspace(np.log(0.5), np.log(spec.beta_max), spec.grid))
    good = ok(grid)
    tail = np.flip(np.logical_and.accumulate(np.flip(good)))     # good here and at every larger grid value
    if not tail.any():
        return {"T": T, "beta_star": math.inf}
    k = int(tail.argmax())
    if k == 0:
        return {"T": T, "beta_star": float(grid[0])}
    fine = np.linspace(grid[k - 1], grid[k], spec.grid)
    g2 = ok(fine)
    tail2 = np.flip(np.logical_and.accumulate(np.flip(g2)))
    return {"T": T, "beta_star": float(fine[int(tail2.argmax())])}


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


@dataclass(frozen=True)
class ToyPoint:
    """Claim 3.5's margins at every depth."""
    depths: tuple[int, ...]    # depths d
    restarts: int              # SLSQP random starts per depth
    seed: int                  # seed of the starts


def run_toy(spec: ToyPoint, device: str) -> dict:
    ds = list(spec.depths)
    return {"depths": ds, "formula": rho_product_formula(ds),
            "numeric": [rho_product_numeric(d, spec.restarts, spec.seed) for d in ds], "rounded": rho_rounded_dp(ds)}
