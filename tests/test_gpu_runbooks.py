"""The GPU step scripts (benchmarks/gpu/, its README.md the runbook), each run end to end as a GPU call runs it, at
its tiny size on the CPU (`--device cpu --tiny`) into a temporary $OUT: the tarball is there, its record says what
was computed, and every point file in it loads (checked against the folder's manifest where the step completed it).
Also: a full-grid piece resumed from the previous call's tarball computes only the T left and its tarball holds them
all; a call without anywhere to put its tarball stops with exit status 2. Eight calls, each in its own process (forked,
torch imported once for all of them: tests/forked.py), the six steps two at a time."""
import json
import os
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import forked
import pytest

from lib.core.manifest import mismatches, read_point

ROOT = Path(__file__).resolve().parent.parent
GPU = ROOT / "benchmarks" / "gpu"
# step: (script, chapter, extra arguments)
STEPS = {"step1_svc_trials": ("step1_svc_trials.py", "sparse_variable_creation", []),
         "step2_rnn_norm_growth": ("step2_rnn_norm_growth.py", "rnn_norm_growth", []),
         "step3_sc_wide": ("step3_sc_wide.py", "sample_complexity", []),
         "step4_figure1_graphs": ("step4_figure1_graphs.py", "sample_complexity", []),
         "step5_rpe_partc": ("step5_rpe_partc.py", "rpe_decay", []),
         "step6_svc_and_baseline": ("step6_svc_and_baseline.py", "sparse_variable_creation", [])}


@pytest.fixture(scope="module")
def python():
    """`python SCRIPT` in a child forked from a server that has imported torch (tests/forked.py), on one thread."""
    env = {k: v for k, v in os.environ.items() if k not in ("OUT", "BOOK_RESULTS", "BOOK_COMMIT")}
    with forked.Server({**env, "OMP_NUM_THREADS": "1"}) as server:
        yield server


def script(python, name: str, out: Path, *args: str, resume: str = "none") -> subprocess.CompletedProcess:
    return python.run([str(GPU / name), "--device", "cpu", "--tiny", "--out", str(out), "--resume", resume, *args],
                      cwd=ROOT, env=python.env, timeout=600)


@pytest.fixture(scope="module")
def calls(tmp_path_factory, python) -> dict:
    """Every step's tiny call, two at a time: {step: (its process, $OUT)}."""
    root = tmp_path_factory.mktemp("gpu_steps")

    def call(step):
        name, _, args = STEPS[step]
        out = root / step
        return step, (script(python, name, out, *args), out)

    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(call, STEPS))


def unpacked(tarball: Path, dest: Path) -> dict:
    """The tarball unpacked into dest; its record."""
    with tarfile.open(tarball) as tar:
        tar.extractall(dest, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return json.loads((dest / f"{tarball.name[:-len('.tar.gz')]}.json").read_text())


@pytest.mark.parametrize("step", list(STEPS))
def test_step_end_to_end(step, calls, tmp_path):
    proc, out = calls[step]
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    tarball = out / f"{step}.tar.gz"
    assert [p.name for p in out.iterdir()] == [tarball.name]          # one file comes back: the tarball
    record = unpacked(tarball, tmp_path)
    chapter = STEPS[step][1]
    folder = tmp_path / chapter / "paper"
    assert (tmp_path / f"{step}.log").read_text().strip()
    assert record["exit_status"] == 0 and record["device"].startswith("CPU") and record["tiny"]
    assert record["computed_here"] >= 1 and record["points_stored"] + len(record["not_committed"]) == record["points_total"]
    points = sorted((folder / "points").glob("*.json"))
    loaded = {p.stem: read_point(p) for p in points}                   # each parses, and matches the manifest if any
    assert len(loaded) >= record["points_stored"]
    for c in record["computed"]:
        rec = loaded[c["key"]]
        assert rec["result"] and rec["device"] == c["device"] and rec["spec"]["point"]
    if record["complete"]:
        assert (folder / "compute.json").is_file() and mismatches(folder) == []
    kinds = {loaded[c["key"]]["spec"]["point"] for c in record["computed"]}
    if step == "step4_figure1_graphs":
        assert all("[switches: pad=True]" in c["device"] for c in record["computed"])
        assert record["switches"] == {"pad": True}
    if step == "step6_svc_and_baseline":
        assert kinds == {"AndPoint"}
    if step == "step5_rpe_partc":
        trains = [loaded[c["key"]]["spec"] for c in record["computed"] if c["name"].startswith("train")]
        assert len(trains) == 2 and {(s["lr"], s["theta_lr"]) for s in trains} == {(0.03, 0.1)}
    if step == "step1_svc_trials":
        assert kinds == {"AndPoint"} and record["seeded"]["from_committed"] >= 1    # the constructions, the parity runs


def test_full_grid_resumes_and_accumulates(tmp_path, python):
    first = script(python, "step1_svc_trials.py", tmp_path / "one", "--grid", "full", "--T", "4")
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    tarball = tmp_path / "one" / "step1_svc_full_grid.tar.gz"
    second = script(python, "step1_svc_trials.py", tmp_path / "two", "--grid", "full", resume=str(tarball))
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    record = unpacked(tmp_path / "two" / "step1_svc_full_grid.tar.gz", tmp_path / "x")
    assert record["full_grid"]["stored_before"] == [4] and record["full_grid"]["piece"] == [5, 6]
    assert sorted(c["name"] for c in record["computed"]) == ["and 5", "and 6"]
    specs = [read_point(p)["spec"] for p in (tmp_path / "x" / "sparse_variable_creation" / "paper" / "points").glob("*.json")]
    assert sorted(s["T"] for s in specs if s["point"] == "AndPoint") == [4, 5, 6]


def test_piece_fits_the_budget():
    sys.path.insert(0, str(GPU))
    try:
        import step1_svc_trials as s1
    finally:
        sys.path.remove(str(GPU))
    ms = list(range(50, 201, 10))
    assert s1.piece([100, 150, 200, 250], ms, 50, s1.H200_RATE, 480) == [100, 150, 200]
    assert s1.piece([700, 800], ms, 50, s1.H200_RATE, 480) == [700]          # at least one, even past the budget
    assert round(s1.predicted(800, ms, 50, s1.H200_RATE)) == 765


def test_no_out_is_bad_input(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "OUT"}
    proc = subprocess.run([sys.executable, str(GPU / "step3_sc_wide.py"), "--device", "cpu", "--tiny"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "no $OUT" in proc.stderr
