"""Figure 2 of Mousavi-Hosseini et al. 2025: the authors' attention_weights.py re-run. One Transformer (torch
multi-head attention with separate W_Q and W_K, one head) trained on a fixed simple-1STR dataset for up to `epochs`
shuffled epochs with AdamW and weight decay, stopping once an epoch's mean training loss is below `stop_loss`; the
result is W_Q^T W_K, which the page compares with Equation A.2. A point of the head_lower_bound chapter
(compute.points lists it).

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")
    >>> out = results["figure2"]["result"]     # what run_figure2(figure2_spec(P), "cpu") stored, at N = 100
    >>> torch.tensor(out["M"]).shape, out["D"] == figure2_spec(P).d + 2 * out["d_e"]     # (D, D), D = d + 2 d_e
    (torch.Size([56, 56]), True)
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from lib.science import models, qstr
from lib.science.seeds import generator
from lib.science.training import fit


@dataclass(frozen=True)
class Figure2Point:
    """The authors' attention_weights.py run: everything its numbers depend on."""
    N: int               # sequence length
    d: int               # token dimension
    simple: bool         # simple-1STR (the authors' code) or 1STR (their caption)
    n_train: int         # size of the fixed training set
    epochs: int          # at most this many shuffled epochs
    stop_loss: float     # stop once an epoch's mean training loss is below this
    lr: float            # AdamW learning rate
    weight_decay: float  # AdamW weight decay
    batch_size: int      # the script's batch size (64)
    mlp_width: int       # the script's MLP width (100)
    d_e_rule: str        # floor or ceil of 5 ln N
    task_seed: int       # seed of u and the position codes
    seed: int            # seed of the data, initialisation, shuffles and test set


def figure2_spec(P: dict) -> Figure2Point:
    return Figure2Point(N=P["figure2_N"], d=P["figure2_d"], simple=P["figure2_task"] == "simple", n_train=P["figure2_train"],
                        epochs=P["figure2_epochs"], stop_loss=P["figure2_stop_loss"], lr=P["figure2_lr"],
                        weight_decay=P["figure2_weight_decay"], batch_size=64, mlp_width=100, d_e_rule=P["d_e_rule"],
                        task_seed=P["task_seed"], seed=P["seed"])


def run_figure2(spec: Figure2Point, device: str) -> dict:
    """The authors' attention_weights.py: one Transformer (torch MHA, one head) trained on a fixed dataset for up to
    `epochs` shuffled epochs, stopping once an epoch's mean training loss is below `stop_loss`."""
    t0 = time.perf_counter()
    task = qstr.QSTR(N=spec.N, d=spec.d, simple=spec.simple, d_e_rule=spec.d_e_rule, task_seed=spec.task_seed,
                     device=device)
    gen = generator(spec.seed, "figure2", "data", device=device)
    X, T = task.draw(1, spec.n_train, gen)                # the fixed training set (tokens and indices only)
    model = models.Transformer(task.D, spec.mlp_width)
    p = {k: v.requires_grad_() for k, v in model.init(1, generator(spec.seed, "figure2", "init", device=device), device).items()}
    opt = torch.optim.AdamW(list(p.values()), lr=spec.lr, weight_decay=spec.weight_decay)
    losses = []
    for _ in range(spec.epochs):
        batches = torch.randperm(spec.n_train, generator=gen, device=device).split(spec.batch_size)
        total = torch.zeros((), device=device)   # the epoch's loss, summed on the device: no host sync per step

        def minibatch(step, batches=batches):
            idx = batches[step - 1]
            xb, tb = X[:, idx], T[:, idx]
            return (model.forward(p, task.encode(xb, tb)) - task.labels(xb, tb)).pow(2).mean(), len(idx)

        def add(step, loss, n, total=total):
            total += loss.detach() * n           # in place

        fit(opt, minibatch, len(batches), add)
        losses.append(total.item() / spec.n_train)
        if losses[-1] < spec.stop_loss:
            break
    D = task.D
    w = p["attn.in_w"][0].detach()
    M = (w[:D].T @ w[D:2 * D]).cpu().numpy()                 # W_Q^T W_K: rows query features, columns key features
    Xt, Tt = task.draw(1, 2000, generator(spec.seed, "figure2", "test", device=device))
    with torch.no_grad():
        test = float((model.forward(p, task.encode(Xt, Tt)) - task.labels(Xt, Tt)).pow(2).mean())
    return {"M": M, "d_e": task.d_e, "D": D, "epoch_loss": losses, "test_mse": test, "wall_s": time.perf_counter() - t0}
