"""Eq. A.2 of Mousavi-Hosseini et al. 2025: the attention construction whose heads retrieve the tokens t_i1..t_iq of qSTR exactly.

Head h's W_QK is alpha times the identity from the query's w_{t_h} slot to the key's own w_j slot, so its score
from query i to key j is alpha <w_{t_ih}, w_j>, and the larger alpha the less attention leaks off the target.
Lemma 11 needs this uniformly over targets, for codes that satisfy Assumption 3 (|<w_i, w_j>| <= 1/2, i != j), and
bounds the (2,1) norm of W_QK: here alpha*(N) is the smallest alpha that keeps the *worst* target's off-target mass
below a level, on codes drawn under Assumption 3. head_lower_bound measures it against N; rnn_norm_growth compares
it with the norms recurrent networks need. This module is the construction and its exact statistics only.

    >>> out = sweep(task_seed=0, Ns=[16, 64, 256], off_target=0.01, draws=2)
    >>> [round(a, 1) for a in out["alpha_star"]], [round(n) for n in out["norm"]]   # alpha* and its (2,1) norm grow with N
    ([9.7, 12.8, 13.7], [127, 256, 369])
"""
from __future__ import annotations

import math

import numpy as np
import torch

from lib.science import models, qstr
from lib.science.seeds import generator


def weights(q: int, d: int, d_e: int, alpha: float) -> torch.Tensor:
    """W_QK of the q heads, (q, D, D) with D = d + (q+1) d_e. Head h compares the query's w_{t_h} slot
    (rows d + (h+1) d_e ...) with the key's own w_j slot (columns d ... d + d_e): alpha times the identity.

        >>> weights(1, 10, 23, 2.0)[0, 33:56, 10:33].diag().unique()
        tensor([2.])
    """
    D = d + (q + 1) * d_e
    W = torch.zeros(q, D, D)
    for h in range(q):
        r0 = d + (h + 1) * d_e
        W[h, r0:r0 + d_e, d:d + d_e] = alpha * torch.eye(d_e)
    return W


def norm21(W: torch.Tensor) -> float:
    """||W^T||_{2,1} (Lemma 11's norm): the sum over the rows of W of their Euclidean norms. For A.2: alpha d_e."""
    return float(W.double().norm(dim=-1).sum())


def model(q: int, d: int, d_e: int, alpha: float, device="cpu") -> dict:
    """The A.2 attention as MergedAttention parameters (no MLP needed to read the heads; its weights are zero)."""
    D = d + (q + 1) * d_e
    p = models.MergedAttention(D=D, H=q, m=1).init(1, torch.Generator().manual_seed(0), device)
    p = {k: torch.zeros_like(v) for k, v in p.items()}
    p["qk"] = weights(q, d, d_e, alpha)[None].to(device)
    p["buf.heads"] = torch.ones(1, q, device=device)
    return p


# ------------------------------------------------------------------------------------------ the position codes
def assumption3(E: torch.Tensor) -> bool:
    """Assumption 3: unit codes whose pairwise overlaps are at most 1/2 in absolute value (N^2 memory: for tests)."""
    G = (E.double() @ E.double().T).fill_diagonal_(0)
    return bool(torch.allclose(E.double().norm(dim=1), torch.ones(len(E), dtype=torch.float64)) and G.abs().max() <= 0.5)


def codes(task_seed: int, N: int, d_e: int, draw: int = 0, max_flips: int = 10_000) -> torch.Tensor:
    """Draw number `draw` of N Rademacher codes in {+-1/sqrt(d_e)}^{d_e} that satisfy Assumption 3 (the codes of
    qSTR do not: with d_e = floor(5 ln N) a few pairs overlap by more than 1/2, about 50 pairs at N = 100).

    Random codes, repaired one at a time: while code j overlaps an earlier one by more than 1/2, it flips the
    coordinate that leaves the fewest such overlaps (ties broken at random), and is drawn afresh after 2 d_e flips
    (a local minimum). Redrawing whole codes instead would need about e^7 tries for the last codes at N = 4096."""
    gen = generator(task_seed, "a2-codes", N, draw)
    S = torch.round(qstr.rademacher_codes(N, d_e, gen) * math.sqrt(d_e))                  # +-1 entries
    limit = d_e / 2
    for j in range(1, N):
        flips = 0
        for _ in range(max_flips):
            g = S[:j] @ S[j]
            if g.abs().max() <= limit:
                break
            # flipping coordinate b of code j changes <s_j, s_k> by -2 s_jb s_kb: the clashes after each flip
            count = ((g[None] - 2 * S[j][:, None] * S[:j].T).abs() > limit).sum(1)
            S[j, torch.argmin(count + torch.rand(d_e, generator=gen) * 0.5)] *= -1
            if (flips := flips + 1) % (2 * d_e) == 0:                    # a local minimum: start j afresh
                S[j] = torch.randint(0, 2, (d_e,), generator=gen) * 2.0 - 1
        else:
            raise RuntimeError(f"code {j} of {N} (dimension {d_e}) still overlaps another by more than 1/2")
    return S / math.sqrt(d_e)


