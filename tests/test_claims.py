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


def test_the_verdict_line_is_a_short_list_then_names_the_rows():
    """The first thing on a chapter's first screen: one line per headline with a mark (or the counts, without
    headlines), the checks, then the ids of the rows that did not pass, on a line of their own."""
    from lib.core.chapter import verdict_line
    r = lambda i, kind="claim", passed=True, **kw: {"id": i, "kind": kind, "passed": passed, **kw}
    rows = [r("a"), r("b", passed=False), r("c", passed=False, censored="T = 800"), r("d", passed=False, scale="N"),
            r("e"), r("k1", "check"), r("k2", "check"), r("u", undecided="a faithful rerun passes 59%")]
    item = lambda text: f'<span class="verdict-item">{text}</span>'
    sentence, more = verdict_line(rows, "paper").data.split(' <span class="verdict-more">')
    assert sentence == ("**Verdict (paper profile)** " + item("· 2 of 6 claims borne out, 2 fail (1 below scale), 2 "
                        "undecided") + " " + item("✓ every implementation check passes"))
    assert more.startswith("Fails: <code>b</code>; below scale: <code>d</code>; undecided: <code>c</code>, "
                           "<code>u</code>.") and more.endswith("</span>")
    from lib.core.claims import Headline
    heads = (Headline("Theorem 1", ("a", "e")), Headline("Prop. 8", ("c", "d")), Headline("Fig. 2", ("zz",)),
             Headline("Thm 2", ("b",)), Headline("Thm 3", ("u",)))
    sentence, more = verdict_line(rows, "paper", heads, {"x": "needs N >= 27"}, "ran with <code>N</code>").data.split(
        ' <span class="verdict-more">')
    assert sentence == ('<span class="verdict-made">ran with <code>N</code></span> **Verdict (paper profile)** '
                        + " ".join([item("✓ Theorem 1: borne out (2 of 2 claims pass)"),
                                    item("✗ Prop. 8: below scale (0 of 2 claims pass, 1 below scale, 1 undecided)"),
                                    item("✗ Thm 2: not borne out (0 of 1 claim passes, 1 fail)"),
                                    item("◌ Thm 3: undecided (0 of 1 claim passes, 1 undecided)"),
                                    item("· 6 of 7 claims testable at this run's parameters; the other 1 are listed "
                                         "under the claim check"),
                                    item("✓ every implementation check passes")]))
    assert more.startswith("2 of 6 claims borne out, 2 fail (1 below scale), 2 undecided; fails: <code>b</code>;")
    broken = verdict_line([r("k1", "check", passed=False)], "paper", (Headline("Thm 7's network", ("k1",)),)).data
    assert item("✗ Thm 7's network: a check FAILS (0 of 1 implementation check passes)") in broken


def test_a_pass_its_power_does_not_support_reads_undecided():
    """The gate: a rule that passes a world without the mechanism 30% of the time is not evidence, and neither is a
    FAIL with no world that has the mechanism; both read undecided on the page, with their numbers, and count so."""
    import numpy as np

    from lib.core.chapter import verdict_line
    from lib.core.claims import Headline
    from lib.core.gate import gate
    from lib.core.power import World, faithful, power_table, resample_seeds
    from lib.core.rules import AtLeast
    results = {"x": {"spec": {"seeds": 10}, "result": {"gain": [1.0] * 10}}}

    def loose(P, r, rng):       # a world without the mechanism in which the rule passes 30% of the time
        sim = resample_seeds(P, r, rng)
        sim["x"]["result"]["gain"] = [1.0 if rng.random() < 0.3 else 0.0] * 10
        return sim
    row = Row("gain", "claim", "s", "the gain is positive", AtLeast("mean gain", 0.5),
              lambda P, r: Measured(float(np.mean(r["x"]["result"]["gain"]))))
    table = power_table([row], {"gain": (faithful(), World("no gain, sometimes", False, loose))}, {}, results,
                        draws=200, more_seeds=False)
    rows = gate(evaluate([row], {}, results), table)
    assert rows[0]["passed"] and "world without the mechanism (no gain, sometimes) passes" in rows[0]["undecided"]
    md = to_markdown(rows, "claim", table)
    assert "{bdg-muted}`◌ undecided`" in md and "✓ pass" not in md and "undecided at this scale" in md
    head = Headline("The gain", ("gain",))
    assert head.says(rows).startswith("The gain: undecided") and "◌ The gain: undecided" in verdict_line(
        rows, "paper", (head,)).data
    # a FAIL with no world that has the mechanism (beyond the faithful one) is not evidence either
    fails = Row("gain", "claim", "s", "the gain is above 2", AtLeast("mean gain", 2),
                lambda P, r: Measured(float(np.mean(r["x"]["result"]["gain"]))))
    table = power_table([fails], {"gain": (faithful(), World("no gain", False, loose))}, {}, results, draws=50,
                        more_seeds=False)
    rows = gate(evaluate([fails], {}, results), table)
    assert not rows[0]["passed"] and "no world with the mechanism is declared" in rows[0]["undecided"]
    assert "✗ FAIL" not in to_markdown(rows, "claim", table) and head.says(rows).startswith("The gain: undecided")
    # ... and with one that passes 100%, the FAIL stands
    moved = World("the gain the theorem predicts", True, lambda P, r, rng: {"x": {"spec": {"seeds": 10},
                                                                               "result": {"gain": [3.0] * 10}}})
    table = power_table([fails], {"gain": (faithful(), World("no gain", False, loose), moved)}, {}, results, draws=50)
    rows = gate(evaluate([fails], {}, results), table)
    assert "undecided" not in rows[0] and "✗ FAIL" in to_markdown(rows, "claim", table)


def test_more_seeds_says_what_would_decide_an_undecided_row():
    """An undecided row names the seeds per cell that would decide it: the power redrawn with k times the stored
    seeds (the smallest k up to 8 at which the gate holds)."""
    import numpy as np

    from lib.core.gate import gate
    from lib.core.power import World, faithful, power_table, resample_seeds, shifted
    from lib.core.rules import AtLeast
    rng = np.random.default_rng(1)
    results = {"x": {"spec": {"seeds": 6}, "result": {"gain": (0.35 + rng.normal(0, 1, 6)).tolist()}}}
    z = lambda P, r: Measured(float(np.mean(r["x"]["result"]["gain"]) / (np.std(r["x"]["result"]["gain"], ddof=1)
                                                                          / np.sqrt(len(r["x"]["result"]["gain"])))))
    row = Row("gain", "claim", "s", "the gain is positive", AtLeast("z", 2), z)
    none = World("no gain", False, lambda P, r, rng: shifted(resample_seeds(P, r, rng), "gain",
                                                            -float(np.mean(r["x"]["result"]["gain"]))))
    table = power_table([row], {"gain": (faithful(), none)}, {}, results, draws=100)
    rows = gate(evaluate([row], {}, results), table)
    assert rows[0].get("undecided") and "× the stored seeds per cell" in rows[0]["undecided"]
    assert {t.get("seeds_times", 1) for t in table} > {1}


def test_the_parameters_table_is_folded():
    from types import SimpleNamespace

    from lib.core import params as params_mod
    from lib.core.chapter import Chapter
    schema = params_mod.load_schema("ffn_span")
    fake = SimpleNamespace(name="ffn_span", profile="quick", params={k: p.default for k, p in schema.items()})
    md = Chapter.parameters_table(fake).data
    assert md.startswith(f":::{{dropdown}} The {len(schema)} parameters of this run (profile `quick`)") and md.endswith(":::")
    assert md.count("\n| `") == len(schema)
