"""Sparse variable creation: what the notebook calls, in one place, so that it reads one module beside figures.py:
the tables of the stored points (`b2_table`, `and_summary`, `norm_summary`, `minimal_R_fit`: results.py), the claim
rows and their power (`claims`, `scale_note`: claims/; `power`: each row's rule in its worlds, claims/power.py), the
findings in words (`paper_omissions`, `findings_markdown`: claims/findings.py) and the rows' rule objects that the
prose quotes (`ROWS_BY_ID`). Page-side: no computation imports these modules, so editing them leaves stored results current.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (21, [('A1', True), ('A2', True)])
"""
from __future__ import annotations

from lib.chapters.sparse_variable_creation.claims import ROWS, claims, scale_note
from lib.chapters.sparse_variable_creation.claims.findings import findings_markdown, paper_omissions
from lib.chapters.sparse_variable_creation.claims.power import WORLDS
from lib.chapters.sparse_variable_creation.results import (
    PAPER,
    and_summary,
    attention_on_planted,
    b2_table,
    minimal_R_fit,
    norm_summary,
)
from lib.core.power import power_table

__all__ = ["PAPER", "ROWS_BY_ID", "and_summary", "attention_on_planted", "b2_table", "claims", "findings_markdown",
           "minimal_R_fit", "norm_summary", "paper_omissions", "power", "scale_note"]

ROWS_BY_ID = {r.id: r for r in ROWS}    # the rows' rule objects, for the prose that quotes a threshold


def power(P: dict, results: dict, draws: int) -> list[dict]:
    """The power table: every row that declares worlds (claims/power.py) and that this run measures (A12 needs T =
    400), its own rule run on `draws` result sets drawn from each world (lib.core.power.power_table)."""
    measured = {r.id for r in ROWS if r.id in WORLDS and r.measure(P, results) is not None}
    return power_table(ROWS, {i: w for i, w in WORLDS.items() if i in measured}, P, results, draws)
