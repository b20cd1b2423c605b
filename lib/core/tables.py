"""Markdown tables for pages: one helper, so that no page assembles table syntax by hand; and the few words a page
writes the same way everywhere: a grid of values as a reader writes it (`listing`, `named_grid`), a range that may be one
value (`span`).

    >>> print(markdown_table(["model", "N", "samples"], [["FFN", 4, "8,448"]]))
    | model | N | samples |
    |---|---|---|
    | FFN | 4 | 8,448 |
    >>> named_grid("N", [4, 6, 8, 10, 12]), named_grid("N", range(4, 13)), named_grid("$T$", [16, 64, 256])
    ('$N$ = 4, 6, 8, 10, 12', '$N$ = 4–12', '$T$ = 16, 64, 256')
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


def _number(x) -> str:
    """One value of a grid: an integer as it is, a float in its shortest form (0.125, 1e-05)."""
    if isinstance(x, str):
        return x
    x = x.item() if hasattr(x, "item") else x          # numpy scalars
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        x = int(x)
    return str(x) if isinstance(x, int) else f"{x:g}"


def listing(xs, fmt=None) -> str:
    """A grid of values as a reader writes it, never as a Python list: "4, 6, 8"; three or more consecutive integers
    as a range, "4–12"; one value alone, "12". fmt: a format spec for each value (",.0f"); default: as it is.

        >>> listing([4, 6, 8]), listing([2, 3, 4, 5]), listing([12]), listing([0.1, 0.25]), listing([10000, 20000], ",")
        ('4, 6, 8', '2–5', '12', '0.1, 0.25', '10,000, 20,000')
    """
    xs = list(xs)
    show = (lambda x: format(x, fmt)) if fmt else _number
    ints = [int(x) for x in xs if not isinstance(x, str) and float(x).is_integer()]
    if len(xs) >= 3 and len(ints) == len(xs) and ints == list(range(ints[0], ints[0] + len(ints))):
        return f"{show(xs[0])}–{show(xs[-1])}"
    return ", ".join(show(x) for x in xs)


def named_grid(name: str, xs, fmt=None) -> str:
    """A parameter's grid in prose: "$N$ = 4, 6, 8" (`listing`). name: a symbol ("N", set in math) or already TeX or
    words ("$T$", "width")."""
    symbol = f"${name}$" if name.isidentifier() and len(name) <= 2 else name
    return f"{symbol} = {listing(xs, fmt)}"


def span(lo, hi, fmt: str = ".2f") -> str:
    """A range a reader reads: "[0.40, 0.52]", or the one value where both ends are the same.

        >>> span(0.404, 0.52), span(0.5, 0.5), span(1.0, float("inf"), "+.2f")
        ('[0.40, 0.52]', '0.50', '[+1.00, +inf]')
    """
    a, b = format(lo, fmt), format(hi, fmt)
    return a if a == b else f"[{a}, {b}]"


def nothing_found(rows: list[dict]) -> str:
    """The sentence a page's findings show where they list nothing (a claim row that failed, or that its censored
    points leave open, gets a finding; a failure below the scale its effect needs is left to its note): what the
    claim rows did, in words, never "None.".

        >>> nothing_found([{"kind": "claim", "passed": True}])
        'Every claim passed.'
        >>> nothing_found([{"kind": "claim", "passed": True}, {"kind": "claim", "passed": False, "scale": "N >= 16"}])
        'Every claim passed except 1, which failed below the scale its effect needs (its note says which).'
    """
    claims = [r for r in rows if r.get("kind", "claim") == "claim"]
    failed = [r for r in claims if not r["passed"] and not r.get("censored")]
    if any(r.get("censored") for r in claims) or any(not r.get("scale") for r in failed):
        return "The claims table above says what each row that did not pass found."
    if not failed:
        return "Every claim passed."
    return (f"Every claim passed except {len(failed)}, which failed below the scale {'its' if len(failed) == 1 else 'their'}"
            f" effect needs ({'its note says' if len(failed) == 1 else 'their notes say'} which).")


def plain_number(x) -> str:
    """A threshold as plain text, for a place that shows no TeX (a glued text): lib.core.rules.number without its
    TeX, a float that is a small or large power of ten with a superscript exponent.

        >>> plain_number(1e-4), plain_number(1e6), plain_number(1000), plain_number(0.25)
        ('10⁻⁴', '10⁶', '1,000', '0.25')
    """
    import math

    if isinstance(x, int) or hasattr(x, "dtype") and x.dtype.kind in "iu":
        return f"{x:,}"
    k = math.log10(abs(x)) if x else 0.0
    if x and abs(k) >= 3 and k == round(k):
        return ("-" if x < 0 else "") + "10" + str(int(round(k))).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{x:g}"
