"""Sweep points, and the one runner that loads, computes, schedules and parallelises them.

A chapter's `compute.py` returns its experiment as data: `points(P) -> list[Point]`. A point is

- a **spec**: a frozen dataclass whose fields are everything the point's numbers depend on. Its fields are the
  store key, and they are all that its computation sees;
- a **run** function, `run(spec, device) -> dict`, defined at module level (no closure: it cannot see the
  parameter dict, only its spec);
- a **label**: where the record goes in the chapter's results (a path of keys, see `nest`);
- a **cost**: a rough relative time, so that the longest points start first and parallel workers end together.

`collect` is the only code that loads stored points, computes missing ones (in this process, in `jobs` worker
processes, or on a Dask cluster) and stores each one as soon as it finishes, so an interrupted sweep resumes from
what finished. With a deadline it starts no point that would not finish before it, and abandons (never stores) one
still running at it; what is left raises `Unfinished`, and the next call resumes from the stored points.

    >>> from lib.chapters.sample_complexity import compute as sc; from lib.core import params; from lib.core.store import ROOT
    >>> P = params.resolve("sample_complexity", "paper")     # its committed points: loaded, none computed
    >>> results = collect(sc.points(P), Store("sample_complexity", "paper", root=ROOT / "results"), "cpu", log=None)
    >>> len(results) == len(sc.points(P)), sorted(results)[0]    # {label: record}, a label per point
    (True, ('a', 'ffn', 2))
"""
from __future__ import annotations

import dataclasses
import os
import re
import signal
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lib.core.store import ROOT, MissingResult, Store, clean_temps, environment, key_of, spec_dict


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
    _die_with_parent()


def _die_with_parent() -> None:
    """On Linux, have the kernel end this worker when the process that started it dies: a `compute` killed with
    SIGTERM or SIGKILL runs no cleanup, and its spawned workers would otherwise train on, orphaned, for nobody."""
    import ctypes
    import signal
    import sys

    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass


class Unfinished(RuntimeError):
    """collect reached its deadline: `done` of `total` points are stored (a rerun resumes from them)."""

    def __init__(self, chapter: str, done: int, total: int, abandoned: int = 0):
        super().__init__(f"{chapter}: {done} of {total} points stored when the deadline came; rerun to resume")
        self.chapter, self.done, self.total, self.abandoned = chapter, done, total, abandoned


class _DeadlineHit(BaseException):
    """Raised by the alarm inside an in-process point at the deadline (a BaseException: no `except Exception` in a
    run function swallows it)."""


class _Alarm:
    """Interrupt the main thread at `deadline` (time.time() seconds) while the block runs; elsewhere, or with no
    deadline, nothing."""

    def __init__(self, deadline: float | None):
        self.active = (deadline is not None and hasattr(signal, "setitimer")
                       and threading.current_thread() is threading.main_thread())
        self.deadline = deadline

    def _hit(self, signum, frame):
        raise _DeadlineHit

    def __enter__(self):
        if self.active:
            self.before = signal.signal(signal.SIGALRM, self._hit)
            signal.setitimer(signal.ITIMER_REAL, max(1e-3, self.deadline - time.time()))
        return self

    def __exit__(self, *exc):
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.before)
        return False


class ClusterError(RuntimeError):
    """No Dask here, or no scheduler at the address: one line for the user."""


def _client(address: str):
    try:
        from distributed import Client
    except ImportError as err:
        raise ClusterError(f"--cluster needs Dask distributed (pip install distributed): {err}") from None
    try:
        return Client(address)   # waits distributed.comm.timeouts.connect (30 s; $DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT)
    except Exception as err:   # no scheduler there (OSError), or Dask's configuration cannot reach it (tls:// without one)
        raise ClusterError(f"--cluster {address}: no Dask scheduler answered ({type(err).__name__}: {err})") from None


