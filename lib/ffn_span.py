"""Theorem 6 of seed 000 (Appendix B): a network whose first layer is fully connected on the flattened tokens
needs about N*d samples to learn simple-1STR, because that layer only ever sees the span of its training inputs.

Four measurements, each a stored point (see `compute`):

- span: one training set, full-batch GD with L2 and AdamW from the same start; the off-span energy
  ||W_x (I - V^T V)||_F^2 of the first layer's token columns W_x, relative to the span of the n training inputs
  (orthonormal rows V), recorded along the way. Under GD it decays exactly as (1 - lr*l2)^(2t).
- visibility (one per N): the visible fraction nu = E_t ||V P_t u||^2 of the target direction and the risk of the
  oracle E[y | Vx, t, u], by Monte Carlo over training sets, u and test prompts; both against n/(Nd).
- ffn (one per N, and once with rotated prompts): GD-trained FFNs for n = c*N*d, every run with its own u,
  training set and initialisation; test MSE beside the oracle's on the same test prompts.
- transformer: the same learning curve for a one-layer Transformer (AdamW, lib.engine) with and without the
  rotation x -> Qx of the token block, Q Haar-distributed on O(Nd).

    >>> results = compute(P, Store("ffn_span", "quick"), device="cpu")
    >>> claims(P, results)
"""
from __future__ import annotations

import math
import time

import numpy as np
import torch

from . import engine, models, qstr
from .claims import Claim
from .stats import generator, log_crossing, loglog_slope, zscore  # noqa: F401  (loglog_slope, zscore: used below and by tests)
from .store import Store, environment, result_array

LAW_FLOOR = 1e-6  # the decay law is checked while (1 - lr l2)^(2t) >= this (see run_ffn)
LABELS = {"gd": "FFN, full-batch GD + L2", "adamw": "FFN, AdamW (the paper's optimiser)"}


def n_values(N: int, d: int, n_over_Nd) -> list[int]:
    """Training-set sizes n = round(c * N * d), at least 1, for every multiple c of N*d."""
    return [max(1, round(c * N * d)) for c in n_over_Nd]


# ------------------------------------------------------------------------------------------------- data
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


def x_columns(N: int, D: int, d: int) -> torch.Tensor:
    """Indices of the token entries x_i in the flattened input z (N*D,), in the order of x = (x_1, ..., x_N)."""
    return (torch.arange(N)[:, None] * D + torch.arange(d)[None, :]).reshape(-1)


# ----------------------------------------------------------------------------------------- the span argument
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


# ---------------------------------------------------------------------------------------------- training
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

    def record(step):
        if watch is not None:
            with torch.no_grad():
                records.append(watch(params).cpu())
            steps_seen.append(step)

    record(0)
    for step in range(1, steps + 1):
        opt.zero_grad(set_to_none=True)
        loss = (((forward(params, z) - y).pow(2).mean(-1) * mask).sum(1) / nf).sum()
        loss.backward()
        opt.step()
        if step % every == 0 or step == steps:
            record(step)
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
def span_spec(P: dict) -> dict:
    N = P["span_N"]
    n = min(n_values(N, P["d"], [P["span_n_over_Nd"]])[0], N * P["d"] - 1)   # below Nd, or nothing is off the span
    return {"kind": "span", "N": N, "n": n, "d": P["d"],
            "seed": P["seed"], "task_seed": P["task_seed"], "n_seeds": P["n_seeds"], "ffn_width": P["ffn_width"],
            "steps": P["gd_steps"], "every": P["record_every"], "gd_lr": P["gd_lr"], "gd_l2": P["gd_l2"],
            "adamw_lr": P["adamw_lr"], "adamw_weight_decay": P["adamw_weight_decay"]}


def run_span(spec: dict, device: str) -> dict:
    """GD and AdamW on the same training sets from the same initialisations; off-span energy along the way."""
    t0 = time.perf_counter()
    N, d, n, S = spec["N"], spec["d"], spec["n"], spec["n_seeds"]
    task = qstr.QSTR(N=N, d=d, simple=True, task_seed=spec["task_seed"], device=device)
    model = models.FFN(N, task.D, (N * d, spec["ffn_width"]))
    gen = generator(spec["seed"], "span", N, n, device=device)
    U = unit_vectors(S, d, gen, device)
    z, y, x, _ = simple_1str(task, U, n, gen)
    init = ffn_init(model, S, gen, device)
    ns = torch.full((S,), n)
    P = span_projector(x, ns)
    cols = x_columns(N, task.D, d).to(device)
    watch = lambda p: torch.stack([off_span_energy(p["l0.w"][:, :, cols], P),
                                   p["l0.w"][:, :, cols].double().pow(2).flatten(1).sum(1)], 1)
    out = {"N": N, "n": n, "Nd": N * d}
    for opt, lr, l2 in (("gd", spec["gd_lr"], spec["gd_l2"]), ("adamw", spec["adamw_lr"], spec["adamw_weight_decay"])):
        _, steps, rec = train_full_batch(model.forward, init, z, y, ns, spec["steps"], opt, lr, l2, watch, spec["every"])
        out["steps"] = steps
        out[opt] = {"off": rec[:, :, 0].numpy(), "total": rec[:, :, 1].numpy()}   # (T, S) each
    out["wall_s"] = time.perf_counter() - t0
    return out


