"""Every `>>>` example in lib runs as a doctest and shows what it returns: a docstring's example is a line a reader
can paste and get the same answer. Examples are fast (none needs a GPU; a chapter's examples read its committed
paper results, loaded in milliseconds, instead of computing). Editing them leaves every stored point current: the
code hash is of parsed code without docstrings (lib.core.store.lib_hash)."""
from __future__ import annotations

import doctest
import importlib
import re

import pytest

from lib.core.store import ROOT

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _module(path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


FILES = sorted((ROOT / "lib").rglob("*.py"))
WITH_EXAMPLES = [_module(f) for f in FILES if re.search(r"^\s*>>> ", f.read_text(), re.M)]


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_the_examples_run(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    tests = [t for t in doctest.DocTestFinder(exclude_empty=True).find(module) if t.examples]
    failed = []
    for test in tests:
        runner.run(test, out=failed.append)
    assert tests, f"{name}: its `>>>` lines are in no docstring doctest finds"
    assert runner.failures == 0, "".join(failed)


def test_no_example_hides_where_doctest_does_not_look():
    """`>>>` inside a line (after prose) is an example no doctest runs: every one starts its own line."""
    hidden = [f"{f.relative_to(ROOT)}:{i}" for f in FILES for i, line in enumerate(f.read_text().splitlines(), 1)
              if ">>>" in line.replace("`>>>`", "") and not line.lstrip().startswith(">>>")]
    assert hidden == []
