"""Figure 1's numbers as its claim rows read them (claims/figure1.py): a panel's means on its claim test set, their
bootstrap replicates over the N a row reads with the authors' means beside them (`panel_data`), the means that count
runs censored at the cap (`censored_means`), each model's log-log slope (`slopes`) and a mean per task draw in words.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> table, M, B, grid, ref, rg = panel_data(P, records, "b", lambda Ns: Ns); grid, rg == grid, len(B["ffn"][25])
    ([25, 27, 29, 31, 33], True, 2000)
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sample_complexity.results import MODELS, SLOPE_FROM, per_draw, summary
from lib.chapters.sample_complexity.results.authors import CLAIM_TEST, SHORT, paper_means
from lib.chapters.sample_complexity.results.bootstrap import boot, slope
from lib.science.stats import loglog_slope


def means(table: dict, panel: str, test: str, models=MODELS) -> dict | None:
    """{model: {N: mean samples}} of one panel and test set, or None if one of `models` is missing."""
    t = table.get(panel, {})
    if not all(m in t and test in t[m] for m in models):
        return None
    return {m: dict(zip(t[m][test]["N"], t[m][test]["mean"])) for m in models}


def panel_data(P: dict, results: dict, panel: str, select):
    """(table, means, replicates, grid, authors' means, authors' grid) of a panel's claim test set over the N that
    `select` picks from the run's grid; None where the run has no such N (or lacks a model)."""
    table, test = summary(P, results), CLAIM_TEST[panel]
    M = means(table, panel, test)
    grid = select(sorted(M["ffn"])) if M else None
    if not grid:
        return None
    ref = paper_means(panel)
    ref_grid = select([n for n in grid if n in ref["ffn"]]) or select(sorted(ref["ffn"]))
    return table, M, boot(table, P, panel, test), grid, ref, ref_grid


def censored_means(table: dict, panel: str, grid, tests=None) -> list[str]:
    """The means over `grid` (of the panel's claim test set, or `tests`) that count runs censored at the cap, in
    words: "FFN at N=12 (1 of 15)"."""
    return [f"{SHORT[m]} at N={n} ({int(e['censored'][i])} of {e['runs'].shape[1]})"
            for m in MODELS if m in table[panel] for t in tests or [CLAIM_TEST[panel]] for e in [table[panel][m][t]]
            for i, n in enumerate(e["N"]) if n in grid and e["censored"][i]]


def slopes(table, M, B, grid, ref, rg) -> tuple[dict, dict, dict]:
    """Each model's log-log slope over the grid: this run's, its bootstrap replicates' and the authors'."""
    return ({m: loglog_slope(grid, [M[m][n] for n in grid]) for m in MODELS},
            {m: slope(grid, np.stack([B[m][n] for n in grid], -1)) for m in MODELS},
            {m: loglog_slope(rg, [ref[m][n] for n in rg]) for m in MODELS})


def draws_text(table: dict, panel: str, model: str, N: int) -> str:
    """A model's mean per task draw at N, in words: "176,640 / 130,560 / 128,000"."""
    return " / ".join(f"{x:,.0f}" for x in per_draw(table, panel, model, N))


def mean_at(table: dict, panel: str, model: str, N: int) -> float:
    """A model's mean at N on its panel's claim test set."""
    e = table[panel][model][CLAIM_TEST[panel]]
    return float(e["mean"][e["N"].index(N)])


def stored_slope(table: dict, model: str) -> float:
    """A model's log-log slope over panel (a)'s N from SLOPE_FROM, as the slope rows fit it."""
    e = table["a"][model]["authors"]
    keep = [i for i, n in enumerate(e["N"]) if n >= SLOPE_FROM["a"]]
    return loglog_slope([e["N"][i] for i in keep], e["mean"][keep])
