"""Sweep points, and the one runner that loads, computes, schedules and parallelises them.

A chapter's `compute.py` returns its experiment as data: `points(P) -> list[Point]`. A point is

- a **spec**: a frozen dataclass whose fields are everything the point's numbers depend on. Its fields are the
  store key, and they are all that its computation sees;
- a **run** function, `run(spec, device) -> dict`, defined at module level (no closure: it cannot see the
  parameter dict, only its spec);
- a **label**: where the record goes in the chapter's results (a path of keys, see `nest`);
- a **cost**: a rough relative time, so that the longest points start first and parallel workers end together.

`collect` is the only code that loads stored points, computes missing ones (in this process, or in `jobs`
worker processes) and stores each one as soon as it finishes, so an interrupted sweep resumes from what finished.

    >>> from lib.chapters.sample_complexity import compute as sc
    >>> results = collect(sc.points(P), Store("sample_complexity", "quick"), "cpu")
"""
from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lib.core.store import MissingResult, Store, clean_temps, environment, key_of, spec_dict


@dataclass(frozen=True)
class Point:
    label: tuple                     # where the record goes: ("fit", key) -> results["fit"][key]
    spec: Any                        # a frozen dataclass: the point's only input, and its store key
    run: Callable[[Any, str], dict]  # module-level run(spec, device) -> result dict
    cost: float = 1.0                # relative time: the costliest points start first
    threads: int | None = None       # 1: tiny tensors, one torch thread on the CPU; None: the process's default

    def __post_init__(self):
        if not (dataclasses.is_dataclass(self.spec) and type(self.spec).__dataclass_params__.frozen):
            raise TypeError(f"{self.label}: a point's spec must be a frozen dataclass, got {type(self.spec).__name__}")
        if "<" in self.run.__qualname__ or getattr(self.run, "__closure__", None):
            raise TypeError(f"{self.label}: run must be a module-level function of (spec, device), not a closure or lambda")

    @property
    def name(self) -> str:
        return " ".join(str(x) for x in _flat(self.label))


def _flat(label):
    for x in label:
        yield from (_flat(x) if isinstance(x, tuple) else [x])


def nest(pairs) -> dict:
    """{label: record} -> nested dict: a label (a, b) goes to out[a][b], a label (a,) to out[a]."""
    out: dict = {}
    for label, record in pairs:
        node = out
        for k in label[:-1]:
            node = node.setdefault(k, {})
        node[label[-1]] = record
    return out


def run_point(point: Point, device: str) -> dict:
    """Compute one point (what a worker process runs); adds its wall time when the run does not report one."""
    import torch

    before = torch.get_num_threads()
    if point.threads and torch.device(device).type == "cpu":
        torch.set_num_threads(point.threads)
    t0 = time.perf_counter()
    try:
        result = point.run(point.spec, device)
    finally:
        torch.set_num_threads(before)
    result.setdefault("wall_s", time.perf_counter() - t0)
    return result


def progress(stream=None) -> Callable[[str], None]:
    """A `log` for collect: on an interactive terminal one line that updates in place (until the last point),
    elsewhere one line per point."""
    import re
    import sys

    stream = stream or sys.__stderr__
    tty = stream.isatty()

    def log(line: str) -> None:
        m = re.search(r"\[(\d+)/(\d+)\]", line)
        running = m is not None and m.group(1) != m.group(2)
        stream.write(f"\r\x1b[K{line}" + ("" if running else "\n") if tty else line + "\n")
        stream.flush()

    return log


def _worker_init(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)


def collect(points: list[Point], store: Store, device: str, jobs: int = 1, force: bool = False,
            log: Callable[[str], None] | None = print, env: dict | None = None) -> dict:
    """Every point's record, nested by label: loaded from the store, else computed and stored at once.

    jobs > 1 computes the missing points in that many worker processes (spawned: CUDA cannot be used in a forked
    child); each point draws from its own seeds, so the numbers do not depend on jobs. In a stored-only store
    (committed paper results) a missing point raises MissingResult instead of being computed. env: the provenance
    stored with each computed point (store.environment; computed here when the caller has none)."""
    log = log or (lambda line: None)
    labels = [p.label for p in points]
    if len(set(labels)) != len(labels):
        raise ValueError(f"{store.chapter}: two points share a label")
    records, todo = {}, {}
    for p in points:
        record = None if force else store.get(p.spec)
        if record is not None:
            records[p.label] = record
        else:
            todo.setdefault(key_of(spec_dict(p.spec)), []).append(p)   # equal specs are computed once
    if todo and store.stored_only:
        p = next(iter(todo.values()))[0]
        raise MissingResult(f"{store.dir}: no stored result for {p.name} ({len(todo)} missing); these results are "
                            f"rendered, not recomputed here: refresh them with `python -m lib compute {store.chapter} "
                            f"--profile {store.profile}`")
    if records:
        log(f"{store.chapter}: {len(records)} of {len(points)} points loaded from {store.dir}")
    if todo:
        env = env or environment(device, store.chapter)
        clean_temps(store.dir / "points")      # what a killed run left half-written
    order = sorted(todo.values(), key=lambda group: -group[0].cost)
    t0, done, cost_left = time.perf_counter(), 0, sum(g[0].cost for g in order)
    cost_done = 0.0

    def finish(group, result):
        nonlocal done, cost_done
        record = store.put(group[0].spec, result, env)
        for p in group:
            records[p.label] = record
        done, cost_done = done + 1, cost_done + group[0].cost
        elapsed = time.perf_counter() - t0
        eta = elapsed * (cost_left - cost_done) / cost_done if cost_done else float("nan")   # costs are relative
        log(f"{store.chapter}: [{done}/{len(order)}] {group[0].name} computed in {result['wall_s']:.1f} s "
            f"({elapsed:.0f} s elapsed, about {eta:.0f} s left)")

    if jobs <= 1 or len(order) <= 1:
        for group in order:
            finish(group, run_point(group[0], device))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        threads = max(1, (os.cpu_count() or 1) // jobs)
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init,
                                 initargs=(threads,)) as pool:
            futures = {pool.submit(run_point, group[0], device): group for group in order}
            try:
                for future in as_completed(futures):
                    finish(futures[future], future.result())
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
    store.used = [records[p.label] for p in points]
    return nest((p.label, records[p.label]) for p in points)
