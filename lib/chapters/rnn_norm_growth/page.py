"""What the rnn_norm_growth notebook calls, besides `compute`'s parameters and the figures (figures.py): the readers
and tables of the stored points (results.py), the claim rows, their headlines and the thresholds its prose quotes from
their rules (claims/), the rows' findings with their power (`findings`), the first screen's sentence (`first_screen`)
and the power of the rules (`power`, in the worlds claims/power.py declares). Nothing here computes a stored number,
so editing it leaves the chapter's stored results current (no computation imports it).

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (16, [('9-exact', True), ('9-drift', True)])
    >>> findings(P, results, rows).splitlines()[0][:34]     # not gated here: the rule's own FAIL
    '- `10a-contrast-gru`: on simple-1S'
"""
from __future__ import annotations

from lib.chapters.rnn_norm_growth import results as rs
from lib.chapters.rnn_norm_growth.claims import HEADLINES, ROWS, RULE_CONTRAST, RULE_NORM_LOWER, RULE_WIDTH, claims
from lib.chapters.rnn_norm_growth.claims.power import WORLDS
from lib.chapters.rnn_norm_growth.results import (
    LABELS,
    budget_summary,
    contrast_numbers,
    crossover_markdown,
    crossover_table,
    memoriser_fit,
    norm_table,
    phase_markdown,
    unreached_cells,
    unreached_markdown,
)
from lib.core.claims import explained
from lib.core.power import power_table

# what the notebook (and tests/test_rnn_norm_growth.py) call through `page.`
__all__ = ["HEADLINES", "ROWS", "RULE_CONTRAST", "RULE_NORM_LOWER", "RULE_WIDTH", "budget_summary", "claims",
           "crossover_markdown", "crossover_table", "findings", "first_screen", "memoriser_fit", "norm_table",
           "packing_markdown", "phase_markdown", "power", "unreached_cells", "unreached_markdown"]


def packing_markdown(P: dict, results: dict) -> str:
    """The packing table (results.packing_markdown) of the widest Elman runs; where `archs` leaves the Elman RNN out,
    a sentence that says so."""
    if "elman" not in P["archs"]:
        return "The Elman RNN was not trained in this run (`archs` does not list `elman`): no packing geometry to tabulate."
    return rs.packing_markdown(P, results)


def power(P: dict, results: dict, draws: int) -> list[dict]:
    """The power table of the rows that declare worlds (claims/power.py): each row's own measure and rule on `draws`
    result sets per world, made from the stored phase points resampled and relabelled (lib.core.power)."""
    return power_table(ROWS, WORLDS, P, results, draws)


def findings(P: dict, results: dict, rows: list[dict]) -> str:
    """One bullet per claim row that does not pass as evidence (rows gated by their power, lib.core.gate): its own
    `explain` where its rule FAILs or leaves it censored, said to be undecided where its power does not let a FAIL
    stand; where the rule passes but its power leaves the row undecided, only that (the row's note gives the power's
    numbers and what would decide it)."""
    def said(r, e):
        if not r.get("undecided") or r.get("censored"):
            return e
        return ("its rule passes on this run, but its power leaves the row undecided (its note says why)." if r["passed"]
                else f"undecided: its rule FAILs on this run, but its power does not let the FAIL stand (its note "
                f"says why). What the rule read: {e}")
    by = {r["id"]: r for r in rows}
    return "\n".join(f"- `{rid}`: {said(by[rid], e)}" for rid, e in explained(ROWS, rows, P, results).items())


def first_screen(P: dict, results: dict, rows: list[dict]) -> str:
    """The sentence under the verdict: which trained width rows pass, and what needs a larger N or cap (the cells
    where a phase diagram stops; the architectures whose simple-1STR d_h* sits at the grid's floor)."""
    ok, name = {r["id"]: r for r in rows}, {"gru": "GRU", "elman": "Elman RNN"}
    shown = lambda r: r.get("passed") and not r.get("undecided") and not r.get("censored")     # a pass that stands
    grows = [name[a] for a in P["archs"] if shown(ok.get(f"10a-width-1str-{a}", {}))]
    stops = [f"the {name[c['arch']]} learns {LABELS[c['task']]} only below N = {c['N']} (its width, norm and "
             "packing rows)" for c in unreached_cells(P, results)]
    floor = [name[a] for a in P["archs"] if f"10a-contrast-{a}" in ok
             and contrast_numbers(P, results, a)["simple"]["lo"][0] == 0]
    Ns = "N = " + ", ".join(map(str, sorted(P["phase_N"])))      # glued Markdown: no TeX
    said = (f"At {Ns} the critical width of the {' and the '.join(grows)} grows at least as fast as Prop. 8's bound"
            if grows else f"At {Ns} no trained width row passes")
    need = stops[:1] + ([f"simple-1STR's width sits at 1 ({', '.join(floor)}: the contrasts)"] if floor else [])
    return said + (f"; a larger N or cap is needed where {' and where '.join(need)}." if need else ".")
