"""Theorem 6 of Mousavi-Hosseini et al. 2025 (Appendix B): a network whose first layer is fully connected on the
flattened tokens needs about N*d samples to learn simple-1STR, because that layer only ever sees the span of its
training inputs.

Five measurements, each a stored point (see `points`):

- span: one training set, full-batch GD with L2 and AdamW from the same start (and their test MSE); the off-span energy
  ||W_x (I - V^T V)||_F^2 of the first layer's token columns W_x, relative to the span of the n training inputs
  (orthonormal rows V), recorded along the way. Under GD it decays exactly as (1 - lr*l2)^(2t).
- visibility (one per N): the visible fraction nu = E_t ||V P_t u||^2 of the target direction and the risk of the
  oracle E[y | Vx, t, u], by Monte Carlo over training sets, u and test prompts; both against n/(Nd).
- readout (one per N, learners.py): a learner of the theorem's class that reaches its line, the span-restricted
  least-squares read-out, by Monte Carlo over training sets and u.
- ffn (one per N, and once with rotated prompts): GD-trained FFNs for n = c*N*d, every run with its own u,
  training set and initialisation; test MSE beside the oracle's on the same test prompts.
- transformer: the same learning curve for a one-layer Transformer (AdamW, lib.science.engine) with and without the
  rotation x -> Qx of the token block, Q Haar-distributed on O(Nd).

This module is the computation only: what the page shows of the results (tables, claims, figures) is
lib.chapters.ffn_span.page, which no computation imports, so editing it leaves the stored points current.

    >>> from lib.core import params; P = params.resolve("ffn_span", "paper")
    >>> len(points(P)), sorted({p.name.split()[0] for p in points(P)})   # lib.core.sweep.collect runs them
    (12, ['ffn', 'readout', 'span', 'transformer', 'visibility'])
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import partial

import numpy as np
import torch

from lib.chapters.ffn_span.learners import DrawsPoint, readout_spec, run_readout
from lib.core.sweep import Point
from lib.science import engine, models, qstr
from lib.science.seeds import generator
from lib.science.span import (
    ffn_init,
    first_layer_residual,
    haar_orthogonal,
    layer_energies,
    oracle_predict,
    span_projector,
    train_full_batch,
    unit_vectors,
    visible_fraction,
    x_columns,
)

LAW_FLOOR = 1e-6  # the decay law is checked while (1 - lr l2)^(2t) >= this (see run_ffn)


def n_values(N: int, d: int, n_over_Nd) -> list[int]:
    """Training-set sizes n = round(c * N * d), at least 1, for every multiple c of N*d."""
    return [max(1, round(c * N * d)) for c in n_over_Nd]


# ------------------------------------------------------------------------------------------------- data


def simple_1str(task: qstr.QSTR, U: torch.Tensor, B: int, gen: torch.Generator, Q: torch.Tensor | None = None):
    """B simple-1STR prompts for each of R runs, run r with its own direction U[r] (and rotation Q[r]).

    Returns z (R, B, N, D), the encoded prompts; y (R, B, N), the label <u, x_t> at every position; x (R, B, N*d),
    the raw tokens flattened; t (R, B), the shared index. With Q the network sees the tokens Qx (still N(0, I)),
    while the label is computed from the original x: the token structure of the task is gone.
    """
    R, d, N = U.shape[0], task.d, task.N
    X, T = task.draw(R, B, gen, simple=True)
    t = T[:, :, 0, 0]
    x = X.reshape(R, B, N * d)
    rows, cols = torch.arange(R, device=X.device)[:, None], torch.arange(B, device=X.device)[None, :]
    y = torch.einsum("rbd,rd->rb", X[rows, cols, t], U)
    shown = X if Q is None else (x @ Q.transpose(1, 2)).reshape(R, B, N, d)
    return task.encode(shown, T), y[:, :, None].expand(R, B, N), x, t


# ---------------------------------------------------------------------------------------------- training


def bands(ns: list[int], small: int = 64) -> list[list[int]]:
    """Group the sorted training-set sizes into batches padded to their largest n. A band doubles at most
    (padding costs at most half its work), except that sizes up to `small` share one band: there a step costs
    its fixed overhead, not its arithmetic."""
    out: list[list[int]] = []
    for n in sorted(set(ns)):
        if out and (n <= 2 * out[-1][0] or n <= small):
            out[-1].append(n)
        else:
            out.append([n])
    return out


# ------------------------------------------------------------------------------------------ sweep points
@dataclass(frozen=True)
class SpanPoint:
    """GD and AdamW from the same start on one training set (the span figure and row 8a-adamw)."""
    N: int                     # sequence length
    n: int                     # training prompts, below N*d
    d: int                     # token dimension
    seed: int                  # seed of the directions u, prompts and initialisations
    task_seed: int             # seed of the position codes
    n_seeds: int               # runs, each with its own u, training set and initialisation
    ffn_width: int             # second hidden width of the FFN
    steps: int                 # full-batch steps of each optimiser
    every: int                 # steps between measurements of the off-span energy
    gd_lr: float               # GD learning rate
    gd_l2: float               # GD's L2 penalty lambda
    adamw_lr: float            # AdamW learning rate
    adamw_weight_decay: float  # AdamW decoupled weight decay
    n_test: int                # test prompts per run (the test MSE of both optimisers on this fixed n)


def span_spec(P: dict) -> SpanPoint:
    N = P["span_N"]
    n = min(n_values(N, P["d"], [P["span_n_over_Nd"]])[0], N * P["d"] - 1)   # below Nd, or nothing is off the span
    return SpanPoint(N=N, n=n, d=P["d"], seed=P["seed"], task_seed=P["task_seed"], n_seeds=P["n_seeds"],
                     ffn_width=P["ffn_width"], steps=P["gd_steps"], every=P["record_every"], gd_lr=P["gd_lr"],
                     gd_l2=P["gd_l2"], adamw_lr=P["adamw_lr"], adamw_weight_decay=P["adamw_weight_decay"],
                     n_test=P["n_test"])


def run_span(spec: SpanPoint, device: str) -> dict:
    """GD and AdamW on the same training sets from the same initialisations; off-span energy along the way, and
    each run's test MSE at the end (AdamW with the authors' rates: the paper's own FFN on a fixed n)."""
    t0 = time.perf_counter()
    N, d, n, S = spec.N, spec.d, spec.n, spec.n_seeds
    task = qstr.QSTR(N=N, d=d, simple=True, task_seed=spec.task_seed, device=device)
    model = models.FFN(N, task.D, (N * d, spec.ffn_width))
    gen = generator(spec.seed, "span", N, n, device=device)
    U = unit_vectors(S, d, gen, device)
    z, y, x, _ = simple_1str(task, U, n, gen)
    init = ffn_init(model, S, gen, device)
    ns = torch.full((S,), n)
    P = span_projector(x, ns)
    cols = x_columns(N, task.D, d).to(device)
    watch = partial(layer_energies, cols=cols, P=P)
    zt, yt, _, _ = simple_1str(task, U, spec.n_test, generator(spec.seed, "span-test", N, n, device=device))
    out = {"N": N, "n": n, "Nd": N * d}
    for opt, lr, l2 in (("gd", spec.gd_lr, spec.gd_l2), ("adamw", spec.adamw_lr, spec.adamw_weight_decay)):
        params, steps, rec = train_full_batch(model.forward, init, z, y, ns, spec.steps, opt, lr, l2, watch, spec.every)
        with torch.no_grad():
            test = engine.evaluate(model.forward, params, [(zt, yt)])[:, 0].cpu().numpy()
        out["steps"] = steps
        out[opt] = {"off": rec[:, :, 0].numpy(), "total": rec[:, :, 1].numpy(), "test_mse": test}   # (T, S), (S,)
    out["wall_s"] = time.perf_counter() - t0
    return out


