"""Sweep points, and `collect`, the one runner that loads, computes and stores them.

A chapter's `compute.py` returns its experiment as data: `points(P) -> list[Point]`. A point is

- a **spec**: a frozen dataclass whose fields are everything the point's numbers depend on. Its fields are the
  store key, and they are all that its computation sees;
- a **run** function, `run(spec, device) -> dict`, defined at module level (no closure: it cannot see the
  parameter dict, only its spec);
- a **label**: where the record goes in the chapter's results (a path of keys, see `nest`);
- a **cost**: a rough relative time, so that the longest points start first and parallel workers end together.

`collect` is the only code that loads stored points, computes missing ones (in this process, in `jobs` worker
processes, or on a Dask cluster: lib.core.executors) and stores each one as soon as it finishes, so an interrupted
sweep resumes from what finished. With a deadline (lib.core.schedule) it starts no point that would not finish
before it, and abandons (never stores) one still running at it; what is left raises `Unfinished`, and the next call
resumes from the stored points.

    >>> from lib.chapters.sample_complexity import compute as sc; from lib.core import params; from lib.core.store import ROOT
    >>> P = params.resolve("sample_complexity", "paper")     # its committed points: loaded, none computed
    >>> results = collect(sc.points(P), Store("sample_complexity", "paper", root=ROOT / "results"), "cpu", log=None)
    >>> len(results) == len(results.used) == len(sc.points(P)), sorted(results)[0]    # {label: record}, a label per point
    (True, ('a', 'ffn', 2))
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lib.core.executors import cluster_executor, import_failure, process_pool
from lib.core.progress import HEARTBEAT_S, Heartbeat, progress, seconds  # noqa: F401 (progress: collect's log)
from lib.core.schedule import Alarm, DeadlineHit, Estimate, Schedule
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

    @property
    def kind(self) -> tuple:
        """The label without its numbers (`b transformer` for `b transformer 16 1`): points whose costs compare."""
        return tuple(x for x in _flat(self.label) if not isinstance(x, (int, float)))


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


class Unfinished(RuntimeError):
    """collect reached its deadline: `done` of `total` points are stored (a rerun resumes from them)."""

    def __init__(self, chapter: str, done: int, total: int, abandoned: int = 0):
        super().__init__(f"{chapter}: {done} of {total} points stored when the deadline came; rerun to resume")
        self.chapter, self.done, self.total, self.abandoned = chapter, done, total, abandoned


class Collected(dict):
    """What collect returns: every point's record nested by label (a dict, see `nest`), and `used`, the records in
    the order of the points (what a page sums its compute time and names its machines from)."""

    def __init__(self, nested: dict, used: list[dict]):
        super().__init__(nested)
        self.used = used


def collect(points: list[Point], store: Store, device: str, jobs: int = 1, force: bool = False,
            log: Callable[[str], None] | None = print, env: dict | None = None, cluster: str | None = None,
            deadline: float | None = None, clock: Callable[[], float] = time.time,
            heartbeat: float | None = HEARTBEAT_S) -> Collected:
    """Every point's record, nested by label (with `.used`, the records in the points' order): loaded from the
    store, else computed and stored at once.

    jobs > 1 computes the missing points in that many worker processes (spawned: CUDA cannot be used in a forked
    child); cluster (a Dask scheduler's address, tcp://host:8786) computes them on that cluster's workers instead.
    Each point draws from its own seeds, so the numbers do not depend on jobs or cluster. In a stored-only store
    (committed paper results) a missing point raises MissingResult instead of being computed. env: the provenance
    stored with each computed point (store.environment; computed here when the caller has none).

    deadline (seconds of `clock`, time.time): no point starts that its cost, at the seconds per cost unit the
    finished points took, would not finish before it; a point still running at the deadline is abandoned (never
    stored). Raises Unfinished when points are left; every finished one is stored, so the next call resumes from
    them (lib.core.schedule).

    log gets a line when the computation starts, one per finished point with the time elapsed and an estimate of the
    time left (lib.core.schedule.Estimate), and, while a point runs, "still working: ..." at least every `heartbeat`
    seconds of silence (None: never)."""
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
    order = sorted(todo.items(), key=lambda item: -item[1][0].cost)   # (key, the points of that spec)
    if records:
        log(f"{store.chapter}: {len(records)} of {len(points)} points loaded from {store.dir}")
    estimate = Estimate()
    if todo:
        env = env or environment(device, store.chapter)
        clean_temps(store.dir / "points")      # what a killed run left half-written
        for p in points:   # what the stored points of each kind took on this device: the first estimate
            wall = (records.get(p.label) or {}).get("result", {}).get("wall_s")
            if isinstance(wall, (int, float)) and records[p.label].get("device") == env["device"]:
                estimate.prior(p.kind, p.cost, wall)
        first = estimate.left([(g[0].kind, g[0].cost) for _, g in order])
        log(f"{store.chapter}: {len(order)} point{'s' if len(order) > 1 else ''} to compute, the costliest first"
            + (f" (about {seconds(first)}, going by the points stored before)" if first is not None else ""))
    t0, done = clock(), 0
    schedule = Schedule(store, deadline, env["device"] if env else None, log, clock)
    left = []                 # the groups not computed
    remaining = dict(order)   # key -> group: not finished, abandoned or left out yet
    running = {}              # key -> (name, when it started): what a heartbeat names

    def eta(extra: float = 0.0) -> str:
        """", or "about N s left" for the points not finished yet (less what the running ones have run)."""
        t = estimate.left([(g[0].kind, g[0].cost) for g in remaining.values()])
        return "" if t is None else f"about {seconds(max(t - extra, 0.0))} left"

    def finish(key, group, result, took):
        nonlocal done
        record = store.put(group[0].spec, result, env)
        for p in group:
            records[p.label] = record
        done += 1
        remaining.pop(key, None)
        schedule.finished(key, group[0].cost, took, group[0].kind)
        estimate.finished(group[0].kind, group[0].cost, took, wall=clock() - t0)
        log(f"{store.chapter}: [{done}/{len(order)}] {group[0].name} computed in {result['wall_s']:.1f} s "
            f"({seconds(clock() - t0)} elapsed{', ' + eta() if remaining else ''})")

    def working() -> str:
        """What a heartbeat says: the points running, how long, and the estimate."""
        now, names = clock(), [name for name, _ in list(running.values())]
        ran = max((now - t for _, t in list(running.values())), default=0.0)
        what = f"{', '.join(names[:3])}{' ...' if len(names) > 3 else ''}" if names else "between points"
        text = f"{store.chapter}: {what} for {seconds(ran)} ({done} of {len(order)} points done, {seconds(now - t0)} elapsed"
        return text + (f", {eta(ran)})" if estimate.rates or estimate.priors else ")")

    def fits(key, group) -> bool:
        if schedule.fits(key, group[0].cost, group[0].name, group[0].kind):
            return True
        remaining.pop(key, None)
        return False

    def abandoned(key, group, started):
        schedule.abandon(key, group[0].cost, clock() - started, group[0].name)

    beat = Heartbeat(log, working, heartbeat) if order and heartbeat else None
    log = beat.say if beat else log
    schedule.log = log
    if beat:
        beat.__enter__()
    try:
        _compute(order, fits, finish, abandoned, left, running, remaining, device, jobs, cluster, deadline, clock,
                 schedule)
    finally:
        if beat:
            beat.__exit__()
    schedule.close(left=bool(left))
    if left:
        raise Unfinished(store.chapter, len(points) - sum(len(g) for g in left), len(points), schedule.abandoned)
    return Collected(nest((p.label, records[p.label]) for p in points), [records[p.label] for p in points])


def _compute(order, fits, finish, abandoned, left, running, remaining, device, jobs, cluster, deadline, clock,
             schedule) -> None:
    """collect's computation of the points left (`order`: (key, group) costliest first), in this process or in an
    executor's workers, stopping at the deadline; `left` gets the groups not computed."""
    if cluster is None and (jobs <= 1 or len(order) <= 1):
        for i, (key, group) in enumerate(order):
            if not fits(key, group):
                left.append(group)
                continue
            started = clock()
            running[key] = (group[0].name, started)
            try:
                with Alarm(deadline, clock):
                    result = run_point(group[0], device)
            except DeadlineHit:
                abandoned(key, group, started)
                left.extend(g for _, g in order[i:])
                break
            finally:
                running.pop(key, None)
            finish(key, group, result, clock() - started)
    elif order:
        from concurrent.futures import FIRST_COMPLETED, wait

        executor, slots, close = cluster_executor(cluster) if cluster else process_pool(jobs)
        pending, futures, abandon = list(order), {}, False
        try:
            while pending or running:
                while pending and len(futures) < slots():
                    key, group = pending.pop(0)
                    if fits(key, group):
                        futures[executor.submit(run_point, group[0], device)] = (key, group, clock())
                        running[key] = (group[0].name, clock())
                    else:
                        left.append(group)
                if not futures:
                    break
                finished, _ = wait(futures, timeout=schedule.seconds_left(), return_when=FIRST_COMPLETED)
                if not finished:   # the deadline: what still runs is abandoned
                    for key, group, started in futures.values():
                        abandoned(key, group, started)
                    left.extend(g for _, g, _ in futures.values())
                    left.extend(g for _, g in pending)
                    abandon = True
                    break
                for future in finished:
                    key, group, _ = futures.pop(future)
                    running.pop(key, None)
                    try:
                        result = future.result()
                    except Exception as err:
                        import_failure(err, cluster)   # a worker without lib: one line, not Dask's traceback
                        raise
                    finish(key, group, result, result["wall_s"])   # its time in the worker, not the worker's start too
        except BaseException:
            abandon = True
            raise
        finally:
            close(abandon)
