"""The sample-complexity chapter's claim check: its rows (`ROWS`), each measured on (P, results), the stored records,
and decided by its rule (`claims`), and the paper's headline claims they test (`HEADLINES`). Each topic holds its
rows with their rules, measures and explanations: figure1.py (Figure 1 and the authors' means), wide.py (1-tr-logN)
and attention.py (5-attn-reads-t); scale.py writes the scale a row needs where a run is below it, and power.py the
worlds each rule's power is measured in (page.power).

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> rows = claims(P, records); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (12, [('1-tr-fewest', True), ('1-gap-largest-N', True)])
    >>> sorted(i for h in HEADLINES for i in h.ids) == sorted(row.id for row in ROWS)    # each row in one headline
    True
"""
from __future__ import annotations

from lib.chapters.sample_complexity.claims import attention, figure1, wide
from lib.core.claims import Headline, evaluate

ROWS = figure1.ROWS + [wide.ROW, attention.ROW]
HEADLINES = (
    Headline("on 1STR the Transformer needs the fewest samples, and its count grows the slowest with the sequence "
             "length (Theorem 1, Figure 1a)", ("1-tr-fewest", "1-gap-largest-N", "2-tr-flattest")),
    Headline("on 1STR the feedforward network's count grows faster than linearly and overtakes the recurrent "
             "network's (Figure 1a)", ("2-ffn-superlinear", "3-ffn-below-rnn", "3-ffn-above-rnn")),
    Headline("on simple-1STR the feedforward network needs the most samples and the others grow much more mildly "
             "(Figure 1b)", ("4-ffn-gap", "4-rnn-milder")),
    Headline("up to N = 128 the Transformer's count grows like one power of ln N, the simplest of the polylogarithmic "
             "laws Theorem 1 allows", ("1-tr-logN",)),
    Headline("the authors' simple-1STR test prompts lower the feedforward network's count on 1STR, not the "
             "Transformer's", ("test-protocol",)),
    Headline("this run's means are the authors' code's, model by model", ("paper-means",)),
    Headline("the trained Transformer's attention reads the position code of the token it needs (Theorem 4's "
             "construction)", ("5-attn-reads-t",)),
)


def claims(P: dict, records: dict) -> list[dict]:
    """The rows of ROWS this run can measure (those whose sweep points it has). records: the sweep's points
    (`collect(compute.points(P), ...)`), as every chapter's claims takes them."""
    return evaluate(ROWS, P, records)