@dataclass(frozen=True)
class VisibilityPoint(DrawsPoint):
    """The visible fraction and the oracle's risk at one N, by Monte Carlo over training sets and u."""


def visibility_spec(P: dict, N: int) -> VisibilityPoint:
    return VisibilityPoint.at(P, N, n_values)


def run_visibility(spec: VisibilityPoint, device: str) -> dict:
    """nu(n) and the oracle's test MSE for `draws` independent (training set, u), each on its own test prompts.

    Only Gaussian tokens enter here (no network, no position codes): the oracle sees t directly."""
    t0 = time.perf_counter()
    N, d, K, M = spec.N, spec.d, spec.draws, spec.n_test
    gen = generator(spec.seed, "visibility", N, device=device)
    nu, risk = [], []
    for n in spec.n:
        x = torch.randn(K, n, N * d, generator=gen, device=device)
        U = unit_vectors(K, d, gen, device)
        P = span_projector(x, torch.full((K,), n))
        xt = torch.randn(K, M, N * d, generator=gen, device=device)
        t = torch.randint(0, N, (K, M), generator=gen, device=device)
        rows, cols = torch.arange(K, device=device)[:, None], torch.arange(M, device=device)[None, :]
        y = torch.einsum("kmd,kd->km", xt.view(K, M, N, d)[rows, cols, t], U).double()
        nu.append(visible_fraction(P, U, N).cpu().numpy())
        risk.append((oracle_predict(P, U, xt, t, N) - y).pow(2).mean(1).cpu().numpy())
    return {"N": N, "Nd": N * d, "n": spec.n, "nu": np.array(nu), "oracle_mse": np.array(risk),
            "wall_s": time.perf_counter() - t0}