def visibility_spec(P: dict, N: int) -> dict:
    ns = [n for n in n_values(N, P["d"], P["n_over_Nd"]) if n < N * P["d"]]   # the theorem's range
    return {"kind": "visibility", "N": N, "d": P["d"], "n": ns, "draws": P["n_draws"],
            # Test prompts per draw, at most 1000: the Monte-Carlo error is dominated by the draws of (V, u).
            "n_test": min(P["n_test"], 1000), "seed": P["seed"]}


def run_visibility(spec: dict, device: str) -> dict:
    """nu(n) and the oracle's test MSE for `draws` independent (training set, u), each on its own test prompts.

    Only Gaussian tokens enter here (no network, no position codes): the oracle sees t directly."""
    t0 = time.perf_counter()
    N, d, K, M = spec["N"], spec["d"], spec["draws"], spec["n_test"]
    gen = generator(spec["seed"], "visibility", N, device=device)
    nu, risk = [], []
    for n in spec["n"]:
        x = torch.randn(K, n, N * d, generator=gen, device=device)
        U = unit_vectors(K, d, gen, device)
        P = span_projector(x, torch.full((K,), n))
        xt = torch.randn(K, M, N * d, generator=gen, device=device)
        t = torch.randint(0, N, (K, M), generator=gen, device=device)
        rows, cols = torch.arange(K, device=device)[:, None], torch.arange(M, device=device)[None, :]
        y = torch.einsum("kmd,kd->km", xt.view(K, M, N, d)[rows, cols, t], U).double()
        nu.append(visible_fraction(P, U, N).cpu().numpy())
        risk.append((oracle_predict(P, U, xt, t, N) - y).pow(2).mean(1).cpu().numpy())
    return {"N": N, "Nd": N * d, "n": spec["n"], "nu": np.array(nu), "oracle_mse": np.array(risk),
            "wall_s": time.perf_counter() - t0}


def ffn_spec(P: dict, N: int, rotated: bool) -> dict:
    return {"kind": "ffn", "N": N, "rotated": rotated, "d": P["d"], "n": n_values(N, P["d"], P["n_over_Nd"]),
            "seed": P["seed"], "task_seed": P["task_seed"], "n_seeds": P["n_seeds"], "n_test": P["n_test"],
            "ffn_width": P["ffn_width"], "steps": P["gd_steps"], "every": P["record_every"], "gd_lr": P["gd_lr"],
            "gd_l2": P["gd_l2"]}


def run_ffn(spec: dict, device: str) -> dict:
    """GD-trained FFNs for every n of the grid, n_seeds runs each, in bands of similar n (see `bands`).

    The rotated point draws the same directions, prompts and initialisations as the plain one (its generator
    does not depend on `rotated`) and only adds the rotations, from a generator of their own: run r of the two
    points differs in nothing but Q, so their difference is measured with common random numbers."""
    t0 = time.perf_counter()
    N, d, S, ns = spec["N"], spec["d"], spec["n_seeds"], spec["n"]
    task = qstr.QSTR(N=N, d=d, simple=True, task_seed=spec["task_seed"], device=device)
    model = models.FFN(N, task.D, (N * d, spec["ffn_width"]))
    cols = x_columns(N, task.D, d).to(device)
    decay = (1 - spec["gd_lr"] * spec["gd_l2"]) ** 2
    keys = ("test_mse", "oracle_mse", "nu", "rho0", "rho", "w_ratio", "law_dev", "residual", "train_loss")
    out = {k: np.full((len(ns), S), np.nan) for k in keys}
    for band in bands(ns):
        # Generators per band, so the numbers of one n depend on the grid's bands, not on the order of the loop.
        gen = generator(spec["seed"], "ffn", N, band, device=device)
        n_run = torch.tensor([n for n in band for _ in range(S)])
        R = len(n_run)
        U = unit_vectors(R, d, gen, device)
        Q = None
        if spec["rotated"]:
            Q = haar_orthogonal(R, N * d, generator(spec["seed"], "rotation", N, band, device=device), device)
        z, y, x, _ = simple_1str(task, U, max(band), gen, Q)
        zt, yt, xt, tt = simple_1str(task, U, spec["n_test"], gen, Q)
        init = ffn_init(model, R, gen, device)
        # The span and the oracle live in the coordinates the network sees, Qx when rotated: the label is then
        # <Q P_t u, Qx>, the oracle's direction is Q P_t u, and nu is the visible part of that direction.
        Qd = torch.eye(N * d, dtype=torch.float64, device=device).expand(R, -1, -1) if Q is None else Q.double()
        Pj = span_projector(x @ Qd.transpose(1, 2).to(x.dtype), n_run)
        g = _target_directions(U, tt, N, Qd)                       # (R, n_test, Nd)
        watch = lambda p: torch.stack([off_span_energy(p["l0.w"][:, :, cols], Pj),
                                       p["l0.w"][:, :, cols].double().pow(2).flatten(1).sum(1)], 1)
        params, steps, rec = train_full_batch(model.forward, init, z, y, n_run, spec["steps"], "gd", spec["gd_lr"],
                                              spec["gd_l2"], watch, spec["every"])
        loss, res = first_layer_residual(model.forward, params, z, y, n_run, spec["gd_l2"])
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
    return {"N": N, "Nd": N * d, "n": ns, "rotated": spec["rotated"], **out, "wall_s": time.perf_counter() - t0}


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


