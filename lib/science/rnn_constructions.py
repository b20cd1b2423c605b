"""Two recurrent networks of Mousavi-Hosseini et al. 2025 built by hand, exactly as its proofs build them.

- Theorem 7 / App. C: the bidirectional accumulator that solves simple-qSTR at width d_h = q d per direction, an
  exact ReLU network on the code's encoding (a hypercube-code matcher, a dead-zone rectifier and the gadget
  x 1[off = 0] = relu(x - B off) - relu(-x - B off)), whose recurrence is a running sum.
- Theorem 9 (Lemmas 36-38): the memoriser of n point-wise samples, Lemma 37's random direction, Lemma 38's ReLU
  interpolant of the projected tokens, written as the Elman network of `lib.science.models.BiRNN` (U = 0, no
  recurrence).

They are constructions only: rnn_norm_growth measures them (lib.chapters.rnn_norm_growth.compute).

    >>> task = construction_task(N=12, d=3, q=2, simple=True, task_seed=0)
    >>> X, T = task.draw(1, 4, torch.Generator().manual_seed(0))
    >>> fwd, bwd, own = accumulate(transition(task.encode(X, T)[0], 2, 3, task.d_e, 12.0))
    >>> target = torch.cat([X[0].gather(1, T[0][..., h, None].expand(-1, -1, 3)) for h in range(2)], -1)   # (x_t1, x_t2)
    >>> bool((fwd + bwd + own == target).all())
    True
"""
from __future__ import annotations

import math

import torch

from lib.science import qstr
from lib.science.models import Params
from lib.science.seeds import generator


# ================================================================================== the Thm 7 accumulator
def distinct_codes(N: int, d_e: int, gen: torch.Generator) -> torch.Tensor:
    """N distinct Rademacher codes in {+-1/sqrt(d_e)}^{d_e} (rows that repeat an earlier row are redrawn).

    The accumulator needs only that codes differ (it compares them coordinate by coordinate); Assumption 3
    (overlaps <= 1/2) is not needed and random codes with d_e = floor(5 ln N) do not satisfy it."""
    if 2 ** d_e < N:
        raise ValueError(f"{N} distinct codes need d_e >= log2 N, got d_e={d_e}")
    E = qstr.rademacher_codes(N, d_e, gen)
    while True:
        _, inverse, counts = torch.unique(E, dim=0, return_inverse=True, return_counts=True)
        first = torch.full((len(counts),), N, dtype=torch.long).scatter_reduce(0, inverse, torch.arange(N), "amin")
        dup = first[inverse] != torch.arange(N)
        if not dup.any():
            return E
        E[dup] = qstr.rademacher_codes(int(dup.sum()), d_e, gen)


def dead_zone(x: torch.Tensor, b: float) -> torch.Tensor:
    """The rectifier of Prop. 26: relu(x - b) - relu(-x - b), exactly 0 where |x| <= b, x -+ b elsewhere."""
    return torch.relu(x - b) - torch.relu(-x - b)


def gate(x: torch.Tensor, off: torch.Tensor, B: float) -> torch.Tensor:
    """The exact ReLU gadget x * 1[off = 0] = relu(x - B off) - relu(-x - B off), for |x| <= B and off = 0 or off >= 1."""
    return torch.relu(x - B * off) - torch.relu(-x - B * off)


def transition(z: torch.Tensor, q: int, d: int, d_e: int, B: float) -> torch.Tensor:
    """Psi(z_i) = (x_i 1[t_l = i])_{l <= q} in R^(q d): the accumulator's transition, a depth-3 ReLU network of z_i
    = (x_i, w_i, w_t1, ..., w_tq) (the code's encoding) that ignores the state (alpha_N = 0 in Thm 7).

    Layer 1: relu(+-(w_i + w_tl)), coordinate by coordinate; |a + b| is 2c where the codes agree and 0 where they
    differ (c = 1/sqrt(d_e)). Layer 2: off_l = 2 relu(m_l - 1/2), with m_l = sum_k (1 - |a_k + b_k| / 2c) the number
    of coordinates where w_i and w_tl differ: 0 on a match, >= 1 otherwise (the dead zone makes the 0 exact in
    floating point). Layer 3: the gadget x_i 1[off_l = 0]. z (..., N, D) -> (..., N, q d)."""
    x, own = z[..., :d], z[..., d:d + d_e]
    tgt = z[..., d + d_e:d + (q + 1) * d_e].unflatten(-1, (q, d_e))            # (..., N, q, d_e)
    s = own.unsqueeze(-2) + tgt
    absval = torch.relu(s) + torch.relu(-s)                                    # layer 1
    c2 = 2 / math.sqrt(d_e)
    m = (1 - absval / c2).sum(-1)                                              # (..., N, q)
    off = 2 * torch.relu(m - 0.5)                                              # layer 2
    return gate(x.unsqueeze(-2), off.unsqueeze(-1), B).flatten(-2)             # layer 3: (..., N, q d)


