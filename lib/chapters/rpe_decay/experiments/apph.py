"""Experiments 4a and 4b of the NeurIPS 2024 version of Wang & E (Appendix H.2.7-H.2.8), as a training arm.

Their setup: a one-layer Transformer without FFN and without dot product, RPE heads only (lin or log type, H heads),
inputs x = (x_1, ..., x_S) in {+-1}^S with S = 1000, target f*(x) = sum_{s=1}^{S} x_s rho(S - s), squared loss, AdamW
for 10,000 iterations of 100 sequences (1M samples). 4a: rho(t) = t^-0.5; 4b: rho(t) = e^-5t. Reported: log type
with one head < 1e-5 and lin type 0.19 with up to 64 heads on 4a; lin type with one head < 1e-7 and log type
5.3e-4 with 64 heads on 4b.

Conventions (the text leaves them open): the output is read at the last token, so the distance is t = S - s in
0..S-1. The target's term at t = 0 is rho(0) where it is finite (e^-5*0 = 1 for 4b) and dropped where it is not
(t^-0.5: rho(0) = 0, the sum over s < S). The current token reaches the output in one of two ways, `current`:
- "free": through a residual stream with a trainable coefficient w0 (this book's earlier and only convention): a
  log head never sees t = 0 (eq. (4)), so w0 alone carries it, and a lin head's weight there is redundant;
- "none": the heads only, eq. (3)-(4) with no residual, as the proof of Thm 6.1 writes its one-layer model ("without
  residual blocks"): a log head cannot reach t = 0 at all, a lin head reaches it with its weight e^0.
The paper ("single-layer, FFN-free, DP-free Transformers ... RPE heads") does not say which; each is one point,
and the page says which reproduces which of its numbers. The loss is the absolute MSE, computed exactly from each
run's kernel: E (k . x - rho . x)^2 = ||k - rho||_2^2 for i.i.d. +-1 inputs.

All (kernel, family, H, seed) runs are one batch: the runs of one seed share that seed's sequences (one draw of
(batch, S) signs per seed per step, so no (R, batch, S) tensor is built), and differ from the other seeds' in data
and initialisation.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> out = results["apph"]["none"]["result"]    # what run_apph(compute.apph_spec(P, "none"), "cpu") stored
    >>> len(out["mse_exact"]) == len(out["runs"]) == 2 * 2 * len(P["apph_H"]) * P["apph_seeds"]   # one per run
    True
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from lib.chapters.rpe_decay.experiments.fit import kernel_values
from lib.chapters.rpe_decay.experiments.train import FAMILIES, final_kernel, init_params, model_kernel, two_phases
from lib.science.seeds import generator


@dataclass(frozen=True)
class AppHPoint:
    """Every run of experiments 4a/4b: kernels x families x H x seeds, one batch."""
    kernels: tuple               # the target kernels (fit.Kernel), unnormalised
    S: int                       # sequence length (the paper: 1000)
    H: tuple[int, ...]           # numbers of heads (the paper: up to 64)
    seeds: int                   # runs per (kernel, family, H)
    steps: int                   # AdamW steps (the paper: 10,000)
    batch: int                   # sequences per step (the paper: 100, 1M samples in all)
    lr: float                    # AdamW learning rate of the values
    theta_lr: float              # AdamW learning rate of the exponents' logarithms
    decay_frac: float            # the last fraction of the steps at a tenth of the learning rates
    n_test: int                  # test sequences per seed (the curves; the final error is exact)
    checks: int                  # test evaluations over the run
    seed: int                    # seed of the initialisations and data
    current: str                 # the current token: "free" (residual, trainable w0) or "none" (the heads only)


def runs_of(spec: AppHPoint) -> list[tuple[int, str, int, int]]:
    """(seed, kernel index, family, H) of every run, seed first: run i belongs to seed i // (runs per seed)."""
    return [(r, j, f, H) for r in range(spec.seeds) for j in range(len(spec.kernels)) for f in FAMILIES for H in spec.H]


CURRENTS = ("free", "none")


def targets(spec: AppHPoint) -> np.ndarray:
    """(K, S) target kernels rho(t), t = 0..S-1: rho(0) where finite, else 0 (see the module)."""
    t = np.arange(spec.S, dtype=float)
    out = np.stack([kernel_values(k, t) for k in spec.kernels])
    out[:, 0] = np.where(np.isfinite(out[:, 0]), out[:, 0], 0.0)
    return out


def run_apph(spec: AppHPoint, device: str) -> dict:
    """Train every run; the stored error is the exact absolute MSE ||k - rho||_2^2 of each run's final kernel, beside
    the engine's test MSE on n_test fresh sequences per seed. One torch thread on the CPU (Point(threads=1))."""
    t0 = time.perf_counter()
    S, runs = spec.S, runs_of(spec)
    n, G = spec.seeds, len(runs) // spec.seeds
    gen = generator(spec.seed, "apph", S, device=device)
    rho0 = targets(spec)
    rho_run = torch.tensor(rho0[[j for _, j, _, _ in runs]], dtype=torch.float32, device=device).view(n, G, S)
    scale = spec.theta_lr / spec.lr
    params = init_params([(f, H) for _, _, f, H in runs], S, scale, gen, device)
    if spec.current not in CURRENTS:
        raise ValueError(f"current must be one of {CURRENTS}, got {spec.current!r}")
    if spec.current == "none":
        del params["w0"]                         # no current-token term: the kernel is the heads' alone

    def forward(p, x):            # x (n, B, S), x[..., t] = the token at distance t from the output
        return torch.einsum("nbs,ngs->ngb", x, model_kernel(p, S, scale).view(n, G, S)).reshape(n * G, -1)

    def sample(n_live, batch, g):
        x = torch.randint(0, 2, (n, batch, S), generator=g, device=device).float() * 2 - 1
        return x, torch.einsum("nbs,ngs->ngb", x, rho_run).reshape(n * G, -1)

    tests = [sample(len(runs), spec.n_test, gen)]
    params, curves, at = two_phases(forward, params, sample, tests, spec.steps, spec.decay_frac, spec.lr, spec.batch,
                                    spec.checks, gen, device)
    kern, p_all = final_kernel(params, S, scale)
    err = kern - rho0[[j for _, j, _, _ in runs]]
    return {"runs": [list(r) for r in runs], "mse_exact": (err ** 2).sum(1), "test_mse": curves[-1],
            "curve_steps": at, "curves": curves, "p": [p_all[i, :H].tolist() for i, (*_, H) in enumerate(runs)],
            "k0": kern[:, 0].tolist(), "wall_s": time.perf_counter() - t0}
