"""Markdown tables for pages: one helper, so that no page assembles table syntax by hand.

    >>> print(markdown_table(["model", "N", "samples"], [["FFN", 4, "8,448"]]))
    | model | N | samples |
    |---|---|---|
    | FFN | 4 | 8,448 |
"""
from __future__ import annotations


def cell(value) -> str:
    """A value as a table cell: pipes escaped (they would split the cell), newlines folded."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(header: list[str], rows: list[list], align: str | None = None) -> str:
    """A Markdown table; align is one character per column (l, c, r), left by default."""
    marks = {"l": "---", "c": ":---:", "r": "---:"}
    lines = ["| " + " | ".join(cell(h) for h in header) + " |",
             "|" + "|".join(marks[a] for a in (align or "l" * len(header))) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