def accumulate(psi: torch.Tensor, bias: float = 0.0, rectify: float | None = None):
    """The bidirectional accumulator h_(i+1) = h_i + f(Psi_i), run over a whole sequence at once.

    f(Psi) = Psi + bias (every coordinate: the C.1 setting, a transition that is only approximately right), then
    the dead-zone rectifier of width `rectify` if given (C.2). Returns (forward, backward, own): the forward
    state before position i (tokens < i), the backward state (tokens > i) and f at i itself, each (..., N, q d);
    the prediction reads forward + backward + own. A cumulative sum is the recurrence (the transition ignores h;
    `recurrent_accumulate` runs the same thing step by step)."""
    f = psi + bias
    if rectify is not None:
        f = dead_zone(f, rectify)
    cs = f.cumsum(-2)
    fwd = cs - f                                                               # sum over j < i
    bwd = cs[..., -1:, :] - cs                                                 # sum over j > i
    return fwd, bwd, f


def recurrent_accumulate(psi: torch.Tensor, bias: float = 0.0, rectify: float | None = None):
    """`accumulate` as an explicit recurrence, one step per token in each direction (for the tests)."""
    f = psi + bias
    if rectify is not None:
        f = dead_zone(f, rectify)
    N = f.shape[-2]
    h = torch.zeros_like(f[..., 0, :])
    fwd = []
    for i in range(N):
        fwd.append(h)
        h = h + f[..., i, :]
    h = torch.zeros_like(h)
    bwd = [None] * N
    for i in reversed(range(N)):
        bwd[i] = h
        h = h + f[..., i, :]
    return torch.stack(fwd, -2), torch.stack(bwd, -2), f


def readout(state: torch.Tensor, u: torch.Tensor, q: int) -> torch.Tensor:
    """The linear link read from the state (x_t1, ..., x_tq): sum_l <u, x_tl> / sqrt(q)."""
    return (state.unflatten(-1, (q, -1)) @ u).sum(-1) / math.sqrt(q)


def construction_task(N: int, d: int, q: int, simple: bool, task_seed: int, device="cpu") -> qstr.QSTR:
    """The qSTR task of the chapter's seeds, with distinct position codes (what the accumulator's matcher needs)."""
    task = qstr.QSTR(N=N, d=d, q=q, simple=simple, task_seed=task_seed, device=device)
    task.E = distinct_codes(N, task.d_e, generator(task_seed, "distinct-codes", N)).to(device)
    return task


# ============================================================== Theorem 9: the memoriser of Lemmas 36-38
def min_gap(z: torch.Tensor) -> float:
    """The smallest distance between two of the scalars z (inf for fewer than two)."""
    return float(z.sort().values.diff().min()) if z.numel() > 1 else math.inf


def lemma37_direction(x: torch.Tensor, gen: torch.Generator, tries: int = 32):
    """Lemma 37: a unit v whose projections z = x v (x (n, d)) are pairwise >= sqrt(pi) / (3 n^2) apart, with
    ||z||^2 <= 3 n. The lemma's probabilistic method made constructive: draw v uniformly on the sphere until both
    hold (a draw does with probability >= 1/3, by a union bound and Markov); after `tries` misses, the draw with
    the largest gap. Returns (v, z, gap, draws used, whether the lemma's event holds)."""
    n = x.shape[0]
    bound = math.sqrt(math.pi) / (3 * n ** 2)
    best = None
    for k in range(1, tries + 1):
        v = torch.randn(x.shape[1], generator=gen, device=x.device, dtype=x.dtype)
        v = v / v.norm()
        z = x @ v
        gap = min_gap(z)
        event = gap >= bound and float(z.pow(2).sum()) <= 3 * n
        if best is None or gap > best[2]:
            best = (v, z, gap, k, event)
        if event:
            return v, z, gap, k, True
    return best[0], best[1], best[2], tries, False


