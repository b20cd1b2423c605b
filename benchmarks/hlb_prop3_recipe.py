"""Which recipe lets the Prop. 3 arm of head_lower_bound learn? A sweep of (q, d, steps, lr) on one N, training
only the head counts asked for (run_heads trains every H = 1..q+1), with the chapter's own task, model and metric.

Until 2026-11-26, every paper-profile Prop. 3 run (q = 4, d = 32, 2,000 steps, lr 0.01, MLP width 128) ended at FVU
0.85-0.91 for every H, so the floor check could not fail. `--oracle` measures the ceiling that the MLP alone puts
on it: the same width fitted to (|v|^2 - n)/sqrt(n) from v ~ N(0, I_n), n = q d, i.e. with the attention solved.

    .venv/bin/python benchmarks/hlb_prop3_recipe.py --q 2 --d 8 --heads 1 2 --steps 2000 --lr 0.01
    .venv/bin/python benchmarks/hlb_prop3_recipe.py --oracle --n 128 --steps 4000 --lr 0.01
"""
from __future__ import annotations

import argparse
import json
import math
import time

import torch

from lib.chapters.head_lower_bound import compute as hl
from lib.science import engine, models
from lib.science.seeds import generator


def train_prop3(q: int, d: int, heads: list[int], steps: int, lr: float, N=16, seeds=1, width=128, batch=64,
                n_test=4000, seed=0) -> dict:
    """run_heads' Prop. 3 training (free W_QK, square link, FVU on i >= N/2) for the given head counts only."""
    spec = hl.HeadsPoint(setting="prop3", N=N, q=q, d=d, encoding="code", d_e_rule="floor", task_seed=42, seed=seed,
                         n_seeds=seeds, steps=steps, batch_size=batch, lr=lr, mlp_width=width, n_test=n_test)
    task, mask, _ = hl.setting_task(spec)
    half = N // 2
    per_run = [H for H in heads for _ in range(seeds)]
    model = models.MergedAttention(D=task.D, H=max(heads), m=width, qk_mask=mask)
    params = model.init(len(per_run), generator(seed, "prop3", "init"), "cpu", heads=per_run)
    check = task.sample(len(per_run), 1000, generator(seed, "prop3", "check"))
    metric = lambda pred, y: (pred - y)[..., half:].pow(2).flatten(1).mean(1) / 2.0
    cfg = engine.TrainConfig(lr=lr, weight_decay=0.0, batch_size=batch, check_every=max(1, steps // 10),
                             max_samples=steps * batch)
    t0 = time.perf_counter()
    runs = engine.train_to_threshold(model.forward, params, task.sample, [check], [-math.inf], cfg,
                                     generator(seed, "prop3", "data"), metric=metric)
    X, T = task.draw(len(per_run), n_test, generator(seed, "prop3", "test"))
    with torch.no_grad():
        fvu = metric(model.forward(runs.params, task.encode(X, T)), task.labels(X, T))
    return {"q": q, "d": d, "steps": steps, "lr": lr, "heads": per_run, "floor": [hl.lower_bound("prop3", H, q, d)
            for H in per_run], "fvu": [round(float(f), 4) for f in fvu],
            "curve": [[round(float(c), 3) for c in row] for row in runs.curves[:, :, 0]],
            "wall_s": round(time.perf_counter() - t0)}


def oracle(n: int, steps: int, lr: float, width=128, batch=64) -> float:
    """FVU of a width-`width` ReLU MLP fitted to the Prop. 3 label from the q d relevant coordinates themselves."""
    g = torch.Generator().manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(n, width), torch.nn.ReLU(), torch.nn.Linear(width, 1))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=0.0)
    f = lambda v: (v.pow(2).sum(-1) - n) / math.sqrt(n)
    vt = torch.randn(20000, n, generator=g)
    for _ in range(steps):
        v = torch.randn(batch, n, generator=g)
        loss = (net(v).squeeze(-1) - f(v)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        return float((net(vt).squeeze(-1) - f(vt)).pow(2).mean() / 2)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--q", type=int, default=4)
    ap.add_argument("--d", type=int, default=32)
    ap.add_argument("--heads", type=int, nargs="+", default=[4])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--N", type=int, default=16)
    ap.add_argument("--width", type=int, default=128)
    ap.add_argument("--oracle", action="store_true")
    ap.add_argument("--n", type=int, default=128)
    a = ap.parse_args()
    torch.set_num_threads(1)
    if a.oracle:
        print(json.dumps({"oracle_n": a.n, "width": a.width, "steps": a.steps, "lr": a.lr,
                          "fvu": round(oracle(a.n, a.steps, a.lr, a.width), 4)}), flush=True)
    else:
        print(json.dumps(train_prop3(a.q, a.d, a.heads, a.steps, a.lr, N=a.N, seeds=a.seeds, width=a.width)), flush=True)
