"""The head_lower_bound rows on Figure 2 (fig2-diagonal, fig2-outside, fig2-top, fig2-sign): the statistics of
|W_Q^T W_K| against the A.2 block (results.figure2_stats) held to the paper's values read from its figure and to the
authors' script re-run, with the numbers the Figure 2 section quotes. Each row's function measures (it returns a
lib.core.claims.Measured); its rule decides.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> figure2_numbers(P, results)["f2_top"], RULE_TOP.decide(fig2_top(P, results)).passed
    (23, True)
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lib.chapters.head_lower_bound.results import figure2_stats
from lib.core.claims import Measured
from lib.core.rules import AtLeast

# Figure 2 of the paper, read from its pixels for this book: the reference the page compares to.
PAPER_FIG2 = {"diag_mean": 36.0, "off_median": 5.0, "top_on_diag": "23 of 23", "ratio": "6-7x", "corr": 0.87}
# The authors' attention_weights.py re-run for this book at the paper's scale (N = 100, 50,000 prompts).
AUTHORS_RERUN = {"diag_mean": 35.6, "outside_median": 0.02, "steps": 3128}
FIG2_OUTSIDE = 1800      # AUTHORS_RERUN's diagonal over its outside median (35.6 / 0.02), rounded

# The rules of the Figure 2 rows (lib.core.rules): each decides its row and writes the rule's text. One run each: no
# spread over seeds, so no margin.
RULE_DIAGONAL = AtLeast("diagonal mean / block off-diagonal median", 3,
                        why=f"the paper's figure: {PAPER_FIG2['ratio']}; one run, no spread over seeds")
RULE_OUTSIDE = AtLeast("diagonal mean / median outside the block", FIG2_OUTSIDE // 4,
                       why=f"a quarter of the authors' {FIG2_OUTSIDE:,}×; one run")
RULE_TOP = AtLeast("share of the $d_e$ largest entries on the A.2 diagonal", Fraction(20, 23),
                   why=f"20 of the paper's {PAPER_FIG2['top_on_diag']}, scaled to $d_e$; one run")
RULE_SIGN = AtLeast("share of the diagonal entries > 0", 0.9, why="one run")


def _figure2(P, results):
    f2 = results["figure2"]["result"]
    return f2, figure2_stats(np.array(f2["M"]), P["fig2_d"], f2["d_e"])


def fig2_diagonal(P, results):
    _, st = _figure2(P, results)
    ratio = st["diag_mean"] / max(st["off_median"], 1e-12)
    return Measured(ratio, f"{st['diag_mean']:.1f} vs {st['off_median']:.2f} ({ratio:.1f}×)",
                    paper=f"{PAPER_FIG2['diag_mean']:.0f} vs {PAPER_FIG2['off_median']:.0f} ({PAPER_FIG2['ratio']})")


def fig2_outside(P, results):
    f2, st = _figure2(P, results)
    ratio = st["diag_mean"] / max(st["outside_median"], 1e-12)
    steps = len(f2["epoch_loss"]) * math.ceil(P["fig2_train"] / 64)
    return Measured(ratio, f"{st['diag_mean']:.1f} vs {st['outside_median']:.3f} ({ratio:.0f}×) after {steps} steps",
                    paper=f"about {FIG2_OUTSIDE}× (the authors' script, {AUTHORS_RERUN['steps']:,} steps)")


def fig2_top(P, results):
    f2, st = _figure2(P, results)
    return Measured(st["top_on_diag"] / f2["d_e"], f"{st['top_on_diag']} of {f2['d_e']}", paper=PAPER_FIG2["top_on_diag"],
                    where=f"$d_e={f2['d_e']}$")


def fig2_sign(P, results):
    _, st = _figure2(P, results)
    return Measured(st["positive"], f"{100 * st['positive']:.0f}% positive", paper="not visible (absolute values plotted)")


def figure2_numbers(P: dict, results: dict) -> dict:
    """The numbers the Figure 2 paragraph quotes (for Chapter.glue): training, and the A.2 block statistics."""
    f2, st = _figure2(P, results)
    return {"f2_epochs": len(f2["epoch_loss"]), "f2_loss": f2["epoch_loss"][-1], "f2_test": f2["test_mse"],
            "f2_diag": st["diag_mean"], "f2_off": st["off_median"], "f2_outside": st["outside_median"],
            "f2_top": st["top_on_diag"], "f2_de": f2["d_e"], "f2_corr": st["corr"],
            "f2_steps": len(f2["epoch_loss"]) * math.ceil(P["fig2_train"] / 64), "paper_corr": PAPER_FIG2["corr"],
            "authors_diag": AUTHORS_RERUN["diag_mean"], "authors_outside": AUTHORS_RERUN["outside_median"],
            "authors_steps": AUTHORS_RERUN["steps"], "authors_ratio": FIG2_OUTSIDE}