def transformer_spec(P: dict) -> dict:
    N = P["N_rotation"]
    return {"kind": "transformer", "N": N, "d": P["d"], "n": n_values(N, P["d"], P["n_over_Nd"]), "seed": P["seed"],
            "task_seed": P["task_seed"], "tr_seeds": P["tr_seeds"], "n_test": P["n_test"], "lr": P["tr_lr"],
            "weight_decay": P["adamw_weight_decay"], "steps": P["tr_steps"], "batch": P["tr_batch"],
            "mlp_width": P["mlp_width"]}


def run_transformer(spec: dict, device: str) -> dict:
    """One-layer Transformers trained with AdamW on minibatches of a fixed training set of n prompts, every n of
    the grid, through lib.engine. Each plain run has a rotated twin with the same direction u, prompts, test
    prompts and initialisation, and its tokens rotated: 2 x len(n) x tr_seeds runs as one batch."""
    t0 = time.perf_counter()
    N, d, S, ns = spec["N"], spec["d"], spec["tr_seeds"], spec["n"]
    task = qstr.QSTR(N=N, d=d, simple=True, task_seed=spec["task_seed"], device=device)
    gen = generator(spec["seed"], "transformer", N, device=device)
    R0 = len(ns) * S
    n_run = torch.tensor([n for n in ns for _ in range(S)] * 2, device=device)
    U = unit_vectors(R0, d, gen, device)
    Q = haar_orthogonal(R0, N * d, gen, device)
    state = gen.get_state()
    plain = simple_1str(task, U, max(ns), gen)[:2], simple_1str(task, U, spec["n_test"], gen)[:2]
    gen.set_state(state)   # the twins: the same draws again, tokens rotated
    rot = simple_1str(task, U, max(ns), gen, Q)[:2], simple_1str(task, U, spec["n_test"], gen, Q)[:2]
    (z, y), test = [[torch.cat([a, b]) for a, b in zip(p, r)] for p, r in zip(plain, rot)]
    R, rows = 2 * R0, torch.arange(2 * R0, device=device)[:, None]

    def sample(n_live, batch, g):
        assert n_live == R  # nothing stops early (threshold -inf): every run stays in the batch to the end
        idx = (torch.rand(R, batch, generator=g, device=device) * n_run[:, None]).long()
        return z[rows, idx], y[rows, idx]

    model = models.Transformer(task.D, spec["mlp_width"])
    init = {k: torch.cat([v, v]) for k, v in model.init(R0, gen, device).items()}
    cfg = engine.TrainConfig(lr=spec["lr"], weight_decay=spec["weight_decay"], batch_size=spec["batch"],
                             check_every=spec["steps"], max_samples=spec["steps"] * spec["batch"])
    runs = engine.train_to_threshold(model.forward, init, sample, [tuple(test)], [-math.inf], cfg, gen)
    final = runs.curves[-1, :, 0].reshape(2, len(ns), S)
    return {"N": N, "Nd": N * d, "n": ns, "test_mse": final[0], "test_mse_rotated": final[1],
            "wall_s": time.perf_counter() - t0}


