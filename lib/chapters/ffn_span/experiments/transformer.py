"""The transformer arm of the rotation test (Appendix B): one-layer Transformers trained with AdamW on fixed training
sets, each plain run with a rotated twin (the same u, prompts and initialisation, its tokens rotated by a Haar Q)."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch

from lib.chapters.ffn_span.experiments.ffn import simple_1str
from lib.science import engine, models, qstr
from lib.science.seeds import generator
from lib.science.span import haar_orthogonal, unit_vectors


@dataclass(frozen=True)
class TransformerPoint:
    """One-layer Transformers, plain and rotated twins, at N_rotation for every n of the grid."""
    N: int                     # sequence length
    d: int                     # token dimension
    n: tuple[int, ...]         # training-set sizes
    seed: int                  # seed of the directions u, rotations, prompts and initialisations
    task_seed: int             # seed of the position codes
    tr_seeds: int              # runs per n and per arm (plain, rotated)
    n_test: int                # test prompts per run
    lr: float                  # AdamW learning rate
    weight_decay: float        # AdamW decoupled weight decay
    steps: int                 # AdamW steps
    batch: int                 # minibatch size, drawn from the n training prompts
    mlp_width: int             # width of the Transformer's MLP


def run_transformer(spec: TransformerPoint, device: str) -> dict:
    """One-layer Transformers trained with AdamW on minibatches of a fixed training set of n prompts, every n of
    the grid, through lib.science.engine. Each plain run has a rotated twin with the same direction u, prompts, test
    prompts and initialisation, and its tokens rotated: 2 x len(n) x tr_seeds runs as one batch."""
    t0 = time.perf_counter()
    N, d, S, ns = spec.N, spec.d, spec.tr_seeds, spec.n
    task = qstr.QSTR(N=N, d=d, simple=True, task_seed=spec.task_seed, device=device)
    gen = generator(spec.seed, "transformer", N, device=device)
    R0 = len(ns) * S
    n_run = torch.tensor([n for n in ns for _ in range(S)] * 2, device=device)
    U = unit_vectors(R0, d, gen, device)
    Q = haar_orthogonal(R0, N * d, gen, device)
    state = gen.get_state()
    plain = simple_1str(task, U, max(ns), gen)[:2], simple_1str(task, U, spec.n_test, gen)[:2]
    gen.set_state(state)   # the twins: the same draws again, tokens rotated
    rot = simple_1str(task, U, max(ns), gen, Q)[:2], simple_1str(task, U, spec.n_test, gen, Q)[:2]
    (z, y), test = [[torch.cat([a, b]) for a, b in zip(p, r)] for p, r in zip(plain, rot)]
    R, rows = 2 * R0, torch.arange(2 * R0, device=device)[:, None]

    def sample(n_live, batch, g):
        assert n_live == R  # nothing stops early (threshold -inf): every run stays in the batch to the end
        idx = (torch.rand(R, batch, generator=g, device=device) * n_run[:, None]).long()
        return z[rows, idx], y[rows, idx]

    model = models.Transformer(task.D, spec.mlp_width)
    init = {k: torch.cat([v, v]) for k, v in model.init(R0, gen, device).items()}
    cfg = engine.TrainConfig(lr=spec.lr, weight_decay=spec.weight_decay, batch_size=spec.batch,
                             check_every=spec.steps, max_samples=spec.steps * spec.batch)
    runs = engine.train_to_threshold(model.forward, init, sample, [tuple(test)], [-math.inf], cfg, gen)
    final = runs.curves[-1, :, 0].reshape(2, len(ns), S)
    return {"N": N, "Nd": N * d, "n": ns, "test_mse": final[0], "test_mse_rotated": final[1],
            "wall_s": time.perf_counter() - t0}
