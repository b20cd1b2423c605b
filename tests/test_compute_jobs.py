"""`python -m lib compute --jobs J`: J worker processes (lib.core.sweep.collect) share one sweep and store the same
numbers as one process. The `compute` calls run as `python -m lib` does, each in its own process forked from one
that has imported torch (tests/forked.py); the workers are spawned, fresh interpreters, as in any call."""
import json
import os
import subprocess
import sys

import forked
import pytest
import tiny_sweep
from tiny_sweep import PROFILE, ROOT, one_process
from tiny_sweep import stored_numbers as _points


@pytest.fixture(scope="module")
def python():
    with forked.Server(tiny_sweep.env()) as server:
        yield server


def _compute(results, *extra, python):
    return tiny_sweep.compute(results, *extra, python=python)


def test_jobs_store_the_same_numbers_as_one_process(tmp_path, tmp_path_factory, python):
    one, one_results = one_process(tmp_path_factory, python)
    two = _compute(tmp_path / "two", "--jobs", "2", python=python)
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    assert two.stdout.count(" computed in ") == 6 and "[6/6]" in two.stdout  # every point computed once
    assert _points(one_results) == _points(tmp_path / "two") and len(_points(one_results)) == 6
    again = _compute(tmp_path / "two", "--jobs", "2", python=python)     # a rerun loads every point
    assert again.returncode == 0 and " computed in " not in again.stdout
    assert "6 of 6 points loaded" in again.stdout
    comp = json.loads((tmp_path / "two" / "sample_complexity" / PROFILE / "compute.json").read_text())
    assert comp["jobs"] == 2


def test_bad_jobs_exits_2(tmp_path, python):
    out = _compute(tmp_path, "--jobs", "0", python=python)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "--jobs" in out.stderr
    assert not (tmp_path / "sample_complexity").exists()


def test_workers_end_when_compute_is_killed(tmp_path):
    """A `compute --jobs 2` killed with SIGKILL (no cleanup runs) leaves no worker training on for nobody."""
    import signal
    import time

    from tiny_sweep import TINY

    env = {**os.environ, "BOOK_RESULTS": str(tmp_path), "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "lib", "compute", "sample_complexity", "--profile", PROFILE, *TINY,
                             "--set", "max_samples=1280000", "--jobs", "2"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    for line in proc.stdout:             # one point done: the workers are started (one may still be in its initialiser)
        if " computed in " in line:
            break
    children = [int(p) for p in subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()]
    assert len(children) >= 2
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    def alive() -> list[int]:
        return [c for c in children if subprocess.run(["kill", "-0", str(c)], capture_output=True).returncode == 0]

    end = time.monotonic() + 300         # a worker ends at once, or once past its initialiser (on a busy machine)
    while alive() and time.monotonic() < end:
        time.sleep(0.5)
    assert alive() == [], f"orphaned workers still running: {alive()}"
