"""What `run` and `compute` say while they work: a first line at once, a line per finished point with an estimate
of the time left that the measured time bears out, "still working: ..." while a long step is silent, and a progress
bar on a terminal. Time here is a fake clock the points advance, so no assertion depends on how busy the machine is."""
from __future__ import annotations

import io
import re
import subprocess
import sys
import threading
from dataclasses import dataclass

from lib.core.progress import Console, Watch
from lib.core.schedule import Estimate
from lib.core.store import ROOT, Store
from lib.core.sweep import Point, collect

NOW = [0.0]                  # the fake clock the points below advance
RELEASE = threading.Event()  # a point that waits for it runs until the test has seen a heartbeat


@dataclass(frozen=True)
class Tick:
    model: str
    N: int
    seconds: float           # what the point "takes" on the fake clock
    wait: bool = False


def tick(spec: Tick, device: str) -> dict:
    if spec.wait:
        assert RELEASE.wait(60), "no heartbeat came"
    NOW[0] += spec.seconds
    return {"wall_s": spec.seconds, "N": spec.N}


# Two models whose costs (FLOPs, as a chapter estimates them) compare badly: the FFN's points cost more and take less
# time than the Transformer's, as sample_complexity's do (its README example: b ffn 16 in 30 s, b transformer 16 in
# 56 s), and every point has an overhead of its own.
RATE = {"ffn": 0.5, "transformer": 3.0}     # seconds per cost unit
OVERHEAD = 0.5


def workload() -> list[Point]:
    points = []
    for N in (16, 12, 8, 6, 4, 2):
        for model, cost in (("ffn", 2 * N), ("transformer", N)):
            took = RATE[model] * cost + OVERHEAD
            points.append(Point(("b", model, N), Tick(model, N, took), tick, cost=cost))
    return points


def parse(text: str) -> float:
    """'1 min 05 s', '45 s', '1 h 02 min' -> seconds."""
    units = {"h": 3600, "min": 60, "s": 1}
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+) (h|min|s)\b", text))


def test_the_estimate_is_borne_out_by_the_time_the_points_took(tmp_path):
    NOW[0] = 0.0
    lines = []
    collect(workload(), Store("ticks", "quick", root=tmp_path), "cpu", log=lines.append, clock=lambda: NOW[0],
            heartbeat=None)
    end = NOW[0]
    said = [(parse(m["elapsed"]), parse(m["left"])) for line in lines
            if (m := re.search(r"\((?P<elapsed>[^,]*) elapsed, about (?P<left>.*) left\)", line))]
    assert lines[0] == "ticks: 12 points to compute, the costliest first" and len(said) == 11, lines
    # from the third point on (both models have run one point), every estimate is within 15% (or 3 s) of the time
    # the rest took
    for k, (elapsed, left) in enumerate(said[2:], start=3):
        actual = end - elapsed
        assert abs(left - actual) <= max(0.15 * actual, 3.0), (k, left, actual, lines)
    # the estimate it replaces, the elapsed time scaled by the cost left, undershot by half or more
    costs = [p.cost for p in sorted(workload(), key=lambda p: -p.cost)]
    old = [elapsed * sum(costs[k:]) / sum(costs[:k]) for k, (elapsed, _) in enumerate(said, start=1)]
    assert min(o / (end - e) for o, (e, _) in zip(old, said)) < 0.5


def test_stored_points_give_the_first_estimate(tmp_path):
    """A rerun with a parameter changed: the points stored before on this device time the new ones at once."""
    NOW[0] = 0.0
    store = Store("ticks", "quick", root=tmp_path)
    collect(workload()[:4], store, "cpu", log=None, clock=lambda: NOW[0], heartbeat=None)
    lines = []
    collect(workload(), store, "cpu", log=lines.append, clock=lambda: NOW[0], heartbeat=None)
    assert lines[0].startswith("ticks: 4 of 12 points loaded")
    first = re.fullmatch(r"ticks: 8 points to compute, the costliest first \(about (.*), going by the points "
                         r"stored before\)", lines[1])
    actual = sum(p.spec.seconds for p in workload()[4:])
    assert first and abs(parse(first[1]) - actual) <= 0.15 * actual, (lines[1], actual)


def test_a_silent_point_gets_a_heartbeat(tmp_path):
    """A point that runs longer than the heartbeat: "still working", the point, how far the sweep is and the
    estimate. The point ends once the line is seen (no sleep to wait out)."""
    NOW[0] = 0.0
    RELEASE.clear()
    lines = []

    def log(line):
        lines.append(line)
        if line.startswith("still working: "):
            RELEASE.set()

    points = [Point(("a", "ffn", 4), Tick("ffn", 4, 2.0), tick, cost=4),
              Point(("a", "ffn", 2), Tick("ffn", 2, 30.0, wait=True), tick, cost=2)]
    collect(points, Store("ticks", "quick", root=tmp_path), "cpu", log=log, clock=lambda: NOW[0], heartbeat=0.05)
    beat = next(line for line in lines if line.startswith("still working: "))
    assert re.fullmatch(r"still working: ticks: a ffn 2 for 0 s \(1 of 2 points done, 2 s elapsed, about 1 s left\)",
                        beat), beat


