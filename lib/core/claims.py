"""Claims as declarative rows: what a theorem or the paper predicts, the statistic that measures it, the verdict.

A chapter's claims module lists its rows as data. Each `Row` names its kind, its source and the rule it is held
to (a rule object, lib.core.rules), and points at a `measure` function that computes this run's numbers (and the
paper's, where it has any) from the page's results and returns them as a `Measured`. `evaluate` decides every row
the same way, `row.rule.decide(row.measure(...))`: the measure measures, the rule decides, nothing else does.

Two kinds, shown as two tables (a row's rule, reference value and source under its statement):

- `check`: an implementation check, an exact identity or construction that only a bug can break;
- `claim`: an empirical prediction that a run could refute: a theorem's, a number of the paper, or a
  hypothesis of this book (the row's `source` says which).

A claim whose effect needs more than the run's scale (a quick profile is a scale model) says so: its measure sets
`scale`, the scale at which the effect should show and why. The verdict stays what was measured; a failure below
that scale is shown as "✗ below scale" with the note, never hidden or turned into a pass.

A rule leaves a row censored (undecided: "◌ censored", counted apart from passes and failures) only in the ways its
text states: a measured range [lo, hi] that straddles its bound, its own undecided state (an interval or a test
that decides neither way), or a `Needs` gate that does not hold. The measure may say in words what is censored
(`Measured.censored`); it never decides.

    >>> from lib.core.rules import AtLeast
    >>> row = Row("1-order", "claim", "Figure 1 (paper)", "FFN over TR at N=12", AtLeast("FFN/TR", 2),
    ...           lambda table: Measured(7.4, "FFN/TR 7.4", paper="FFN/TR 7.1"))
    >>> line = to_markdown(evaluate([row], {}), "claim").splitlines()[2]
    >>> print(line.replace(" <span", "\\n    <span"))
    | {bdg-success}`✓ pass` | `1-order` FFN over TR at N=12
        <span class="claim-rule">*rule:* FFN/TR ≥ 2 (book's calibration)</span>
        <span class="claim-ref">*reference value:* FFN/TR 7.1 · *source:* Figure 1 (paper)</span> | FFN/TR 7.4 |
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lib.core.gate import worlds_of  # the one reading of a power table's roles and of its redraws
from lib.core.tables import markdown_table

KINDS = {"check": "implementation check", "claim": "claim"}


@dataclass(frozen=True)
class Measured:
    """What a row's measure found on this run: the statistic its rule decides and the words around it. Which
    fields a rule reads is in its docstring; the usual ones:

    value    the statistic: a number or an array (every value is held to the rule); bootstrap replicates
             (Replicates, Quantile); {cell: replicates} (Each); {law: score} (Laws); k (Share, ShareInterval);
             the effect (Significance); a tuple of Measured, one per part (All)
    text     this run's numbers in words ("": the rule writes them); the rule appends the margin
    spread   the margin's unit: sd or SE of the value (the SE for TInterval and Beyond); None: no margin
    n        what the spread is over (runs; the dof of TInterval; the trials of Share and ShareInterval)
    lo, hi   where censoring leaves the value known only within [lo, hi]: the worst end decides, a range across
             the bound is censored
    unsure   a mask of the values (cells) that estimate a censored quantity: where the rule fails on them alone,
             the row is censored
    p, want  Significance's one-sided p value; ShareInterval's side per cell (+1 above, -1 below)
    gate     Needs's gate value (how many points, say)
    censored what is censored, in words, shown where the rule leaves the row censored
    paper, where, scale, expected   the verdict's reference value, grid, scale note and rule text with this run's
             numbers (see Verdict)
    """
    value: Any = None
    text: str = ""
    spread: Any = None
    n: Any = None
    lo: Any = None
    hi: Any = None
    unsure: Any = None
    p: float | None = None
    want: Any = None
    gate: Any = None
    censored: str = ""
    paper: str = "n/a"
    where: str = ""
    scale: str = ""
    expected: str = ""


@dataclass(frozen=True)
class Verdict:
    """A row's verdict, as its rule decided it (only lib.core's rule modules make one). `where` says on which part
    of the run (e.g. the grid of N), and is appended to the statement; `paper` is the same statistic on the paper's
    numbers, where it has any; `expected`, where given, is the row's rule with this run's numbers in it."""
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


def verdict(m: Measured, text: str, outcome: bool | str, expected: str = "") -> Verdict:
    """The Verdict of a rule's `outcome` on `m` (True: pass, False: FAIL, a string: censored, for that reason, which
    the measure's own words in `m.censored` replace where it has any)."""
    cen = (m.censored or outcome) if isinstance(outcome, str) else ""
    return Verdict(text, outcome is True, paper=m.paper, where=m.where, expected=m.expected or expected,
                   scale=m.scale, censored=cen)


