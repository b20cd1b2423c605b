"""Train R independent small models as one batched computation, with the authors' evaluation protocol.

Each step draws a fresh batch for every live run (on the device), takes the gradient of the *sum* of the per-run
losses (so each run gets exactly its own gradient) and applies AdamW to the stacked weights; AdamW is elementwise,
so this is R separate AdamW runs. Every `check_every` steps every live run is evaluated on its fixed test sets;
the first check at which test metric k falls below threshold k fixes that run's samples-to-threshold for k
(samples = steps x batch, counted as the authors count them). A run that has crossed every threshold stops: it is
removed from the batch (weights, optimizer state and test sets are compacted), so it neither changes nor costs
anything afterwards. A run still short of a threshold at `max_samples` is censored (NaN), never an exception.
A test set a run has crossed is not evaluated for it again (`skip_crossed`): its curve ends at the crossing.
TrainConfig's GPU switches (off by default) keep stopped runs in the batch instead (`pad`, fixed shapes for CUDA
graphs), compile the forward (`compile`) and evaluate every test set in one pass (`fuse_tests`).

Parameters whose name starts with "buf." are per-run constants (masks, fixed choices): carried and compacted
with their run, never optimised.

    >>> from lib.science.models import Transformer; from lib.science.qstr import QSTR
    >>> task, gen = QSTR(N=4, d=4), torch.Generator().manual_seed(0); model = Transformer(D=task.D)
    >>> runs = train_to_threshold(model.forward, model.init(3, gen), task.sample, [task.sample(3, 256, gen)], [0.5],
    ...                           TrainConfig(max_samples=20_000), gen)
    >>> runs.samples.shape, bool(np.isnan(runs.samples).any())   # (R, K) samples to test MSE < 0.5; NaN: censored
    ((3, 1), False)
"""
from __future__ import annotations

import math
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

Params = dict[str, torch.Tensor]


@dataclass
class TrainConfig:
    lr: float = 1e-3
    weight_decay: float = 0.01          # AdamW's decoupled decay (the authors' find_sample_complexity)
    batch_size: int = 64
    check_every: int = 10               # steps between test evaluations
    max_samples: int = 1_000_000        # the authors' cap
    eval_batch: int | None = None       # test prompts per run per forward pass; None: 1000 on a GPU, and on the CPU
                                        # 1000 across the R runs (1000 // R each): a pass's activations then fit
                                        # blocks the allocator reuses (5 FFN runs x 1000 prompts x width 1000 in one
                                        # pass: 45 ms per ReLU, most of it first-touch page faults, measured)
    skip_crossed: bool = True           # a run's test set k is no longer evaluated once it has crossed threshold k:
                                        # every stored sample count is the same, the curve of set k ends there (NaN);
                                        # pad evaluates every set (fixed shapes)
    # Switches for a GPU, all off by default (the numbers the chapters store come from the defaults). Each keeps the
    # per-run arithmetic; tests/test_engine_switches.py checks what each changes on the CPU. Measured side by side
    # by `benchmarks/bench_engine.py --switches` (results: benchmarks/RESULTS.md).
    fuse_tests: bool = False            # evaluate every test set in one forward pass (they share the prompt shape)
    pad: bool = False                   # keep stopped runs in the batch (masked) instead of compacting: fixed shapes
    compile: str | None = None          # torch.compile the forward: "default", or "reduce-overhead" (CUDA graphs;
                                        # needs pad, since compaction changes the shapes)


@dataclass
class Runs:
    samples: np.ndarray          # (R, K) samples at the first check below threshold k; NaN if never (censored)
    check_samples: np.ndarray    # (C,) samples seen at each check
    curves: np.ndarray           # (C, R, K) test metric at each check; NaN once the run has stopped, and (skip_crossed)
                                 # after the check at which it crossed threshold k
    params: Params               # final weights of every run, on the CPU
    wall_s: float

    @property
    def censored(self) -> np.ndarray:
        return np.isnan(self.samples)


