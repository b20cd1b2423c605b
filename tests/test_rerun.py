"""A page rendered with `--set` says so above its verdict, with one command that reproduces it: run a small chapter
with one parameter set, take the command its page prints, run it, and get the same claims.

The chapter is turing_simulation, its smoke profile with one more random machine (seconds of computing; the two
notebook runs dominate).
Both runs share one results store, so the second loads every point the first computed: a point is stored under the
hash of its spec, so loading all of them (none computed) shows that the command asks for the same points; the same
claims.json and the same parameters in provenance.json show that it asks for the same page."""
from __future__ import annotations

import html
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from lib.core.store import ROOT

CHAPTER, PROFILE, KEY, VALUE = "turing_simulation", "smoke", "n_random", "3"
SET = f"{KEY}={VALUE}"


def lib(args: list[str], results: Path, executed: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "BOOK_RESULTS": str(results), "BOOK_EXECUTED": str(executed), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=1800)


def glued(notebook: Path, name: str) -> str:
    """The Markdown a notebook glued under `name` (myst-nb's glue: a display output its scrapbook metadata names)."""
    for cell in json.loads(notebook.read_text())["cells"]:
        for out in cell.get("outputs", []):
            if out.get("metadata", {}).get("scrapbook", {}).get("name") == name:
                return out["data"]["application/papermill.record/text/markdown"]
    raise AssertionError(f"{notebook}: nothing glued as {name!r}")


@pytest.mark.e2e
def test_a_page_run_with_set_says_so_and_its_command_reproduces_it(tmp_path):
    results = tmp_path / "results"
    first = lib(["run", CHAPTER, "--profile", PROFILE, "--set", SET, "--no-build"], results, tmp_path / "a")
    assert first.returncode == 0, first.stderr[-3000:]
    lines = first.stdout.splitlines()
    assert lines[0] == f"run {CHAPTER} ({PROFILE} profile, 1 parameter set): checking the parameters"
    assert lines[-1].startswith(f"executed: {tmp_path / 'a' / CHAPTER}.ipynb; python -m lib build renders the HTML")

    verdict = glued(tmp_path / "a" / f"{CHAPTER}.ipynb", "verdict")
    made = re.match(r'<span class="verdict-made">(.*?)</span> \*\*Verdict', verdict)   # above the verdict
    assert made, verdict[:400]
    assert f"<code>{PROFILE}</code> profile with <code>{KEY}</code> = <code>{VALUE}</code>" in made[1], made[1]
    command = html.unescape(re.search(r"<code>(python -m lib run [^<]*)</code>", made[1])[1])
    assert command == f"python -m lib run {CHAPTER} --profile {PROFILE} --set {SET}", command

    store = results / CHAPTER / PROFILE
    claims, params = (store / "claims.json").read_text(), json.loads((store / "provenance.json").read_text())["params"]
    again = lib(shlex.split(command)[3:] + ["--no-build"], results, tmp_path / "b")
    assert again.returncode == 0, again.stderr[-3000:]
    assert " computed in " not in again.stdout and re.search(r"(\d+) of \1 points loaded", again.stdout), again.stdout
    assert (store / "claims.json").read_text() == claims
    assert json.loads((store / "provenance.json").read_text())["params"] == params
    # the reproduction says the same above its verdict
    assert glued(tmp_path / "b" / f"{CHAPTER}.ipynb", "verdict").startswith(made[0][:-len(" **Verdict")])
