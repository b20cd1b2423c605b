"""`python -m lib new demo_theorem` in a copy of the repository, and the chapter contract, the skeleton's own tests and
its smoke run tested in that copy as generated: made once a session and shared by tests/test_scaffold.py (the
skeleton as generated) and tests/test_contract.py (the skeleton run, built, and tested). The tests are run before
anything else touches the copy (test_contract's end-to-end test then runs the chapter there and rewrites its
_toc.yml to build it alone); what they read is the sources, which neither the run nor the build changes."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from lib.core import params
from lib.core.store import ROOT

NAME = "demo_theorem"
_made: dict = {}


def copy_repo(root: Path) -> None:
    """What the contract reads: lib, the chapter sources, the profiles, the tests, the toc and the configuration."""
    for name in ("_config.yml", "_toc.yml", "pyproject.toml"):
        shutil.copy(ROOT / name, root / name)
    skip = shutil.ignore_patterns("executed", "__pycache__", ".*")
    for name in ("lib", "book", "parameters", "tests"):    # tests: the contract asks every chapter for its test file
        shutil.copytree(ROOT / name, root / name, ignore=skip)


def generated(tmp_path_factory) -> dict:
    """{"root": the copy, "env": its environment, "new": `lib new`'s process, "toc": _toc.yml just after it, "tests":
    the pytest process}. The tests: every test of tests/test_contract.py but its end-to-end one (e2e), for the skeleton
    and for the whole tree (the tests that take no chapter, and test_chapter_files for every chapter), but not the
    other chapters' own cases (their files are the repository's, tested there); the skeleton's own test file; and
    tests/test_smoke.py on the skeleton. -rA: each passed test is named in the output."""
    if not _made:
        root = tmp_path_factory.mktemp(NAME)
        copy_repo(root)
        env = {**os.environ, "BOOK_RESULTS": str(root / "results"), "OMP_NUM_THREADS": "1"}
        new = subprocess.run([sys.executable, "-m", "lib", "new", NAME, "--title", "A demo theorem"], cwd=root, env=env,
                             capture_output=True, text=True, timeout=120)
        others = " or ".join(params.chapters())
        tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-m", "not e2e",
                                "tests/test_contract.py", f"tests/test_{NAME}.py", "tests/test_smoke.py",
                                "-k", f"{NAME} or test_chapter_files or not ({others})"],
                               cwd=root, env=env, capture_output=True, text=True, timeout=300) if new.returncode == 0 else None
        _made.update(root=root, env=env, new=new, toc=(root / "_toc.yml").read_text(), tests=tests)
    return _made
