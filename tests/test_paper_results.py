"""Committed paper-profile results (results/<chapter>/paper/): readable, complete, and their claims pass.

CI never recomputes them (they need a GPU); `python -m lib book` renders them in place of the quick profile.
"""
import pytest

from lib.core import params, runner
from lib.core.store import ROOT, Store, read_json

STORED = sorted(p.parent.parent.name for p in (ROOT / "results").glob("*/paper/claims.json"))


def test_discovery_matches_the_runner(monkeypatch):
    monkeypatch.setenv("BOOK_RESULTS", str(ROOT / "results"))
    for chapter in params.chapters():
        assert runner.paper_results_exist(chapter) == (chapter in STORED)


@pytest.mark.parametrize("chapter", STORED)
def test_stored_paper_results(chapter):
    d = ROOT / "results" / chapter / "paper"
    claims = read_json(d / "claims.json")
    prov = read_json(d / "provenance.json")
    assert claims and all(c["passed"] for c in claims), [c["id"] for c in claims if not c["passed"]]
    for key in ("commit", "device", "torch", "wall_s", "seeds", "params"):
        assert prov.get(key) not in (None, ""), key
    assert prov["params"] == params.resolve(chapter, "paper"), "stored results are for other parameters than paper.yaml"
    for point in (d / "points").glob("*.json"):
        record = read_json(point)
        assert set(record) >= {"spec", "result", "commit", "device"}
    assert Store(chapter, "paper").read("claims.json") == claims