@dataclass(frozen=True)
class Scope:
    """The part of a grid a row reads, as data: the measure applies it (`scope(grid)`) and the statement quotes it
    (the placeholder `{scope}` in a row's statement is replaced by `scope.text`), so a range is typed once.

        >>> print(Scope("N", lo=4).text, Scope("N", 4, 6).text, Scope("T", hi=8)([4, 8, 16]))
        $N \\ge 4$ $4 \\le N \\le 6$ [4, 8]
    """
    axis: str
    lo: float | None = None
    hi: float | None = None

    def __call__(self, grid) -> list:
        """The values of `grid` inside the scope, in their order."""
        return [g for g in grid if (self.lo is None or g >= self.lo) and (self.hi is None or g <= self.hi)]

    @property
    def text(self) -> str:
        lo, hi, a = self.lo, self.hi, self.axis
        num = lambda x: f"{x:g}" if isinstance(x, float) else str(x)
        if lo is not None and hi is not None:
            return f"${num(lo)} \\le {a} \\le {num(hi)}$"
        if lo is not None:
            return f"${a} \\ge {num(lo)}$"
        return f"${a} \\le {num(hi)}$" if hi is not None else f"every ${a}$"


@dataclass(frozen=True)
class Row:
    """One row of a claim check. `measure(P, results)` measures, `rule.decide` decides; `scope`, where given, is the
    grid the measure reads, quoted by the statement's `{scope}`; `explain(P, results, row)`, where given, is the
    finding a page shows under the table when the row (its evaluated dict) fails or is censored."""
    id: str
    kind: str                                  # "check" or "claim" (see KINDS)
    source: str                                # the theorem, the paper's figure or number, or "hypothesis (this book)"
    statement: str
    rule: Any                                  # the rule object (lib.core.rules): it decides, and writes `expected`
    measure: Callable[..., Measured | None]    # the statistic; None: this run has nothing to measure it on
    scope: Scope | None = None
    explain: Callable[..., str] | None = None
    needs: str = ""                            # what a run must have for the measure to read it, where the scope
                                               # alone does not say (models trained, a panel; `{scope}` quotes it)

    def __post_init__(self):
        if ("{scope}" in self.statement) != (self.scope is not None):
            raise ValueError(f"claim {self.id}: a statement quotes {{scope}} exactly where the row has a scope")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if not (isinstance(getattr(self.rule, "text", None), str) and callable(getattr(self.rule, "decide", None))):
            raise ValueError(f"claim {self.id}: rule must be a rule object (lib.core.rules) with .text and .decide, "
                             f"got {self.rule!r}")

    @property
    def text(self) -> str:
        """The statement, its scope quoted."""
        return self.statement.replace("{scope}", self.scope.text) if self.scope else self.statement

    @property
    def expected(self) -> str:
        """The rule, in words."""
        return self.rule.text

    def decide(self, *data) -> Verdict | None:
        """The row's verdict on the page's data: its rule applied to what its measure found (None: not measured)."""
        m = self.measure(*data)
        if m is None:
            return None
        if not isinstance(m, Measured):
            raise TypeError(f"claim {self.id}: a measure returns a Measured (or None), got {type(m).__name__}")
        return self.rule.decide(m)


