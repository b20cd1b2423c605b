"""Figure 1's three models at the paper's sizes: the batched engine against the authors' per-run protocol, side by side
in one process, with the FLOP rate each reaches against a float32 matmul timed in the same run.

(a) per-run: the authors' modules (nn.MultiheadAttention + MLP, the FFN with hidden widths [N d, 1000], nn.GRU with
    500 units per direction), one run after another, torch.optim.AdamW, 64 fresh prompts per step, the test MSE on
    every test prompt (batches of 1,000) every `check_every` steps: seed 000's find_sample_complexity.
(b) engine: lib.science.engine.train_to_threshold, the runs of a configuration as one batched computation.

Both sides do the same work: the same steps, the same evaluations (threshold -inf, so no run stops and no test set
is skipped), on the book's test sets (panel (a): the authors' simple-1STR prompts and the task's 1STR prompts, 5,000
each; panel (b): 5,000 simple-1STR prompts). The protocols are the two panels': N=6 1STR checked every 10 steps, and
N=33 simple-1STR checked every 100. For each model the script prints samples/s on each side, their ratio, and the
GFLOP/s each reaches, counted from the shapes (`models.forward_flops`: multiply-adds x 2; a training sample costs three
forward passes, an evaluated prompt one) and as a share of the float32 matmul rate (2048^3, on the same device and
threads).

    python benchmarks/bench_engine.py                  # both panels, 5 runs, 100 steps each (~10 min on 2 cores)
    python benchmarks/bench_engine.py --steps 20       # a shorter look
    python benchmarks/bench_engine.py --switches       # the engine's GPU switches against its default (GPU)
    python benchmarks/bench_engine.py --bf16           # also the engine under bfloat16 autocast (issue 41)

--bf16 also times the engine with its matmuls in bfloat16 (`torch.autocast`: float32 weights, optimiser state and
loss; what a `precision: bfloat16` parameter would run) and the bfloat16 matmul rate on the same device and threads,
and prints each model's bfloat16 rate, its speed-up over float32 and its share of the bfloat16 matmul rate. It
measures only: no stored number is computed this way.

--switches times the engine alone with each TrainConfig switch (a whole test set per evaluation pass, both test
sets in one pass, padding instead of compaction, torch.compile; on a GPU mode reduce-overhead, i.e. CUDA graphs)
against its default, and prints default time / switch time (above 1: the switch is faster). Compilation is timed
apart (a first call), then the steady state.

Pause anything else running on the machine while it measures (kill -STOP PID, then kill -CONT PID).
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
from lib.science import engine, models, qstr, reference  # noqa: E402

MODELS = ("transformer", "ffn", "rnn")
PROTOCOLS = {"a": (6, False, 10), "b": (33, True, 100)}    # panel: N, simple-1STR, check_every


def matmul_gflops(device: str = "cpu", seconds: float = 2.0, dtype=torch.float32) -> float:
    """2048^3 matmuls (float32, or `dtype`) per second on `device`, as GFLOP/s (on a GPU: queued, then synchronised)."""
    a, b = (torch.randn(2048, 2048, device=device).to(dtype) for _ in range(2))
    torch.mm(a, b)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    sync()
    t0, k = time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):          # ten at a time: on a GPU, perf_counter alone would only time the queueing
            torch.mm(a, b)
        sync()
        k += 10
    return 2 * 2048 ** 3 * k / (time.perf_counter() - t0) / 1e9


def per_run_loop(name, task, R, steps, cfg, tests, device):
    """The authors' protocol, one run after another, with their modules."""
    for r in range(R):
        torch.manual_seed(r)
        net = reference.reference(models.build(name, task.N, task.D, task.d)).to(device)
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


def engine_runs(name, task, R, steps, cfg, tests, device, bf16: bool = False, **switches):
    model = models.build(name, task.N, task.D, task.d)
    gen = torch.Generator(device=device).manual_seed(0)
    run_cfg = engine.TrainConfig(**{**cfg.__dict__, "max_samples": steps * cfg.batch_size, **switches})
    with torch.autocast(device, dtype=torch.bfloat16, enabled=bf16):      # matmuls in bfloat16, weights float32
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


def setup(panel: str, R: int, n_test: int, device: str):
    N, simple, k = PROTOCOLS[panel]
    task = qstr.QSTR(N=N, simple=simple, device=device)
    gen = torch.Generator(device=device).manual_seed(1)
    tests = [task.sample(R, n_test, gen, simple=True)] + ([] if simple else [task.sample(R, n_test, gen)])
    return task, tests, engine.TrainConfig(check_every=k)


def switches(device: str, n_test: int) -> dict[str, dict]:
    """The engine's switches (lib.science.engine.TrainConfig), each measured against the default."""
    mode = "reduce-overhead" if device == "cuda" else "default"   # CUDA graphs need a GPU
    return {f"eval_batch={n_test}": {"eval_batch": n_test}, "fuse_tests": {"fuse_tests": True}, "pad": {"pad": True},
            f"pad+compile({mode})": {"pad": True, "compile": mode},
            "all": {"eval_batch": n_test, "fuse_tests": True, "pad": True, "compile": mode}}


