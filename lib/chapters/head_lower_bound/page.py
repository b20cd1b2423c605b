"""What the head_lower_bound notebook calls, besides `compute.points` and the figures (figures.py): the tables and
numbers its prose quotes (from results.py and the claims' topic modules), the claim check (`claims`, `ROWS`,
`HEADLINES` and `findings`, from claims/) and the power of its rules (`power`, in the worlds of claims/power.py).
Nothing here computes a stored number, and no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> rows = claims(P, results); sum(row["passed"] for row in rows), len(rows)
    (18, 18)
"""
from __future__ import annotations

import math

from lib.chapters.head_lower_bound.claims import HEADLINES, ROWS, claims
from lib.chapters.head_lower_bound.claims.a2 import AUTHORS_RERUN, FIGURE2_OUTSIDE, PAPER_FIGURE2, figure2
from lib.chapters.head_lower_bound.claims.heads import prop3_note, prop3_reach, reach_numbers
from lib.chapters.head_lower_bound.claims.power import WORLDS
from lib.chapters.head_lower_bound.claims.scaling import MAX_POWER, SCALING_SE, growth_sentence, scaling_numbers
from lib.chapters.head_lower_bound.compute import lower_bound
from lib.chapters.head_lower_bound.results import check_set_se, code_overlaps, construction_table, h1_best, heads_table
from lib.core.claims import explanations
from lib.core.power import power_table
from lib.core.rules import number
from lib.core.tables import nothing_found

__all__ = [
    # the claim check (claims/)
    "ROWS", "HEADLINES", "claims", "findings", "power",
    # the numbers and sentences the prose quotes, section by section
    "reach_numbers", "prop3_note", "prop3_scope", "heads_table", "code_overlaps", "construction_table", "scaling_glue",
    "h1_best", "check_set_se", "figure2_numbers",
]


def power(P: dict, results: dict, draws: int) -> list[dict]:
    """The power table of the rows that declare worlds (claims/power.py): each row's own measure and rule on `draws`
    results drawn from each of its worlds (lib.core.power.power_table); Chapter.finish stores it as power.json."""
    return power_table(ROWS, WORLDS, P, results, draws)


def findings(P: dict, results: dict, rows: list[dict]) -> str:
    """The findings under the claim table: each claim row that fails or is censored, in its own words (its Row's
    `explain`), as a bullet list; where there is none, what the claim rows did (nothing_found)."""
    return "\n".join(f"- {b}" for b in explanations(ROWS, rows, P, results)) or nothing_found(rows)


def prop3_scope(P: dict, results: dict) -> dict:
    """What the Prop. 3 arm can test, for the page's paragraph on it: the head counts below q with a non-vacuous
    bound, its H = 1 bound against Prop. 21's 1 - 1/q at the same q, the H = 1 runs' FVU, and the smallest (q, d)
    with two non-vacuous H below q (d > 2q / (q - 2))."""
    q, d = P["p3_q"], P["p3_d"]
    h1 = [f for H, f in zip(results["prop3"]["result"]["heads"], results["prop3"]["result"]["fvu"]) if H == 1]
    r = prop3_reach(P, results)
    q3 = max(q, 3)
    return {"p3_live": r["live_text"], "p3_n_live": r["n_live"], "p3_floor1": lower_bound("prop3", 1, q, d),
            "p21_floor1": lower_bound("prop21", 1, q, d), "p3_h1": f"{min(h1):.3f} to {max(h1):.3f}",
            "p3_next": f"q = {q3}, d = {2 * q3 // (q3 - 2) + 1}"}


def scaling_glue(P: dict, results: dict) -> dict:
    """The numbers the samples-to-threshold paragraph quotes (for Chapter.glue): a polylog's local slope 1/ln N at the
    ends of the grid, what the AIC comparison of 4-scaling says, and its rule's bound (RULE_SCALING)."""
    s = scaling_numbers(P, results)
    return {"slope_lo": 1 / math.log(min(P["scale_N"])), "slope_hi": 1 / math.log(max(P["scale_N"])),
            "scaling_shape": growth_sentence(s) if s else "some runs never crossed, so no law is fitted",
            "max_power": number(MAX_POWER), "scaling_se": SCALING_SE}


def figure2_numbers(P: dict, results: dict) -> dict:
    """The numbers the Figure 2 paragraph quotes (for Chapter.glue): training, and the A.2 block statistics."""
    trained, st = figure2(P, results)
    epochs = len(trained["epoch_loss"])
    return {"figure2_epochs": epochs, "figure2_loss": trained["epoch_loss"][-1], "figure2_test": trained["test_mse"],
            "figure2_diag": st["diag_mean"], "figure2_off": st["off_median"], "figure2_outside": st["outside_median"],
            "figure2_top": st["top_on_diag"], "figure2_de": trained["d_e"], "figure2_corr": st["corr"],
            "figure2_steps": epochs * math.ceil(P["figure2_train"] / 64), "paper_corr": PAPER_FIGURE2["corr"],
            "authors_diag": AUTHORS_RERUN["diag_mean"], "authors_outside": AUTHORS_RERUN["outside_median"],
            "authors_steps": AUTHORS_RERUN["steps"], "authors_ratio": FIGURE2_OUTSIDE}
