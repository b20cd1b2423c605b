"""Eq. A.2 of seed 000: the attention construction whose heads retrieve the tokens t_i1..t_iq of qSTR exactly.

Head h's W_QK is alpha times the identity from the query's w_{t_h} slot to the key's own w_j slot, so its score
from query i to key j is alpha <w_{t_ih}, w_j>, and the larger alpha the less attention leaks off the target.
head_lower_bound measures the leak against alpha and N; rnn_norm_growth compares the alpha it needs, alpha*(N),
with the norms recurrent networks need. This module is the construction and its exact statistics only.

    >>> G = overlaps(0, 64, 20, draws=2); alpha_star(lambda a: pooled(G, a, 1.0)[0], 0.01)
"""
from __future__ import annotations

import numpy as np
import torch

from lib.science import models, qstr
from lib.science.stats import generator


def weights(q: int, d: int, d_e: int, alpha: float) -> torch.Tensor:
    """W_QK of the q heads, (q, D, D) with D = d + (q+1) d_e. Head h compares the query's w_{t_h} slot
    (rows d + (h+1) d_e ...) with the key's own w_j slot (columns d ... d + d_e): alpha times the identity.
        >>> weights(1, 10, 23, 2.0)[0, 33:56, 10:33].diag().unique()   # tensor([2.])
    """
    D = d + (q + 1) * d_e
    W = torch.zeros(q, D, D)
    for h in range(q):
        r0 = d + (h + 1) * d_e
        W[h, r0:r0 + d_e, d:d + d_e] = alpha * torch.eye(d_e)
    return W


def model(q: int, d: int, d_e: int, alpha: float, device="cpu") -> dict:
    """The A.2 attention as MergedAttention parameters (no MLP needed to read the heads; its weights are zero)."""
    D = d + (q + 1) * d_e
    p = models.MergedAttention(D=D, H=q, m=1).init(1, torch.Generator().manual_seed(0), device)
    p = {k: torch.zeros_like(v) for k, v in p.items()}
    p["qk"] = weights(q, d, d_e, alpha)[None].to(device)
    p["buf.heads"] = torch.ones(1, q, device=device)
    return p


def codes(task_seed: int, N: int, d_e: int, draw: int = 0) -> torch.Tensor:
    """Draw number `draw` of the Rademacher position codes the A.2 sweeps use at length N."""
    return qstr.rademacher_codes(N, d_e, generator(task_seed, "a2-codes", N, draw))


def stats_from_overlaps(G: torch.Tensor, alpha: float, scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    """`off_target` from the overlaps G[t, j] = <w_t, w_j> (float64) of the targets with every key (compute G once
    when sweeping alpha)."""
    a = torch.softmax(alpha * scale * G, dim=1)                             # row t: attention over keys
    on = a.diagonal()
    return 1 - on, a.pow(2).sum(1) - on.pow(2) + (1 - on).pow(2)


def off_target(E: torch.Tensor, alpha: float, scale: float, targets: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Exact A.2 statistics for every target t (or the first `targets` ones), from the codes E (N, d_e) alone.

    Under A.2 head h's score from query i to key j is alpha * scale * <w_{t_ih}, w_j> (scale = d/q with the paper's
    encoding, 1 with the code's): it depends on the target t only. Returns, for each t, the off-target attention
    mass 1 - a_t and the mean squared retrieval error per token coordinate, E|sum_j a_j x_j - x_t|^2 / d
    = sum_{j != t} a_j^2 + (1 - a_t)^2 for independent N(0, I_d) tokens.
    """
    Et = E if targets is None else E[:targets]                               # the codes are random: any rows will do
    return stats_from_overlaps((Et @ E.T).double(), alpha, scale)


def overlaps(task_seed: int, N: int, d_e: int, draws: int, targets: int | None = None) -> list[torch.Tensor]:
    """For each of `draws` draws of the codes: the overlaps (float64) of the first `targets` codes (all by default)
    with every code. Computed once per N, then reused for every alpha of a sweep or a bisection (`pooled`)."""
    out = []
    for draw in range(draws):
        E = codes(task_seed, N, d_e, draw)
        out.append(((E if targets is None else E[:targets]) @ E.T).double())
    return out


def pooled(grams: list[torch.Tensor], alpha: float, scale: float, reduce=torch.median) -> tuple[float, float]:
    """Off-target mass and retrieval error over every target of every draw (`overlaps`), summarised by `reduce`."""
    mass, err = (torch.cat(v) for v in zip(*(stats_from_overlaps(G, alpha, scale) for G in grams)))
    return float(reduce(mass)), float(reduce(err))


def log_fit(N, alpha) -> dict:
    """alpha against ln N by least squares (Lemma 11's log N growth): slope, intercept and R^2."""
    logN, a = np.log(np.asarray(N, float)), np.asarray(alpha, float)
    slope, icpt = np.polyfit(logN, a, 1)
    resid = a - (slope * logN + icpt)
    return {"slope": float(slope), "intercept": float(icpt), "r2": float(1 - resid.var() / a.var()) if a.var() > 0 else 1.0}


def alpha_star(mass, target: float, steps: int = 40) -> float:
    """The smallest alpha with mass(alpha) <= target, for a mass that decreases in alpha: doubling to bracket it,
    then `steps` bisections (returns the upper end, so mass(alpha_star) <= target holds)."""
    lo, hi = 0.0, 1.0
    while mass(hi) > target:
        hi *= 2
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mass(mid) > target else (lo, mid)
    return hi
