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

import math

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
           "crossover_markdown", "crossover_table", "budget_markdown", "findings", "first_screen", "memoriser_fit",
           "norm_markdown", "norm_table",
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
    where a phase diagram stops; the architectures whose simple-1STR d_h* sits at the grid's floor, its smallest
    width)."""
    ok, name = {r["id"]: r for r in rows}, {"gru": "GRU", "elman": "Elman RNN"}
    shown = lambda r: r.get("passed") and not r.get("undecided") and not r.get("censored")     # a pass that stands
    grows = [name[a] for a in P["archs"] if shown(ok.get(f"10a-width-1str-{a}", {}))]
    stops = [f"the {name[c['arch']]} learns {LABELS[c['task']]} only below N = {c['N']} (its width, norm and "
             "packing rows)" for c in unreached_cells(P, results)]
    at_floor = lambda e: e["lo"][0] == 0 and math.isfinite(e["hi"][0])    # reached at the smallest width (not: nowhere)
    floor = [name[a] for a in P["archs"] if f"10a-contrast-{a}" in ok
             and at_floor(contrast_numbers(P, results, a)["simple"])]
    Ns = "N = " + ", ".join(map(str, sorted(P["phase_N"])))      # glued Markdown: no TeX
    said = (f"At {Ns} the critical width of the {' and the '.join(grows)} grows at least as fast as Prop. 8's bound"
            if grows else f"At {Ns} no trained width row passes")
    need = stops[:1] + ([f"simple-1STR's width sits at {min(P['widths'])} ({', '.join(floor)}: the contrasts)"]
                        if floor else [])
    return said + (f"; a larger N or cap is needed where {' and where '.join(need)}." if need else ".")


def budget_markdown(P: dict, results: dict) -> str:
    """The phase diagram's budget in a sentence (budget_summary): its runs by outcome, and the samples of the slowest
    run that reached the threshold; where none did, that sentence says so instead of quoting a number that does not
    exist."""
    b = budget_summary(P, results)
    counts = (f"Of the {b['runs']} runs of the diagram, {b['reached']} reached the threshold, {b['plateau']} plateaued "
              f"above it and {b['censored']} were censored at the cap of {b['cap']:,} samples.")
    if b["reached"] == 0 or not math.isfinite(b["slowest"]):
        return counts + " No run reached the threshold, so there is no slowest run to quote."
    return counts + (f" The slowest run that reached the threshold needed {b['slowest']:,.0f} samples, "
                     f"{b['ratio']:.2f} of the cap.")


def norm_markdown(P: dict, results: dict) -> str:
    """The norm section's reading of norm_table on 1STR: the log-log slopes of the widest Elman runs' squared
    product of norms, of the samples they needed and of (Lip rad)^2, each with its standard error. Where a number does
    not exist (the Elman RNN was not trained, fewer than two N have a widest run at the threshold, too few runs for a
    standard error, no (Lip rad)^2 stored), the sentence says what is missing instead."""
    if "elman" not in P["archs"]:
        return ("The Elman RNN was not trained in this run (`archs` does not list `elman`): there are no widest Elman "
                "runs whose norms could grow, and rows `10b-norm-lower` and `10b-norm` have nothing to test.")
    nt = norm_table(P, results)["1str"]
    Ns = sorted(set(nt["N"].astype(int).tolist()))
    if len(Ns) < 2:
        where = f"only at $N$ = {Ns[0]}" if Ns else "at no $N$ of this run"
        return (f"On 1STR the widest Elman runs (width {max(P['widths'])}) reached the threshold {where}, and a slope in "
                "$N$ needs two lengths: there is no growth of their norms, of the samples they needed or of "
                r"$(\mathrm{Lip}\cdot\mathrm{rad})^2$ to report, and rows `10b-norm-lower` and `10b-norm` have no slope "
                "to test.")
    se = lambda x, tail="": (f"standard error {x:.2f}{tail}" if math.isfinite(x) else
                             f"no standard error: {len(nt['N'])} runs leave no residual to estimate it")
    lipr = (rf"The product measured on the states, $(\mathrm{{Lip}}\cdot\mathrm{{rad}})^2$, grows with slope "
            f"{nt['lipr_slope']:.2f} ({se(nt['lipr_se'])}); rows `10b-norm-lower` and `10b-norm` test it."
            if "lipr_slope" in nt else
            r"The product measured on the states, $(\mathrm{Lip}\cdot\mathrm{rad})^2$, was not stored for these runs, "
            "so rows `10b-norm-lower` and `10b-norm` have nothing to test.")
    return (f"On 1STR the squared product of the separate norms of the widest runs grows with log-log slope "
            f"{nt['slope']:.2f} ({se(nt['se'], ' over the runs')}), and the samples these runs needed to reach the "
            f"threshold grow with slope {nt['samples_slope']:.2f} in $N$: the runs stop at the first check at or below "
            "the threshold, and AdamW's weights grow while they train, so their norms at the threshold also measure "
            "how long they trained. " + lipr)