def import_failure(err: BaseException, address: str | None) -> None:
    """One line (ClusterError) where the cluster at `address` (None: none) could not import a module a point needs,
    and how to start it with this checkout on PYTHONPATH (Dask re-raises the remote error as a cause, or in its text)."""
    while address and err is not None:
        if m := re.search(r"No module named '([^']+)'", str(err)):
            raise ClusterError(f"--cluster {address}: the cluster could not import the module {m.group(1)!r} (its "
                               f"scheduler or workers run without this checkout on their PYTHONPATH): start them with "
                               f"PYTHONPATH={ROOT} dask scheduler, and PYTHONPATH={ROOT} dask worker {address}") from None
        err = err.__cause__ or err.__context__


def _worker_device() -> tuple[str, str]:
    """What `device: auto` is on a worker, and its name (runs there)."""
    import torch

    from lib.core.store import device_name

    device = "cuda" if torch.cuda.is_available() else "cpu"
    return device, device_name(device)


def cluster_device(address: str) -> tuple[str, str]:
    """(device, name) of the cluster's workers for `device: auto`, asked of one of them: `compute` may run on a
    machine without the workers' GPUs (a login node). The workers are assumed alike."""
    client = _client(address)
    try:
        return tuple(client.submit(_worker_device, pure=False).result())
    except Exception as err:
        import_failure(err, address)     # the scheduler or a worker without lib: one line, not Dask's traceback
        raise
    finally:
        client.close()


def cluster_executor(address: str):
    """A concurrent.futures executor on the Dask cluster at `address` (tcp://host:8786), its number of worker
    threads (a callable: workers may come and go), and a close function. Dask is imported only here: local
    processes need no extra package or service."""
    client = _client(address)
    executor = client.get_executor(pure=False)   # each point computed afresh, never a cached result

    def slots() -> int:
        return max(1, sum(client.nthreads().values()))

    def close(abandon: bool) -> None:
        executor.shutdown(wait=not abandon)       # abandon: cancel what is queued or running; its results are dropped
        client.close()

    return executor, slots, close


def _process_pool(jobs: int):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    threads = max(1, (os.cpu_count() or 1) // jobs)
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init,
                               initargs=(threads,))

    def close(abandon: bool) -> None:
        if abandon:   # points still running at the deadline: stop their workers (nothing of theirs is stored)
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)

    return pool, (lambda: jobs), close


