"""lib.core.claims: declarative rows, their evaluation, kinds, tables and tallies."""
from __future__ import annotations

import numpy as np
import pytest

from lib.core.claims import Measured, Row, Verdict, below_scale, censored, evaluate, tally, to_markdown
from lib.core.rules import AtLeast, Holds, Needs


# ---------------------------------------------------------------------------------------------- rendering
def result_cell(line: str) -> str:
    """'pass' or 'fail' from a claim row's first cell (the verdict), whatever its decoration (badge, symbol, case)."""
    cell = line.split("|")[1].lower()
    assert ("pass" in cell) != ("fail" in cell), line
    return "pass" if "pass" in cell else "fail"



def row(i, passed, kind="claim", measured="3"):
    return Row(i, kind, "Theorem 1", "a | b", Holds("x > y"), lambda data: Measured(passed, measured, paper="1 | 2"))


def test_to_markdown_marks_escapes_and_splits_kinds():
    """One line per row a reader scans (verdict, id and statement, measured); the rule, the reference value and the
    source in the claim cell under the statement, not in a separate table."""
    rows = evaluate([row("c1", True), row("c2", False), row("k1", True, kind="check")], None)
    md = to_markdown(rows, "claim")
    lines = md.splitlines()
    assert len(lines) == 4 and "dropdown" not in md                  # the table, and nothing folded beneath it
    assert lines[0].startswith("| result | claim | measured (this run) |") and set(lines[1]) <= set("|-")
    assert "a \\| b" in lines[2] and result_cell(lines[2]) == "pass"
    assert lines[3].split("|")[2].strip().startswith("`c2`") and result_cell(lines[3]) == "fail"
    # Escaping keeps every row at the header's four column separators.
    assert all(line.replace("\\|", "").count("|") == 4 for line in lines)
    claim = lines[2].replace("\\|", "¦").split("|")[2]
    assert claim.index("`c1` a ¦ b") < claim.index('<span class="claim-rule">*rule:* x > y (exact)</span>') \
        < claim.index('<span class="claim-ref">*reference value:* 1 ¦ 2 · *source:* Theorem 1</span>')
    check = to_markdown(rows, "check")
    assert [line.split(" | ")[1].split(" <span")[0] for line in check.splitlines()[2:]] == ["`k1` a \\| b"]
    assert "{bdg-success}`✓ pass`" in md and "{bdg-danger}`✗ FAIL`" in md     # colour, symbol and word
    assert "no implementation check" in to_markdown([r for r in rows if r["kind"] == "claim"], "check")


def test_a_row_without_a_reference_value_names_its_source_alone():
    rows = evaluate([Row("r", "claim", "Lemma 2", "s", Holds("x"), lambda data: Measured(True, "1"))], None)
    assert '<span class="claim-ref">*source:* Lemma 2</span>' in to_markdown(rows)
    assert "reference value" not in to_markdown(rows) and "claim-note" not in to_markdown(rows)


def test_evaluate_rows():
    rule = Holds("e", by="book")
    rows = evaluate([row("a", True), Row("b", "claim", "s", "t", rule, lambda data: None),
                     Row("c", "check", "s", "t", rule, lambda data: Measured(data == 2, f"{data}", where="N=[2]"))], 2)
    assert [r["id"] for r in rows] == ["a", "c"]                     # a row with nothing to measure is left out
    assert rows[1] == {"id": "c", "kind": "check", "source": "s", "statement": "t (N=[2])", "expected": "e (book's calibration)",
                       "paper": "n/a", "measured": "2", "passed": True, "scale": ""}
    with pytest.raises(ValueError, match="kind must be one of check, claim"):
        Row("x", "identity", "s", "t", rule, lambda: None)
    with pytest.raises(ValueError, match="repeat"):
        evaluate([row("a", True), row("a", False)], None)


def test_tally():
    rows = [{"passed": True, "kind": "claim"}, {"passed": False, "kind": "claim"}, {"passed": True, "kind": "check"},
            {"passed": np.bool_(False), "kind": "check"}]
    assert tally(rows) == (2, 2)
    assert tally(rows, "claim") == (1, 1) and tally(rows, "check") == (1, 1)
    assert tally([]) == (0, 0)


def test_a_failure_below_scale_is_shown_as_such_and_still_counts_as_failed():
    rule = AtLeast("x", 1)
    rows = evaluate([Row("a", "claim", "s", "t", rule, lambda: Measured(0.3, "0.3", scale="N >= 25 (the paper's grid)")),
                     Row("b", "claim", "s", "t", rule, lambda: Measured(0.9, "0.9")),
                     Row("c", "claim", "s", "t", rule, lambda: Measured(2.0, "2.0", scale="N >= 25"))])
    assert tally(rows, "claim") == (1, 2) and below_scale(rows) == 1       # a pass with a note is not "below scale"
    table = to_markdown(rows, "claim")
    assert "`✗ below scale`" in table and \
        '<span class="claim-note">*below scale: N >= 25 (the paper\'s grid)*</span>' in table   # under the row's rule
    assert table.count("`✗ FAIL`") == 1 and table.count("`✓ pass`") == 1


