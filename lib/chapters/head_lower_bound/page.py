"""What the head_lower_bound notebook calls, besides `compute.points` and the figures (figures.py): the tables and
numbers its prose quotes (from results.py and the claims' topic modules) and the claim check (`claims`, `ROWS` and
`findings_markdown`, from claims/). Nothing here computes a stored number, and no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> rows = claims(P, results); sum(row["passed"] for row in rows), len(rows)
    (18, 18)
"""
from __future__ import annotations

from lib.chapters.head_lower_bound.claims import ROWS, claims, findings_markdown
from lib.chapters.head_lower_bound.claims.figure2 import figure2_numbers
from lib.chapters.head_lower_bound.claims.heads import prop3_note, reach_numbers
from lib.chapters.head_lower_bound.claims.scaling import scaling_glue
from lib.chapters.head_lower_bound.results import check_set_se, code_overlaps, construction_table, h1_best, heads_table

__all__ = [
    # the claim check (claims/)
    "ROWS", "claims", "findings_markdown",
    # the numbers and sentences the prose quotes, section by section
    "reach_numbers", "prop3_note", "heads_table", "code_overlaps", "construction_table", "scaling_glue", "h1_best",
    "check_set_se", "figure2_numbers",
]
