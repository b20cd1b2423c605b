"""Claims as declarative rows: what a theorem or the paper predicts, the statistic that measures it, the verdict.

A chapter's page module lists its rows as data. Each `Row` names its kind, its source and the rule it is held
to, and points at a `measure` function that computes this run's value (and the paper's, where it has one) from
the page's results. `evaluate` applies every row; nothing in a verdict is typed by hand.

Two kinds, shown as two tables:

- `check`: an implementation check, an exact identity or construction that only a bug can break;
- `claim`: an empirical prediction that a run could refute: a theorem's, a number of the paper, or a
  hypothesis of this book (the row's `source` says which).

A row's rule is best given as data (lib.core.rules): `Row(..., RULE, measure)` with a rule object in place of the
words; the row's `expected` is then the rule's generated text, and `measure` decides through `RULE.decide(...)`, so
the threshold is typed once.

A claim whose effect needs more than the run's scale (a quick profile is a scale model) says so: its measure returns a
`Verdict` with `scale`, the scale at which the effect should show and why. The verdict stays what was measured; a
failure below that scale is shown as "✗ below scale" with the note, never hidden or turned into a pass.

A claim whose verdict hangs on a censored point (a run or a grid that never reached its threshold, so only a bound
on the value is known) and that the bound does not decide returns a `Verdict` with `censored`, what is censored:
it reads "◌ censored", is counted apart from passes and failures, and its `passed` is False.

    >>> row = Row("1-order", "claim", "Figure 1 (paper)", "FFN > RNN > TR at N=12", "FFN > RNN > TR",
    ...           lambda table: Verdict("118k > 70k > 16k", True, paper="120k > 71k > 17k"))
    >>> print(to_markdown(evaluate([row], {}), "claim").splitlines()[2])
    | {bdg-success}`✓ pass` | `1-order` FFN > RNN > TR at N=12 | 118k > 70k > 16k |
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lib.core.tables import markdown_table

KINDS = {"check": "implementation check", "claim": "claim"}


@dataclass(frozen=True)
class Verdict:
    """What a row's statistic measured on this run. `where` says on which part of the run (e.g. the grid of N),
    and is appended to the statement; `paper` is the same statistic on the paper's numbers, where it has any;
    `expected`, where given, is the row's rule with this run's numbers in it."""
    measured: str
    passed: bool
    paper: str = "n/a"
    where: str = ""
    expected: str = ""       # the rule with this run's numbers in it, where it quotes a parameter; "": the row's own
    scale: str = ""          # where this run is below the scale the effect needs: that scale, and why ("" = at scale)
    censored: str = ""       # the verdict hangs on censored points that their bounds do not decide: which ("" = decided)

    def __post_init__(self):
        if self.censored and self.passed:
            raise ValueError("a censored verdict is undecided: passed must be False")


@dataclass(frozen=True)
class Row:
    id: str
    kind: str                                  # "check" or "claim" (see KINDS)
    source: str                                # the theorem, the paper's figure or number, or "hypothesis (this book)"
    statement: str
    expected: str                              # the rule, in words, or a rule object (lib.core.rules) that writes them
    measure: Callable[..., Verdict | None]     # the statistic; None: this run has nothing to measure it on
    rule: object = None                        # the rule object, where `expected` was given as one

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if not isinstance(self.expected, str):     # a rule: its text is the row's rule; `expected` keeps the words
            if not isinstance(getattr(self.expected, "text", None), str):
                raise ValueError(f"claim {self.id}: expected must be the rule's words or a rule with .text, "
                                 f"got {self.expected!r}")
            object.__setattr__(self, "rule", self.expected)
            object.__setattr__(self, "expected", self.expected.text)


def evaluate(rows: list[Row], *data) -> list[dict]:
    """Apply each row's statistic to the page's data; rows this run cannot measure are left out."""
    ids = [r.id for r in rows]
    if len(set(ids)) != len(ids):
        raise ValueError(f"claim ids repeat: {sorted(i for i in ids if ids.count(i) > 1)}")
    out = []
    for row in rows:
        v = row.measure(*data)
        if v is None:
            continue
        out.append({"id": row.id, "kind": row.kind, "source": row.source,
                    "statement": f"{row.statement} ({v.where})" if v.where else row.statement,
                    "expected": v.expected or row.expected, "paper": v.paper, "measured": v.measured, "passed": bool(v.passed),
                    "scale": v.scale, **({"censored": v.censored} if v.censored else {})})
    return out


def to_markdown(rows: list[dict], kind: str | None = None) -> str:
    """The page's table of one kind of row (all rows if kind is None): per row one line a reader scans (the verdict,
    the row's id and statement, what this run measured with its margin), and beneath the table, folded, how each row
    is decided (its rule, the reference value of the paper or of the authors' code, its source, and the scale or
    censoring note of a row that did not pass). Three columns fit a phone's width; the fold keeps the rest."""
    rows = [r for r in rows if kind is None or r["kind"] == kind]
    if not rows:
        return f"This run has no {KINDS.get(kind, 'claim')} rows."
    main = markdown_table(["result", "claim" if kind != "check" else "check", "measured (this run)"],
                          [[verdict(c["passed"], c.get("scale", ""), c.get("censored", "")),
                            f"`{c['id']}` {c['statement']}", c["measured"]] for c in rows])
    detail = markdown_table(["id", "rule", "reference value (the paper, or the authors' code re-run)", "source", "note"],
                            [[f"`{c['id']}`", c["expected"], c["paper"], c["source"], _note(c)] for c in rows])
    what = "implementation checks" if kind == "check" else "claims"
    return (f"{main}\n\n:::{{dropdown}} How these {len(rows)} {what} are decided: rule, reference value, source, note\n"
            f"{detail}\n:::")