@contextmanager
def one_cpu_thread(device):
    """Run the block with one torch thread when device is the CPU (a no-op on a GPU). For models of a few thousand
    weights, waking a second thread at every small op costs more than it brings; on a loaded 2-core machine a
    recurrence ran 50x slower with two threads than with one (5 s against 270 s). Restores the old count."""
    if torch.device(device).type != "cpu":
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def mse_per_run(pred: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Mean squared error of each run, over prompts and positions: (R, ...) -> (R,)."""
    return (pred - y).pow(2).flatten(1).mean(1)


@torch.no_grad()
def evaluate(forward, params: Params, tests, metric=mse_per_run, eval_batch: int = 1000, fuse: bool = False,
             need: torch.Tensor | None = None) -> torch.Tensor:
    """(R, K): metric of every run on each of its K test sets (z, y), each with leading dims (R, n_test).
    fuse: the K sets, where they have one shape, go through the model as one set (one pass instead of K).
    need (R, K) bool, where given: only those (run, set) pairs are evaluated, the others are NaN."""
    if need is not None and not bool(need.all()):
        out = torch.full((len(need), len(tests)), math.nan)
        for k, (z, y) in enumerate(tests):
            rows = need[:, k].nonzero().squeeze(1)
            if len(rows):
                sub = {n: v[rows.to(v.device)] for n, v in params.items()}
                dev = rows.to(z.device)
                out[rows, k] = evaluate(forward, sub, [(z[dev], y[dev])], metric, eval_batch)[:, 0].cpu()
        return out
    if fuse and metric is mse_per_run and len(tests) > 1 and len({(z.shape, y.shape) for z, y in tests}) == 1:
        K, n = len(tests), tests[0][0].shape[1]
        z, y = torch.cat([z for z, _ in tests], 1), torch.cat([y for _, y in tests], 1)
        err = torch.cat([(forward(params, z[:, i:i + eval_batch]) - y[:, i:i + eval_batch]).pow(2)
                         .reshape(z.shape[0], min(eval_batch, K * n - i), -1).mean(2) for i in range(0, K * n, eval_batch)], 1)
        return err.view(-1, K, n).mean(2)   # each prompt's mean error, averaged per set: the same statistic
    out = []
    for z, y in tests:
        n = z.shape[1]
        total = sum(metric(forward(params, z[:, i:i + eval_batch]), y[:, i:i + eval_batch]) * min(eval_batch, n - i)
                    for i in range(0, n, eval_batch))
        out.append(total / n)
    return torch.stack(out, 1)


def is_buffer(name: str) -> bool:
    return name.startswith("buf.")


def trainable(params: Params) -> list[torch.Tensor]:
    return [v for k, v in params.items() if not is_buffer(k)]


def _optimizer(params: list[torch.Tensor], cfg: TrainConfig):
    fused = params[0].is_cuda  # one kernel for all tensors on the GPU; foreach on the CPU
    return torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay, fused=fused or None,
                             foreach=None if fused else True)


def _compact(params: Params, opt, keep: torch.Tensor, cfg: TrainConfig):
    """New leaf tensors and optimizer holding only the runs in `keep` (their Adam moments and step carried over)."""
    new = {k: v.detach()[keep].requires_grad_(not is_buffer(k)) for k, v in params.items()}
    new_opt = _optimizer(trainable(new), cfg)
    for old_p, new_p in zip(params.values(), new.values()):
        state = opt.state.get(old_p)
        if state:
            new_opt.state[new_p] = {k: (v if v.dim() == 0 else v[keep]) for k, v in state.items()}
    return new, new_opt


def _padded(x: torch.Tensor, live: torch.Tensor, R: int) -> torch.Tensor:
    """A batch drawn for the live runs, placed in their rows of an (R, ...) batch of zeros."""
    out = x.new_zeros((R,) + tuple(x.shape[1:]))
    out[live] = x
    return out


def train_to_threshold(forward: Callable, params: Params, sample: Callable, tests: list, thresholds, cfg: TrainConfig,
                       gen: torch.Generator, loss: Callable = mse_per_run, metric: Callable = mse_per_run,
                       stop: Callable | None = None) -> Runs:
    """Train every run online until each of its test metrics has crossed its threshold, or `max_samples`.

    forward(params, z) -> prediction with leading run axis; sample(n_runs, batch, gen) -> (z, y) for n live runs;
    tests: K test sets (z, y) with leading dims (R, n_test); thresholds: K floats (use -inf to train to the cap).
    stop(check_samples, curves, samples, live), where given, is asked at every check which live runs (original
    indices `live`) to end although short of a threshold: a (len(live),) bool (e.g. a run that has plateaued).
    """
    t0 = time.perf_counter()
    R, K = next(iter(params.values())).shape[0], len(tests)
    device = next(iter(params.values())).device
    eval_batch = cfg.eval_batch or (1000 if device.type == "cuda" else max(1, 1000 // R))
    if cfg.compile == "reduce-overhead" and not cfg.pad:
        raise ValueError("compile='reduce-overhead' (CUDA graphs) needs pad=True: compaction changes the shapes")
    if cfg.compile:
        forward = torch.compile(forward, mode=cfg.compile, dynamic=not cfg.pad)
    thresholds = torch.as_tensor(list(thresholds), dtype=torch.float32)
    params = {k: v.detach().clone().requires_grad_(not is_buffer(k)) for k, v in params.items()}
    opt = _optimizer(trainable(params), cfg)
    final = {k: torch.empty_like(v, device="cpu") for k, v in params.items()}
    alive = torch.arange(R)                        # original indices of the live runs
    samples = np.full((R, K), np.nan)
    check_samples, curves = [], []
    max_steps = math.ceil(cfg.max_samples / cfg.batch_size)

    live = None                                    # pad: (R,) bool on the device, the runs still training
    for step in range(1, max_steps + 1):
        z, y = sample(len(alive), cfg.batch_size, gen)   # the same draws whether stopped runs are padded or removed
        if live is not None:                       # pad: stopped runs get zeros, and no loss
            z, y = _padded(z, live, R), _padded(y, live, R)
        opt.zero_grad(set_to_none=True)
        per_run = loss(forward(params, z), y)
        (per_run if live is None else torch.where(live, per_run, 0.0)).sum().backward()
        opt.step()

        if step % cfg.check_every and step != max_steps:
            continue
        n_seen = step * cfg.batch_size
        need = torch.from_numpy(np.isnan(samples[alive.numpy()])) if cfg.skip_crossed and not cfg.pad else None
        metrics = evaluate(forward, params, tests, metric, eval_batch, cfg.fuse_tests, need).cpu()   # (live, K)
        if cfg.pad:
            metrics = metrics[alive]
        row = np.full((R, K), np.nan)
        row[alive.numpy()] = metrics.numpy()
        check_samples.append(n_seen)
        curves.append(row)
        crossed = metrics < thresholds
        for j, run in enumerate(alive.tolist()):
            first = crossed[j].numpy() & np.isnan(samples[run])
            samples[run, first] = n_seen
        done = ~np.isnan(samples[alive.numpy()]).any(1)
        if stop is not None:
            done |= stop(check_samples, curves, samples, alive.numpy())
        if step == max_steps:
            done[:] = True
        if done.any():
            done_t = torch.from_numpy(done)
            rows = alive[done_t] if cfg.pad else done_t     # where the stopped runs are in the batch
            for k, v in params.items():
                final[k][alive[done_t]] = v.detach()[rows.to(v.device)].cpu()
            keep = torch.from_numpy(~done)
            alive = alive[keep]
            if len(alive) == 0:
                break
            if cfg.pad:                            # fixed shapes: stopped runs stay, masked (their weights are saved)
                live = torch.zeros(R, dtype=torch.bool, device=z.device)
                live[alive.to(z.device)] = True
                continue
            keep_dev = keep.to(z.device)
            params, opt = _compact(params, opt, keep_dev, cfg)
            tests = [(tz[keep_dev], ty[keep_dev]) for tz, ty in tests]

    return Runs(samples, np.array(check_samples), np.array(curves), final, time.perf_counter() - t0)