@dataclass(frozen=True)
class FFNPoint:
    """GD-trained FFNs at one N for every n of the grid, on plain or rotated prompts."""
    N: int                     # sequence length
    rotated: bool              # tokens rotated by a Haar Q in O(Nd), one per run
    d: int                     # token dimension
    n: tuple[int, ...]         # training-set sizes
    seed: int                  # seed of the directions u, prompts, initialisations and rotations
    task_seed: int             # seed of the position codes
    n_seeds: int               # runs per n, each with its own u, training set and initialisation
    n_test: int                # test prompts per run
    ffn_width: int             # second hidden width of the FFN
    steps: int                 # full-batch GD steps
    every: int                 # steps between measurements of the off-span energy
    gd_lr: float               # GD learning rate
    gd_l2: float               # GD's L2 penalty lambda


def ffn_spec(P: dict, N: int, rotated: bool) -> FFNPoint:
    return FFNPoint(N=N, rotated=rotated, d=P["d"], n=tuple(n_values(N, P["d"], P["n_over_Nd"])), seed=P["seed"],
                    task_seed=P["task_seed"], n_seeds=P["n_seeds"], n_test=P["n_test"], ffn_width=P["ffn_width"],
                    steps=P["gd_steps"], every=P["record_every"], gd_lr=P["gd_lr"], gd_l2=P["gd_l2"])


