"""A sweep's deadline: which points start before it, what a point still running at it teaches, and the hints one
call leaves the next in deadline.json. Its time comes from `clock` (time.time() seconds; a test passes a fake clock
and states exactly where the deadline falls). Points are named by their store key.

No point starts that its cost, at the seconds per cost unit the finished points of its kind took (a point's label
without its numbers: a chapter's costs compare within a kind better than across kinds), else those of every kind,
else what an earlier call learnt, would not finish before the deadline; a point abandoned at the deadline ran at
least so long, so a later call with less time does not start it again.

    >>> from pathlib import Path
    >>> now = [0.0]; s = Schedule(Store("naps", "quick", root=Path("/nowhere")), deadline=10.0, clock=lambda: now[0])
    >>> s.finished("a", cost=1.0, seconds=4.0)                       # a point of cost 1 took 4 s
    >>> now[0] = 4.0; s.fits("b", cost=1.0), s.fits("c", cost=2.0)   # at 4 s: 4 s more end by 10 s, 8 s more do not
    (True, False)
"""
from __future__ import annotations

import signal
import statistics
import threading
import time
from collections.abc import Callable

from lib.core.store import Store


class Schedule:
    """The deadline (time.time() seconds; None: none, every point starts) of one collect call over `store`.
    machine: the device the points run on (the hints learnt on another are ignored)."""

    def __init__(self, store: Store, deadline: float | None, machine: str | None = None,
                 log: Callable[[str], None] = lambda line: None, clock: Callable[[], float] = time.time):
        self.store, self.deadline, self.machine, self.log, self.clock = store, deadline, machine, log, clock
        hints = (store.read("deadline.json") or {}) if deadline is not None else {}
        if hints.get("device", machine) != machine:   # a CPU's seconds per cost would keep a GPU from its long points
            log(f"{store.chapter}: the deadline hints learnt on {hints['device']} do not apply on {machine}; ignored")
            hints = {}
        self.hints = hints
        self.rates: list[float] = []                     # seconds per cost unit of the points finished in this call
        self.kinds: dict[str, list[float]] = {}          # ... by kind of point
        self.at_least = dict(hints.get("at_least", {}))  # key -> seconds an abandoned point ran at least
        self.floor = hints.get("seconds_per_cost_at_least", 0.0)   # an abandoned point ran at least this per cost unit
        self.skipped = self.abandoned = 0

    def seconds_left(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - self.clock())

    def fits(self, key: str, cost: float, name: str = "", kind: tuple = ()) -> bool:
        """Whether a point can start: before the deadline, and expected to end before it."""
        if self.deadline is None:
            return True
        now = self.clock()
        if now >= self.deadline:
            return False
        # its kind's rate (this call's, else the last call's), else every finished point's, else the last call's; an
        # abandoned point's lower bound only while none finished
        mine = self.kinds.get(_kind(kind))
        rate = (statistics.median(mine) if mine else self.hints.get("seconds_per_cost_by_kind", {}).get(_kind(kind))
                or (statistics.median(self.rates) if self.rates else self.hints.get("seconds_per_cost") or self.floor))
        expected = max(cost * rate, self.at_least.get(key, 0.0))
        if now + expected <= self.deadline:
            return True
        self.skipped += 1
        if self.skipped <= 3:   # a sweep of thousands of points says so for the first few only
            self.log(f"{self.store.chapter}: {name or key} not started: it needs about {expected:.0f} s, "
                     f"{self.deadline - now:.0f} s are left before the deadline")
        return False

    def finished(self, key: str, cost: float, seconds: float, kind: tuple = ()) -> None:
        self.rates.append(seconds / max(cost, 1e-12))
        self.kinds.setdefault(_kind(kind), []).append(seconds / max(cost, 1e-12))
        self.at_least.pop(key, None)

    def abandon(self, key: str, cost: float, seconds: float, name: str = "") -> None:
        """A point still running at the deadline after `seconds`: never stored, and it needs at least that long."""
        self.abandoned += 1
        self.floor = max(self.floor, seconds / max(cost, 1e-12))
        self.at_least[key] = max(self.at_least.get(key, 0.0), seconds)
        self.log(f"{self.store.chapter}: {name or key} abandoned at the deadline after {seconds:.0f} s (not stored)")

    def close(self, left: bool) -> None:
        """Points left: write what this call learnt for the next (deadline.json); none: remove it (of no more use)."""
        if self.skipped > 3:
            self.log(f"{self.store.chapter}: {self.skipped - 3} more points not started: each needs longer than the "
                     f"time left")
        if not left:
            (self.store.dir / "deadline.json").unlink(missing_ok=True)
        elif self.deadline is not None and (self.rates or self.at_least != self.hints.get("at_least", {})):
            rate = statistics.median(self.rates) if self.rates else self.hints.get("seconds_per_cost", 0.0)
            by_kind = {**self.hints.get("seconds_per_cost_by_kind", {}),
                       **{k: statistics.median(v) for k, v in self.kinds.items()}}
            self.store.write("deadline.json", {"seconds_per_cost": rate, "seconds_per_cost_by_kind": by_kind,
                                               "seconds_per_cost_at_least": self.floor, "at_least": self.at_least,
                                               "device": self.machine})


