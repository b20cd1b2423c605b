"""The sample-complexity chapter's claim check: its rows (`ROWS`), evaluated on the summary of the stored points
(`claims`). Each topic holds its rows with their rules and measures: figure1.py (Figure 1 and the authors' means),
wide.py (1-tr-logN) and attention.py (5-attn-reads-t, last); scale.py writes the scale a row needs where a run is
below it, findings.py the words on rows that did not pass, and power.py the worlds each rule's power is measured in
(page.power).

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> rows = claims(P, records); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (12, [('1-tr-fewest', True), ('1-gap-largest-N', True)])
"""
from __future__ import annotations

from lib.chapters.sample_complexity.claims import attention, figure1, wide
from lib.chapters.sample_complexity.results import summarize
from lib.core.claims import evaluate

ROWS = figure1.ROWS + [wide.ROW]     # the attention row is evaluated on the records, not on the summary: last


def claims(P: dict, records: dict) -> list[dict]:
    """The rows of ROWS this run can measure (those whose sweep points it has), evaluated on its means. records: the
    sweep's points (`collect(compute.points(P), ...)`), as every chapter's claims takes them; the attention
    point's row (attention.ROW) last."""
    return evaluate(ROWS, summarize(P, records), P) + attention.claims(P, records)
