"""The gate between a rule's outcome and the verdict a page shows: a verdict is shown only where the row's power
(lib.core.power) says it is evidence.

- a **pass** stands when the row's faithful world (the stored runs resampled) passes at least `FAITHFUL` = 80% of
  the time and every world without the theorem's mechanism passes at most `WITHOUT` = 20%: the usual 80% power,
  and at most one false pass in five;
- a **FAIL** stands when the faithful world FAILs at least 80% of the time and at least one world *with* the
  mechanism (the stored runs moved to what the theorem predicts, not the stored runs themselves) passes at least
  80%: the rule could have passed, had the mechanism been there;
- anything else is **undecided at this scale**: the row keeps its measured value and its rule's own outcome
  (`passed`, `censored`), and gains `undecided`, the numbers in words. A censored row is undecided already.

Where a row is undecided, `what_decides` says how many seeds per cell would decide it: the power redrawn with k times
the stored seeds in every cell (lib.core.power.seeds_times), the smallest k up to `MAX_TIMES` at which the gate
holds, or that none does.

    >>> table = [{"row": "a", "world": "faithful: resampled", "role": "faithful", "pass": 0.59, "fail": 0.41},
    ...          {"row": "a", "world": "no trend", "role": "without", "pass": 0.41, "fail": 0.59}]
    >>> why({"id": "a", "kind": "claim", "passed": True}, table)
    'a faithful rerun passes 59%; a world without the mechanism (no trend) passes 41%: this scale cannot tell'
    >>> why({"id": "a", "kind": "claim", "passed": False}, table)
    'a faithful rerun FAILs 41%; no world with the mechanism is declared: this scale cannot tell'
"""
from __future__ import annotations

FAITHFUL = 0.80      # a verdict stands where a faithful rerun reaches it at least this often (the usual 80% power)
WITHOUT = 0.20       # ... and a world without the mechanism passes at most this often (one false pass in five)
WITH = 0.80          # a FAIL stands where a world with the mechanism passes at least this often
MAX_TIMES = 8        # the most seeds per cell, as a multiple of the stored ones, that `what_decides` tries


def role(t: dict) -> str:
    """A power-table entry's world role: "faithful" (the stored runs resampled), "with" (the stored runs moved to
    what the theorem predicts) or "without" (the mechanism taken away)."""
    if t.get("role"):
        return t["role"]
    return ("faithful" if t["world"].startswith("faithful") else "with") if t["mechanism"] else "without"


def _pct(x: float) -> str:
    return f"{x:.0%}" if x in (0, 1) or round(x, 2) == x else f"{x:.1%}"     # 99.5% is not 100%


def worlds_of(table: list[dict], rid: str, times: int = 1) -> dict[str, list[dict]]:
    """{role: entries} of one row's power table at `times` the stored seeds (entries not measured left out)."""
    got = [t for t in table if t["row"] == rid and t.get("seeds_times", 1) == times and t.get("unmeasured", 0) < 1]
    return {r: [t for t in got if role(t) == r] for r in ("faithful", "with", "without")}


def why(row: dict, table: list[dict], times: int = 1) -> str:
    """"" where the row's shown verdict is evidence by its power table; otherwise why not, in words. A censored row,
    or an implementation check, is not gated here."""
    if row.get("kind", "claim") != "claim":
        return ""
    w = worlds_of(table, row["id"], times)
    if not w["faithful"]:
        return "no faithful world is declared for this row, so its power is unknown"
    if row.get("censored"):
        low = min(w["faithful"], key=lambda t: t["pass"])
        return (f"its rule leaves it censored; a faithful rerun passes {_pct(low['pass'])}, FAILs "
                f"{_pct(low['fail'])} and is censored {_pct(low.get('censored', 0))}")
    weakest = min(w["faithful"], key=lambda t: t["pass"] if row["passed"] else t["fail"])
    if row["passed"]:
        worst = max(w["without"], key=lambda t: t["pass"], default=None)
        if worst is None:
            return (f"a faithful rerun passes {_pct(weakest['pass'])}; no world without the mechanism is declared: "
                    "nothing shows the rule could fail")
        if weakest["pass"] >= FAITHFUL and worst["pass"] <= WITHOUT:
            return ""
        return (f"a faithful rerun passes {_pct(weakest['pass'])}; a world without the mechanism ({worst['world']}) "
                f"passes {_pct(worst['pass'])}: this scale cannot tell")
    best = max(w["with"], key=lambda t: t["pass"], default=None)
    if weakest["fail"] >= FAITHFUL and best is not None and best["pass"] >= WITH:
        return ""
    said = (f"the best world with the mechanism ({best['world']}) passes {_pct(best['pass'])}" if best is not None
            else "no world with the mechanism is declared")
    return f"a faithful rerun FAILs {_pct(weakest['fail'])}; {said}: this scale cannot tell"


def holds(rid: str, table: list[dict], times: int) -> str | None:
    """At `times` the stored seeds: "pass" or "FAIL" where the row's power would let that verdict stand, else None."""
    w = worlds_of(table, rid, times)
    if not w["faithful"]:
        return None
    for verdict in (True, False):
        if not why({"id": rid, "kind": "claim", "passed": verdict}, table, times):
            return "pass" if verdict else "FAIL"
    return None


def gate(rows: list[dict], table: list[dict]) -> list[dict]:
    """The rows with `undecided` (the reason, and what would decide it) added where the power table does not let the
    rule's outcome stand; nothing else changes."""
    out = []
    for r in rows:
        reason = why(r, table)
        if reason:
            r = {**r, "undecided": reason + what_decides(r["id"], table)}
        out.append(r)
    return out


def what_decides(rid: str, table: list[dict]) -> str:
    """What more seeds would do, in words, read from the power table's redrawn entries (`seeds_times` > 1): the
    smallest multiple of the stored seeds per cell at which the gate holds, or that none up to MAX_TIMES does."""
    tried = sorted({t.get("seeds_times", 1) for t in table if t["row"] == rid} - {1})
    if not tried:
        return ("; more seeds per cell cannot decide it: its worlds do not resample seeds (it needs a larger grid or "
                "another protocol)")
    for k in tried:
        verdict = holds(rid, table, k)
        if verdict:
            return f"; with {k}× the stored seeds per cell the rule's {verdict} would stand"
    return (f"; even {max(tried)}× the stored seeds per cell would not decide it: it needs a larger grid "
            "(its note says which) or another protocol")


def undecided_count(rows: list[dict], kind: str = "claim") -> int:
    """Rows of a kind whose verdict is not evidence (gated undecided, or censored)."""
    return sum(1 for r in rows if r.get("kind", "claim") == kind and (r.get("undecided") or r.get("censored")))