def _kind(kind) -> str:
    return " ".join(map(str, kind))


class Estimate:
    """How long a sweep's points left will take, from the points it finished: each kind of point (a point's label
    without its numbers: `b transformer` for `b transformer 16 1`) at the seconds per cost unit its own finished
    points took, since a chapter's costs compare within a kind better than across kinds; a kind none of whose points
    finished yet, at what its points stored earlier on this device took (`prior`), else at the rate of the timed
    kinds that share the most of its name (the slowest of them). Points run in parallel shorten the wall time by
    the ratio of the finished points' summed seconds to the wall time they had taken when the last one finished.

        >>> e = Estimate(); e.finished(("ffn",), cost=10, seconds=5); e.finished(("tr",), cost=10, seconds=20, wall=25)
        >>> e.left([(("tr",), 5), (("ffn",), 2), (("rnn",), 1)])   # 10 s + 1 s + 2 s (the slowest rate)
        13.0
    """

    def __init__(self):
        self.rates: dict[tuple, list[float]] = {}    # kind -> seconds per cost unit of the points finished here
        self.priors: dict[tuple, list[float]] = {}   # kind -> the same, of points stored before
        self.work = 0.0                              # the finished points' seconds, summed
        self.wall = 0.0                              # the wall time when the last of them finished

    def finished(self, kind: tuple, cost: float, seconds: float, wall: float | None = None) -> None:
        """A point of this kind finished in `seconds`, `wall` seconds after the sweep started (None: not known)."""
        self.rates.setdefault(tuple(kind), []).append(seconds / max(cost, 1e-12))
        self.work += seconds
        self.wall = wall if wall is not None else self.wall

    def prior(self, kind: tuple, cost: float, seconds: float) -> None:
        """A point of this kind stored earlier, computed on this device in `seconds`."""
        self.priors.setdefault(tuple(kind), []).append(seconds / max(cost, 1e-12))

    def rate(self, kind: tuple) -> float | None:
        kind = tuple(kind)
        for known in (self.rates, self.priors):
            if kind in known:
                return statistics.median(known[kind])
        known = {**self.priors, **self.rates}
        if not known:
            return None
        shared = {k: len(set(map(str, kind)) & set(map(str, k))) for k in known}
        best = max(shared.values())
        return max(statistics.median(known[k]) for k, n in shared.items() if n == best)

    def left(self, points: list[tuple[tuple, float]]) -> float | None:
        """Seconds of wall time the points left ((kind, cost) each) will take; None with nothing to go by."""
        if not self.rates and not self.priors:
            return None
        work = sum(self.rate(kind) * cost for kind, cost in points)
        return work * (self.wall / self.work if self.work > 0 and self.wall > 0 else 1.0)


class DeadlineHit(BaseException):
    """Raised by the alarm inside an in-process point at the deadline (a BaseException: no `except Exception` in a
    run function swallows it)."""


class Alarm:
    """Interrupt the main thread with DeadlineHit once `clock` reads `deadline`, while the block runs; elsewhere (no
    SIGALRM, not the main thread), or with no deadline, nothing. Its timer counts real seconds: where it fires before
    the clock reads the deadline (a fake clock), it is set again for what the clock says is left."""

    def __init__(self, deadline: float | None, clock: Callable[[], float] = time.time):
        self.active = (deadline is not None and hasattr(signal, "setitimer")
                       and threading.current_thread() is threading.main_thread())
        self.deadline, self.clock = deadline, clock

    def _arm(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, max(1e-3, self.deadline - self.clock()))

    def _hit(self, signum, frame):
        if self.clock() < self.deadline:
            self._arm()
            return
        raise DeadlineHit

    def __enter__(self):
        if self.active:
            self.before = signal.signal(signal.SIGALRM, self._hit)
            self._arm()
        return self

    def __exit__(self, *exc):
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.before)
        return False