def collect(points: list[Point], store: Store, device: str, jobs: int = 1, force: bool = False,
            log: Callable[[str], None] | None = print, env: dict | None = None, cluster: str | None = None,
            deadline: float | None = None) -> dict:
    """Every point's record, nested by label: loaded from the store, else computed and stored at once.

    jobs > 1 computes the missing points in that many worker processes (spawned: CUDA cannot be used in a forked
    child); cluster (a Dask scheduler's address, tcp://host:8786) computes them on that cluster's workers instead.
    Each point draws from its own seeds, so the numbers do not depend on jobs or cluster. In a stored-only store
    (committed paper results) a missing point raises MissingResult instead of being computed. env: the provenance
    stored with each computed point (store.environment; computed here when the caller has none).

    deadline (time.time() seconds): no point starts that its cost, at the seconds per cost unit the finished points
    took, would not finish before it; a point still running at the deadline is abandoned (never stored). Raises
    Unfinished when points are left; every finished one is stored, so the next call resumes from them."""
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
    cost_done, rates, left = 0.0, [], []   # rates: seconds per cost unit of finished points; left: not computed
    # What earlier calls with a deadline learnt: seconds per cost unit, and how long abandoned points ran at least,
    # so that a point longer than a call's window is not started (and abandoned) again and again.
    hints = (store.read("deadline.json") or {}) if deadline is not None else {}
    machine = env["device"] if env else None
    if hints.get("device", machine) != machine:   # a CPU's seconds per cost would keep a GPU from its long points
        log(f"{store.chapter}: the deadline hints learnt on {hints['device']} do not apply on {machine}; ignored")
        hints = {}
    at_least = dict(hints.get("at_least", {}))
    floor = hints.get("seconds_per_cost_at_least", 0.0)   # an abandoned point ran at least this long per cost unit

    def finish(group, result, seconds):
        nonlocal done, cost_done
        record = store.put(group[0].spec, result, env)
        for p in group:
            records[p.label] = record
        done, cost_done = done + 1, cost_done + group[0].cost
        rates.append(seconds / max(group[0].cost, 1e-12))
        at_least.pop(key_of(spec_dict(group[0].spec)), None)
        elapsed = time.perf_counter() - t0
        eta = elapsed * (cost_left - cost_done) / cost_done if cost_done else float("nan")   # costs are relative
        log(f"{store.chapter}: [{done}/{len(order)}] {group[0].name} computed in {result['wall_s']:.1f} s "
            f"({elapsed:.0f} s elapsed, about {eta:.0f} s left)")

    def fits(group) -> bool:
        """Whether the point can start: before the deadline, and expected to end before it."""
        if deadline is None:
            return True
        now = time.time()
        if now >= deadline:
            return False
        # finished points' rate, else the last call's; an abandoned point's lower bound only while none finished
        rate = statistics.median(rates) if rates else hints.get("seconds_per_cost") or floor
        expected = max(group[0].cost * rate, at_least.get(key_of(spec_dict(group[0].spec)), 0.0))
        if now + expected > deadline:
            skipped.append(group)
            if len(skipped) <= 3:   # a sweep of thousands of points says so for the first few only
                log(f"{store.chapter}: {group[0].name} not started: it needs about {expected:.0f} s, "
                    f"{deadline - now:.0f} s are left before the deadline")
            return False
        return True

    n_abandoned, skipped = 0, []

    def abandoned(group, seconds):
        nonlocal n_abandoned, floor
        n_abandoned += 1
        floor = max(floor, seconds / max(group[0].cost, 1e-12))
        key = key_of(spec_dict(group[0].spec))
        at_least[key] = max(at_least.get(key, 0.0), seconds)
        log(f"{store.chapter}: {group[0].name} abandoned at the deadline after {seconds:.0f} s (not stored)")

    if cluster is None and (jobs <= 1 or len(order) <= 1):
        for i, group in enumerate(order):
            if not fits(group):
                left.append(group)
                continue
            started = time.perf_counter()
            try:
                with _Alarm(deadline):
                    result = run_point(group[0], device)
            except _DeadlineHit:
                abandoned(group, time.perf_counter() - started)
                left.extend(order[i:])
                break
            finish(group, result, time.perf_counter() - started)
    elif order:
        from concurrent.futures import FIRST_COMPLETED, wait

        executor, slots, close = cluster_executor(cluster) if cluster else _process_pool(jobs)
        pending, running, abandon = list(order), {}, False
        try:
            while pending or running:
                while pending and len(running) < slots():
                    group = pending.pop(0)
                    if fits(group):
                        running[executor.submit(run_point, group[0], device)] = (group, time.perf_counter())
                    else:
                        left.append(group)
                if not running:
                    break
                timeout = None if deadline is None else max(0.0, deadline - time.time())
                finished, _ = wait(running, timeout=timeout, return_when=FIRST_COMPLETED)
                if not finished:   # the deadline: what still runs is abandoned
                    for group, started in running.values():
                        abandoned(group, time.perf_counter() - started)
                    left.extend(g for g, _ in running.values())
                    left.extend(pending)
                    abandon = True
                    break
                for future in finished:
                    group, _ = running.pop(future)
                    try:
                        result = future.result()
                    except Exception as err:
                        import_failure(err, cluster)   # a worker without lib: one line, not Dask's traceback
                        raise
                    finish(group, result, result["wall_s"])   # its time in the worker, not the worker's start too
        except BaseException:
            abandon = True
            raise
        finally:
            close(abandon)
    if len(skipped) > 3:
        log(f"{store.chapter}: {len(skipped) - 3} more points not started: each needs longer than the time left")
    if not left:           # finished: what earlier deadlines learnt is of no more use
        (store.dir / "deadline.json").unlink(missing_ok=True)
    elif deadline is not None and (rates or at_least != hints.get("at_least", {})):
        rate = statistics.median(rates) if rates else hints.get("seconds_per_cost", 0.0)
        store.write("deadline.json", {"seconds_per_cost": rate, "seconds_per_cost_at_least": floor, "at_least": at_least,
                                      "device": machine})
    if left:
        raise Unfinished(store.chapter, len(points) - sum(len(g) for g in left), len(points), n_abandoned)
    store.used = [records[p.label] for p in points]
    return nest((p.label, records[p.label]) for p in points)