def test_a_censored_verdict_is_neither_pass_nor_fail():
    rule = Needs(AtLeast("measured T", 3), AtLeast("m", 5))
    rows = evaluate([Row("c", "claim", "s", "x", rule, lambda: Measured(6, "m > 5 (bound)", gate=2, censored="T = 800: no m*")),
                     Row("p", "claim", "s", "x", rule, lambda: Measured(6, "1", gate=3))])
    assert rows[0]["censored"] and tally(rows, "claim") == (1, 0) and below_scale(rows) == 0
    assert censored(rows) == 1 and '<span class="claim-note">*censored: T = 800: no m**</span>' in to_markdown(rows)
    # grey, as the intro's legend says: sphinx-design's muted (book.css pins it grey; the theme's secondary is orange)
    assert to_markdown(rows).count("{bdg-muted}`◌ censored`") == 1 and "bdg-secondary" not in to_markdown(rows)
    with pytest.raises(ValueError, match="censored"):
        Verdict("m", True, censored="T = 800")


def test_unsettled_is_what_the_badges_call_fail_or_censored():
    from lib.core.claims import unsettled
    rows = [{"id": "a", "kind": "claim", "passed": True}, {"id": "b", "kind": "claim", "passed": False},
            {"id": "c", "kind": "claim", "passed": False, "scale": "T to 800"},
            {"id": "d", "kind": "claim", "passed": False, "scale": "T to 800", "censored": "T = 800"},
            {"id": "e", "kind": "check", "passed": False}]
    assert sorted(unsettled(rows)) == ["b", "d"] and sorted(unsettled(rows, "check")) == ["e"]


def test_the_verdict_line_says_in_words_first_then_names_the_rows():
    """The first thing on a chapter's first screen: one sentence (claims borne out, failing, undecided; the checks),
    then the ids of the rows that did not pass, on a line of their own."""
    from lib.core.chapter import verdict_line
    r = lambda i, kind="claim", passed=True, **kw: {"id": i, "kind": kind, "passed": passed, **kw}
    rows = [r("a"), r("b", passed=False), r("c", passed=False, censored="T = 800"), r("d", passed=False, scale="N"),
            r("e"), r("k1", "check"), r("k2", "check")]
    sentence, more = verdict_line(rows, "paper").data.split(' <span class="verdict-more">')
    assert sentence == ("**Verdict (paper profile): 2 of 5 claims borne out, 2 fail (1 below scale), 1 undecided; "
                        "every implementation check passes.**")
    assert more.startswith("Fails: `b`; below scale: `d`; undecided (censored): `c`.") and more.endswith("</span>")
    one = verdict_line([r("a", passed=False, scale="N"), r("k", "check", passed=False), r("k2", "check")], "quick")
    assert one.data.startswith("**Verdict (quick profile): 0 of 1 claim borne out, 1 fails below scale; "
                               "1 of 2 implementation checks fails.**")
    assert verdict_line([r("a")], "paper").data.startswith("**Verdict (paper profile): 1 of 1 claim borne out.**")
    from lib.core.claims import Headline
    heads = (Headline("Theorem 1", ("a", "e")), Headline("Prop. 8", ("c", "d")), Headline("Fig. 2", ("zz",)))
    sentence, more = verdict_line(rows, "paper", heads).data.split(' <span class="verdict-more">')
    assert sentence == ("**Verdict (paper profile): Theorem 1: borne out (2 of 2 claims pass); Prop. 8: below scale "
                        "(0 of 2 claims pass, 1 below scale, 1 censored); every implementation check passes.**")
    assert more.startswith("2 of 5 claims borne out, 2 fail (1 below scale), 1 undecided; fails: `b`;")


def test_the_parameters_table_is_folded():
    from types import SimpleNamespace

    from lib.core import params as params_mod
    from lib.core.chapter import Chapter
    schema = params_mod.load_schema("ffn_span")
    fake = SimpleNamespace(name="ffn_span", profile="quick", params={k: p.default for k, p in schema.items()})
    md = Chapter.parameters_table(fake).data
    assert md.startswith(f":::{{dropdown}} The {len(schema)} parameters of this run (profile `quick`)") and md.endswith(":::")
    assert md.count("\n| `") == len(schema)
