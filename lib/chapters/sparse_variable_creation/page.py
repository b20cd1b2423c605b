"""Sparse variable creation: what the notebook calls, in one place, so that it reads one module beside figures.py:
the tables of the stored points (`b2_table`, `and_summary`, `norm_summary`, `minimal_R_fit`: results.py), the claim
rows and their power (`claims`, `scale_note`, `power`, `power_table`: claims/), the findings in words
(`paper_omissions`, `findings_markdown`: claims/findings.py) and the rows' rule objects that the prose quotes
(`ROWS_BY_ID`). Page-side: no computation imports these modules, so editing them leaves stored results current.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (21, [('A1', True), ('A2', True)])
"""
from __future__ import annotations

from lib.chapters.sparse_variable_creation.claims import ROWS, claims, power, scale_note
from lib.chapters.sparse_variable_creation.claims.findings import findings_markdown, paper_omissions
from lib.chapters.sparse_variable_creation.claims.power import power_table
from lib.chapters.sparse_variable_creation.results import (
    PAPER,
    and_summary,
    attention_on_planted,
    b2_table,
    minimal_R_fit,
    norm_summary,
)

__all__ = ["PAPER", "ROWS_BY_ID", "and_summary", "attention_on_planted", "b2_table", "claims", "findings_markdown",
           "minimal_R_fit", "norm_summary", "paper_omissions", "power", "power_table", "scale_note"]

ROWS_BY_ID = {r.id: r for r in ROWS}    # the rows' rule objects, for the prose that quotes a threshold
