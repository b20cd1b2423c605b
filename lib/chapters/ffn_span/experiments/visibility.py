"""The visibility arm of Theorem 6 (Appendix B): the visible fraction nu = E_t ||V P_t u||^2 of the target direction
and the risk of the oracle E[y | Vx, t, u], by Monte Carlo over training sets, u and test prompts; and `DrawsPoint`,
the spec of a Monte-Carlo point over (training set, u) draws that this arm and the read-out share."""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from lib.science.seeds import generator
from lib.science.span import oracle_predict, span_projector, unit_vectors, visible_fraction


@dataclass(frozen=True)
class DrawsPoint:
    """A Monte-Carlo point at one N over (training set, u) draws; its subclasses are the store's point types (the
    type's name is part of a point's key, so a read-out and a visibility point with the same fields differ)."""
    N: int                     # sequence length
    d: int                     # token dimension
    n: tuple[int, ...]         # training-set sizes, all below N*d (the theorem's range)
    draws: int                 # independent (training set, u) per n
    n_test: int                # test prompts per draw
    seed: int                  # seed of every draw

    @classmethod
    def at(cls, P: dict, N: int, n_values):
        ns = tuple(n for n in n_values(N, P["d"], P["n_over_Nd"]) if n < N * P["d"])   # the theorem's range
        # Test prompts per draw, at most 1000: the Monte-Carlo error is dominated by the draws of (V, u).
        return cls(N=N, d=P["d"], n=ns, draws=P["n_draws"], n_test=min(P["n_test"], 1000), seed=P["seed"])


@dataclass(frozen=True)
class VisibilityPoint(DrawsPoint):
    """The visible fraction and the oracle's risk at one N, by Monte Carlo over training sets and u."""


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
