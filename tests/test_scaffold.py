"""`python -m lib new` in a copy of the repository: the skeleton it writes passes the whole chapter contract
(tests/test_contract.py, its end-to-end build aside: that one is test_contract's own e2e test), its own tests, and
its page's smoke run (tests/test_smoke.py), as generated; and its toc line joins a paper's part, as every chapter's
does. The copy, and the tests run in it, are tests/new_chapter.py's, shared with test_contract's e2e test."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from new_chapter import NAME, generated

from lib.core.scaffold import MOVE_ME, toc_entry
from lib.core.store import ROOT


@pytest.fixture(scope="module")
def skeleton(tmp_path_factory) -> dict:
    return generated(tmp_path_factory)


def test_the_skeleton_passes_the_contract_its_tests_and_the_smoke_run_as_generated(skeleton):
    new, tests = skeleton["new"], skeleton["tests"]
    assert new.returncode == 0, new.stderr
    written = {Path(line.removeprefix("wrote ")) for line in new.stdout.splitlines() if line.startswith("wrote ")}
    assert {Path(f"lib/chapters/{NAME}/claims/__init__.py"), Path(f"lib/chapters/{NAME}/claims/power.py"),
            Path(f"parameters/{NAME}/smoke.yaml"), Path("_toc.yml")} <= written
    assert f"file: book/executed/{NAME}" in skeleton["toc"]
    assert tests.returncode == 0, tests.stdout[-4000:]
    for test in (f"test_smoke.py::test_smoke_profile_runs_the_page_without_the_notebook[{NAME}]",
                 f"test_contract.py::test_every_claim_row_declares_the_worlds_the_gate_needs[{NAME}]",
                 "test_contract.py::test_toc_parts_name_their_papers_in_the_order_the_intro_tells_them"):
        assert f"PASSED tests/{test}" in tests.stdout, test


def test_the_toc_line_joins_the_last_papers_part_or_the_part_named():
    toc = (ROOT / "_toc.yml").read_text()
    parts = lambda text: {p["caption"]: [c["file"] for c in p["chapters"]] for p in yaml.safe_load(text)["parts"]}
    before = parts(toc)
    papers = [c for c in before if c != "About this build"]
    after = toc_entry(toc, NAME)
    assert parts(after) == {**before, papers[-1]: before[papers[-1]] + [f"book/executed/{NAME}"]}
    assert after.count(MOVE_ME) == 1
    joined = parts(toc_entry(toc, NAME, papers[0]))
    assert joined[papers[0]] == before[papers[0]] + [f"book/executed/{NAME}"]
    own = toc_entry(toc, NAME, "Someone (2030): a paper of its own")
    assert list(parts(own))[-2:] == ["Someone (2030): a paper of its own", "About this build"]
    assert MOVE_ME not in own and MOVE_ME not in toc_entry(toc, NAME, papers[0])
