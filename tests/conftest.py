"""Every test runs with one torch thread: the tests' tensors are small, and on a 2-core CI machine a second thread
woken at every small op costs more than it brings.

Two session fixtures, made once in the background from the session's start (the unit tests, one core and often
waiting on a subprocess, run beside them), and the tests that use them run last:

- `book`: the book as `make book` and `make pdf` make it (`python -m lib run all --profile auto`: every chapter's
  committed paper results rendered as stored, nothing recomputed) in a copy of the book's skeleton, built to HTML
  there and printed (Letter and A4): what the end-to-end, browser and PDF tests read, the pages a reader is shown;
- `runs`: every chapter computed and executed once on its smoke profile (`python -m lib run all --profile smoke`)
  into a temporary results folder: what the tests of a fresh run read (its claims, provenance, stored points)."""
import os
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lib.core import runner
from lib.core.store import ROOT
from lib.science import engine

SESSION_FIXTURES = ("book", "runs")


@pytest.fixture(autouse=True, scope="session")
def one_thread():
    with engine.one_cpu_thread("cpu"):
        yield


def pytest_collection_modifyitems(session, config, items):
    """The tests that use `book` or `runs` last, in their own order (see the module's docstring)."""
    late = [i for i in items if set(_fixtures(i)) & set(SESSION_FIXTURES)]
    items[:] = [i for i in items if i not in late] + late


def _fixtures(item) -> tuple:
    return tuple(getattr(item, "fixturenames", ()))


@pytest.fixture(autouse=True, scope="session")
def in_background(request, tmp_path_factory):
    """{fixture: its future} for the session fixtures a collected test uses, started at the session's start one after
    the other; a session that ends first (a failure under -x, ^C) stops them."""
    wanted = [f for f in SESSION_FIXTURES if any(f in _fixtures(i) for i in request.session.items)]
    if not wanted:
        yield {}
        return
    stop, running = threading.Event(), set()
    make = {"book": _book, "runs": _runs}
    with ThreadPoolExecutor(1) as background:   # one at a time: each is one process on one core
        futures = {f: background.submit(make[f], tmp_path_factory.mktemp(f), stop, running) for f in wanted}
        yield futures
        stop.set()                      # nothing left to wait for once every test has run: stop what still runs
        for proc in list(running):
            proc.terminate()


@pytest.fixture(scope="session")
def book(in_background):
    """A copy of the book's skeleton in a temporary root, every chapter rendered there from its committed results
    as `make book` renders it, the HTML built and printed there: {"root", "notebooks", "html", "pdf"}."""
    return in_background["book"].result()


@pytest.fixture(scope="session")
def runs(in_background):
    """Every chapter's smoke profile computed and executed once: {"results", "notebooks"}."""
    return in_background["runs"].result()


def _book(root, stop: threading.Event, running: set) -> dict:
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(ROOT / name, root / name)
    shutil.copytree(ROOT / "book", root / "book", ignore=shutil.ignore_patterns("executed"))   # sources: downloads
    (root / "lib").symlink_to(ROOT / "lib")          # the pages show code from lib (literalinclude)
    env = {k: v for k, v in os.environ.items() if k != "BOOK_RESULTS"}          # the committed results
    notebooks = run_all("auto", {**env, "BOOK_EXECUTED": str(root / "book" / "executed")}, stop, running)
    built = _python(f"runner.build_book(Path({str(root)!r}), log=lambda *a: None)", env, stop, running)
    assert built.returncode == 0, f"the book did not build: {built.stderr[-3000:]}"
    return {"root": root, "notebooks": notebooks, "html": root / "_build" / "html", "pdf": _pdfs(root, env, stop, running)}


def _pdfs(root, env: dict, stop: threading.Event, running: set) -> dict:
    """`make pdf` on the built book, on Letter and on A4: {paper: its PDF}, {} where Chromium or pdftoppm is missing
    (the PDF tests skip), or {"error": what stopped it} (the PDF tests raise it; the HTML tests go on)."""
    if not (shutil.which("chromium") and shutil.which("pdftoppm")):
        return {}
    papers = ("letter", "a4")
    out = _python(f"print(*(pdf.build_pdf(Path({str(root)!r}), log=lambda line: None, paper=p) for p in {papers!r}))",
                  env, stop, running)
    if out.returncode != 0:
        return {"error": RuntimeError(f"python -m lib pdf failed: {out.stderr[-3000:]}")}
    return dict(zip(papers, map(Path, out.stdout.split())))


def _python(code: str, env: dict, stop: threading.Event, running: set) -> subprocess.CompletedProcess:
    """`code`, with Path and lib.core's pdf and runner imported, in a python of its own (see _process)."""
    return _process(["-c", f"from pathlib import Path\nfrom lib.core import pdf, runner\n{code}\n"], env, stop, running)


def _process(args: list[str], env: dict, stop: threading.Event, running: set) -> subprocess.CompletedProcess:
    """`python ARGS` in its own process on one torch thread: the session's unit tests parse Python in this process
    meanwhile, and CPython 3.11's parser is not safe in two threads at once ("AST constructor recursion depth
    mismatch"). Once `stop` is set nothing starts; `running` holds the process while it runs."""
    if stop.is_set():
        raise RuntimeError("the session ended first")
    with subprocess.Popen([sys.executable, *args], cwd=ROOT, env={**env, "OMP_NUM_THREADS": "1"},
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        running.add(proc)
        if stop.is_set():             # the session ended while it started
            proc.terminate()
        out, err = proc.communicate()
        running.discard(proc)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _runs(root, stop: threading.Event, running: set) -> dict:
    results, executed = root / "results", root / "executed"
    env = {**os.environ, "BOOK_RESULTS": str(results), "BOOK_EXECUTED": str(executed)}
    return {"results": results, "notebooks": run_all("smoke", env, stop, running)}


def run_all(profile: str, env: dict, stop: threading.Event, running: set) -> dict:
    """`python -m lib run all --profile PROFILE --no-build` (every chapter, each after those whose results it reads);
    {chapter: its executed notebook}. A chapter that fails fails the fixture with its own one-line error."""
    out = _process(["-m", "lib", "run", "all", "--profile", profile, "--no-build"], env, stop, running)
    assert out.returncode == 0, f"run all --profile {profile} failed: {out.stderr[-3000:]}"
    executed = Path(env["BOOK_EXECUTED"])
    return {c: executed / f"{c}.ipynb" for c in runner.toc_chapters()}
