"""`python -m lib compute --all --deadline`: stops between points before the deadline (a point still running then is
abandoned, never half-stored), says what is left, exits 3 (4 when nothing could finish), and the next call resumes
from the stored points. The compute path imports neither Jupyter nor matplotlib nor Dask (PyYAML it does: it reads
the profiles)."""
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import forked
import pytest
from tiny_sweep import PROFILE, TINY

from lib.__main__ import deadline_time
from lib.core.params import ParamError
from lib.core.store import Store, environment
from lib.core.sweep import Point, Unfinished, collect

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Nap:
    seconds: float
    tag: int


class FakeClock:
    """time.time for collect's deadline that moves only when a point below says it took time: a test states exactly
    where its deadline falls, whatever the machine's load."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


CLOCK = FakeClock()   # the one the points below advance (a point's run is a module-level function, not a closure)


@pytest.fixture
def clock() -> FakeClock:
    CLOCK.now = 1000.0
    return CLOCK


def tick(spec: Nap, device: str) -> dict:
    """A point that takes spec.seconds by the fake clock (and no real time)."""
    CLOCK.now += spec.seconds
    return {"slept": spec.seconds, "tag": spec.tag}


def stall(spec: Nap, device: str) -> dict:
    """A point that has run spec.seconds by the fake clock and runs on until the deadline's alarm stops it."""
    CLOCK.now += spec.seconds
    time.sleep(600)   # the alarm's exception ends the sleep; 600 s only where no alarm comes (a failure)
    return {"slept": 600, "tag": spec.tag}


def nap(spec: Nap, device: str) -> dict:
    """A point that takes spec.seconds of real time (in a worker process: the fake clock is this process's)."""
    time.sleep(spec.seconds)
    return {"slept": spec.seconds, "tag": spec.tag}


def _points(run, *seconds):
    return [Point(("nap", i), Nap(s, i), run, cost=s) for i, s in enumerate(seconds)]


def _stored(tmp_path) -> int:
    return len(list((tmp_path / "naps" / "quick" / "points").glob("*.json")))


def test_deadline_parses_seconds_and_iso_times():
    assert deadline_time("540", now=1000.0) == 1540.0 and deadline_time("0.5", now=10.0) == 10.5
    assert deadline_time("2026-11-24T17:30:00Z") == deadline_time("2026-11-24T17:30:00") == 1795541400.0
    assert deadline_time("2026-11-24T18:30:00+01:00") == 1795541400.0
    for bad in ("-5", "soon", "1e3", "", "17:30:00 tomorrow"):
        with pytest.raises(ParamError, match="--deadline"):
            deadline_time(bad)


def test_in_process_stops_between_points_and_resumes(tmp_path, clock):
    """Points of 4, 3, 2 and 1 s (1 s per cost unit), the deadline 7.5 s out: the first two end at 7 s, and neither
    of the others would end by 7.5 s, so neither starts. The next call, with 3 s, computes just those two."""
    store, points = Store("naps", "quick", root=tmp_path), _points(tick, 4.0, 3.0, 2.0, 1.0)
    with pytest.raises(Unfinished) as err:
        collect(points, store, "cpu", log=None, deadline=clock.now + 7.5, clock=clock)
    assert (err.value.done, err.value.total, err.value.abandoned) == (2, 4, 0) and clock.now == 1007.0
    assert _stored(tmp_path) == 2
    out = collect(points, store, "cpu", log=None, deadline=clock.now + 3.0, clock=clock)   # 2 s and 1 s: 3 s exactly
    assert [out["nap"][i]["result"]["tag"] for i in range(4)] == [0, 1, 2, 3] and clock.now == 1010.0
    assert not (tmp_path / "naps" / "quick" / "deadline.json").exists()   # finished: the hints are of no more use