def run_ffn(spec: FFNPoint, device: str) -> dict:
    """GD-trained FFNs for every n of the grid, n_seeds runs each, in bands of similar n (see `bands`).

    The rotated point draws the same directions, prompts and initialisations as the plain one (its generator
    does not depend on `rotated`) and only adds the rotations, from a generator of their own: run r of the two
    points differs in nothing but Q, so their difference is measured with common random numbers."""
    t0 = time.perf_counter()
    N, d, S, ns = spec.N, spec.d, spec.n_seeds, spec.n
    task = qstr.QSTR(N=N, d=d, simple=True, task_seed=spec.task_seed, device=device)
    model = models.FFN(N, task.D, (N * d, spec.ffn_width))
    cols = x_columns(N, task.D, d).to(device)
    decay = (1 - spec.gd_lr * spec.gd_l2) ** 2
    keys = ("test_mse", "oracle_mse", "nu", "rho0", "rho", "w_ratio", "law_dev", "residual", "train_loss")
    out = {k: np.full((len(ns), S), np.nan) for k in keys}
    for band in bands(ns):
        # Generators per band, so the numbers of one n depend on the grid's bands, not on the order of the loop.
        gen = generator(spec.seed, "ffn", N, band, device=device)
        n_run = torch.tensor([n for n in band for _ in range(S)])
        R = len(n_run)
        U = unit_vectors(R, d, gen, device)
        Q = None
        if spec.rotated:
            Q = haar_orthogonal(R, N * d, generator(spec.seed, "rotation", N, band, device=device), device)
        z, y, x, _ = simple_1str(task, U, max(band), gen, Q)
        zt, yt, xt, tt = simple_1str(task, U, spec.n_test, gen, Q)
        init = ffn_init(model, R, gen, device)
        # The span and the oracle live in the coordinates the network sees, Qx when rotated: the label is then
        # <Q P_t u, Qx>, the oracle's direction is Q P_t u, and nu is the visible part of that direction.
        Qd = torch.eye(N * d, dtype=torch.float64, device=device).expand(R, -1, -1) if Q is None else Q.double()
        Pj = span_projector(x @ Qd.transpose(1, 2).to(x.dtype), n_run)
        g = _target_directions(U, tt, N, Qd)                       # (R, n_test, Nd)
        watch = partial(layer_energies, cols=cols, P=Pj)
        params, steps, rec = train_full_batch(model.forward, init, z, y, n_run, spec.steps, "gd", spec.gd_lr,
                                              spec.gd_l2, watch, spec.every)
        loss, res = first_layer_residual(model.forward, params, z, y, n_run, spec.gd_l2)
        with torch.no_grad():
            test = engine.evaluate(model.forward, params, [(zt, yt)])[:, 0].cpu().numpy()
            oracle = torch.einsum("rbk,rbk->rb", xt.double() @ Qd.transpose(1, 2) @ Pj, g)   # <Q P_t u, V^T V Qx>
            oracle_mse = (oracle - yt[:, :, 0].double()).pow(2).mean(1).cpu().numpy()
            nu = _visible(Pj, U, N, Qd).cpu().numpy()
        off, total = rec[:, :, 0].numpy(), rec[:, :, 1].numpy()
        predicted = decay ** np.array(steps, float)[:, None]
        # The law is exact in exact arithmetic; in float32 the in-span gradient leaks ~1e-7 of itself off the span
        # per step, which shows once the off-span energy is ~1e-7 of where it started. It is checked down to
        # LAW_FLOOR, the level claim 8a asks for.
        shown = (predicted >= LAW_FLOOR).ravel()
        with np.errstate(divide="ignore", invalid="ignore"):
            law_dev = np.nanmax(np.abs(off[shown] / (off[0] * predicted[shown]) - 1), 0)
        for j, n in enumerate(band):
            i, sl = ns.index(n), slice(j * S, (j + 1) * S)
            out["test_mse"][i], out["oracle_mse"][i], out["nu"][i] = test[sl], oracle_mse[sl], nu[sl]
            out["residual"][i], out["train_loss"][i] = res[sl], loss[sl]
            if n < N * d:  # the span is all of R^(Nd) once n >= Nd: nothing is off it
                out["rho0"][i], out["rho"][i] = off[0, sl] / total[0, sl], off[-1, sl] / total[-1, sl]
                out["w_ratio"][i] = total[-1, sl] / total[0, sl]
                out["law_dev"][i] = law_dev[sl]
    return {"N": N, "Nd": N * d, "n": ns, "rotated": spec.rotated, **out, "wall_s": time.perf_counter() - t0}