def relu_interpolant(z: torch.Tensor, y: torch.Tensor) -> dict:
    """Lemma 38: g(t) = sum_k a_k relu(w_k t - b_k) with m = n units and g(z_i) = y_i exactly, for distinct z.

    With z sorted and slopes s_i = (y_i - y_(i-1)) / (z_i - z_(i-1)), the proof's units are a' = (y_1, s_2 - y_1,
    s_3 - s_2, ..., s_n - s_(n-1)) at b' = (z_1 - 1, z_1, ..., z_(n-1)), w' = 1: g rises from 0 at z_1 - 1 to y_1
    and then follows the chords. The balancing rescale alpha = ((||z||^2 + n) eps^2 / ||y||^2)^(1/4) (eps the
    smallest gap, capped at 1 as the lemma assumes) gives a = alpha a', w = w' / alpha, b = b' / alpha: the same
    function, with ||a||^2 + ||w||^2 + ||b||^2 = O(||y|| sqrt(n + ||z||^2) / eps) (C.16). Also returned: the norm
    of the rescale that minimises it for these a', b', 2 ||a'|| sqrt(n + ||b'||^2).

        >>> fit = relu_interpolant(torch.tensor([0.3, -1.0, 2.0]), torch.tensor([1.0, 0.5, -2.0]))
        >>> round(fit["norm_sq"], 2), round(fit["norm_sq_balanced"], 2)
        (12.58, 12.57)
    """
    n = z.numel()
    order = z.argsort()
    zs, ys = z[order], y[order]
    slopes = ys.diff() / zs.diff()                                              # s_2, ..., s_n
    a1 = torch.cat([ys[:1], slopes[:1] - ys[:1], slopes.diff()])[:n]           # n = 1: the first unit alone
    b1 = torch.cat([zs[:1] - 1, zs[:-1]])[:n]
    eps = min(min_gap(z), 1.0)
    alpha = float(((z.pow(2).sum() + n) * eps ** 2 / y.pow(2).sum()) ** 0.25)
    a, w, b = alpha * a1, torch.full_like(zs, 1 / alpha), b1 / alpha
    return {"a": a, "w": w, "b": b, "alpha": alpha, "eps": eps,
            "norm_sq": float(a.pow(2).sum() + w.pow(2).sum() + b.pow(2).sum()),
            "norm_sq_balanced": float(2 * a1.norm() * (n + b1.pow(2).sum()).sqrt())}


def interpolant(net: dict, t: torch.Tensor) -> torch.Tensor:
    """g(t) = sum_k a_k relu(w_k t - b_k) of `relu_interpolant`, for scalars t (T,), in chunks of about 2^22 units."""
    chunk = max(1, 2 ** 22 // net["a"].numel())
    return torch.cat([torch.relu(c[:, None] * net["w"] - net["b"]) @ net["a"] for c in t.split(chunk)])


def rounding_scale(net: dict, v: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """R_i = sum_k |a_k| (|w_k| sum_d |v_d x_id| + |b_k|): the size of the terms the memoriser adds up at token x_i
    (its pre-activations' and its output's), so that float64 evaluates it to about u R_i, u = 2^-53. The terms
    cancel to a label of order 1, but their size grows like a power of n (Lemma 38's slopes are 1/eps ~ n^2): the
    memoriser is exact in exact arithmetic and ill-conditioned in floating point. A sum of K terms has a rounding
    error of about sqrt(K) u times their size (the probabilistic bound of Higham and Mary), K = n + D here."""
    c = (x * v).abs().sum(-1)
    return c * (net["a"] * net["w"]).abs().sum() + (net["a"] * net["b"]).abs().sum()


def memoriser_params(v: torch.Tensor, net: dict, D: int) -> Params:
    """The memoriser of Thm 9's proof (case d_h >= n, L_y = 2) as the Elman network of models.BiRNN, one run:
    Theta_h = 0 (the states are tanh(0) = 0), U = 0, readout width m = n with W_y rows w_k v^T on the token block
    and 0 on the position codes, b_1 = -b, w_2 = a, b_2 = 0, so y_j = sum_k a_k relu(w_k <v, x_j> - b_k): Lemma 38's
    g of Lemma 37's projection of the token at j. The state is zero and unread, so its width (1 here) changes
    neither the outputs nor ||vec Theta||; the theorem's d_h >= n is the width at which the case arises."""
    m, d = net["a"].numel(), v.numel()
    Wy = torch.zeros(1, m, D, dtype=v.dtype, device=v.device)
    Wy[0, :, :d] = net["w"][:, None] * v
    zero = lambda *shape: torch.zeros(1, *shape, dtype=v.dtype, device=v.device)
    return {"rnn.w_ih": zero(2, 1, D), "rnn.w_hh": zero(2, 1, 1), "rnn.b_ih": zero(2, 1), "rnn.b_hh": zero(2, 1),
            "rd.U": zero(m, 2), "rd.Wy": Wy, "rd.b": -net["b"][None], "rd.w2": net["a"][None, None], "rd.b2": zero(1),
            "buf.mask": torch.ones(1, 1, dtype=v.dtype, device=v.device)}
