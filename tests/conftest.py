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
    old = os.environ.get("BOOK_RESULTS")
    os.environ["BOOK_RESULTS"] = str(results)
    try:
        chapters = runner.in_dependency_order(runner.toc_chapters())
        notebooks = {c: runner.run_chapter(c, "quick", out_dir=root / "book" / "executed") for c in chapters}
    finally:
        if old is None:
            os.environ.pop("BOOK_RESULTS")
        else:
            os.environ["BOOK_RESULTS"] = old
    index = runner.build_book(root)
    return {"root": root, "results": results, "notebooks": notebooks, "html": index.parent}