def _target_directions(U, t, N, Q):
    """Q P_t u for every test prompt: (R, B, Nd), the direction of the label in the coordinates the network sees."""
    R, d = U.shape
    B = t.shape[1]
    e = torch.zeros(R, B, N, d, dtype=torch.float64, device=U.device)
    rows, cols = torch.arange(R, device=U.device)[:, None], torch.arange(B, device=U.device)[None, :]
    e[rows, cols, t] = U.double()[:, None, :]
    return e.view(R, B, N * d) @ Q.transpose(1, 2)


def _visible(Pj, U, N, Q):
    """nu = (1/N) sum_t ||V Q P_t u||^2, the visible fraction in the coordinates the network sees."""
    R, d = U.shape
    e = torch.zeros(R, N, N, d, dtype=torch.float64, device=U.device)
    idx = torch.arange(N, device=U.device)
    e[:, idx, idx] = U.double()[:, None, :]
    g = e.view(R, N, N * d) @ Q.transpose(1, 2)                    # (R, N, Nd): Q P_t u for every t
    return torch.einsum("rtk,rkl,rtl->r", g, Pj, g) / N


@dataclass(frozen=True)
class TransformerPoint:
    """One-layer Transformers, plain and rotated twins, at N_rotation for every n of the grid."""
    N: int                     # sequence length
    d: int                     # token dimension
    n: tuple[int, ...]         # training-set sizes
    seed: int                  # seed of the directions u, rotations, prompts and initialisations
    task_seed: int             # seed of the position codes
    tr_seeds: int              # runs per n and per arm (plain, rotated)
    n_test: int                # test prompts per run
    lr: float                  # AdamW learning rate
    weight_decay: float        # AdamW decoupled weight decay
    steps: int                 # AdamW steps
    batch: int                 # minibatch size, drawn from the n training prompts
    mlp_width: int             # width of the Transformer's MLP


def transformer_spec(P: dict) -> TransformerPoint:
    N = P["N_rotation"]
    return TransformerPoint(N=N, d=P["d"], n=tuple(n_values(N, P["d"], P["n_over_Nd"])), seed=P["seed"],
                            task_seed=P["task_seed"], tr_seeds=P["tr_seeds"], n_test=P["n_test"], lr=P["tr_lr"],
                            weight_decay=P["adamw_weight_decay"], steps=P["tr_steps"], batch=P["tr_batch"],
                            mlp_width=P["mlp_width"])


def run_transformer(spec: TransformerPoint, device: str) -> dict:
    """One-layer Transformers trained with AdamW on minibatches of a fixed training set of n prompts, every n of
    the grid, through lib.science.engine. Each plain run has a rotated twin with the same direction u, prompts, test
    prompts and initialisation, and its tokens rotated: 2 x len(n) x tr_seeds runs as one batch."""
    t0 = time.perf_counter()
    N, d, S, ns = spec.N, spec.d, spec.tr_seeds, spec.n
    task = qstr.QSTR(N=N, d=d, simple=True, task_seed=spec.task_seed, device=device)
    gen = generator(spec.seed, "transformer", N, device=device)
    R0 = len(ns) * S
    n_run = torch.tensor([n for n in ns for _ in range(S)] * 2, device=device)
    U = unit_vectors(R0, d, gen, device)
    Q = haar_orthogonal(R0, N * d, gen, device)
    state = gen.get_state()
    plain = simple_1str(task, U, max(ns), gen)[:2], simple_1str(task, U, spec.n_test, gen)[:2]
    gen.set_state(state)   # the twins: the same draws again, tokens rotated
    rot = simple_1str(task, U, max(ns), gen, Q)[:2], simple_1str(task, U, spec.n_test, gen, Q)[:2]
    (z, y), test = [[torch.cat([a, b]) for a, b in zip(p, r)] for p, r in zip(plain, rot)]
    R, rows = 2 * R0, torch.arange(2 * R0, device=device)[:, None]

    def sample(n_live, batch, g):
        assert n_live == R  # nothing stops early (threshold -inf): every run stays in the batch to the end
        idx = (torch.rand(R, batch, generator=g, device=device) * n_run[:, None]).long()
        return z[rows, idx], y[rows, idx]

    model = models.Transformer(task.D, spec.mlp_width)
    init = {k: torch.cat([v, v]) for k, v in model.init(R0, gen, device).items()}
    cfg = engine.TrainConfig(lr=spec.lr, weight_decay=spec.weight_decay, batch_size=spec.batch,
                             check_every=spec.steps, max_samples=spec.steps * spec.batch)
    runs = engine.train_to_threshold(model.forward, init, sample, [tuple(test)], [-math.inf], cfg, gen)
    final = runs.curves[-1, :, 0].reshape(2, len(ns), S)
    return {"N": N, "Nd": N * d, "n": ns, "test_mse": final[0], "test_mse_rotated": final[1],
            "wall_s": time.perf_counter() - t0}


