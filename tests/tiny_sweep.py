"""A tiny Figure 1 sweep through `python -m lib compute`, shared by the tests of --jobs, --cluster and --deadline:
six points of a few seconds each (one task draw), and the stored numbers to compare between runs."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--set", "N_a=[2, 3]", "--set", "N_b=[4]", "--set", "models=[transformer, ffn]", "--set", "n_seeds=2",
        "--set", "n_test=64", "--set", "max_samples=1280", "--set", "ffn_width=32", "--set", "mlp_width=16",
        "--set", "n_task_draws=1", "--set", "N_wide=[3]",   # the wide sweep's one length is panel (a)'s own: no wide point
        "--set", "attention_N=0"]                           # and no attention point


def compute(results: Path, *extra):
    """`python -m lib compute sample_complexity --profile quick` on the tiny sweep, storing under `results`."""
    env = {**os.environ, "BOOK_RESULTS": str(results), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "lib", "compute", "sample_complexity", "--profile", "quick", *TINY, *extra],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def stored_numbers(results: Path) -> dict:
    """Every stored point's result (its wall time aside), by file name."""
    out = {}
    for f in (results / "sample_complexity" / "quick" / "points").glob("*.json"):
        rec = json.loads(f.read_text())
        out[f.name] = {k: v for k, v in rec["result"].items() if k != "wall_s"}
    return out