# --------------------------------------------------------------------------------------------- compute
def compute(P: dict, store: Store, device: str, force: bool = False, log=print) -> dict:
    """Every point of the chapter, loaded from the store when present, else computed and stored at once."""
    env = environment(device, store.chapter)
    out = {"visibility": {}, "ffn": {}}

    def get(spec, fn, label):
        record, done = store.load_or_compute(spec, lambda: fn(spec, device), env, force)
        log(f"{label:<28} " + (f"computed in {record['result']['wall_s']:6.1f} s" if done else "loaded from the store"))
        return record

    out["span"] = get(span_spec(P), run_span, f"span N={P['span_N']}")
    for N in P["N_grid"]:
        out["visibility"][N] = get(visibility_spec(P, N), run_visibility, f"visibility N={N}")
    for N in sorted(set(P["N_grid"]) | {P["N_rotation"]}):
        out["ffn"][(N, False)] = get(ffn_spec(P, N, False), run_ffn, f"ffn N={N}")
    out["ffn"][(P["N_rotation"], True)] = get(ffn_spec(P, P["N_rotation"], True), run_ffn,
                                               f"ffn N={P['N_rotation']} rotated")
    out["transformer"] = get(transformer_spec(P), run_transformer, f"transformer N={P['N_rotation']}")
    out["adamw_ffn"] = adamw_reference(P["profile"])
    return out


def records(results: dict) -> list[dict]:
    return [results["span"], results["transformer"], *results["visibility"].values(), *results["ffn"].values()]


def run_summary(results: dict) -> str:
    recs = records(results)
    envs = sorted({(r["device"], r["commit"]) for r in recs})
    return (f"{len(recs)} stored points, {sum(r['result']['wall_s'] for r in recs):.0f} s of computation in all, "
            "computed on " + "; ".join(f"{dev} at commit `{c}`" for dev, c in envs) + ".")


# ------------------------------------------------------------------------------- the AdamW FFN of Figure 1
def adamw_reference(profile: str) -> dict:
    """The FFN's samples-to-threshold on simple-1STR from the sample_complexity chapter's stored points (panel b),
    for the parameters of its last run; never computed here. {"available": False, "why": ...} when absent."""
    from . import sample_complexity as sc

    store = Store("sample_complexity", profile, stored_only=True)
    prov = store.read("provenance.json") or store.read("compute.json")
    if not prov or "params" not in prov:
        return {"available": False, "why": f"the sample_complexity chapter has no stored `{profile}` run yet "
                "(run it first: `python -m lib run sample_complexity --profile " + profile + "`)"}
    sp = prov["params"]
    if "ffn" not in sp.get("models", []):
        return {"available": False, "why": "the stored sample_complexity run trained no FFN"}
    Ns, means, censored = [], [], []
    for N in sp["N_b"]:
        rec = store.get(sc.point_spec(sp, "b", "ffn", N))
        if rec is None:
            continue
        s = np.array(rec["result"]["samples"], dtype=float)[:, 0]
        Ns.append(N)
        means.append(float(np.nanmean(s)) if np.isfinite(s).any() else float("nan"))
        censored.append(int(np.isnan(s).sum()))
    if len(Ns) < 2:
        return {"available": False, "why": f"fewer than two stored FFN points of panel (b) in results/sample_complexity/{profile}/"}
    return {"available": True, "N": Ns, "mean": means, "censored": censored, "d": sp["d"], "threshold": sp["threshold_b"],
            "lr": sp["lr"], "batch_size": sp["batch_size"], "n_seeds": sp["n_seeds"], "ffn_width": sp["ffn_width"]}


# ----------------------------------------------------------------------------------------------- summary
def samples_to_threshold(n, mse, threshold: float) -> float:
    """The n at which the mean test-MSE curve first drops below `threshold` (interpolated in log n), NaN if never."""
    return log_crossing(n, mse, threshold, strict=True)


def ffn_table(P: dict, results: dict) -> dict:
    """{N: {"n", "Nd", "mean", "se", "oracle", "nstar"}} for the N of the grid (plain prompts): mean test MSE over
    runs (each its own u), its standard error, the oracle's mean on the same prompts, and samples to threshold."""
    out = {}
    for N in sorted(P["N_grid"]):
        rec = results["ffn"][(N, False)]
        mse = result_array(rec, "test_mse")
        S = mse.shape[1]
        mean = mse.mean(1)
        out[N] = {"n": rec["result"]["n"], "Nd": N * P["d"], "mean": mean, "se": mse.std(1, ddof=1) / math.sqrt(S),
                  "oracle": result_array(rec, "oracle_mse").mean(1), "nstar": samples_to_threshold(rec["result"]["n"], mean, P["threshold"])}
    return out


def span_ok(results: dict) -> tuple[np.ndarray, np.ndarray]:
    """(rho at the end, first layer vanished) for every GD run with n < Nd: vanished means ||W_T||^2 <= 1e-6 ||W_0||^2."""
    rho = np.concatenate([result_array(r, "rho").ravel() for r in results["ffn"].values()])
    ratio = np.concatenate([result_array(r, "w_ratio").ravel() for r in results["ffn"].values()])
    keep = np.isfinite(rho)
    return rho[keep], ratio[keep] <= 1e-6


