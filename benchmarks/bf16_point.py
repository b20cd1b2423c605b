"""Figure 1's GRU points recomputed with the model's matmuls in bfloat16, beside float32, on this machine (issue 41).

Each job is one stored paper point of sample_complexity (a split GRU run: one seed of one (panel, N)), computed by the
chapter's own `run_point` under `torch.autocast(bfloat16)` (forward and backward: the model's custom autograd
functions take their gradients inside it), with the task's sampler run outside it, so that the weights, the optimiser
state, the prompts and the labels stay float32 and the loss and metric come out float32 (autocast around the whole
run would draw the labels through the task's matmuls in bfloat16: why precision belongs in the engine, around the
training step and the evaluation, not around a run). The float32 job is the same call without autocast. It prints
each job's wall time and samples to the threshold beside the stored float32 point's, so one run shows both the
speed-up and whether bfloat16 moves the sample counts. Nothing is stored.

    OMP_NUM_THREADS=1 python benchmarks/bf16_point.py --panel b --N 25 --runs 0 1 2 3 4 --float32 0 --jobs 2
"""
from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lib.chapters import stored  # noqa: E402
from lib.chapters.sample_complexity import compute as sc  # noqa: E402


def float32_data(sample):
    """The task's sampler with autocast off: prompts and labels are drawn in float32 (the task's own matmuls)."""
    def draw(*args, **kwargs):
        with torch.autocast("cpu", enabled=False):
            return sample(*args, **kwargs)
    return draw


def job(args: tuple) -> tuple:
    """(label, precision, wall s, samples per test set) of one stored point recomputed in `precision`."""
    spec, label, precision = args
    torch.set_num_threads(1)                        # as the points are computed (threads=1)
    sample = sc.qstr.QSTR.sample
    sc.qstr.QSTR.sample = float32_data(sample)
    try:
        t0 = time.perf_counter()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bfloat16"):
            result = sc.run_point(spec, "cpu")
        return label, precision, time.perf_counter() - t0, result["samples"]
    finally:
        sc.qstr.QSTR.sample = sample


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--panel", default="b")
    ap.add_argument("--N", type=int, default=25)
    ap.add_argument("--runs", type=int, nargs="+", default=[0], help="seed indices of the split GRU runs (bfloat16)")
    ap.add_argument("--float32", type=int, nargs="*", default=[0], help="runs also recomputed in float32 (timing)")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    P, results = stored("sample_complexity")
    points = {p.label[0]: p for p in sc.points(P)}
    todo = []
    for precision, runs in (("float32", args.float32), ("bfloat16", args.runs)):
        for r in runs:
            label = (args.panel, "rnn", args.N, 0, r)
            todo.append((points[label].spec, label, precision))
    print(f"{len(todo)} jobs, {args.jobs} at a time, one torch thread each", flush=True)
    with ProcessPoolExecutor(args.jobs) as pool:
        for label, precision, wall, samples in pool.map(job, todo):
            rec = results[label]
            print(f"{' '.join(map(str, label)):<14} {precision:<9} {wall:8.0f} s  samples {samples.ravel().tolist()}"
                  f"  | stored float32: {rec['result']['wall_s']:.0f} s, samples "
                  f"{[x for row in rec['result']['samples'] for x in row]} on {rec['device']}", flush=True)


if __name__ == "__main__":
    main()
