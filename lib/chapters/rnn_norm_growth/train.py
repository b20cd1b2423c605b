"""Train every width of the phase diagram until its run is *decided*: reached the threshold, or plateaued above it.

lib.science.engine.train_to_threshold stops a run at the threshold or at the sample cap; a run still above the
threshold at the cap is then read as "this width cannot", although it may only have been slow. The critical width
of Prop. 8 is about what a width can represent, not about a training budget, so this loop gives each run three
possible ends (`STATUS`):

- reached: its test MSE fell to the threshold (its weights are kept from that check: the norm of Prop. 8's second
  inequality is measured on networks *at* a fixed accuracy);
- plateau: at the rate its best test MSE fell over its last doubling of training (samples s/2 to s), `factor`
  times more training would still leave it above the threshold (`hopeless`). A run is judged only once it has
  seen `min_samples` and `GUARD` (1.5) times the samples at which the first run of its batch reached the
  threshold (never while no run has): an RNN often sits near MSE 1 before it starts to learn, and a narrow one
  longer than a wide one, so that first flat stretch must not count;
- censored: neither by `max_samples` (undecided; the page marks it).

The training is engine.train_to_threshold's (AdamW, batched runs, compaction, evaluation); this module adds only the
plateau rule, through its `stop` hook.

    >>> from lib.science import models, qstr
    >>> task, gen = qstr.QSTR(N=4, d=4, simple=True), torch.Generator().manual_seed(0)
    >>> model = models.BiRNN(D=task.D, hidden=8, cell="gru")
    >>> r = train_to_decision(model.forward, model.init(3, gen), task.sample, task.sample(3, 256, gen), 0.8,
    ...                       engine.TrainConfig(max_samples=640), min_samples=320, factor=2, gen=gen)
    >>> [STATUS[s] for s in r["status"]]    # 640 samples are too few to reach MSE 0.8
    ['censored', 'censored', 'censored']
"""
from __future__ import annotations

import math

import numpy as np
import torch

from lib.science import engine

STATUS = ("reached", "plateau", "censored")
GUARD = 1.5    # a run is judged only after this many times the samples the fastest run of its batch needed


def hopeless(check_samples: list[int], best: np.ndarray, threshold: float, start: float, factor: float) -> np.ndarray:
    """(R,) bool: runs that, improving at their current rate per doubling of training, would still be above
    `threshold` after `factor` times the samples seen so far. The rate is the drop of the best MSE since half the
    samples, extrapolated linearly in log samples (learning curves flatten, so this is optimistic about the run).

    best (C, R): best-so-far MSE of each run at each check. False for every run before `start` samples."""
    s = check_samples[-1]
    half = int(np.searchsorted(check_samples, s / 2, side="right")) - 1      # the last check at or before s/2
    if s < start or half < 0:
        return np.zeros(best.shape[1], bool)
    rate = best[half] - best[-1]                                             # drop over the last doubling
    return best[-1] - rate * math.log2(factor) > threshold


def train_to_decision(forward, params: dict, sample, test: tuple, threshold: float, cfg: engine.TrainConfig,
                      min_samples: int, factor: float, gen: torch.Generator) -> dict:
    """Every run until it reaches `threshold`, plateaus or hits cfg.max_samples (see the module docstring).

    Returns samples (R,) at the first check below the threshold (NaN if never), status (R,), best (R,) best test
    MSE, curves (C, R) test MSE at each check (NaN once stopped), check_samples (C,), params: each run's weights
    where it stopped, on the CPU."""
    R = next(iter(params.values())).shape[0]
    plateau = np.zeros(R, bool)
    best_rows = []                                   # best-so-far MSE of every run at each check (frozen once stopped)

    def stop(check_samples, curves, samples, live):
        best_rows.append(np.fmin(best_rows[-1], curves[-1][:, 0]) if best_rows else curves[-1][:, 0])
        reached = np.isfinite(samples[:, 0])
        # no run is judged before GUARD x the samples the batch's fastest run needed (none before any run got there)
        start = max(min_samples, GUARD * np.nanmin(samples[:, 0])) if reached.any() else math.inf
        flat = hopeless(check_samples, np.array(best_rows)[:, live], threshold, start, factor) & ~reached[live]
        plateau[live[flat]] = True
        return flat

    runs = engine.train_to_threshold(forward, params, sample, [test], [threshold], cfg, gen, stop=stop)
    reached = np.isfinite(runs.samples[:, 0])
    return {"samples": runs.samples[:, 0], "status": np.where(reached, 0, np.where(plateau, 1, 2)),
            "best": np.nanmin(runs.curves[:, :, 0], 0), "curves": runs.curves[:, :, 0],
            "check_samples": runs.check_samples, "params": runs.params}