# ------------------------------------------------------------------------------------------------- claims
def claims(P: dict, results: dict) -> list[Claim]:
    """Claim 8 of the reading guide (section 6): (a) the span property under GD and not under AdamW, the visible
    fraction and the oracle at 1 - n/(Nd), (b) the trained FFN on or above that line, (c) the slope in N, and the
    rotation test. Every tolerance is stated in the row; every number comes from this run's points."""
    out = []
    eta_l2 = P["gd_lr"] * P["gd_l2"]
    plain = {N: rec for (N, rot), rec in results["ffn"].items() if not rot}

    # (a) The decay law, on every GD run with n < Nd (the only ones with an off-span part). Claims about n < Nd are
    # left out when the grid has no such n.
    dev = np.concatenate([result_array(r, "law_dev")[np.isfinite(result_array(r, "law_dev"))] for r in results["ffn"].values()])
    if len(dev):
        out.append(Claim("8a-decay-law", "Full-batch GD + L2: the first layer's off-span energy ||W(I - V^T V)||^2 "
                         f"follows (1 - lr l2)^(2t) at every recorded step down to {LAW_FLOOR:g} of its start, in every "
                         f"run with n < Nd ({len(dev)} runs)", "max relative deviation <= 1%",
                         "App. B: every gradient lies in span{x^(i)}", f"max deviation {dev.max():.1e}", bool(dev.max() <= 0.01)))
    # rho is a ratio: where the whole first layer has decayed to zero (dead ReLUs: no gradient, only the penalty)
    # it stays at its initial value while both of its terms vanish. W = 0 lies in the span, so such a run counts
    # as in the span; the row says how many there were.
    rho, dead = span_ok(results)
    res = np.concatenate([result_array(r, "residual").ravel() for r in plain.values()])
    live = rho[~dead]
    if len(rho):
        out.append(Claim("8a-span", f"After {P['gd_steps']} GD steps ((1 - lr l2)^(2T) = "
                         f"{(1 - eta_l2) ** (2 * P['gd_steps']):.1e}) the off-span fraction rho of the first layer is at "
                         "most 1e-6 in every run with n < Nd", "max rho <= 1e-6",
                         "App. B: rows of W in span{x^(i)} at a stationary point",
                         (f"max rho {live.max():.1e} over {len(live)} runs" if len(live) else "no run with a nonzero W")
                         + (f", and {dead.sum()} runs whose first layer decayed to 0 (W = 0 is in the span)" if dead.any() else "")
                         + f"; stationarity residual ||grad_W L + l2 W||/||l2 W||: median {np.median(res):.2f}",
                         bool(len(live) and live.max() <= 1e-6)))
    sp = results["span"]["result"]
    gd_rho = np.array(sp["gd"]["off"], float) / np.array(sp["gd"]["total"], float)
    ad_rho = np.array(sp["adamw"]["off"], float) / np.array(sp["adamw"]["total"], float)
    keep = ad_rho[-1] / ad_rho[0]
    out.append(Claim("8a-adamw", f"AdamW on the same data (N={sp['N']}, n={sp['n']}) does not keep W in the span: its "
                     "off-span fraction stays within a factor 10 of where it started, while GD's falls below 1e-6",
                     "AdamW rho_T / rho_0 >= 0.1 in every run", "derived (guide 4.3): Adam is not rotation-equivariant",
                     f"AdamW rho_T/rho_0 min {keep.min():.2f}; GD rho_T max {gd_rho[-1].max():.1e}",
                     bool(keep.min() >= 0.1 and gd_rho[-1].max() <= 1e-6)))

    # The visible fraction and the oracle, by Monte Carlo, against n/(Nd) (n < Nd).
    z_nu, z_or = [], []
    for N, rec in results["visibility"].items():
        nu, risk = result_array(rec, "nu"), result_array(rec, "oracle_mse")
        for i, n in enumerate(rec["result"]["n"]):
            x, K = n / (N * P["d"]), nu.shape[1]
            z_nu.append((float(zscore(nu[i].mean() - x, nu[i].std(ddof=1) / math.sqrt(K))), N, n))
            z_or.append((float(zscore(risk[i].mean() - (1 - x), risk[i].std(ddof=1) / math.sqrt(K))), N, n))
    for cid, zs, what, target, paper in (
            ("8-visible", z_nu, "the visible fraction nu(n) = E||V P_t u||^2", "n/(Nd)", "App. B: E_{u,t} = n/(Nd)"),
            ("8-oracle", z_or, "the risk of the oracle E[y | Vx, t, u]", "1 - n/(Nd)", "Thm 6: 1 - n/(Nd)")):
        if not zs:
            continue
        zmax = max(zs, key=lambda r: abs(r[0]))
        out.append(Claim(cid, f"{what} equals {target} within Monte-Carlo error, at every N in {P['N_grid']} and "
                         f"n < Nd ({len(zs)} points, {P['n_draws']} draws each)", "max |z| <= 4", paper,
                         f"max |z| = {abs(zmax[0]):.1f} (N={zmax[1]}, n={zmax[2]})", bool(abs(zmax[0]) <= 4)))

    # (b) The trained FFN on or above the line, n < Nd, averaged over runs (each its own u).
    table = ffn_table(P, results)
    margins = []
    for N, e in table.items():
        for i, n in enumerate(e["n"]):
            if n < e["Nd"]:
                delta = e["mean"][i] - (1 - n / e["Nd"])
                margins.append((float(zscore(delta, e["se"][i])), delta, N, n))
    if margins:
        worst = min(margins, key=lambda m: m[0])
        below = lambda r: np.array(r["result"]["n"]) < r["result"]["Nd"]
        gap = np.concatenate([(result_array(r, "test_mse") - result_array(r, "oracle_mse"))[below(r)].ravel() for r in plain.values()])
        out.append(Claim("8b-ffn-above-line", f"GD-trained FFN (averaged over {P['n_seeds']} random u): test MSE >= "
                         f"1 - n/(Nd) for every n < Nd ({len(margins)} points)", "mean - (1 - n/Nd) >= -3 SE everywhere",
                         "Thm 6: inf_A sup_u R >= 1 - n/(Nd)",
                         f"smallest margin {worst[1]:+.3f} ({worst[0]:+.1f} SE) at N={worst[2]}, n={worst[3]}; "
                         f"FFN - oracle on the same test prompts, per run: min {gap.min():+.3f}", bool(worst[0] >= -3)))

    # (c) Samples to threshold against N.
    Ns = sorted(table)
    nstar = [table[N]["nstar"] for N in Ns]
    slope = loglog_slope(Ns, nstar)
    found = [N for N, v in zip(Ns, nstar) if np.isfinite(v)]
    out.append(Claim("8c-slope", f"GD-trained FFN: samples to reach test MSE < {P['threshold']} against N (log-log slope, "
                     f"N={found})", "slope >= 0.9", f"Thm 6: n* >= (1 - {P['threshold']}) N d, slope 1",
                     f"slope {slope:.2f}; n* = " + ", ".join(f"{v:,.0f}" for v in nstar if np.isfinite(v))
                     + (f"; not reached at N={[N for N in Ns if N not in found]}" if len(found) < len(Ns) else ""),
                     bool(len(found) >= 2 and slope >= 0.9)))

    # The rotation test: run r of the rotated point is run r of the plain one with its tokens rotated (common
    # random numbers), so the paired differences measure the rotation alone. Pooled over the grid, they are one
    # z-score; the largest per-n one is shown too.
    N = P["N_rotation"]
    a, b = result_array(results["ffn"][(N, False)], "test_mse"), result_array(results["ffn"][(N, True)], "test_mse")
    S = a.shape[1]
    diff = b - a
    se = diff.std(1, ddof=1) / math.sqrt(S)
    z_pool = float(zscore(diff.mean(1).sum(), math.sqrt((se ** 2).sum())))
    z_n = zscore(diff.mean(1), se)
    k = int(np.argmax(np.abs(z_n)))
    out.append(Claim("rotation-ffn", f"Rotating the tokens by a random Q in O(Nd) leaves the GD-trained FFN's learning "
                     f"curve unchanged in distribution (N={N}, {len(se)} values of n, {S} paired runs each)",
                     "|z| <= 3, paired differences pooled over n", "derived (guide 3.3): GD is rotation-equivariant",
                     f"z = {z_pool:+.1f} (mean difference {diff.mean():+.3f}); largest per n: {z_n[k]:+.1f} "
                     f"at n={results['ffn'][(N, False)]['result']['n'][k]} ({a.mean(1)[k]:.3f} vs {b.mean(1)[k]:.3f})",
                     bool(abs(z_pool) <= 3)))
    tr = results["transformer"]["result"]
    ta, tb = np.array(tr["test_mse"], float), np.array(tr["test_mse_rotated"], float)
    ffn_last = a.mean(1)[-1]
    out.append(Claim("rotation-transformer", f"The same rotation breaks the Transformer (N={N}): at the largest n "
                     f"({tr['n'][-1]}) its test MSE on rotated prompts is at least 0.5 above its test MSE on plain ones",
                     "TR rotated - TR plain >= 0.5", "derived (guide 3.3): the Transformer collapses",
                     f"TR {ta[-1].mean():.3f} plain, {tb[-1].mean():.3f} rotated (the GD-trained FFN: {ffn_last:.3f} "
                     f"plain, {b.mean(1)[-1]:.3f} rotated)", bool(tb[-1].mean() - ta[-1].mean() >= 0.5)))
    return out