# ---------------------------------------------------------------------------------------------- points
def points(P: dict) -> list[Point]:
    """Every point of the chapter: results["span"], results["visibility"][N], results["readout"][N],
    results["ffn"][(N, rotated)] and results["transformer"]. Cost: training steps, the FFN sweeps (many runs of n
    up to 16 N d) first."""
    N_rot = P["N_rotation"]
    ffn = [(N, False) for N in sorted(set(P["N_grid"]) | {N_rot})] + [(N_rot, True)]
    return ([Point(("span",), span_spec(P), run_span, cost=P["gd_steps"])]
            + [Point(("visibility", N), visibility_spec(P, N), run_visibility, cost=1) for N in P["N_grid"]]
            + [Point(("readout", N), readout_spec(P, N), run_readout, cost=1) for N in P["N_grid"]]
            + [Point(("ffn", key), ffn_spec(P, *key), run_ffn, cost=2 * P["gd_steps"] * (1 + key[0] / 4))
               for key in ffn]
            + [Point(("transformer",), transformer_spec(P), run_transformer, cost=P["tr_steps"])])


def footprint(P: dict) -> list[tuple[str, float, str]]:
    """The biggest points' largest allocations in bytes, each with the parameters that set it (lib.core.params refuses
    a profile whose point cannot fit the device): the GD runs' training and test sets, span projectors and FFN
    weights, the visibility draws, and the Transformers' data. Upper bounds: every n of the grid counted in one band."""
    N, d = max([*P["N_grid"], P["N_rotation"]]), P["d"]
    Nd, D = N * d, d + 2 * qstr.embed_dim_rule(N, "floor")
    n_max = max(n_values(N, d, P["n_over_Nd"]))
    R = P["n_seeds"] * len(P["n_over_Nd"])
    grid = "N_grid, N_rotation, n_over_Nd"
    n_vis = max([n for n in n_values(N, d, P["n_over_Nd"]) if n < Nd], default=1)     # visibility: n < N d only
    return [(f"n_seeds, {grid}", R * (n_max * (N * D + Nd + 1) + 2 * Nd * Nd * 2) * 4,
             "the GD runs' training sets and projectors"),
            (f"n_test, n_seeds, {grid}", R * P["n_test"] * (N * D + 3 * Nd) * 4, "the GD runs' test sets"),
            (f"ffn_width, n_seeds, {grid}", 4 * R * (N * D * Nd + Nd * P["ffn_width"] + P["ffn_width"] * N) * 4,
             "the FFNs' weights, gradients and states"),
            (f"n_draws, {grid}", P["n_draws"] * (n_vis * Nd + 4 * Nd * Nd + 3 * min(P["n_test"], 1000) * Nd) * 4,
             "the visibility draws and projectors"),
            (f"tr_seeds, n_test, {grid}", 2 * P["tr_seeds"] * len(P["n_over_Nd"]) * (n_max + P["n_test"]) * N * (D + 1) * 4,
             "the Transformers' training and test sets")]
