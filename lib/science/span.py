"""The objects of the FFN span argument (Theorem 6 of Mousavi-Hosseini et al. 2025, Appendix B), for R runs at once:
Haar rotations and random directions, the projector on the span of a run's training inputs, the off-span energy of a
first layer's token columns, the visible fraction nu and the oracle that sees only the span, and full-batch gradient
descent (or AdamW) on a fixed training set with its stationarity residual.

    >>> P = span_projector(torch.randn(2, 5, 12), torch.tensor([3, 5])); P.shape, torch.linalg.matrix_rank(P)
    (torch.Size([2, 12, 12]), tensor([3, 5]))
"""
from __future__ import annotations

import math

import numpy as np
import torch

from lib.science import models
from lib.science.training import fit


def haar_orthogonal(R: int, k: int, gen: torch.Generator, device="cpu") -> torch.Tensor:
    """R independent Haar-distributed orthogonal k x k matrices: QR of a Gaussian matrix, with the signs of R's
    diagonal moved into Q (without that correction Q is not uniform on O(k))."""
    A = torch.randn(R, k, k, generator=gen, device=device)
    Q, Rm = torch.linalg.qr(A)
    return Q * torch.sign(torch.diagonal(Rm, dim1=-2, dim2=-1)).unsqueeze(-2)


def unit_vectors(R: int, d: int, gen: torch.Generator, device="cpu") -> torch.Tensor:
    """R directions u uniform on the sphere S^(d-1): the theorem averages the risk over u."""
    u = torch.randn(R, d, generator=gen, device=device)
    return u / u.norm(dim=1, keepdim=True)


def x_columns(N: int, D: int, d: int) -> torch.Tensor:
    """Indices of the token entries x_i in the flattened input z (N*D,), in the order of x = (x_1, ..., x_N)."""
    return (torch.arange(N)[:, None] * D + torch.arange(d)[None, :]).reshape(-1)