def test_estimate_by_kind_and_by_parallel_work():
    e = Estimate()
    assert e.left([(("ffn",), 1)]) is None
    e.finished(("b", "ffn"), cost=10, seconds=10)
    e.finished(("b", "transformer"), cost=10, seconds=40, wall=25)
    # an unseen kind: the rate of the kinds sharing most of its name (a transformer of another panel)
    assert e.rate(("a", "transformer")) == 4.0 and e.rate(("span",)) == 4.0
    # two workers: 50 s of points in 25 s of wall time
    assert e.left([(("b", "ffn"), 10)]) == 5.0


def test_a_terminal_gets_a_progress_bar_and_a_pipe_gets_lines():
    out = io.StringIO()
    show = Console(out, tty=True)
    show("ch: 2 points to compute, the costliest first")
    show("ch: [1/4] a 4 computed in 2.0 s (2 s elapsed, about 6 s left)")
    assert out.getvalue() == ("ch: 2 points to compute, the costliest first\n"
                              "\r\x1b[Kch: [1/4] a 4 computed in 2.0 s (2 s elapsed, about 6 s left)\n"
                              "\r\x1b[K[######..................] 1/4 points, about 6 s left")
    show("still working: ch: a 2 for 25 s")               # in the bar's place
    assert out.getvalue().endswith("\r\x1b[K[######..................] 1/4 points, ch: a 2 for 25 s")
    show("ch: something else")                             # above the bar, which is drawn again
    assert out.getvalue().endswith("\r\x1b[Kch: something else\n\r\x1b[K[######..................] 1/4 points, "
                                   "ch: a 2 for 25 s")
    show("ch: [4/4] a 2 computed in 1.0 s (3 s elapsed)")  # the last point: the bar goes
    assert out.getvalue().endswith("\r\x1b[Kch: [4/4] a 2 computed in 1.0 s (3 s elapsed)\n")
    pipe = io.StringIO()
    Console(pipe, tty=False)("ch: [1/2] a 4 computed in 2.0 s (2 s elapsed, about 1 s left)")
    assert pipe.getvalue() == "ch: [1/2] a 4 computed in 2.0 s (2 s elapsed, about 1 s left)\n"


def test_the_notebook_watch_names_the_cell_and_what_is_left():
    now = [0.0]
    w = Watch("ch", before=[1.0, 2.0, 100.0, 30.0, 5.0], clock=lambda: now[0])
    w.begin(type("nb", (), {"cells": [{}] * 5})())
    now[0] = 4.0
    assert w.what() == "ch: starting the notebook's kernel for 4 s"
    w.cell(2, {"source": "records = ch.collect(compute.points(P))"})
    now[0] = 30.0
    assert w.what() == "ch: the sweep (cell 3 of 5) for 26 s"                 # the sweep says its own estimate
    w.cell(3, {"source": "check = ch.finish(rows, power=...)"})
    now[0] = 40.0
    assert w.what() == ("ch: the claim check and the power of its rules (cell 4 of 5) for 10 s, about 25 s left "
                        "going by the last run of this page")
    w.begin(type("nb", (), {"cells": [{}] * 6})())                            # another notebook: no estimate
    assert "left" not in w.what()


def test_the_first_line_comes_before_the_parameters_are_checked(tmp_path):
    """The command's first line is printed before anything slow, and before bad input is refused (one line on
    stderr, exit status 2)."""
    env = {"BOOK_RESULTS": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "lib", "compute", "ffn_span", "--profile", "quick", "--set",
                          "n_seeds=-1"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "n_seeds" in out.stderr
    assert out.stdout == "compute ffn_span (quick profile, 1 parameter set): checking the parameters\n"


def test_the_deadline_times_each_kind_of_point_by_its_own(tmp_path):
    """A point's kind is timed by its own kind's finished points (here the FFN's cost 2 units a second, the
    Transformer's 1 unit in 3 s), and a later call by what this one learnt of each kind (deadline.json)."""
    from lib.core.schedule import Schedule

    now = [0.0]
    store = Store("ticks", "quick", root=tmp_path)
    s = Schedule(store, deadline=100.0, clock=lambda: now[0])
    s.finished("f", cost=20, seconds=10, kind=("b", "ffn"))
    s.finished("t", cost=10, seconds=30, kind=("b", "transformer"))
    now[0] = 70.0                                                    # 30 s left
    assert s.fits("f2", cost=50, kind=("b", "ffn"))                  # 25 s, though every kind's median says 100 s
    assert not s.fits("t2", cost=11, kind=("b", "transformer"))      # 33 s
    s.close(left=True)
    later = Schedule(store, deadline=130.0, clock=lambda: now[0])    # 60 s left, nothing finished in this call
    assert later.fits("f3", cost=110, kind=("b", "ffn")) and not later.fits("t3", cost=21, kind=("b", "transformer"))
