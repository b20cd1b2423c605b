"""What the head_lower_bound notebook calls, besides `compute.points` and the figures (figures.py): the tables and
numbers its prose quotes (from results.py and the claims' topic modules), the claim check (`claims`, `ROWS` and
`findings_markdown`, from claims/) and the power of its rules (`power`, in the worlds of claims/power.py). Nothing
here computes a stored number, and no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> rows = claims(P, results); sum(row["passed"] for row in rows), len(rows)
    (18, 18)
"""
from __future__ import annotations

from lib.chapters.head_lower_bound.claims import ROWS, claims, findings_markdown
from lib.chapters.head_lower_bound.claims.figure2 import figure2_numbers
from lib.chapters.head_lower_bound.claims.heads import prop3_note, reach_numbers
from lib.chapters.head_lower_bound.claims.power import WORLDS
from lib.chapters.head_lower_bound.claims.scaling import scaling_glue
from lib.chapters.head_lower_bound.results import check_set_se, code_overlaps, construction_table, h1_best, heads_table
from lib.core.power import power_table

__all__ = [
    # the claim check (claims/)
    "ROWS", "claims", "findings_markdown", "power",
    # the numbers and sentences the prose quotes, section by section
    "reach_numbers", "prop3_note", "heads_table", "code_overlaps", "construction_table", "scaling_glue", "h1_best",
    "check_set_se", "figure2_numbers",
]


def power(P: dict, results: dict, draws: int) -> list[dict]:
    """The power table of the rows that declare worlds (claims/power.py): each row's own measure and rule on `draws`
    results drawn from each of its worlds (lib.core.power.power_table); Chapter.finish stores it as power.json."""
    return power_table(ROWS, WORLDS, P, results, draws)
