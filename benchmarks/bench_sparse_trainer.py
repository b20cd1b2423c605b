"""The batched one-layer Transformer trainer (lib.science.batched_transformer) against one model at a time, on the
same work: R trials of the planted 3-way AND, full-batch AdamW, validation on fresh samples. Prints trials/s of both,
their ratio, and extrapolates the paper's full grid (11 T x 16 m x 50 trials, 1000 iterations, 10^4 validation
samples every 10 iterations) on this machine. The target on one H100 is the full grid in at most 15 minutes.

    OMP_NUM_THREADS=1 python benchmarks/bench_sparse_trainer.py            # under a minute on a CPU
    python benchmarks/bench_sparse_trainer.py --full --device cuda           # the paper's model at T = 400, R = 200

The extrapolation measures two unit costs of the batched trainer, seconds per training token-iteration (forward,
backward and AdamW, per trial, sample and position) and seconds per validated token, and multiplies them by the
grid's totals; it assumes the costs scale linearly in tokens, which holds once the batch fills the device.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lib.chapters.sparse_variable_creation.compute import planted_and  # noqa: E402
from lib.science import batched_transformer as bt  # noqa: E402

GRID_T = [100, 150, 200, 250, 300, 350, 400, 500, 600, 700, 800]
GRID_M = list(range(50, 201, 10))
TRIALS, ITERS, EVAL_EVERY, N_VAL = 50, 1000, 10, 10_000


def sync(device):
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def trials(R, T, m, n_val, cfg, device):
    """The same R trials for both protocols: a generator, stacked initial weights, training and validation sets."""
    gen = torch.Generator(device=device).manual_seed(0)
    p = bt.init(R, T, cfg, gen, device)
    planted, bits, y = planted_and(gen, R, m, T, None, device)
    _, vb, vy = planted_and(gen, R, n_val, T, planted, device)
    sync(device)
    return gen, p, bits, y, vb, vy


def batched(R, T, m, iters, n_val, cfg, device):
    gen, p, bits, y, vb, vy = trials(R, T, m, n_val, cfg, device)
    t0 = time.perf_counter()
    bt.train_full_batch(p, bits, y, torch.ones(R, m, device=device), vb, vy, cfg, bt.OptConfig(), iters, EVAL_EVERY, gen)
    sync(device)
    total = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(3):
        bt.accuracy(p, vb, vy, cfg)
    sync(device)
    per_eval = (time.perf_counter() - t0) / 3
    evals = iters // EVAL_EVERY + (iters % EVAL_EVERY != 0)
    return total, per_eval, (total - evals * per_eval) / (R * m * (T + 1) * iters), per_eval / (R * n_val * (T + 1))


def one_at_a_time(R, T, m, iters, n_val, cfg, device):
    """Each trial as its own minGPT-style module and torch.optim.AdamW, validation by its full forward pass."""
    _, p, bits, y, vb, vy = trials(R, T, m, n_val, cfg, device)
    t0 = time.perf_counter()
    for r in range(R):
        model = bt.Reference.from_stacked(p, r, T, cfg).to(device)
        opt, tok, vtok = model.optimizer(bt.OptConfig()), bt.tokens_of(bits[r]), bt.tokens_of(vb[r])
        for it in range(1, iters + 1):
            model.train()
            loss = torch.nn.functional.cross_entropy(model(tok), y[r].long())
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            if it % EVAL_EVERY == 0 or it == iters:
                model.eval()
                with torch.no_grad():
                    (model(vtok).argmax(-1) == vy[r]).float().mean()
    sync(device)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the paper's model at T = 400, m = 100, R = 200, 50 iterations")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    a = ap.parse_args()
    if a.full:
        R, T, m, iters, n_val, R_ref = 200, 400, 100, 50, 2000, 4
    else:
        R, T, m, iters, n_val, R_ref = 16, 50, 50, 20, 500, 4
    cfg = bt.ModelConfig(d=64, heads=16, dropout=0.1)
    print(f"device {a.device}, torch {torch.__version__}, {torch.get_num_threads()} thread(s); d=64, 16 heads, "
          f"T={T}, m={m}, {iters} iterations, validation on {n_val} samples every {EVAL_EVERY}")
    total, per_eval, c_train, c_val = batched(R, T, m, iters, n_val, cfg, a.device)
    ref = one_at_a_time(R_ref, T, m, iters, n_val, cfg, a.device)
    solo = sum(batched(1, T, m, iters, n_val, cfg, a.device)[0] for _ in range(R_ref))
    tb, tr, ts = R / total, R_ref / ref, R_ref / solo
    print(f"batched ({R} trials at once):                 {total:8.2f} s  {tb:8.3f} trials/s")
    print(f"one at a time, minGPT module ({R_ref} trials):     {ref:8.2f} s  {tr:8.3f} trials/s")
    print(f"one at a time, batched code R=1 ({R_ref} trials):  {solo:8.2f} s  {ts:8.3f} trials/s")
    print(f"ratio batched / one at a time: {tb / tr:.1f}x against the minGPT module ({ts / tr:.1f}x of it from computing "
          f"only [CLS]'s row and the cheap validation, {tb / ts:.1f}x from batching the trials)")
    train_units = sum(TRIALS * mm * (tt + 1) * ITERS for tt in GRID_T for mm in GRID_M)
    val_units = sum(TRIALS * N_VAL * (tt + 1) * (ITERS // EVAL_EVERY) for tt in GRID_T for _ in GRID_M)
    full = train_units * c_train + val_units * c_val
    print(f"unit costs: {c_train * 1e9:.1f} ns per training token-iteration, {c_val * 1e9:.2f} ns per validated token")
    print(f"full grid (11 T x 16 m x 50 trials = 8,800 runs, {ITERS} iterations, {N_VAL} validation samples every "
          f"{EVAL_EVERY}) extrapolated on this {a.device}: {full / 3600:.1f} h (training {train_units * c_train / 3600:.1f} h, "
          f"validation {val_units * c_val / 3600:.1f} h); target on one H100: <= 15 min")


if __name__ == "__main__":
    main()