@dataclass(frozen=True)
class Headline:
    """One of the paper's headline claims and the claim rows that test it: a page's first sentence says, headline by
    headline, whether this run bears it out (`says`).

        >>> rows = [{"id": "a", "kind": "claim", "passed": True}, {"id": "b", "kind": "claim", "passed": False,
        ...          "censored": "N=16 unlearned"}]
        >>> Headline("Prop. 8's width bound", ("a", "b")).says(rows)
        "Prop. 8's width bound: undecided (1 of 2 claims pass, 1 undecided)"
        >>> Headline("Theorem 7's construction", ("k",)).says([{"id": "k", "kind": "check", "passed": True}])
        "Theorem 7's construction: checked (1 of 1 implementation check passes)"
    """
    name: str
    ids: tuple

    def __post_init__(self):
        if "$" in self.name:      # the verdict sentence is glued Markdown, which does not typeset math
            raise ValueError(f"headline {self.name!r}: write it without TeX (m*, log T, 1 − n/(Nd))")

    def says(self, rows: list[dict]) -> str:
        """The headline and its state on these rows, read from its claim rows alone (an implementation check is not
        evidence for a prediction): borne out (every claim passes), not borne out (a claim FAILs at scale), below
        scale (one fails only below its scale), undecided (one is censored, none fails). A headline with no claim
        row, only checks (a construction proved exact), says "checked", not "borne out", and how many hold. "": none
        of its rows was measured."""
        rs = [r for r in rows if r["id"] in self.ids and r.get("kind", "claim") == "claim"]
        checks = [r for r in rows if r["id"] in self.ids and r.get("kind") == "check"]
        if not rs:
            if not checks:
                return ""
            ok = sum(bool(r["passed"]) for r in checks)
            return (f"{self.name}: {'checked' if ok == len(checks) else 'a check FAILS'} ({ok} of {len(checks)} "
                    f"implementation check{'s pass' if len(checks) > 1 else ' passes'})")
        word, counts = self.state(rows)
        ok, bad, low, cen = counts
        more = "".join(f", {k} {w}" for k, w in ((bad, "fail"), (low, "below scale"), (cen, "undecided")) if k)
        return f"{self.name}: {word} ({ok} of {len(rs)} claim{'s pass' if len(rs) > 1 else ' passes'}{more})"

    def state(self, rows: list[dict]) -> tuple[str, tuple]:
        """(word, (passed, failed, below scale, undecided)) of the headline's claim rows: a row left undecided by
        its power (`undecided`, lib.core.gate) or censored counts as undecided, never as a pass or a failure."""
        rs = [r for r in rows if r["id"] in self.ids and r.get("kind", "claim") == "claim"]
        cen = sum(1 for r in rs if r.get("censored") or r.get("undecided"))
        ok = sum(1 for r in rs if r["passed"] and not r.get("undecided") and not r.get("censored"))
        low = sum(1 for r in rs if not r["passed"] and r.get("scale") and not r.get("censored")
                  and not r.get("undecided"))
        bad = len(rs) - ok - cen - low
        word = ("not borne out" if bad else "below scale" if low else "undecided" if cen else
                "borne out" if rs else "")
        return word, (ok, bad, low, cen)


def evaluate(rows: list[Row], *data) -> list[dict]:
    """Decide each row on the page's data; rows this run cannot measure are left out."""
    ids = [r.id for r in rows]
    if len(set(ids)) != len(ids):
        raise ValueError(f"claim ids repeat: {sorted(i for i in ids if ids.count(i) > 1)}")
    out = []
    for row in rows:
        v = row.decide(*data)
        if v is None:
            continue
        out.append({"id": row.id, "kind": row.kind, "source": row.source,
                    "statement": f"{row.text} ({v.where})" if v.where else row.text,
                    "expected": v.expected or row.expected, "paper": v.paper, "measured": v.measured, "passed": bool(v.passed),
                    "scale": v.scale, **({"censored": v.censored} if v.censored else {})})
    return out


