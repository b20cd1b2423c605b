"""`python -m lib compute --jobs J`: J worker processes (lib.core.sweep.collect) share one sweep and store the same
numbers as one process."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--set", "N_a=[2, 3]", "--set", "N_b=[4]", "--set", "models=[transformer, ffn]", "--set", "n_seeds=2",
        "--set", "n_test=64", "--set", "max_samples=1280", "--set", "ffn_width=32", "--set", "mlp_width=16"]


def _compute(results: Path, *extra):
    env = {**os.environ, "BOOK_RESULTS": str(results)}
    return subprocess.run([sys.executable, "-m", "lib", "compute", "sample_complexity", "--profile", "quick", *TINY, *extra],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def _points(results: Path) -> dict:
    out = {}
    for f in (results / "sample_complexity" / "quick" / "points").glob("*.json"):
        rec = json.loads(f.read_text())
        out[f.name] = {k: v for k, v in rec["result"].items() if k != "wall_s"}
    return out


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
