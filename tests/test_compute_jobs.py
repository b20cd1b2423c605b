"""`python -m lib compute --jobs J`: J worker processes (lib.core.sweep.collect) share one sweep and store the same
numbers as one process."""
import json

from tiny_sweep import compute as _compute
from tiny_sweep import stored_numbers as _points


def test_jobs_store_the_same_numbers_as_one_process(tmp_path):
    one, two = _compute(tmp_path / "one"), _compute(tmp_path / "two", "--jobs", "2")
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    assert two.stdout.count(" computed in ") == 6 and "[6/6]" in two.stdout  # every point computed once
    assert _points(tmp_path / "one") == _points(tmp_path / "two") and len(_points(tmp_path / "one")) == 6
    again = _compute(tmp_path / "two", "--jobs", "2")                    # a rerun loads every point
    assert again.returncode == 0 and " computed in " not in again.stdout
    assert "6 of 6 points loaded" in again.stdout
    comp = json.loads((tmp_path / "two" / "sample_complexity" / "quick" / "compute.json").read_text())
    assert comp["jobs"] == 2


def test_bad_jobs_exits_2(tmp_path):
    out = _compute(tmp_path, "--jobs", "0")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "--jobs" in out.stderr
    assert not (tmp_path / "sample_complexity").exists()