def test_a_point_running_at_the_deadline_is_abandoned_and_remembered(tmp_path, clock):
    """A point still running when the clock reads the deadline is interrupted (SIGALRM), never stored, and
    deadline.json remembers how long it ran by the clock: a later call with less time left does not start it."""
    store, points = Store("naps", "quick", root=tmp_path), _points(stall, 0.25)
    with pytest.raises(Unfinished) as err:   # it has run 0.25 s when the clock reads the deadline, and runs on
        collect(points, store, "cpu", log=None, deadline=clock.now + 0.25, clock=clock)
    assert (err.value.done, err.value.abandoned) == (0, 1) and _stored(tmp_path) == 0   # nothing half-stored
    hints = json.loads((tmp_path / "naps" / "quick" / "deadline.json").read_text())
    assert list(hints["at_least"].values()) == [0.25] and hints["seconds_per_cost_at_least"] == 1.0
    lines = []
    with pytest.raises(Unfinished) as err:
        collect(points, store, "cpu", log=lines.append, deadline=clock.now + 0.125, clock=clock)
    assert err.value.abandoned == 0 and any("nap 0 not started" in line for line in lines)


def test_deadline_hints_of_another_machine_are_ignored(tmp_path, clock):
    """What a CPU learnt (an hour per cost unit) does not keep a GPU, or another CPU, from starting its points; this
    machine's own hints still hold."""
    points = _points(tick, 1.0, 1.0, 1.0, 1.0)
    for machine, left in (("another machine", 0), (environment("cpu")["device"], 4)):
        store = Store("naps", "quick", root=tmp_path / str(left))
        store.write("deadline.json", {"seconds_per_cost": 3600.0, "at_least": {}, "device": machine})
        lines = []
        try:
            collect(points, store, "cpu", log=lines.append, deadline=clock.now + 30, clock=clock)
            done = 4
        except Unfinished as err:
            done = err.done
        assert done == 4 - left and any("learnt on another machine" in line for line in lines) == (left == 0)


def test_worker_processes_are_stopped_at_the_deadline(tmp_path):
    """End to end on the real clock: two worker processes, a point that would sleep 600 s and two that take none,
    the deadline 20 s out (a worker starts in about 3 s on a quiet 2-core machine: the short points have 6 times
    that). The short points are stored; the long one is abandoned at the deadline and its worker stopped, so the
    call ends soon after the deadline."""
    deadline = 20.0
    store, points = Store("naps", "quick", root=tmp_path), _points(nap, 600.0, 0.0, 0.0)
    t0 = time.time()
    with pytest.raises(Unfinished) as err:
        collect(points, store, "cpu", jobs=2, log=None, deadline=t0 + deadline)
    assert time.time() - t0 < 300   # the 600-s point's worker was stopped, not waited for
    assert (err.value.done, err.value.abandoned) == (2, 1) and _stored(tmp_path) == 2
    hints = json.loads((tmp_path / "naps" / "quick" / "deadline.json").read_text())
    assert list(hints["at_least"].values())[0] >= deadline / 2   # it ran from its start to the deadline


def _cli(results: Path, *args, block=()):
    """python -m lib ARGS in a fresh interpreter, with the modules in `block` made unimportable; the last line of
    stdout lists the top-level modules it imported."""
    code = ("import sys\n"
            f"for name in {list(block)!r}: sys.modules[name] = None\n"
            "from lib.__main__ import main\n"
            f"rc = main({list(args)!r})\n"
            "print(sorted({m.split('.')[0] for m, v in sys.modules.items() if v is not None}))\n"
            "sys.exit(rc)\n")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(results), capture_output=True, text=True,
                          timeout=600)


def _env(results: Path | None = None) -> dict:
    return {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            **({"BOOK_RESULTS": str(results)} if results else {})}


NOT_NEEDED_TO_COMPUTE = ("matplotlib", "papermill", "jupytext", "nbformat", "IPython", "jupyter_book",
                          "dask", "distributed")


def test_compute_needs_no_jupyter_matplotlib_or_dask(tmp_path):
    out = _cli(tmp_path, "compute", "sample_complexity", "--profile", PROFILE, *TINY, block=NOT_NEEDED_TO_COMPUTE)
    assert out.returncode == 0, out.stderr
    assert "[6/6]" in out.stdout
    imported = eval(out.stdout.strip().splitlines()[-1])
    assert not set(imported) & set(NOT_NEEDED_TO_COMPUTE)