# ------------------------------------------------------------------------------------------------ figures
def plot_span(P: dict, results: dict):
    """Off-span energy relative to its start (left) and off-span fraction rho (right) during training, GD and AdamW."""
    from .plotting import COLORS, figure

    sp = results["span"]["result"]
    steps = np.array(sp["steps"], float)
    fig, axes = figure(2, 1, width=4.4, height=3.4)
    pred = (1 - P["gd_lr"] * P["gd_l2"]) ** (2 * steps)
    for opt in ("gd", "adamw"):
        off, total = np.array(sp[opt]["off"], float), np.array(sp[opt]["total"], float)
        for r in range(off.shape[1]):
            lab = LABELS[opt] if r == 0 else None
            axes[0, 0].plot(steps, off[:, r] / off[0, r], color=COLORS[opt], lw=1.2, label=lab)
            axes[0, 1].plot(steps, off[:, r] / total[:, r], color=COLORS[opt], lw=1.2, label=lab)
    axes[0, 0].plot(steps, pred, "--", color="k", lw=1, label=f"(1 - lr l2)^(2t), lr l2 = {P['gd_lr'] * P['gd_l2']:g}")
    axes[0, 1].axhline(1e-6, color="k", ls=":", lw=0.8, label="1e-6")
    axes[0, 0].set(yscale="log", xlabel="GD / AdamW step t", ylabel="off-span energy / its value at t = 0",
                   title=f"N={sp['N']}, n={sp['n']} < Nd={sp['Nd']}")
    axes[0, 1].set(yscale="log", xlabel="step t", ylabel="rho = ||W(I - V^T V)||^2 / ||W||^2",
                   title="off-span fraction of the first layer")
    for ax in axes[0]:
        ax.legend(fontsize=7)
    return fig