def unmeasured(spec: list[Row], evaluated: list[dict]) -> dict[str, str]:
    """{id: reason} of the claim rows in `spec` that this run could not measure (its measure returned None), the
    reason in words: the row's `needs`, else its scope where it has one.

        >>> from lib.core.rules import AtLeast
        >>> spec = [Row("a", "claim", "s", "x at {scope}", AtLeast("x", 1), lambda: None, Scope("N", lo=27)),
        ...         Row("b", "claim", "s", "y", AtLeast("y", 1), lambda: None, needs="the RNN trained")]
        >>> print(*unmeasured(spec, []).values(), sep=" | ")
        needs $N \\ge 27$ on its grid, which this run's parameters do not give it | needs the RNN trained
    """
    done = {r["id"] for r in evaluated}
    return {r.id: ("needs " + r.needs.replace("{scope}", r.scope.text if r.scope else "its grid") if r.needs else
                   f"needs {r.scope.text} on its grid, which this run's parameters do not give it" if r.scope else
                   "this run's parameters give its measure nothing to read (see its statement)")
            for r in spec if r.kind == "claim" and r.id not in done}


def unmeasured_markdown(spec: list[Row], evaluated: list[dict]) -> str:
    """Markdown: the claim rows this run could not measure, each with its statement and the reason ("" if none)."""
    why = unmeasured(spec, evaluated)
    return "\n".join(f"- `{r.id}` {r.text}: *not measured: {why[r.id]}*" for r in spec if r.id in why)


def explained(rows: list[Row], evaluated: list[dict], *data) -> dict[str, str]:
    """{id: finding} of the rows that failed or are censored (`unsettled`), each its row's own `explain` on the page's
    data, in the rows' order; a row without one says nothing beyond its note."""
    bad = unsettled(evaluated)
    return {r.id: r.explain(*data, bad[r.id]) for r in rows if r.id in bad and r.explain is not None}


def explanations(rows: list[Row], evaluated: list[dict], *data) -> list[str]:
    """The findings of `explained`, each after its row's id: "`id`: finding"."""
    return [f"`{rid}`: {text}" for rid, text in explained(rows, evaluated, *data).items()]


def to_markdown(rows: list[dict], kind: str | None = None, power: list[dict] | None = None) -> str:
    """The page's table of one kind of row (all rows if kind is None), one line per row: the verdict; the row's id
    and statement with, beneath it in the same cell, the rule it is held to, the reference value (the paper's, or the
    authors' code re-run) and source, and the scale or censoring note of a row that did not pass; what this run
    measured with its margin. A skeptic reads the rule beside the verdict, not in a fold. Three columns fill a
    desktop's column; below about 600 px book.css shows each row as a card (the badge on its own line). power: the
    stored power table (lib.core.power): each row that has one says, under its rule, how often a faithful rerun and a
    world without the mechanism pass it."""
    rows = [r for r in rows if kind is None or r["kind"] == kind]
    if not rows:
        return f"This run has no {KINDS.get(kind, 'claim')} rows."
    said = power_said(power or [])
    return markdown_table(["result", "claim" if kind != "check" else "check", "measured (this run)"],
                          [[badge(c["passed"], c.get("scale", ""), c.get("censored", ""), c.get("undecided", "")),
                            claim_cell({**c, "power": said.get(c["id"], "")}), c["measured"]] for c in rows])


def power_said(table: list[dict]) -> dict[str, str]:
    """{row id: its power in words}: the share of draws that pass in its faithful world (the stored runs resampled;
    the lowest, where it has several: "faithful, half the directions", say), with the share left censored where
    there is one, and the highest share that passes in a world without the theorem's mechanism. Other worlds with the
    mechanism (a law the theorem also allows) are in the power table, not here.

        >>> power_said([{"row": "a", "world": "faithful: resampled", "mechanism": True, "pass": 0.78, "censored": 0},
        ...             {"row": "a", "world": "no gap", "mechanism": False, "pass": 0.0, "censored": 0}])
        {'a': 'a faithful rerun passes 78%; a world without the mechanism at most 0%'}
    """
    out = {}
    for rid in dict.fromkeys(t["row"] for t in table):
        w = worlds_of(table, rid)
        yes, no = w["faithful"], [t["pass"] for t in w["without"]]
        if yes and no:
            low = min(yes, key=lambda t: t["pass"])
            cen = f" (censored {_pct(low['censored'])})" if low.get("censored") else ""
            out[rid] = (f"a faithful rerun passes {_pct(low['pass'])}{cen}; a world without the mechanism at most "
                        f"{_pct(max(no))}")
    return out