def span_projector(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    """(R, Nd, Nd): V^T V, the orthogonal projector onto span{x^(1), ..., x^(n_r)} of run r's training inputs
    x (R, n_max, Nd). One QR per run: padded rows must not enter the span (QR would give them basis vectors)."""
    R, _, k = x.shape
    if bool((n == n[0]).all()):  # one size for every run: one batched QR
        V = torch.linalg.qr(x[:, : int(n[0])].double().transpose(1, 2)).Q
        return V @ V.transpose(1, 2)
    P = torch.empty(R, k, k, dtype=torch.float64, device=x.device)
    for r in range(R):
        V = torch.linalg.qr(x[r, : int(n[r])].double().T).Q      # (Nd, min(n, Nd)), orthonormal columns
        P[r] = V @ V.T
    return P


def off_span_energy(Wx: torch.Tensor, P: torch.Tensor) -> torch.Tensor:
    """||W_x (I - V^T V)||_F^2 per run, in float64: the off-span residual is formed before squaring, so values
    down to ~1e-14 of ||W_x||^2 are resolved (subtracting squared norms would stop at ~1e-7)."""
    W = Wx.double()
    return (W - W @ P).pow(2).flatten(1).sum(1)


def layer_energies(params: models.Params, cols: torch.Tensor, P: torch.Tensor) -> torch.Tensor:
    """(R, 2): the token columns' off-span energy and total energy ||W_x||_F^2, what training records."""
    Wx = params["l0.w"][:, :, cols]
    return torch.stack([off_span_energy(Wx, P), Wx.double().pow(2).flatten(1).sum(1)], 1)


def visible_fraction(P: torch.Tensor, U: torch.Tensor, N: int) -> torch.Tensor:
    """nu = (1/N) sum_t ||V P_t u||^2 per run (exact over the uniform index t), where P_t u puts u in token t.
    Averaged over u uniform on the sphere it is tr(V^T V)/(Nd) = n/(Nd) exactly (Appendix B, last display)."""
    R, k, _ = P.shape
    d = k // N
    blocks = P.view(R, N, d, N, d).diagonal(dim1=1, dim2=3)      # (R, d, d, N): the N diagonal d x d blocks
    u = U.double()
    return torch.einsum("ri,rijt,rj->r", u, blocks, u) / N


def oracle_predict(P: torch.Tensor, U: torch.Tensor, x: torch.Tensor, t: torch.Tensor, N: int) -> torch.Tensor:
    """E[y | Vx, t, u] = <P_t u, V^T V x>: x | Vx ~ N(V^T V x, I - V^T V), so this is the best any predictor that
    sees x only through Vx can do; its risk is 1 - ||V P_t u||^2. x (R, B, Nd), t (R, B) -> (R, B)."""
    R, B, k = x.shape
    seen = (x.double() @ P).view(R, B, N, k // N)                # P is symmetric
    picked = seen[torch.arange(R, device=x.device)[:, None], torch.arange(B, device=x.device)[None, :], t]
    return torch.einsum("rbd,rd->rb", picked, U.double())


def ffn_init(model: models.FFN, R: int, gen: torch.Generator, device="cpu") -> models.Params:
    """PyTorch's default initialisation, except the first layer: Gaussian with the same variance 1/(3 fan_in).
    A Gaussian first layer is rotation invariant (WQ ~ W), so a GD-trained FFN on rotated tokens Qx has exactly
    the learning curve of the original one, in distribution; PyTorch's uniform init is only approximately so."""
    p = model.init(R, gen, device)
    fan_in = p["l0.w"].shape[-1]
    p["l0.w"] = torch.randn(p["l0.w"].shape, generator=gen, device=device) / math.sqrt(3 * fan_in)
    return p


def train_full_batch(forward, params: models.Params, z, y, n: torch.Tensor, steps: int, optimizer: str, lr: float,
                     l2: float, watch=None, every: int = 1):
    """Full-batch training of R runs at once, run r on its first n[r] prompts of z (R, n_max, N, D).

    optimizer "gd": SGD with weight_decay = l2, i.e. W <- W - lr (grad + l2 W), the gradient of the L2-penalised
    loss; "adamw": AdamW with decoupled decay l2. The loss of a run is (1/nN) sum_ij (f_j - y_j)^2, the paper's
    L-hat; the gradient of the sum over runs is each run's own gradient. watch(params) -> (R, k) is recorded at
    step 0 and every `every` steps (and at the last). Returns final params, recorded steps, records (T, R, k).
    """
    mask = (torch.arange(z.shape[1], device=z.device)[None, :] < n[:, None].to(z.device)).to(z.dtype)
    params = {k: v.detach().clone().requires_grad_() for k, v in params.items()}
    opt = (torch.optim.SGD(list(params.values()), lr=lr, weight_decay=l2) if optimizer == "gd" else
           torch.optim.AdamW(list(params.values()), lr=lr, weight_decay=l2))
    nf = n.to(z.device, z.dtype)
    steps_seen, records = [], []

    def record(step, *_):
        if watch is not None and (step == 0 or step % every == 0 or step == steps):
            with torch.no_grad():
                records.append(watch(params).cpu())
            steps_seen.append(step)

    record(0)
    fit(opt, lambda step: ((((forward(params, z) - y).pow(2).mean(-1) * mask).sum(1) / nf), None), steps, record)
    return params, steps_seen, (torch.stack(records) if records else None)


def first_layer_residual(forward, params, z, y, n, l2: float) -> tuple[np.ndarray, np.ndarray]:
    """(train loss, ||grad_W L-hat + l2 W||_F / ||l2 W||_F) per run: how far W is from a stationary point of
    Definition 5 (0 at one)."""
    mask = (torch.arange(z.shape[1], device=z.device)[None, :] < n[:, None].to(z.device)).to(z.dtype)
    p = {k: v.detach().clone().requires_grad_(k == "l0.w") for k, v in params.items()}
    losses = ((forward(p, z) - y).pow(2).mean(-1) * mask).sum(1) / n.to(z.device, z.dtype)
    (grad,) = torch.autograd.grad(losses.sum(), [p["l0.w"]])
    W = p["l0.w"].detach()
    res = (grad + l2 * W).flatten(1).norm(dim=1) / (l2 * W).flatten(1).norm(dim=1)
    return losses.detach().cpu().numpy(), res.cpu().numpy()