def compare_switches(R, n_test, steps, device):
    table = switches(device, n_test)
    print(f"device: {device}; engine alone, {R} runs, {steps} steps; default time / switch time (>1: faster)")
    widths = [max(24, len(k) + 2) for k in table]     # a column as wide as its switch's name
    print(f"{'config':<28}{'default s':>10}" + "".join(f"{k:>{w}}" for k, w in zip(table, widths)))
    for panel in PROTOCOLS:
        for name in MODELS:
            task, tests, cfg = setup(panel, R, n_test, device)
            run = partial(engine_runs, name, task, R, steps, cfg, tests, device)
            run()                                                      # warm-up
            base = timed(run, device)
            cells = []
            for sw in table.values():
                first = timed(partial(run, **sw), device)              # compiles, where the switch compiles
                t = timed(partial(run, **sw), device)
                cells.append(f"{base / t:.2f}x" + (f" (+{first - t:.0f}s)" if "compile" in sw else ""))
            print(f"{name + ' panel ' + panel:<28}{base:>10.2f}" + "".join(f"{c:>{w}}" for c, w in zip(cells, widths)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100, help="training steps per run (default 100; panel (b) takes at "
                    "least 100, its evaluation interval)")
    ap.add_argument("--runs", type=int, default=5, help="runs per configuration (default 5, the paper's seeds)")
    ap.add_argument("--n-test", type=int, default=5000, help="test prompts per test set (default 5,000)")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of " + ",".join(MODELS))
    ap.add_argument("--switches", action="store_true", help="the engine's GPU switches against its default")
    ap.add_argument("--bf16", action="store_true", help="also the engine under bfloat16 autocast, and the bfloat16 "
                    "matmul rate")
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    R, n_test, steps = args.runs, args.n_test, args.steps
    if args.switches:
        compare_switches(R, n_test, steps, device)
        return
    names = [m for m in args.models.split(",") if m]
    mm = matmul_gflops(device)
    mm16 = matmul_gflops(device, dtype=torch.bfloat16) if args.bf16 else None
    print(f"device: {device}, {torch.get_num_threads()} threads; float32 matmul 2048^3: {mm:.0f} GFLOP/s"
          + (f"; bfloat16: {mm16:.0f} GFLOP/s ({mm16 / mm:.1f}x)" if mm16 else "")
          + f"; {R} runs x {steps} steps of 64 prompts (panel (b): at least 100), {n_test:,} test prompts per set")
    head = f"{'panel':<6}{'model':<13}{'authors samples/s':>18}{'engine samples/s':>18}{'ratio':>7}" \
           f"{'authors GFLOP/s':>17}{'engine GFLOP/s':>16}{'of matmul':>17}" \
           + (f"{'bf16 samples/s':>16}{'vs f32':>8}{'bf16 GFLOP/s':>14}{'of bf16 mm':>12}" if mm16 else "")
    print(head)
    for panel in PROTOCOLS:
        for name in names:
            task, tests, cfg = setup(panel, R, n_test, device)
            steps = max(args.steps, cfg.check_every)                 # at least one evaluation in every protocol
            width = {"rnn": 500, "ffn": 1000, "transformer": 100}[name]
            f = models.forward_flops(name, task.N, task.D, task.d, width)
            flops = R * (steps * cfg.batch_size * 3 * f + (steps // cfg.check_every) * n_test * len(tests) * f)
            engine_runs(name, task, R, cfg.check_every, cfg, tests, device)      # warm-up (allocator, kernels)
            t_ref = timed(partial(per_run_loop, name, task, R, steps, cfg, tests, device), device)
            t_eng = timed(partial(engine_runs, name, task, R, steps, cfg, tests, device), device)
            samples = R * steps * cfg.batch_size
            g_ref, g_eng = flops / t_ref / 1e9, flops / t_eng / 1e9
            line = (f"{panel:<6}{name:<13}{samples / t_ref:>18,.0f}{samples / t_eng:>18,.0f}{t_ref / t_eng:>6.2f}x"
                    f"{g_ref:>17.1f}{g_eng:>16.1f}{g_ref / mm:>8.0%} / {g_eng / mm:>4.0%}")
            if mm16:
                engine_runs(name, task, R, cfg.check_every, cfg, tests, device, bf16=True)    # warm-up
                t16 = timed(partial(engine_runs, name, task, R, steps, cfg, tests, device, bf16=True), device)
                line += (f"{samples / t16:>16,.0f}{t_eng / t16:>7.2f}x{flops / t16 / 1e9:>14.1f}"
                         f"{flops / t16 / 1e9 / mm16:>12.0%}")
            print(line, flush=True)
    print(f"matmul again at the end: {matmul_gflops(device):.0f} GFLOP/s (a drift means the machine was not quiet)"
          + (f"; bfloat16 {matmul_gflops(device, dtype=torch.bfloat16):.0f}" if args.bf16 else ""))


if __name__ == "__main__":
    main()
