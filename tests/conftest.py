"""Every test runs with one torch thread: the tests' tensors are small, and on a 2-core CI machine a second thread
woken at every small op costs more than it brings. `book`: every chapter run once on its quick profile and the book
built once, shared by the end-to-end, browser and PDF tests. The quick runs start with the session, in the
background, and the tests that use `book` run last: the unit tests (one core, and often waiting on a subprocess)
run beside the chapters (two cores) instead of after them."""
import os
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from lib.core import runner
from lib.core.store import ROOT
from lib.science import engine


@pytest.fixture(autouse=True, scope="session")
def one_thread():
    with engine.one_cpu_thread("cpu"):
        yield


def pytest_collection_modifyitems(session, config, items):
    """The tests that use `book` last, in their own order (see the module's docstring)."""
    items[:] = [i for i in items if "book" not in _fixtures(i)] + [i for i in items if "book" in _fixtures(i)]


def _fixtures(item) -> tuple:
    return tuple(getattr(item, "fixturenames", ()))


@pytest.fixture(autouse=True, scope="session")
def book_in_background(request, tmp_path_factory):
    """Start the quick runs and the build at the session's start where a collected test uses `book`; a session that
    ends first (a failure under -x, ^C) stops them."""
    if not any("book" in _fixtures(i) for i in request.session.items):
        yield None
        return
    stop, running = threading.Event(), set()
    with ThreadPoolExecutor(1) as background:
        future = background.submit(_build, tmp_path_factory.mktemp("book"), stop, running)
        yield future
        stop.set()                      # nothing left to wait for once every test has run: stop what still runs
        for proc in list(running):
            proc.terminate()


@pytest.fixture(scope="session")
def book(book_in_background):
    """A copy of the book's skeleton in a temporary root, its chapters executed there, the HTML built there."""
    return book_in_background.result()


def _build(root, stop: threading.Event, running: set) -> dict:
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(ROOT / name, root / name)
    shutil.copytree(ROOT / "book", root / "book", ignore=shutil.ignore_patterns("executed"))   # sources: downloads
    (root / "lib").symlink_to(ROOT / "lib")          # the pages show code from lib (literalinclude)
    results = root / "results"
    notebooks = run_quick(runner.toc_chapters(), results, root / "book" / "executed", stop, running)
    index = runner.build_book(root, log=lambda *a: None)
    return {"root": root, "results": results, "notebooks": notebooks, "html": index.parent}


def run_quick(chapters: list[str], results, executed, stop: threading.Event | None = None,
              running: set | None = None) -> dict:
    """Every chapter's quick profile, each once, two at a time in their own `python -m lib run` processes (a chapter
    computes on one torch thread, so a 2-core machine runs two), a chapter after those whose results it reads;
    {chapter: its executed notebook}. A chapter that fails fails the fixture with its own one-line error. Once `stop`
    is set no chapter starts; `running` holds the processes still going (the session terminates them)."""
    # one torch (OpenMP) thread per chapter: two chapters at once already fill two cores, and a second thread each
    # spins at every barrier while the other chapter holds its core (head_lower_bound's quick run: 88 s alone, over
    # 20 minutes of CPU beside another chapter with two threads each)
    env = {**os.environ, "BOOK_RESULTS": str(results), "BOOK_EXECUTED": str(executed), "OMP_NUM_THREADS": "1"}
    stop, running = stop or threading.Event(), set() if running is None else running

    def run(c):
        if stop.is_set():
            return subprocess.CompletedProcess([c], -1, "", "the session ended first")
        with subprocess.Popen([sys.executable, "-m", "lib", "run", c, "--profile", "quick"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
            running.add(proc)
            if stop.is_set():         # the session ended while it started
                proc.terminate()
            out, err = proc.communicate()
            running.discard(proc)
            return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

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
