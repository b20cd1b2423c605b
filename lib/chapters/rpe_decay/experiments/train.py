"""rpe_decay's training arms: one-layer DP-free models whose kernel is sum_h c_h softmax_s(p_h phi(s)) + w0 1{s=0}
(lin phi = -s; log phi = -log s with s = 0 masked, eq. (4) of Wang & E), trained with AdamW through lib.science.engine.

- `run_train` (Part C, this book's design): x_t ~ U[-1, 1], the linear target y = rho * x at every position of a full
  window, attention as a causal FFT convolution; the test MSE is Var(x) ||k - rho||_2^2 exactly. Its recipe: the
  heads start at the fitter's first start (geometric, jittered) and the values train alone for the first
  `freeze_frac` of the steps (random starts and no freeze merged every log head of a run into one exponent).
- `run_apph` (the NeurIPS version's Appendix H, experiments 4a and 4b): x in {+-1}^S, one output per sequence,
  f*(x) = sum_t x_{S-t} rho(t), absolute MSE = ||k - rho||_2^2 exactly (Var(x) = 1); with the w0 term or without
  it (`model_kernel` adds w0 only where the params have one).

Both arms batch every (kernel, family, H, seed) run of a point into one computation (heads padded to the largest H
with a mask). The exponents are p = e^theta for both families: any p > 0, as eq. (4) allows on a finite window, and a
step on theta is a relative step on p (a softplus pinned log exponents at p ~ 1.01-1.04 where they started near 1).

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> out = results["train"][("power beta=1.2", 1024)]["result"]   # what run_train stored for one kernel and S
    >>> len(out["mse_exact"]) == len(out["runs"])      # the exact test MSE of every (family, H, seed) run
    True
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from lib.chapters.rpe_decay.experiments.fit import kernel_name, kernel_values
from lib.science import engine
from lib.science.seeds import generator

FAMILIES = ("lin", "log")
VAR_X = 1.0 / 3.0     # Var(x) for x ~ U[-1, 1] (Part C)
THETA_MIN, THETA_MAX = -12.0, 6.0    # p in [6e-6, 403]: beyond, a head is a constant or a single tap


def model_kernel(params: dict, S: int, theta_scale: float) -> torch.Tensor:
    """(R, S) effective kernel k(s) = sum_h c_h softmax_s(p_h phi(s)) + w0 1{s=0}, per run.

    Heads h with buf.mask = 1 (the run's H), RPE type from buf.log (0: lin, 1: log); p = e^theta with
    theta = theta_scale * u, so that AdamW's step on theta is theta_scale times its step on the values (a separate
    learning rate for the exponents through one optimiser). Only the live heads are computed (the runs' H differ:
    padding every run to the largest H would cost (R max H) instead of (sum H) softmaxes of S taps)."""
    u = params["u"] if "u" in params else params["buf.u"]           # "buf.u": exponents frozen (see `two_phases`)
    c = params["c"]
    run, slot = params["buf.mask"].nonzero(as_tuple=True)                           # the live heads, flat
    p = torch.exp((theta_scale * u[run, slot]).clamp(THETA_MIN, THETA_MAX))[:, None]  # (N, 1)
    is_log = params["buf.log"][run] > 0.5                                           # (N, 1)
    s = torch.arange(S, device=u.device, dtype=u.dtype)
    phi = torch.where(is_log, -torch.log(s.clamp(min=1.0)), -s)                     # (N, S)
    bias = (p * phi).masked_fill(is_log & (s == 0), -math.inf)
    a = torch.softmax(bias, -1) * c[run, slot][:, None]
    k = torch.zeros(u.shape[0], S, device=u.device, dtype=a.dtype).index_add(0, run, a)
    if "w0" not in params:                                                          # no current-token term
        return k
    return torch.cat([k[:, :1] + params["w0"], k[:, 1:]], 1)


# The fitter's restart-0 start box (fit.theta_box): lin p geometric on [1/S, 2], log p - 1 geometric on [0.05, 8]
GEO_LIN_HI, GEO_LOG_LO, GEO_LOG_HI = 2.0, 0.05, 8.0
INITS = ("random", "geometric")


def init_params(runs: list[tuple[str, int]], S: int, theta_scale: float, gen: torch.Generator, device,
                init: str = "random", jitter: float = 0.3) -> dict:
    """Runs given as (family, H), each with max H head slots and a mask; values small, w0 = 0. Initial exponents:
    - random: log-uniform, lin p on [1/S, 1] (decay lengths up to the window), log p on [0.05, 5];
    - geometric: the fitter's first start (`lib.chapters.rpe_decay.experiments.fit.fit_kernel`), the H heads geometric over
      its start box (lin p on [1/S, 2], log p - 1 on [0.05, 8]; one head at the middle), with a normal jitter of
      `jitter` on log p (log: on log(p - 1)) so that seeds start apart. Random starts put several heads of a run
      on one side of the optimum, and AdamW then merges them into one exponent (Part C's collapse)."""
    R, Hm = len(runs), max(H for _, H in runs)
    is_log = torch.tensor([f == "log" for f, _ in runs], device=device)[:, None]
    if init == "random":
        U = torch.rand(R, Hm, generator=gen, device=device, dtype=torch.float64)
        lo = torch.where(is_log, math.log(0.05), math.log(1.0 / S)).to(torch.float64)
        hi = torch.where(is_log, math.log(5.0), 0.0).to(torch.float64)
        theta = lo + (hi - lo) * U
    elif init == "geometric":
        theta = torch.zeros(R, Hm, dtype=torch.float64, device=device)
        for i, (f, H) in enumerate(runs):
            lo, hi = (math.log(GEO_LOG_LO), math.log(GEO_LOG_HI)) if f == "log" else (math.log(1.0 / S), math.log(GEO_LIN_HI))
            th = torch.linspace(lo, hi, H, dtype=torch.float64) if H > 1 else torch.tensor([(lo + hi) / 2], dtype=torch.float64)
            th = th.to(device) + jitter * torch.randn(H, generator=gen, device=device, dtype=torch.float64)
            theta[i, :H] = torch.log1p(th.exp()) if f == "log" else th          # log: p = 1 + e^th
    else:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    mask = torch.tensor([[1.0 if h < H else 0.0 for h in range(Hm)] for _, H in runs], device=device)
    return {"u": (theta / theta_scale).float(), "c": 0.01 * torch.randn(R, Hm, generator=gen, device=device),
            "w0": torch.zeros(R, 1, device=device), "buf.mask": mask, "buf.log": is_log.float()}


def two_phases(forward, params, sample, tests, steps, decay_frac, lr, batch, checks, gen, device, freeze_frac=0.0):
    """AdamW (no weight decay) for `steps` steps: the first `freeze_frac` of them with the exponents frozen (their
    parameter renamed "buf.u", which the engine carries and never optimises: the values first fit the starting
    heads), the last `decay_frac` at a tenth of the learning rate. Each phase is an engine call from the previous
    one's weights (the engine has no schedule), with a fresh AdamW state. Returns the final params, the test curves
    (checks, R) and the steps they were taken at."""
    steps2, steps0 = int(round(steps * decay_frac)), int(round(steps * freeze_frac))
    curves, at, done = [], [], 0
    for rate, n, frozen in ((lr, steps0, True), (lr, steps - steps2 - steps0, False), (lr / 10, steps2, False)):
        if n <= 0:
            continue
        if frozen:
            params = {("buf.u" if k == "u" else k): v for k, v in params.items()}
        cfg = engine.TrainConfig(lr=rate, weight_decay=0.0, batch_size=batch, check_every=max(1, steps // checks),
                                 max_samples=n * batch)
        out = engine.train_to_threshold(forward, params, sample, tests, [-math.inf], cfg, gen)
        params = {("u" if k == "buf.u" else k): v.to(device) for k, v in out.params.items()}
        curves.append(out.curves[:, :, 0])
        at += [done + int(m) // batch for m in out.check_samples]
        done += n
    return params, np.concatenate(curves), at


def final_kernel(params: dict, S: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The runs' kernels (R, S) and exponents p (R, Hmax), in float64."""
    with torch.no_grad():
        p64 = {k: v.double() for k, v in params.items()}
        return (model_kernel(p64, S, scale).cpu().numpy(),
                np.exp(np.clip(scale * p64["u"].cpu().numpy(), THETA_MIN, THETA_MAX)))


# ------------------------------------------------------------------------------------------- Part C
def causal_conv(x: torch.Tensor, k: torch.Tensor, S: int) -> torch.Tensor:
    """(R, B, S): sum_{s<S} k(s) x_{t-s} at the last S positions t = S..2S-1 of sequences x (R, B, 2S), by FFT of
    size 2S (no wrap-around reaches those positions); k (R, S) or (S,)."""
    kf = torch.fft.rfft(k, n=2 * S)
    y = torch.fft.irfft(torch.fft.rfft(x, n=2 * S) * (kf[:, None, :] if kf.dim() == 2 else kf), n=2 * S)
    return y[..., S:]


@dataclass(frozen=True)
class TrainPoint:
    """All (family, H, seed) training runs of one kernel and context length, as one batch."""
    kernel: object               # the target memory kernel (fit.Kernel)
    S: int                       # context length: the window, and the loss on the last S of 2S positions
    H: tuple[int, ...]           # numbers of heads
    seeds: int                   # runs per (family, H)
    steps: int                   # AdamW steps in all
    batch: int                   # fresh sequences per step
    lr: float                    # AdamW learning rate of the values
    theta_lr: float              # AdamW learning rate of the exponents' logarithms theta
    decay_frac: float            # the last fraction of the steps, at a tenth of the learning rates
    n_test: int                  # test sequences
    checks: int                  # test evaluations over the run
    seed: int                    # seed of the initialisation, data and test sets
    init: str                    # starting exponents: "geometric" (the fitter's first start, jittered) or "random"
    freeze_frac: float           # the first fraction of the steps with the exponents frozen (the values fit first)
    param: str = "exp"           # p = e^theta for both families (any p > 0)


def run_train(spec: TrainPoint, device: str) -> dict:
    """All (family, H, seed) runs of one kernel and context length as one batch: fresh sequences of length 2S, loss
    on the last S positions (a full window). The error of each run is computed exactly from its kernel:
    MSE = Var(x) ||k - rho||_2^2. On the CPU it runs with one torch thread (Point(threads=1)): small FFTs."""
    t0 = time.perf_counter()
    S, k = spec.S, spec.kernel
    gen = generator(spec.seed, "train", kernel_name(k), S, device=device)
    rho0 = kernel_values(k, np.arange(S, dtype=float))
    rho0 = rho0 / np.abs(rho0[1:]).sum()                  # l1 norm 1 on s >= 1, as the fits
    rho = torch.tensor(rho0, dtype=torch.float32, device=device)
    runs = [(f, H, r) for f in FAMILIES for H in spec.H for r in range(spec.seeds)]
    scale = spec.theta_lr / spec.lr
    params = init_params([(f, H) for f, H, _ in runs], S, scale, gen, device, spec.init)
    forward = lambda p, x: causal_conv(x, model_kernel(p, S, scale), S)

    def sample(n_live, batch, g):
        x = torch.rand(n_live, batch, 2 * S, generator=g, device=device) * 2 - 1
        return x, causal_conv(x, rho, S)

    tests = [sample(len(runs), spec.n_test, gen)]
    params, curves, at = two_phases(forward, params, sample, tests, spec.steps, spec.decay_frac, spec.lr, spec.batch,
                                    spec.checks, gen, device, spec.freeze_frac)
    kern, p_all = final_kernel(params, S, scale)
    err = kern - rho0[None, :]
    return {"runs": [list(r) for r in runs], "mse_exact": VAR_X * (err ** 2).sum(1), "l1": np.abs(err).sum(1),
            "test_mse": curves[-1], "curve_steps": at, "curves": curves,
            "p": [p_all[i, :H].tolist() for i, (_, H, _) in enumerate(runs)], "wall_s": time.perf_counter() - t0}
