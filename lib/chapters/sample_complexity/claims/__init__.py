"""The sample-complexity chapter's claim check: its rows (`ROWS`), each measured on (P, results), the stored records,
and decided by its rule (`claims`), and the paper's headline claims they test (`HEADLINES`). Each topic holds its
rows with their rules, measures and explanations: figure1.py (Figure 1 and the authors' means), wide.py (1-tr-logN)
and attention.py (5-attn-reads-t); scale.py writes the scale a row needs where a run is below it, and power.py the
worlds each rule's power is measured in (page.power).

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> rows = claims(P, records); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (12, [('1-tr-fewest', True), ('1-gap-largest-N', True)])
"""
from __future__ import annotations

from lib.chapters.sample_complexity.claims import attention, figure1, wide
from lib.core.claims import Headline, evaluate

ROWS = figure1.ROWS + [wide.ROW, attention.ROW]
HEADLINES = (
    Headline("Theorem 1's hierarchy (Figure 1)", ("1-tr-fewest", "1-gap-largest-N", "2-tr-flattest",
                                                  "2-ffn-superlinear", "4-ffn-gap", "4-rnn-milder")),
    Headline("Theorem 1's polylogarithmic growth", ("1-tr-logN",)),
    Headline("the authors' means", ("paper-means",)),
)


def claims(P: dict, records: dict) -> list[dict]:
    """The rows of ROWS this run can measure (those whose sweep points it has). records: the sweep's points
    (`collect(compute.points(P), ...)`), as every chapter's claims takes them."""
    return evaluate(ROWS, P, records)
