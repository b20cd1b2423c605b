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
from lib.core.claims import unsettled
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


def findings_markdown(P: dict, results: dict, rows: list[dict]) -> str:
    """One bullet per claim row of this run that did not pass, saying from the tables what it found and what that
    means for the theorem (an empty string when every claim passed)."""
    bad, table = unsettled(rows), phase_table(P, results)
    out = [b for arch in P["archs"] for b in _width_findings(P, table, arch, bad)]
    out += _norm_findings(P, results, bad) + _packing_findings(packing_table(P, results), bad)
    return "\n".join(f"- {b}" for b in out)


def _width_findings(P: dict, table: dict, arch: str, bad: dict) -> list[str]:
    """Claim 10a of one architecture: widths never reached (censored), trained widths above the construction's, and
    slope ranges that the censoring leaves overlapping."""
    one, simple, out = table[(arch, "1str")], table[(arch, "simple")], []
    unreached = [N for N, hi in zip(one["N"], one["hi"]) if not np.isfinite(hi)]
    if f"10a-width-1str-{arch}" in bad and unreached:
        out.append(f"`10a-width-1str-{arch}` ({LABELS[arch]}), censored: at $N$ = {unreached} no width up to "
                   f"{max(P['widths'])} reached the threshold within the cap of {P['max_samples']:,} samples "
                   f"({one['censored']} runs cut off there). Growth faster than the bound would look like this, "
                   "and so would a training budget too small for $N$; a larger cap decides which.")
    over = [(N, d) for N, d, lo in zip(simple["N"], simple["dstar"], simple["lo"]) if lo >= P["d"] or d > P["d"]]
    if f"10a-width-simple-{arch}" in bad and over:
        out.append(f"`10a-width-simple-{arch}` ({LABELS[arch]}): trained networks need $d_h^*$ = "
                   + ", ".join(f"{d:.1f} at $N$ = {N}" for N, d in over)
                   + f" on simple-1STR, above the construction's $qd$ = {P['d']}. Theorem 7 says a network of that "
                   "width exists, not that AdamW from a random start finds it: the failure is the optimiser's, and "
                   "the row says how far trained networks are from the construction.")
    if f"10a-contrast-{arch}" in bad and bad[f"10a-contrast-{arch}"].get("censored"):
        rng = lambda e: f"[{e['slope_min']:.2f}, {e['slope_max']:.2f}]"
        out.append(f"`10a-contrast-{arch}`, censored: the slopes that the censoring allows overlap (1STR "
                   f"{rng(one)}, simple-1STR {rng(simple)}): a $d_h^*$ at the floor or the top of the width grid, "
                   "or runs cut off by the cap, leave the comparison open; a grid reaching further down or up "
                   "decides it.")
    return out


def _norm_findings(P: dict, results: dict, bad: dict) -> list[str]:
    """Claim 10b: the slope of (Lip * rad)^2 at the widest width against the bound's."""
    if "10b-norm-lower" not in bad and "10b-norm" not in bad:
        return []
    nt = norm_table(P, results)["1str"]
    return [f"`10b-norm-lower` and `10b-norm`: at width {max(P['widths'])} the runs' "
            r"$(\mathrm{Lip}\cdot\mathrm{rad})^2$ grows with slope "
            f"{nt.get('lipr_slope', float('nan')):.2f} over $N$ = {sorted(set(nt['N'].astype(int).tolist()))}, "
            "slower than the bound at equality. The proposition bounds the product only below an unknown "
            r"constant and $\log(1+d_h)$, so this refutes the book's reading of it as a slope at the threshold at "
            "this width, not the proposition; its width rows are the direct test."]


def _packing_findings(pk: dict, bad: dict) -> list[str]:
    """Claim 10c: the participation ratios that do not separate the tasks, and widest runs that never learnt."""
    out = []
    if "10c-effective-dim" in bad:
        pr = lambda task: (f"from {pk[task]['pr'][0]:.1f} to {pk[task]['pr'][-1]:.1f} (slope {pk[task]['slope']:.2f}) "
                           f"over $N$ = {pk[task]['N']}")
        parts = ([f"on simple-1STR, where one token suffices, it grows {pr('simple')}"] if pk["simple"]["slope"] > 0.3
                 else []) + ([f"on 1STR it grows only {pr('1str')}"] if pk["1str"]["slope"] < 0.5 else [])
        out.append("`10c-effective-dim`: the participation ratio of the trained states does not separate the tasks "
                   "as this book's hypothesis said: " + "; ".join(parts) + ". The hypothesis reads Proposition 35's "
                   "packing as a dimension, which the proposition does not state.")
    if "10c-separation" in bad and pk["1str"]["unlearned"]:
        out.append(f"`10c-separation`, censored: at $N$ = {pk['1str']['unlearned']} the widest runs never reached "
                   "the threshold, so their replayed outputs are those of networks that did not learn 1STR; the "
                   "proof's event is about networks that did.")
    return out
