"""The span arm of Theorem 6 (Appendix B): full-batch GD with L2 and AdamW from the same start on one training set
of n < Nd prompts, the first layer's off-span energy recorded along the way, and each run's test MSE at the end."""
from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

import torch

from lib.chapters.ffn_span.experiments.ffn import simple_1str
from lib.science import engine, models, qstr
from lib.science.seeds import generator
from lib.science.span import ffn_init, layer_energies, span_projector, train_full_batch, unit_vectors, x_columns


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
