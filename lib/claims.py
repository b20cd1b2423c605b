"""A claim: what a theorem or the paper predicts, what this run measured, and whether it held.

Claims are computed from a run's results, never typed: a chapter builds them with `Claim(...)` from its
measurements, writes them to claims.json and renders the same list as the page's "Claim check" table.

    >>> c = Claim("1-ordering", "FFN > RNN > TR at N=12", "FFN > RNN > TR", "120k > 71k > 17k", "118k > 70k > 16k", True)
    >>> to_markdown([c])
"""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class Claim:
    id: str
    statement: str
    expected: str        # the theorem's prediction or the acceptance rule
    paper: str           # the paper's (or the authors' code's) number
    measured: str        # what this run measured, formatted from the numbers
    passed: bool

    def as_dict(self) -> dict:
        return asdict(self)


def to_markdown(claims: list[Claim] | list[dict]) -> str:
    rows = [c if isinstance(c, dict) else c.as_dict() for c in claims]
    esc = lambda s: str(s).replace("|", "\\|")
    lines = ["| claim | statement | expected | paper | measured | result |", "|---|---|---|---|---|---|"]
    for c in rows:
        mark = "**pass**" if c["passed"] else "**FAIL**"
        lines.append(f"| {esc(c['id'])} | {esc(c['statement'])} | {esc(c['expected'])} | {esc(c['paper'])} | "
                     f"{esc(c['measured'])} | {mark} |")
    return "\n".join(lines)


def tally(claims: list[dict]) -> tuple[int, int]:
    """(passed, failed)."""
    passed = sum(bool(c["passed"]) for c in claims)
    return passed, len(claims) - passed
