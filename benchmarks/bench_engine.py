"""Batched engine vs the authors' per-run loop, side by side in one process, on the same configurations.

(a) per-run: one nn.Module at a time (the authors' architectures), torch.optim.AdamW, a fresh batch of 64 prompts
    per step, the test MSE on every test prompt every `check_every` steps: seed 000's find_sample_complexity.
(b) engine: lib.science.engine.train_to_threshold, all seeds of a configuration as one batched computation.

Both train the same number of steps with the same evaluation schedule (threshold -inf, so no run stops early and
the work is identical), and the script prints samples/s for each and their ratio. On the CPU it runs a small
configuration; with a GPU (or --full) the configurations of Figure 1 (5 seeds, 5,000 test prompts).

    python benchmarks/bench_engine.py            # CPU: about a minute
    python benchmarks/bench_engine.py --full     # Figure 1's configurations (a GPU)
    python benchmarks/bench_engine.py --full --switches   # the engine's GPU switches against its default, side by side

--switches times the engine alone with each TrainConfig switch (a whole test set per evaluation pass, both test
sets in one pass, padding instead of compaction, torch.compile; on a GPU mode reduce-overhead, i.e. CUDA graphs)
against its default, and prints default time / switch time (above 1: the switch is faster). Compilation is timed
apart (a first call), then the steady state.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from functools import partial
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from lib.science import engine, models, qstr  # noqa: E402


def per_run_loop(name, task, R, steps, cfg, tests, device):
    """The authors' protocol, one run after another."""
    for r in range(R):
        torch.manual_seed(r)
        net = models.reference(models.build(name, task.N, task.D, task.d)).to(device)
        opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        gen = torch.Generator(device=device).manual_seed(r)
        for step in range(1, steps + 1):
            z, y = task.sample(1, cfg.batch_size, gen)
            opt.zero_grad()
            loss = (net(z[0]) - y[0]).pow(2).mean()
            loss.backward()
            opt.step()
            if step % cfg.check_every == 0:
                with torch.no_grad():
                    for tz, ty in tests:
                        total = sum((net(tz[r, i:i + 1000]) - ty[r, i:i + 1000]).pow(2).mean(1).sum().item()
                                    for i in range(0, tz.shape[1], 1000))
                        _ = total / tz.shape[1]


def engine_runs(name, task, R, steps, cfg, tests, device, **switches):
    model = models.build(name, task.N, task.D, task.d)
    gen = torch.Generator(device=device).manual_seed(0)
    run_cfg = engine.TrainConfig(**{**cfg.__dict__, "max_samples": steps * cfg.batch_size, **switches})
    engine.train_to_threshold(model.forward, model.init(R, gen, device), task.sample, tests,
                              [-math.inf] * len(tests), run_cfg, gen)


def timed(fn, device):
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - t0


def switches(device: str, n_test: int) -> dict[str, dict]:
    """The engine's switches (lib.science.engine.TrainConfig), each measured against the default."""
    mode = "reduce-overhead" if device == "cuda" else "default"   # CUDA graphs need a GPU
    return {f"eval_batch={n_test}": {"eval_batch": n_test}, "fuse_tests": {"fuse_tests": True}, "pad": {"pad": True},
            f"pad+compile({mode})": {"pad": True, "compile": mode},
            "all": {"eval_batch": n_test, "fuse_tests": True, "pad": True, "compile": mode}}


def compare_switches(configs, R, n_test, steps, device):
    table = switches(device, n_test)
    print(f"device: {device}; engine alone, {R} runs, {steps} steps; default time / switch time (>1: faster)")
    print(f"{'config':<28}{'default s':>10}" + "".join(f"{k:>24}" for k in table))
    for name, N, simple, k in configs:
        task = qstr.QSTR(N=N, simple=simple, device=device)
        gen = torch.Generator(device=device).manual_seed(1)
        tests = [task.sample(R, n_test, gen, simple=True)] + ([] if simple else [task.sample(R, n_test, gen)])
        cfg = engine.TrainConfig(check_every=k)
        run = partial(engine_runs, name, task, R, steps, cfg, tests, device)
        run(**{})                                                  # warm-up
        base = timed(run, device)
        cells = []
        for sw in table.values():
            first = timed(partial(run, **sw), device)              # compiles, where the switch compiles
            t = timed(partial(run, **sw), device)
            cells.append(f"{base / t:.2f}x" + (f" (+{first - t:.0f}s)" if "compile" in sw else ""))
        label = f"{name} N={N} {'simple' if simple else '1STR'} k={k}"
        print(f"{label:<28}{base:>10.2f}" + "".join(f"{c:>24}" for c in cells))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true", help="Figure 1's configurations (default on a GPU)")
    ap.add_argument("--steps", type=int, default=None, help="training steps per run")
    ap.add_argument("--switches", action="store_true", help="the engine's GPU switches against its default")
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    full = args.full or device == "cuda"
    if full:   # Figure 1: 1STR at N=12 (check every 10) and simple-1STR at N=33 (every 100), 5 seeds, 5,000 test prompts
        models = ("transformer", "rnn", "ffn")
        configs = [(m, 12, False, 10) for m in models] + [(m, 33, True, 100) for m in models]
        R, n_test, steps = 5, 5000, args.steps or 500
    else:      # CPU: small models of panel (a), 5 seeds, 1,000 test prompts
        configs = [("transformer", 6, False, 10), ("ffn", 6, False, 10)]
        R, n_test, steps = 5, 1000, args.steps or 200
    if args.switches:
        compare_switches(configs, R, n_test, steps, device)
        return
    print(f"device: {device}; {R} runs per configuration, {steps} steps of 64 prompts each, test MSE every k steps")
    print(f"{'config':<28}{'per-run samples/s':>20}{'engine samples/s':>20}{'ratio':>8}")
    tot_loop = tot_eng = 0.0
    for name, N, simple, k in configs:
        task = qstr.QSTR(N=N, simple=simple, device=device)
        gen = torch.Generator(device=device).manual_seed(1)
        tests = [task.sample(R, n_test, gen, simple=True)] + ([] if simple else [task.sample(R, n_test, gen)])
        cfg = engine.TrainConfig(check_every=k)
        engine_runs(name, task, R, 2 * k, cfg, tests, device)  # warm-up (allocator, kernels)
        t_loop = timed(partial(per_run_loop, name, task, R, steps, cfg, tests, device), device)
        t_eng = timed(partial(engine_runs, name, task, R, steps, cfg, tests, device), device)
        samples = R * steps * cfg.batch_size
        tot_loop, tot_eng = tot_loop + t_loop, tot_eng + t_eng
        label = f"{name} N={N} {'simple' if simple else '1STR'} k={k}"
        print(f"{label:<28}{samples / t_loop:>20,.0f}{samples / t_eng:>20,.0f}{t_loop / t_eng:>7.1f}x")
    print(f"{'all':<28}{'':>20}{'':>20}{tot_loop / tot_eng:>7.1f}x   ({tot_loop:.1f} s per-run vs {tot_eng:.1f} s engine)")


if __name__ == "__main__":
    main()
