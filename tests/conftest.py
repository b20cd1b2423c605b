"""Every test runs with one torch thread: the tests' tensors are small, and on a 2-core CI machine a second thread
woken at every small op costs more than it brings. `book`: every chapter run once on its quick profile and the book
built once, shared by the end-to-end and browser tests."""
import os
import shutil

import pytest

from lib.core import runner
from lib.core.store import ROOT
from lib.science import engine


@pytest.fixture(autouse=True, scope="session")
def one_thread():
    with engine.one_cpu_thread("cpu"):
        yield


@pytest.fixture(scope="session")
def book(tmp_path_factory):
    """A copy of the book's skeleton in a temporary root, its chapters executed there, the HTML built there."""
    root = tmp_path_factory.mktemp("book")
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(ROOT / name, root / name)
    shutil.copytree(ROOT / "book", root / "book", ignore=shutil.ignore_patterns("executed"))   # sources: downloads
    (root / "lib").symlink_to(ROOT / "lib")          # the pages show code from lib (literalinclude)
    results = root / "results"
    notebooks = run_quick(runner.toc_chapters(), results, root / "book" / "executed")
    index = runner.build_book(root)
    return {"root": root, "results": results, "notebooks": notebooks, "html": index.parent}


def run_quick(chapters: list[str], results, executed) -> dict:
    """Every chapter's quick profile, each once, two at a time in their own `python -m lib run` processes (a chapter
    computes on one torch thread, so a 2-core machine runs two), a chapter after those whose results it reads;
    {chapter: its executed notebook}. A chapter that fails fails the fixture with its own one-line error."""
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    # one torch (OpenMP) thread per chapter: two chapters at once already fill two cores, and a second thread each
    # spins at every barrier while the other chapter holds its core (head_lower_bound's quick run: 88 s alone, over
    # 20 minutes of CPU beside another chapter with two threads each)
    env = {**os.environ, "BOOK_RESULTS": str(results), "BOOK_EXECUTED": str(executed), "OMP_NUM_THREADS": "1"}
    run = lambda c: subprocess.run([sys.executable, "-m", "lib", "run", c, "--profile", "quick"], cwd=ROOT, env=env,
                                   capture_output=True, text=True)
    order = runner.in_dependency_order(chapters)
    done = {}
    with ThreadPoolExecutor(2) as pool:
        for c in [c for c in order if not runner.reads(c)]:
            done[c] = pool.submit(run, c)
        for c in [c for c in order if runner.reads(c)]:
            for r in runner.reads(c):
                if r in done:
                    done[r].result()      # what it reads is stored before it starts
            done[c] = pool.submit(run, c)
    for c, future in done.items():
        out = future.result()
        assert out.returncode == 0, f"{c}: quick run failed: {out.stderr[-3000:]}"
    return {c: executed / f"{c}.ipynb" for c in chapters}
