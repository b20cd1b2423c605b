"""Every committed paper profile shows a verdict only where its own stored power says it is evidence (lib.core.gate):
a pass where its faithful world passes >= 80% and every world without the mechanism <= 20%; a FAIL where its faithful
world FAILs >= 80% and a world with the mechanism passes >= 80%; every other claim row reads undecided (or censored)
and says what would decide it: the seeds per cell, or the larger grid it needs. Read from claims.json and power.json
alone (lib verify recomputes both from the points)."""
import json

import pytest

from lib.core import gate
from lib.core.store import ROOT

PROFILES = sorted(p.parent.parent.name for p in (ROOT / "results").glob("*/paper/claims.json"))


def _stored(chapter: str):
    folder = ROOT / "results" / chapter / "paper"
    return (json.loads((folder / "claims.json").read_text()), json.loads((folder / "power.json").read_text()))


@pytest.mark.parametrize("chapter", PROFILES)
def test_a_shown_verdict_is_evidence_by_its_stored_power(chapter):
    rows, table = _stored(chapter)
    shown = [r for r in rows if r["kind"] == "claim" and not r.get("censored") and not r.get("undecided")]
    assert {r["id"]: gate.why(r, table) for r in shown if gate.why(r, table)} == {}


@pytest.mark.parametrize("chapter", PROFILES)
def test_an_undecided_row_says_what_would_decide_it(chapter):
    rows, table = _stored(chapter)
    open_ = [r for r in rows if r["kind"] == "claim" and (r.get("censored") or r.get("undecided"))]
    said = lambda r: r.get("undecided", "")
    assert [r["id"] for r in open_ if not said(r)] == []
    assert [r["id"] for r in open_ if "seeds per cell" not in said(r) and "larger grid" not in said(r)] == []