def _note(row: dict) -> str:
    """The note a row's badge refers to: what is censored, or the scale a failure below it needs."""
    if row.get("censored"):
        return f"*censored: {row['censored']}*"
    if row.get("scale"):
        return f"*{'below scale' if not row['passed'] else 'scale'}: {row['scale']}*"
    return ""


def verdict(passed: bool, scale: str = "", censored: str = "") -> str:
    """The verdict cell: first in its row (in view on a phone), a symbol and a word, green, grey (undecided: censored
    points), amber (a failure below the scale its effect needs, which the row's note names) or red (sphinx-design's
    badges)."""
    if censored:
        return "{bdg-secondary}`◌ censored`"
    return "{bdg-success}`✓ pass`" if passed else "{bdg-warning}`✗ below scale`" if scale else "{bdg-danger}`✗ FAIL`"


def below_scale(rows: list[dict], kind: str = "claim") -> int:
    """Failed rows of a kind that carry a scale note: the effect needs a larger run than this one."""
    return sum(1 for r in rows if r.get("kind", "claim") == kind and not r["passed"] and r.get("scale")
               and not r.get("censored"))


def censored(rows: list[dict], kind: str = "claim") -> int:
    """Rows of a kind left undecided by censored points (neither passed nor failed)."""
    return sum(1 for r in rows if r.get("kind", "claim") == kind and r.get("censored"))


def unsettled(rows: list[dict], kind: str = "claim") -> dict[str, dict]:
    """{id: row} of the rows of a kind whose badge is FAIL or censored: what a page's findings explain (a failure
    below its scale is left to the note that names the scale it needs)."""
    return {r["id"]: r for r in rows if r.get("kind", "claim") == kind
            and (r.get("censored") or (not r["passed"] and not r.get("scale")))}


def tally(rows: list[dict], kind: str | None = None) -> tuple[int, int]:
    """(passed, failed) among the rows of one kind (all rows if kind is None); censored rows are neither."""
    rows = [r for r in rows if (kind is None or r.get("kind", "claim") == kind) and not r.get("censored")]
    passed = sum(bool(r["passed"]) for r in rows)
    return passed, len(rows) - passed