def plot_visibility(P: dict, results: dict):
    """nu(n) against n with n/(Nd) (left); oracle and trained-FFN risk against n/(Nd) with 1 - n/(Nd) (right)."""
    import matplotlib.pyplot as plt

    from .plotting import figure

    fig, axes = figure(2, 1, width=4.6, height=4.2)
    cmap = plt.get_cmap("viridis")
    Ns = sorted(results["visibility"])
    table = ffn_table(P, results)
    for k, N in enumerate(Ns):
        col = cmap(k / max(1, len(Ns) - 1) * 0.85)
        rec = results["visibility"][N]
        n = np.array(rec["result"]["n"], float)
        nu, risk = result_array(rec, "nu"), result_array(rec, "oracle_mse")
        K, Nd = nu.shape[1], N * P["d"]
        axes[0, 0].plot([0, Nd], [0, 1], color=col, lw=0.8)
        axes[0, 0].errorbar(n, nu.mean(1), 2 * nu.std(1, ddof=1) / math.sqrt(K), fmt="o", color=col, ms=4,
                            label=f"N={N} (Nd={Nd})")
        axes[0, 1].errorbar(n / Nd, risk.mean(1), 2 * risk.std(1, ddof=1) / math.sqrt(K), fmt="x", color=col, ms=6)
        e = table[N]
        axes[0, 1].errorbar(np.array(e["n"], float) / Nd, e["mean"], 2 * e["se"], fmt="s-", color=col, ms=4, lw=1,
                            label=f"FFN (GD), N={N}")
    lo, hi = min(P["n_over_Nd"]) / 1.5, max(max(P["n_over_Nd"]), 1) * 1.5
    x = np.geomspace(lo, 1, 60)
    axes[0, 1].plot(np.r_[x, hi], np.r_[1 - x, 0], "k--", lw=1, label="1 - n/(Nd) (Thm 6)")
    axes[0, 1].plot([], [], "x", color="gray", label="oracle E[y | Vx, t, u]")
    axes[0, 1].axhline(P["threshold"], color="gray", ls=":", lw=0.8)
    axes[0, 0].set(xlabel="n (training prompts)", ylabel="nu(n) = E ||V P_t u||^2", title="visible fraction of the target")
    axes[0, 1].set(xscale="log", xlim=(lo, hi), xlabel="n / (N d)", ylabel="test MSE", title="risk against the Theorem 6 line")
    axes[0, 0].legend(fontsize=7)
    axes[0, 1].legend(fontsize=7, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig


def plot_rotation(P: dict, results: dict):
    """Test MSE against n for the GD-trained FFN and the AdamW-trained Transformer, plain and rotated prompts."""
    from .plotting import COLORS, figure

    fig, ax = figure(1, 1, width=6.4, height=4.4)
    N = P["N_rotation"]
    for rot, style in ((False, "-"), (True, "--")):
        rec = results["ffn"][(N, rot)]
        mse = result_array(rec, "test_mse")
        ax.errorbar(rec["result"]["n"], mse.mean(1), 2 * mse.std(1, ddof=1) / math.sqrt(mse.shape[1]), fmt="s" + style,
                    color=COLORS["ffn"], ms=4, lw=1.2, capsize=2, label=f"FFN (GD + L2){', rotated Qx' if rot else ''}")
    tr = results["transformer"]["result"]
    n = np.array(tr["n"], float)
    for key, style, lab in (("test_mse", "-", ""), ("test_mse_rotated", "--", ", rotated Qx")):
        mse = np.array(tr[key], float)   # (len(n), runs): few runs, so every run is drawn
        ax.plot(n, mse.mean(1), "^" + style, color=COLORS["transformer"], ms=5, lw=1.2, label=f"Transformer (AdamW){lab}")
        ax.plot(np.repeat(n, mse.shape[1]), mse.ravel(), "^", color=COLORS["transformer"], ms=3, alpha=0.35)
    Nd = N * P["d"]
    x = np.geomspace(min(n) / 1.2, Nd, 50)
    ax.plot(x, 1 - x / Nd, "k:", lw=1, label="1 - n/(Nd)")
    ax.set(xscale="log", xlabel="n (training prompts)", ylabel="test MSE", title=f"rotation test, N={N}, d={P['d']}")
    ax.legend(fontsize=7, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    return fig


def plot_samples(P: dict, results: dict):
    """Samples to threshold against N: GD-trained FFNs here (left), the AdamW FFN of Figure 1(b) (right)."""
    from .plotting import COLORS, figure

    fig, axes = figure(2, 1, width=4.6, height=3.6)
    table = ffn_table(P, results)
    Ns = np.array(sorted(table), float)
    nstar = np.array([table[int(N)]["nstar"] for N in Ns])
    _fit(axes[0, 0], Ns, nstar, COLORS["ffn"], "FFN, full-batch GD + L2")
    axes[0, 0].plot(Ns, (1 - P["threshold"]) * Ns * P["d"], "k--", lw=1, label=f"Thm 6 bound (1 - {P['threshold']}) N d")
    axes[0, 0].set(title=f"this chapter: test MSE < {P['threshold']}, d={P['d']}")
    ref = results["adamw_ffn"]
    if ref["available"]:
        Nr = np.array(ref["N"], float)
        _fit(axes[0, 1], Nr, np.array(ref["mean"], float), COLORS["adamw"], "FFN, online AdamW (Figure 1b)")
        axes[0, 1].plot(Nr, (1 - ref["threshold"]) * Nr * ref["d"], "k--", lw=1, label=f"(1 - {ref['threshold']}) N d")
        axes[0, 1].set(title=f"sample_complexity: test MSE < {ref['threshold']}, d={ref['d']}")
    else:
        axes[0, 1].text(0.5, 0.5, "no stored sample_complexity run", ha="center", va="center", transform=axes[0, 1].transAxes)
        axes[0, 1].set(title="sample_complexity (not available)", xticks=[], yticks=[])
    for ax in axes[0]:
        ax.set(xlabel="N (sequence length)", ylabel="n (training prompts)")
        ax.legend(fontsize=7, loc="upper left")
    return fig


def _fit(ax, N, n, color, label):
    """Points, their least-squares line on log-log axes and its slope; ticks at the N that were run."""
    ax.set(xscale="log", yscale="log")
    ok = np.isfinite(n)
    ax.plot(N[ok], n[ok], "o", color=color, ms=6, label=label)
    if ok.sum() >= 2:
        b, a = np.polyfit(np.log(N[ok]), np.log(n[ok]), 1)
        grid = np.geomspace(N[ok].min(), N[ok].max(), 20)
        ax.plot(grid, np.exp(a) * grid ** b, "-", color=color, lw=1, label=f"fit: slope {b:.2f}")
    ax.minorticks_off()
    ax.set_xticks(N, [f"{v:.0f}" for v in N])


def samples_table(P: dict, results: dict) -> str:
    """Markdown: n* per N for both learners, in units of N*d as well."""
    table = ffn_table(P, results)
    rows = ["| N | N d | GD FFN: n* | n* / (N d) | Thm 6 bound (1 - threshold) N d |", "|---|---|---|---|---|"]
    for N, e in table.items():
        v = e["nstar"]
        rows.append(f"| {N} | {e['Nd']} | {v:,.0f} | {v / e['Nd']:.1f} | {(1 - P['threshold']) * e['Nd']:.1f} |"
                    if np.isfinite(v) else f"| {N} | {e['Nd']} | not reached by n = {e['n'][-1]:,} | | |")
    ref = results["adamw_ffn"]
    if ref["available"]:
        rows += ["", "| N | N d | AdamW FFN (online, Figure 1b): mean n* | n* / (N d) | censored runs |", "|---|---|---|---|---|"]
        for N, m, c in zip(ref["N"], ref["mean"], ref["censored"]):
            rows.append(f"| {N} | {N * ref['d']} | {m:,.0f} | {m / (N * ref['d']):.0f} | {c} |")
    return "\n".join(rows)

