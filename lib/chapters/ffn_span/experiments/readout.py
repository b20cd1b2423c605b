"""A learner of Theorem 6's class that reaches its line: the span-restricted least-squares read-out.

Definition 5 only forces the first layer's rows into the span S of the training inputs; what follows it is free.
This learner takes the first layer W = V^T V (the projector onto S: every row in S) and the read-out
f(T, h) = <beta, h_t>, the token t of the projected prompt, with beta the minimum-norm least-squares fit of the
training labels. On a training prompt W x = x, so once the n training tokens x_t span R^d (n >= d, almost surely)
beta = u exactly and the training loss is 0: an empirical risk minimiser whose first layer lies in S. On a fresh
prompt it predicts <P_t u, V^T V x>, the oracle E[y | Vx, t, u], so its risk is the line 1 - n/(Nd) itself: the
bound is tight, and a learner that beat it would have a first layer outside S. Below n = d, beta is u's projection
onto the span of the n training tokens and the risk sits above the line.

The readout arm of the ffn_span chapter (compute.points lists it), one point per N, by Monte Carlo over training
sets and u; its spec is the visibility arm's DrawsPoint under its own name. At N = 4 of the quick profile:

    >>> out = run_readout(ReadoutPoint(N=4, d=4, n=(4, 8, 12), draws=100, n_test=1000, seed=0), "cpu")
    >>> out["Nd"], out["n"], out["readout_mse"].mean(1).round(2)    # on the line 1 - n/(Nd) from n = d on
    (16, (4, 8, 12), array([0.75, 0.52, 0.25]))
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from lib.chapters.ffn_span.experiments.visibility import DrawsPoint
from lib.science.seeds import generator
from lib.science.span import oracle_predict, span_projector, unit_vectors


@dataclass(frozen=True)
class ReadoutPoint(DrawsPoint):
    """The span-restricted least-squares learner at one N, by Monte Carlo over (training set, u)."""


def min_norm_readout(x: torch.Tensor, t: torch.Tensor, y: torch.Tensor, N: int) -> torch.Tensor:
    """beta (K, d): the minimum-norm least-squares solution of <beta, x^(i)_{t_i}> = y_i for each of K training sets
    x (K, n, Nd) with indices t (K, n) and labels y (K, n) (the pseudo-inverse: min-norm when n < d)."""
    K, n, k = x.shape
    rows, cols = torch.arange(K, device=x.device)[:, None], torch.arange(n, device=x.device)[None, :]
    F = x.view(K, n, N, k // N)[rows, cols, t].double()                                  # (K, n, d)
    return (torch.linalg.pinv(F) @ y.double().unsqueeze(-1)).squeeze(-1)


def run_readout(spec: ReadoutPoint, device: str) -> dict:
    """The learner's test MSE for `draws` independent (training set, u) per n, each on its own test prompts, and
    the distance of its beta from u (0 once n >= d)."""
    t0 = time.perf_counter()
    N, d, K, M = spec.N, spec.d, spec.draws, spec.n_test
    gen = generator(spec.seed, "readout", N, device=device)
    mse, miss = [], []
    for n in spec.n:
        x = torch.randn(K, n, N * d, generator=gen, device=device)
        U = unit_vectors(K, d, gen, device)
        t = torch.randint(0, N, (K, n), generator=gen, device=device)
        rows = torch.arange(K, device=device)[:, None]
        y = torch.einsum("knd,kd->kn", x.view(K, n, N, d)[rows, torch.arange(n, device=device)[None, :], t], U)
        beta = min_norm_readout(x, t, y, N)
        P = span_projector(x, torch.full((K,), n))
        xt = torch.randn(K, M, N * d, generator=gen, device=device)
        tt = torch.randint(0, N, (K, M), generator=gen, device=device)
        yt = torch.einsum("kmd,kd->km", xt.view(K, M, N, d)[rows, torch.arange(M, device=device)[None, :], tt], U)
        mse.append((oracle_predict(P, beta, xt, tt, N) - yt.double()).pow(2).mean(1).cpu().numpy())
        miss.append((beta - U.double()).norm(dim=1).cpu().numpy())
    return {"N": N, "Nd": N * d, "n": spec.n, "readout_mse": np.array(mse), "beta_error": np.array(miss),
            "wall_s": time.perf_counter() - t0}