def test_compute_all_with_a_past_deadline_lists_what_is_left_and_exits_4(tmp_path):
    """Every chapter listed with its stored/total points; one whose computation imports a missing package
    (threadpoolctl, here made unimportable) is named and skipped, and does not stop the others."""
    out = _cli(tmp_path, "compute", "--all", "--profile", "quick", "--deadline", "0",
               block=NOT_NEEDED_TO_COMPUTE + ("threadpoolctl",))
    from lib.chapters.sample_complexity import compute
    from lib.core.params import resolve

    assert out.returncode == 4, out.stderr
    total = len(compute.points(resolve("sample_complexity", "quick")))
    assert "sample_complexity" in out.stdout and f"0/{total}" in out.stdout
    assert "had passed when this call started; give a later deadline" in out.stderr   # the reason, in one line
    assert "skipped: needs threadpoolctl" in out.stdout and "rpe_decay" in out.stderr and "turing_simulation" in out.stdout


@pytest.fixture(scope="module")
def python():
    """A tests/forked.py server in _cli's environment: `python -m lib` in children forked from one that has imported
    torch, with no module made unimportable (the tests that block modules run a fresh interpreter: _cli)."""
    with forked.Server(_env()) as server:
        yield server


def _forked(python, results: Path, *args) -> subprocess.CompletedProcess:
    """python -m lib ARGS as _cli runs it, but in a child of `python`, and without _cli's last line of modules."""
    return python.run(["-m", "lib", *args], cwd=ROOT, env=_env(results), timeout=600)


def test_compute_with_a_deadline_exits_4_then_3_then_0_and_resumes(tmp_path, python):
    from lib.chapters.sample_complexity import compute
    from lib.core.params import parse_overrides, resolve
    from lib.core.store import key_of, spec_dict, write_json

    args = ("compute", "sample_complexity", "--profile", PROFILE, *TINY, "--set", "N_a=[2, 3, 4]")
    first = _forked(python, tmp_path, *args, "--deadline", "0")
    assert first.returncode == 4 and "0/8 " in first.stdout and "give a later deadline" in first.stderr
    # As if an earlier call had abandoned one point after ten hours: a call with an hour does not start it
    points = compute.points(resolve("sample_complexity", PROFILE, parse_overrides(TINY[1::2] + ["N_a=[2, 3, 4]"])))
    write_json(tmp_path / "sample_complexity" / PROFILE / "deadline.json",
               {"seconds_per_cost": 0.0, "at_least": {key_of(spec_dict(points[0].spec)): 36000.0}})
    second = _forked(python, tmp_path, *args, "--deadline", "3600")
    assert second.returncode == 3, second.stderr
    assert "7/8 " in second.stdout and "(+7 in this call)" in second.stdout and "not started" in second.stdout
    assert not (tmp_path / "sample_complexity" / PROFILE / "compute.json").exists()
    third = _forked(python, tmp_path, *args)       # no deadline: the last point, and the compute's provenance
    assert third.returncode == 0, third.stderr
    assert "7 of 8 points loaded" in third.stdout and "[1/1]" in third.stdout
    assert (tmp_path / "sample_complexity" / PROFILE / "compute.json").is_file()
    assert not (tmp_path / "sample_complexity" / PROFILE / "deadline.json").exists()   # finished: hints removed


@pytest.mark.parametrize("args, needle", [(("--deadline", "soon"), "--deadline"), (("--cluster", "not an address"), "--cluster"),
                                          (("--cluster", "tcp://127.0.0.1:8786", "--jobs", "2"), "--jobs and --cluster"),
                                          (("--deadline", "60", "--force"), "--force and --deadline")])
def test_bad_compute_flags_exit_2_in_one_line(tmp_path, args, needle):
    out = _cli(tmp_path, "compute", "sample_complexity", "--profile", "quick", *args)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and needle in out.stderr
    assert not (tmp_path / "sample_complexity").exists()


@pytest.mark.skipif(not os.environ.get("BOOK_BARE_PYTHON"), reason="set BOOK_BARE_PYTHON to a python with only torch "
                    "and numpy (python3 -m venv /tmp/bare && /tmp/bare/bin/pip install torch==2.13.0 numpy)")
def test_compute_runs_in_a_venv_with_only_torch_and_numpy(tmp_path):
    env = {**os.environ, "BOOK_RESULTS": str(tmp_path), "OMP_NUM_THREADS": "1"}
    out = subprocess.run([os.environ["BOOK_BARE_PYTHON"], "-m", "lib", "compute", "sample_complexity", "--profile",
                          PROFILE, *TINY], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "[6/6]" in out.stdout
