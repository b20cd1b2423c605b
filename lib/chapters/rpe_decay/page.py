"""What the rpe_decay notebook calls, in one place: the tables and summaries of the stored points (results/), the
claim rows, the findings in words and the power of the rules (claims/), and the thresholds its prose quotes from
the rows' own rules. The figures are figures.py's. Page-side: it reads results and computes no stored number, so
editing it, or anything it imports from results/ or claims/, leaves the chapter's results current (compute.py and
experiments/ compute them).

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (24, [('1-t5-buckets', True), ('2-allocation', True)])
"""
from __future__ import annotations

from lib.chapters.rpe_decay.claims import ROWS, claims, findings_markdown
from lib.chapters.rpe_decay.claims import apph as apph_claims
from lib.chapters.rpe_decay.claims import fits as fit_claims
from lib.chapters.rpe_decay.claims import training as training_claims
from lib.chapters.rpe_decay.claims.apph import apph_findings, apph_numbers
from lib.chapters.rpe_decay.claims.power import WORLDS
from lib.chapters.rpe_decay.claims.training import partc_findings
from lib.chapters.rpe_decay.results import point_counts
from lib.chapters.rpe_decay.results.apph import apph_summary
from lib.chapters.rpe_decay.results.fits import (
    bump_summary,
    context_summary,
    error_table,
    main_summary,
    memory_summary,
    slope_table,
    t5_table,
)
from lib.chapters.rpe_decay.results.training import gap_summary, training_summary
from lib.core.power import power_table

__all__ = ["ROWS", "apph_findings", "apph_numbers", "apph_summary", "bump_summary", "claims", "context_summary",
           "error_table", "findings_markdown", "gap_summary", "main_summary", "memory_summary", "partc_findings",
           "point_counts", "power", "quoted_thresholds", "slope_table", "t5_table", "training_summary"]


def power(P: dict, results: dict, draws: int) -> list[dict]:
    """The power table of the rows that declare worlds (claims/power.py): each row's own measure and rule on `draws`
    result sets per world, from the stored runs resampled and relabelled (lib.core.power)."""
    return power_table(ROWS, WORLDS, P, results, draws)


def quoted_thresholds() -> dict:
    """The thresholds the page's prose quotes, from the rows' own rules (the notebook glues them): check 13's growth
    bound, 14b's band, 14a's at-the-floor factor and H4a-lin's bound."""
    return {"growth": fit_claims.RULE_MONOTONE.bound, "train_band": training_claims.RULE_TRAIN_FLOOR.bound,
            "at_floor": training_claims.AT_FLOOR, "h4a_lin_bound": apph_claims.RULES["H4a-lin"].bound}
