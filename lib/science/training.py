"""The training loop of the trained models outside Figure 1's engine (all but the planted-AND arm's
`batched_transformer.train_full_batch`: ARCHITECTURE.md says why): R runs stacked along a leading axis, one optimiser
over the stacked tensors, and the gradient of the *sum* of the per-run losses, so that each run gets exactly its own
gradient (and an elementwise optimiser such as AdamW or SGD is R separate runs).

What a step trains on is the caller's `loss_of(step)`: a fresh batch every step (online), the same fixed set every
step (full batch), or the next minibatch of a shuffled epoch; `after(step, loss, out)` records what the caller
needs and returns True to stop. lib/science/engine.py keeps its own loop (samples to threshold, evaluation on a
schedule, stopped runs compacted out of the batch).

    >>> w = torch.zeros(3, 2, requires_grad=True); target = torch.tensor([[1.0, 0], [0, 1], [2, 2]])
    >>> fit(torch.optim.SGD([w], lr=0.5), lambda step: ((w - target).pow(2).sum(1), None), steps=20)
    20
    >>> torch.allclose(w, target)          # three runs, each at its own target
    True
"""
from __future__ import annotations

from typing import Callable

import torch


def fit(opt: torch.optim.Optimizer, loss_of: Callable, steps: int, after: Callable | None = None,
        clip: Callable | None = None) -> int:
    """Steps 1..steps: `loss_of(step)` -> (per-run losses (R,) or one loss, anything `after` needs); backward of
    their sum; `clip()` (per-run gradient clipping, say) if given; the optimiser's step; the gradients set to None
    (so the next backward starts from nothing). `after(step, loss, out)` runs after each step and stops the loop by
    returning True. Returns the number of steps taken."""
    for step in range(1, steps + 1):
        loss, out = loss_of(step)
        loss.sum().backward()
        if clip is not None:
            clip()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if after is not None and after(step, loss, out):
            return step
    return steps
