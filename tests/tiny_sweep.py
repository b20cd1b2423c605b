"""A tiny Figure 1 sweep through `python -m lib compute`, shared by the tests of --jobs, --cluster and --deadline:
the smoke profile cut to six points of about a second each, and the stored numbers to compare between runs; the
sweep computed by one process once a session, the numbers the --jobs and --cluster runs are compared with."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROFILE = "smoke"
# Six points, as these tests count them: the smoke profile's sizes with two models, panel (a) at two N and (b) at one,
# one task draw, no wide point (N_wide's one length is panel (a)'s own) and no attention point.
TINY = ["--set", "models=[transformer, ffn]", "--set", "N_a=[2, 4]", "--set", "N_b=[4]", "--set", "n_task_draws=1",
        "--set", "N_wide=[2]", "--set", "attention_N=0"]


def env(**more: str) -> dict:
    """The environment of the tiny sweep's processes: this one's, on one thread, with `more`."""
    return {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", **more}


def compute(results: Path, *extra, python=None, **more: str):
    """`python -m lib compute sample_complexity --profile smoke` on the tiny sweep, storing under `results`, with `more`
    in its environment: a fresh interpreter, or a child of `python` (a tests/forked.py server started with env())."""
    argv = ["-m", "lib", "compute", "sample_complexity", "--profile", PROFILE, *TINY, *extra]
    e = env(BOOK_RESULTS=str(results), **more)
    if python is not None:
        return python.run(argv, cwd=ROOT, env=e, timeout=300)
    return subprocess.run([sys.executable, *argv], cwd=ROOT, env=e, capture_output=True, text=True, timeout=300)


def stored_numbers(results: Path) -> dict:
    """Every stored point's result (its wall time aside), by file name."""
    out = {}
    for f in (results / "sample_complexity" / PROFILE / "points").glob("*.json"):
        rec = json.loads(f.read_text())
        out[f.name] = {k: v for k, v in rec["result"].items() if k != "wall_s"}
    return out


_one: dict = {}


def one_process(tmp_path_factory, python=None) -> tuple[subprocess.CompletedProcess, Path]:
    """(the process, its results root): the tiny sweep computed by one plain `compute` (see `compute`), once a session
    (the tests of --jobs and --cluster compare their numbers with these; nothing writes there after)."""
    if not _one:
        results = tmp_path_factory.mktemp("one_process")
        _one.update(proc=compute(results, python=python), results=results)
    return _one["proc"], _one["results"]