def _pct(x: float) -> str:
    return f"{x:.0%}" if x in (0, 1) or round(x, 2) == x else f"{x:.1%}"     # 99.5% is not 100%


def claim_cell(row: dict) -> str:
    """A row's claim cell: `id` and statement, then a line each (spans that book.css sets as blocks; a space and a
    separator keep them apart where no style applies) for the rule, the reference value and source, and the note."""
    ref = [f"*reference value:* {row['paper']}" if row.get("paper") not in (None, "", "n/a") else "",
           f"*source:* {row['source']}" if row.get("source") else ""]
    lines = [("claim-rule", f"*rule:* {row['expected']}"), ("claim-ref", " · ".join(p for p in ref if p)),
             ("claim-ref", f"*power:* {row['power']}" if row.get("power") else ""), ("claim-note", _note(row))]
    return f"`{row['id']}` {row['statement']}" + "".join(f' <span class="{cls}">{text}</span>'
                                                         for cls, text in lines if text)


def _note(row: dict) -> str:
    """The note a row's badge refers to: what is censored, why its power leaves it undecided, or the scale a
    failure below it needs."""
    if row.get("censored"):
        return f"*censored: {row['censored']}*"
    if row.get("undecided"):
        rule = "passes" if row["passed"] else "FAILs"
        return f"*undecided at this scale: the rule {rule} on this run, but {row['undecided']}*"
    if row.get("scale"):
        return f"*{'below scale' if not row['passed'] else 'scale'}: {row['scale']}*"
    return ""


def badge(passed: bool, scale: str = "", censored: str = "", undecided: str = "") -> str:
    """The verdict cell: first in its row (in view on a phone), a symbol and a word, green, grey (undecided: censored
    points), orange (a failure below the scale its effect needs, which the row's note names) or red (sphinx-design's
    badges). Grey is sphinx-design's `muted`, which book.css pins to a mid grey: the book theme draws `secondary`
    orange, the colour of "below scale"."""
    if censored:
        return "{bdg-muted}`◌ censored`"
    if undecided:
        return "{bdg-muted}`◌ undecided`"
    return "{bdg-success}`✓ pass`" if passed else "{bdg-warning}`✗ below scale`" if scale else "{bdg-danger}`✗ FAIL`"


def below_scale(rows: list[dict], kind: str = "claim") -> int:
    """Failed rows of a kind that carry a scale note: the effect needs a larger run than this one."""
    return sum(1 for r in rows if r.get("kind", "claim") == kind and not r["passed"] and r.get("scale")
               and not r.get("censored") and not r.get("undecided"))


def censored(rows: list[dict], kind: str = "claim") -> int:
    """Rows of a kind left undecided (neither passed nor failed): by censored points, or by their power
    (`undecided`, lib.core.gate)."""
    return sum(1 for r in rows if r.get("kind", "claim") == kind and (r.get("censored") or r.get("undecided")))


def unsettled(rows: list[dict], kind: str = "claim") -> dict[str, dict]:
    """{id: row} of the rows of a kind whose badge is FAIL or censored: what a page's findings explain (a failure
    below its scale is left to the note that names the scale it needs)."""
    return {r["id"]: r for r in rows if r.get("kind", "claim") == kind
            and (r.get("censored") or r.get("undecided") or (not r["passed"] and not r.get("scale")))}


def tally(rows: list[dict], kind: str | None = None) -> tuple[int, int]:
    """(passed, failed) among the rows of one kind (all rows if kind is None); censored or undecided rows are
    neither."""
    rows = [r for r in rows if (kind is None or r.get("kind", "claim") == kind) and not r.get("censored")
            and not r.get("undecided")]
    passed = sum(bool(r["passed"]) for r in rows)
    return passed, len(rows) - passed
