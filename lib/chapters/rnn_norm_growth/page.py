"""What the rnn_norm_growth notebook calls, besides `compute`'s parameters and the figures (figures.py): the readers
and tables of the stored points (results.py), the claim rows and the thresholds its prose quotes from their rules
(claims/), the phase table and the findings in words (claims/findings.py), and the power of the rules (`power`, in the
worlds claims/power.py declares). Nothing here computes a stored number, so editing it leaves the chapter's stored
results current (no computation imports it).

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (16, [('9-exact', True), ('9-drift', True)])
    >>> print(phase_markdown(P, results).splitlines()[0][:43])
    | architecture | task | $d_h^*$ ($N$ = 4) |
"""
from __future__ import annotations

from lib.chapters.rnn_norm_growth.claims import CONTRAST_Z, ROWS, RULE_WIDTH, claims
from lib.chapters.rnn_norm_growth.claims.findings import findings_markdown, phase_markdown
from lib.chapters.rnn_norm_growth.claims.power import WORLDS
from lib.chapters.rnn_norm_growth.results import (
    budget_summary,
    crossover_markdown,
    crossover_table,
    memoriser_fit,
    norm_table,
    packing_markdown,
    unreached_cells,
    unreached_markdown,
)
from lib.core.power import power_table

# what the notebook (and tests/test_rnn_norm_growth.py) call through `page.`
__all__ = ["CONTRAST_Z", "ROWS", "RULE_WIDTH", "budget_summary", "claims", "crossover_markdown", "crossover_table",
           "findings_markdown", "memoriser_fit", "norm_table", "packing_markdown", "phase_markdown", "power",
           "unreached_cells", "unreached_markdown"]


def power(P: dict, results: dict, draws: int) -> list[dict]:
    """The power table of the rows that declare worlds (claims/power.py): each row's own measure and rule on `draws`
    result sets per world, made from the stored phase points resampled and relabelled (lib.core.power)."""
    return power_table(ROWS, WORLDS, P, results, draws)
