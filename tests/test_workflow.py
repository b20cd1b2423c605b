"""The GitHub workflow (.github/workflows/book.yml) is valid (actionlint) and runs the README's commands: the tests as
.ci/run runs them (`make test`, after Debian's chromium, chromium-driver and poppler-utils) on every push and pull
request, and `make book` on main, published to GitHub Pages; so CI, .ci/run and the README cannot drift apart."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lib.core.store import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def _workflow() -> dict:
    flow = yaml.safe_load(WORKFLOW.read_text())
    flow["on"] = flow.pop(True, flow.get("on"))     # YAML 1.1 reads the key `on` as True
    return flow


def _runs(job: dict) -> list[str]:
    return [s["run"].strip() for s in job["steps"] if "run" in s]


def _uses(job: dict) -> dict[str, dict]:
    return {s["uses"].split("@")[0]: s.get("with", {}) for s in job["steps"] if "uses" in s}


def _readme_commands() -> list[str]:
    """The commands of the README's "Two commands" block."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Two commands\s+```bash\n(.*?)```", readme, re.S).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines() if line.strip() and not line.startswith(" ")]


def test_actionlint_passes():
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    binary = shutil.which("actionlint", path=path)
    if binary is None:
        pytest.skip("actionlint is not installed here (requirements.txt installs it: `make setup`)")
    out = subprocess.run([binary, "-no-color", str(WORKFLOW.relative_to(ROOT))], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_every_push_and_pull_request_runs_the_readme_tests_as_ci_run_does():
    assert _readme_commands() == ["make book", "make test"]
    flow = _workflow()
    assert set(flow["on"]) == {"push", "pull_request"} and not any(flow["on"].values())   # every branch, every PR
    test = flow["jobs"]["test"]
    assert "if" not in test and _runs(test)[-1] == "bash .ci/run"
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert ci[-1].strip() == "make test"
    packages = re.search(r"Debian's `chromium`, `chromium-driver` and `poppler-utils`", (ROOT / "README.md").read_text())
    assert packages and "apt-get install -y -qq chromium chromium-driver poppler-utils" in (ROOT / ".ci" / "run").read_text()
    assert test["container"].startswith("debian:"), "Debian's chromium, as root: .ci/run installs it only then"


def test_main_builds_the_book_from_stored_results_and_publishes_it():
    flow = _workflow()
    book, deploy = flow["jobs"]["book"], flow["jobs"]["deploy"]
    assert book["if"] == "github.event_name == 'push' && github.ref == 'refs/heads/main'" and book["needs"] == "test"
    assert _runs(book)[-1] == "make book"                          # PROFILE=auto: the committed results, not recomputed
    assert _uses(book)["actions/upload-pages-artifact"] == {"path": "_build/html"}
    assert deploy["needs"] == "book" and "actions/deploy-pages" in _uses(deploy)
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"} and deploy["environment"]["name"] == "github-pages"
    assert flow["permissions"] == {"contents": "read"}               # nothing else may write


def test_the_virtualenv_is_cached_by_the_requirements():
    flow = _workflow()
    for name in ("test", "book"):
        cache = _uses(flow["jobs"][name])["actions/cache"]
        assert cache["path"] == ".venv" and "hashFiles('requirements.txt')" in cache["key"]
        assert any(r == "touch .venv/.installed" for r in _runs(flow["jobs"][name]))   # make keeps a restored one
