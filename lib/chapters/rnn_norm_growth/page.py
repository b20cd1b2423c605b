"""What the rnn_norm_growth page shows from the points of lib.chapters.rnn_norm_growth.compute: the phase, packing and
crossover tables. Their readers are in read.py, the critical width and its censoring in widths.py, the claim rows in
rows.py and the figures in figures.py beside it (their names are re-exported here, so the page imports one module).
Nothing here computes a stored number, so editing it leaves the chapter's stored results current (no computation
imports it).

    >>> rows = page.claims(P, results); page.phase_markdown(P, results)
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rnn_norm_growth.read import (  # noqa: F401  (the page's names, re-exported)
    LABELS,
    a2_fit,
    crossover_table,
    memoriser_fit,
    norm_table,
    packing_table,
)
from lib.chapters.rnn_norm_growth.rows import MEMORISER_ROWS, ROWS, _dstar_text, claims, evaluate  # noqa: F401
from lib.chapters.rnn_norm_growth.widths import budget_summary as budget_summary  # the page's names, re-exported
from lib.chapters.rnn_norm_growth.widths import critical_width as critical_width
from lib.chapters.rnn_norm_growth.widths import phase_table as phase_table
from lib.chapters.rnn_norm_growth.widths import slope_range as slope_range
from lib.chapters.rnn_norm_growth.widths import width_bounds as width_bounds
from lib.core.tables import markdown_table


def phase_markdown(P: dict, results: dict) -> str:
    """The critical width d_h*(N) of every architecture and task ("≤" at the floor or below an undecided width,
    ">" where no width reaches), the runs censored at the cap, the fitted slope and its censoring-aware range."""
    table = phase_table(P, results)
    Ns = table[(P["archs"][0], "1str")]["N"]
    fmt = lambda v: "∞" if v == math.inf else ("−∞" if v == -math.inf else f"{v:.2f}")
    return markdown_table(["architecture", "task", *(f"$d_h^*$ ($N$ = {N})" for N in Ns), "runs censored", "slope",
                           "slope range (censoring)"],
                          [[arch, LABELS[task], *_dstar_text(e).split(", "), e["censored"], f"{e['slope']:.2f}",
                            f"[{fmt(e['slope_min'])}, {fmt(e['slope_max'])}]"] for (arch, task), e in table.items()])


def packing_markdown(P: dict, results: dict) -> str:
    """Per N: the participation ratios, the distances of Phi and of the labels, Phi's MSE and the best test MSE."""
    pk = packing_table(P, results)
    e = pk["1str"]
    return markdown_table(["$N$", "PR, 1STR", "PR, simple-1STR", r"median distance of $\Phi$", "of the labels",
                           r"MSE of $\Phi$ against $\mathbf g$", "best test MSE (1STR)"],
                          [[N, f"{e['pr'][i]:.1f}", f"{pk['simple']['pr'][i]:.1f}", f"{e['dist_median'][i]:.2f}",
                            f"{e['g_dist_median'][i]:.2f}", f"{e['phi_mse'][i]:.2f}", f"{e['best'][i]:.2f}"]
                           for i, N in enumerate(e["N"])])


def crossover_markdown(cx: dict) -> str:
    """The crossover table of `crossover_table`: per N, the generalising runs' norms and the memoriser's n*."""
    fmt = lambda v, f: format(v, f) if np.isfinite(v) else "no run"
    return markdown_table(["$N$", "runs at the threshold", r"lower bound $2\mathfrak L\lVert U\rVert_{op} r_h$",
                           r"measured $\lVert\mathrm{vec}\,\Theta\rVert^2$", "$n^*$ (bound)", "$n^*$ (measured)"],
                          [[N, cx["runs"][i], fmt(cx["bound"][i], ".0f"), fmt(cx["theta_sq"][i], ".0f"),
                            fmt(cx["n_bound"][i], ".1f"), fmt(cx["n_theta"][i], ".1f")] for i, N in enumerate(cx["N"])])
