"""The head_lower_bound page's Figure 2 rows: the statistics of |W_Q^T W_K| against the A.2 block, the paper's
values read from its figure, and the claim rows and numbers the Figure 2 section quotes. Page-side: no computation
imports it.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> out = results["figure2"]["result"]; stats = figure2_stats(np.asarray(out["M"]), P["fig2_d"], out["d_e"])
    >>> round(stats["diag_mean"], 1), stats["top_on_diag"]
    (35.7, 23)
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lib.core.rules import AtLeast
from lib.science import a2


def figure2_stats(M: np.ndarray, d: int, d_e: int) -> dict:
    """The A.2 block of W_Q^T W_K (query rows [d+d_e, d+2d_e), key columns [d, d+d_e)) against everything else."""
    A = np.abs(M)
    block = A[d + d_e:d + 2 * d_e, d:d + d_e]
    diag = np.diag(M[d + d_e:d + 2 * d_e, d:d + d_e])
    off = block[~np.eye(d_e, dtype=bool)]
    outside = np.ones_like(A, dtype=bool)
    outside[d + d_e:d + 2 * d_e, d:d + d_e] = False
    rows, cols = np.unravel_index(np.argsort(A, axis=None)[::-1][:d_e], A.shape)   # the d_e largest entries
    on_diag = int(np.sum((rows >= d + d_e) & (rows < d + 2 * d_e) & (rows - (d + d_e) == cols - d)))
    template = a2.weights(1, d, d_e, 1.0)[0].numpy()                         # Eq. A.2 with q = 1, alpha = 1
    return {"diag_mean": float(np.abs(diag).mean()), "off_median": float(np.median(off)),
            "outside_median": float(np.median(A[outside])), "top_on_diag": on_diag,
            "positive": float(np.mean(diag > 0)), "corr": float(np.corrcoef(A.ravel(), template.ravel())[0, 1])}


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
    return RULE_DIAGONAL.decide(ratio, f"{st['diag_mean']:.1f} vs {st['off_median']:.2f} ({ratio:.1f}×)",
                                paper=f"{PAPER_FIG2['diag_mean']:.0f} vs {PAPER_FIG2['off_median']:.0f} ({PAPER_FIG2['ratio']})")


def fig2_outside(P, results):
    f2, st = _figure2(P, results)
    ratio = st["diag_mean"] / max(st["outside_median"], 1e-12)
    steps = len(f2["epoch_loss"]) * math.ceil(P["fig2_train"] / 64)
    return RULE_OUTSIDE.decide(ratio, f"{st['diag_mean']:.1f} vs {st['outside_median']:.3f} ({ratio:.0f}×) after {steps} "
                               "steps", paper=f"about {FIG2_OUTSIDE}× (the authors' script, {AUTHORS_RERUN['steps']:,} steps)")


def fig2_top(P, results):
    f2, st = _figure2(P, results)
    return RULE_TOP.decide(st["top_on_diag"] / f2["d_e"], f"{st['top_on_diag']} of {f2['d_e']}",
                           paper=PAPER_FIG2["top_on_diag"], where=f"$d_e={f2['d_e']}$")


def fig2_sign(P, results):
    _, st = _figure2(P, results)
    return RULE_SIGN.decide(st["positive"], f"{100 * st['positive']:.0f}% positive",
                            paper="not visible (absolute values plotted)")


def figure2_numbers(P: dict, results: dict) -> dict:
    """The numbers the Figure 2 paragraph quotes (for Chapter.glue): training, and the A.2 block statistics."""
    f2, st = _figure2(P, results)
    return {"f2_epochs": len(f2["epoch_loss"]), "f2_loss": f2["epoch_loss"][-1], "f2_test": f2["test_mse"],
            "f2_diag": st["diag_mean"], "f2_off": st["off_median"], "f2_outside": st["outside_median"],
            "f2_top": st["top_on_diag"], "f2_de": f2["d_e"], "f2_corr": st["corr"],
            "f2_steps": len(f2["epoch_loss"]) * math.ceil(P["fig2_train"] / 64), "paper_corr": PAPER_FIG2["corr"],
            "authors_diag": AUTHORS_RERUN["diag_mean"], "authors_outside": AUTHORS_RERUN["outside_median"],
            "authors_steps": AUTHORS_RERUN["steps"], "authors_ratio": FIG2_OUTSIDE}