def overlap_counts(E: torch.Tensor, rows: int = 512) -> torch.Tensor:
    """For each target t, how many other codes j != t have overlap <w_t, w_j> = (2k - d_e)/d_e, k = 0..d_e:
    (N, d_e + 1) counts. Rademacher overlaps take these d_e + 1 values only, so every statistic of a target's
    attention is an exact sum over k (N d_e numbers per alpha instead of N^2)."""
    N, d_e = E.shape
    S = torch.round(E * math.sqrt(d_e)).long()                 # +-1 entries
    out = torch.zeros(N, d_e + 1, dtype=torch.float64)
    for i in range(0, N, rows):
        k = (S[i:i + rows] @ S.T + d_e) // 2                   # (rows, N) in 0..d_e
        out[i:i + rows].scatter_add_(1, k, torch.ones(k.shape, dtype=torch.float64))
    out[torch.arange(N), d_e] -= 1                             # the target itself (overlap 1)
    return out


def stats_from_counts(C: torch.Tensor, alpha: float, scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Off-target mass 1 - a_t and retrieval error sum_{j != t} a_j^2 + (1 - a_t)^2 of every target, from
    `overlap_counts` (float64; scores shifted by the target's own, so nothing overflows)."""
    d_e = C.shape[1] - 1
    rho = torch.arange(d_e + 1, dtype=torch.float64) * 2 / d_e - 1
    w = torch.exp(alpha * scale * (rho - 1))                   # e^{score_j - score_t}
    Z = 1 + C @ w
    off = (C @ w) / Z
    return off, (C @ w.pow(2)) / Z.pow(2) + off.pow(2)


def stats_from_overlaps(G: torch.Tensor, alpha: float, scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    """`off_target` from the overlaps G[t, j] = <w_t, w_j> (float64) of the targets with every key."""
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
    Et = E if targets is None else E[:targets]
    return stats_from_overlaps(Et.double() @ E.double().T, alpha, scale)


# ------------------------------------------------------------------------------------------ alpha*(N) and fits
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


def bounds(N: int, off_target: float, scale: float) -> tuple[float, float]:
    """alpha* of the worst target lies between these for unit codes whose overlaps lie in [-1, 1/2] (Assumption 3).
    Above (Lemma 11's argument): every other key scores at least alpha s/2 below the target, so (N-1) e^{-alpha s/2}
    <= eps/(1-eps) suffices. Below: even overlaps of -1 leave every key 2 alpha s below, so alpha must reach
    ln((N-1)(1-eps)/eps) / (2 s). Both are multiples of ln N: alpha* = Theta(log N) holds for every such code."""
    L = math.log(max(N - 1, 1) * (1 - off_target) / off_target)
    return L / (2 * scale), 2 * L / scale


def sweep(task_seed: int, Ns, off_target: float, draws: int, scale: float = 1.0, d_e_rule: str = "floor",
          alphas=None) -> dict:
    """alpha*(N) of the worst target, per draw of Assumption-3 codes, its mean over draws, the (2,1) norm alpha* d_e
    of one head's W_QK, and (for `alphas`) the worst and median target's off-target mass and retrieval error."""
    out = {"N": list(Ns), "d_e": [], "alpha_draws": [], "alpha_star": [], "norm": [], "mass_worst": [], "mass_median": [],
           "err_worst": [], "low": [], "high": [], "assumption3": []}
    for N in Ns:
        d_e = qstr.embed_dim_rule(N, d_e_rule)
        Es = [codes(task_seed, N, d_e, draw) for draw in range(draws)]
        Cs = [overlap_counts(E) for E in Es]
        per = [alpha_star(lambda a, C=C: float(stats_from_counts(C, a, scale)[0].max()), off_target) for C in Cs]
        curves = [[stats_from_counts(C, a, scale) for C in Cs] for a in (alphas if alphas is not None else [])]
        mass = [torch.cat([m for m, _ in c]) for c in curves]
        err = [torch.cat([e for _, e in c]) for c in curves]
        low, high = bounds(N, off_target, scale)
        out["d_e"].append(d_e)
        out["alpha_draws"].append(per)
        out["alpha_star"].append(float(np.mean(per)))
        out["norm"].append(float(np.mean(per)) * d_e)
        out["mass_worst"].append([float(m.max()) for m in mass])
        out["mass_median"].append([float(m.median()) for m in mass])
        out["err_worst"].append([float(e.max()) for e in err])
        out["low"].append(low)
        out["high"].append(high)
        rho = torch.arange(d_e + 1) * 2 / d_e - 1
        out["assumption3"].append(all(float(C[:, rho.abs() > 0.5].sum()) == 0 for C in Cs))   # no overlap above 1/2
    return out


GROWTHS = {"ln N": np.log, "N^1/4": lambda n: n ** 0.25, "N^1/2": np.sqrt}


def compare_fits(N, y, growths: dict | None = None) -> dict:
    """y = a + b f(N) for f in `growths` (default GROWTHS), by least squares: each fit's slope b, intercept a,
    residual sum of squares and AIC = n ln(RSS/n) + 2k (k = 2 for all, so the AIC differences are n ln of the RSS
    ratios); `best` is the lowest AIC and `margin` its AIC gap to the next (>= 2: the data favour it, >= 10:
    strongly)."""
    N, y = np.asarray(N, float), np.asarray(y, float)
    growths = GROWTHS if growths is None else growths
    out = {}
    for name, f in growths.items():
        b, a = np.polyfit(f(N), y, 1)
        rss = float(np.sum((y - (a + b * f(N))) ** 2))
        out[name] = {"slope": float(b), "intercept": float(a), "rss": rss,
                     "aic": float(len(y) * math.log(max(rss, 1e-300) / len(y)) + 4)}
    order = sorted(growths, key=lambda k: out[k]["aic"])
    return {"fits": out, "best": order[0], "margin": out[order[1]]["aic"] - out[order[0]]["aic"]}
