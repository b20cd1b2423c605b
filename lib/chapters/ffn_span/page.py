"""What the ffn_span notebook calls: the tables it prints (`risk_table`, `samples_table`), the numbers they are made of
(`ffn_table`, `adamw_reference`, from results.py), the claim check (`claims`, `ROWS`, `HEADLINES`, from claims/),
the findings of the claims that did not pass (`findings`) and the power of the rules (`power`, in the worlds of
claims/power.py). The notebook binds `results` to its collected points, so it reaches the results module through
this one. Nothing here changes a stored number.

    >>> from lib.chapters import stored; P, results = stored("ffn_span")   # the committed paper results
    >>> print(risk_table(P, results, ffn_table(P, results)).splitlines()[2])
    | 4 | 40 | 5 | 0.875 | 0.875 | 1.022 ± 0.034 | 3 of 3 |
"""
from __future__ import annotations

import numpy as np

from lib.chapters.ffn_span.claims import HEADLINES, ROWS, RULE_SPAN, claims, in_span
from lib.chapters.ffn_span.claims.power import WORLDS
from lib.chapters.ffn_span.results import adamw_reference, ffn_table
from lib.core.claims import explanations
from lib.core.power import power_table
from lib.core.rules import number
from lib.core.tables import markdown_table
from lib.science.stats import BELOW_GRID

__all__ = ["HEADLINES", "ROWS", "adamw_reference", "claims", "ffn_table", "findings", "power", "risk_table",
           "run_markdown", "samples_table", "spec_markdown"]


def power(P: dict, results: dict, draws: int) -> list[dict]:
    """The power table of the rows (claims/power.py's worlds): each row's own measure and rule on `draws` results
    drawn from each of its worlds (lib.core.power.power_table); Chapter.finish stores it as power.json."""
    return power_table(ROWS, WORLDS, P, results, draws)


def findings(P: dict, results: dict, rows: list[dict]) -> str:
    """Markdown bullets: each claim that failed or is censored, with its row's own explanation ("": none)."""
    return "\n".join(f"- {line}" for line in explanations(ROWS, rows, P, results))


def spec_markdown(spec) -> str:
    """Markdown: a point's spec, field by field (what its stored numbers depend on), as a reader reads it."""
    from dataclasses import fields

    return "`" + type(spec).__name__ + "`: " + ", ".join(f"{f.name} = {getattr(spec, f.name)}" for f in fields(spec))


def run_markdown(out: dict) -> str:
    """Markdown: what run_ffn returned for one point, per n: each run's off-span fraction rho at the end of training
    ("none off it" where n >= Nd: the span is then all of R^(Nd), and rho is not defined) and its test MSE."""
    cell = lambda xs, fmt: ", ".join("none off it" if not np.isfinite(x) else format(x, fmt)
                                     for x in np.asarray(xs, float))
    return markdown_table(["$n$", r"$\rho$ at the end, per run", "test MSE, per run"],
                          [[n, cell(rho, ".1e"), cell(mse, ".3f")]
                           for n, rho, mse in zip(out["n"], out["rho"], out["test_mse"])])


def risk_table(P: dict, results: dict, table: dict) -> str:
    """Markdown: for every plain point with n < Nd, the Theorem 6 line 1 - n/(Nd), the oracle's and the trained
    FFN's test MSE, and how many runs ended in the span."""
    rows = []
    for N, e in table.items():
        ok = in_span(results["ffn"][(N, False)])
        rows += [[N, e["Nd"], n, f"{1 - n / e['Nd']:.3f}", f"{e['oracle'][i]:.3f}", f"{e['mean'][i]:.3f} ± {e['se'][i]:.3f}",
                  f"{int(ok[i].sum())} of {ok.shape[1]}"] for i, n in enumerate(e["n"]) if n < e["Nd"]]
    return markdown_table(["$N$", "$Nd$", "$n$", "$1-n/(Nd)$", "oracle (same test prompts)", "GD-trained FFN",
                           rf"runs in the span ($\rho \le$ {number(RULE_SPAN.bound)} or $\mathbf W = 0$)"], rows)


def samples_table(P: dict, table: dict, ref: dict) -> str:
    """Markdown: n* per N for both learners (ffn_table, adamw_reference), in units of N*d as well."""
    def cell(e):
        v = e["nstar"]
        if np.isnan(v):
            return f"> {e['n'][-1]:,} (not reached)", ""
        if v == BELOW_GRID:
            return f"≤ {e['n'][0]:,} (below the grid)", ""
        return f"{v:,.0f}", f"{v / e['Nd']:.1f}"

    rows = [[N, e["Nd"], *cell(e), f"{(1 - P['threshold']) * e['Nd']:.1f}"] for N, e in table.items()]
    out = markdown_table(["$N$", "$Nd$", "GD FFN: $n^*$", "$n^*/(Nd)$", r"Thm 6 bound $(1-\varepsilon)Nd$"], rows)
    if ref["available"]:
        out += "\n\n" + markdown_table(
            ["$N$", "$Nd$", "AdamW FFN (online, Figure 1b): mean $n^*$", "$n^*/(Nd)$", "censored runs"],
            [[N, N * ref["d"], f"{m:,.0f}", f"{m / (N * ref['d']):.0f}", c]
             for N, m, c in zip(ref["N"], ref["mean"], ref["censored"])])
    return out
