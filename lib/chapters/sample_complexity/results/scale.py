"""The scale at which each effect of Figure 1 should show, for the claim rows that a run below it fails: a computed
note naming that scale (lib.core.claims.Measured.scale), never a pass.

    >>> from lib.core import params     # "" at the paper's 500-unit GRU, else why a narrower one steepens its curve
    >>> gru_scale(params.resolve("sample_complexity", "paper"), None, [4]), gru_scale({"rnn_hidden": 64}, None, [4])[:25]
    ('', "the authors' 500-unit GRU")
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.sample_complexity.results import MODELS
from lib.chapters.sample_complexity.results.authors import PAPER_GRU

FIRST_N_B = 25         # the paper's panel (b) starts at N = 25


def gru_scale(P, M, grid):
    """Prop. 8: a GRU's width must grow with N on 1STR; a narrower one than the authors' needs more samples as N grows,
    which steepens its curve (the rnn_norm_growth chapter measures the width it needs)."""
    return "" if P["rnn_hidden"] >= PAPER_GRU else (
        f"the authors' {PAPER_GRU}-unit GRU (the paper profile); with {P['rnn_hidden']} units the GRU is narrower than "
        "Prop. 8 asks as $N$ grows, so its own count grows faster")


def panel_b_scale(P, M, grid):
    """Growth over a panel (b) grid: the paper's grid sits past the crossing, where the FFN rises steeply, and its GRU
    is the 500-unit one."""
    if max(grid) >= FIRST_N_B and P["rnn_hidden"] >= PAPER_GRU:
        return ""
    return (f"the paper's $N$ = 25 to 33 with its {PAPER_GRU}-unit GRU (this run: $N$ = {min(grid)} to {max(grid)}, "
            f"{P['rnn_hidden']} units), past the crossing where the FFN's count overtakes the others")


def crossing_scale(P, M, grid):
    """On simple-1STR the FFN's count grows faster in N than those of the RNN and the Transformer, from below them:
    below the crossing the gap cannot show. Where this run's grid ends before the paper's (N = 25), name the N at which
    this run's own log-log fits put the FFN at 1.8x each of the two (none where that one grows as fast here)."""
    if max(grid) >= FIRST_N_B or len(grid) < 2:
        return ""
    fit = {m: np.polyfit(np.log(grid), np.log([M[m][n] for n in grid]), 1) for m in MODELS}   # (slope, intercept)
    at = {}
    for m in ("transformer", "rnn"):   # the lines ln n = b ln N + a meet at ln N = (a_m + ln 1.8 - a_ffn) / (b_ffn - b_m)
        gain = fit["ffn"][0] - fit[m][0]
        log_N = (fit[m][1] + math.log(1.8) - fit["ffn"][1]) / gain if gain > 0 else math.inf
        at[m] = (f"near $N$ = {max(max(grid), math.ceil(math.exp(log_N))):,}" if log_N < math.log(1e6) else
                 "nowhere below $N = 10^6$ (its count grows about as fast as the FFN's here)")
    gru = (f"; a {P['rnn_hidden']}-unit GRU where the paper's has {PAPER_GRU}" if P["rnn_hidden"] < PAPER_GRU else "")
    return (f"the paper's $N$ = 25 to 33{gru}: the FFN's count, growing faster than theirs, passes 1.8× the Transformer's "
            f"{at['transformer']} and the RNN's {at['rnn']} on this run's log-log fits")


PAPER_SEEDS, PAPER_N_TEST = 5, 5000


def protocol_scale(P) -> str:
    """Counts compared with the authors' need their protocol: with fewer test prompts the test MSE is noisier, and the
    first check at which a noisy estimate dips under the threshold comes early (a count biased down, most for a curve
    that creeps up on the threshold, like the FFN's); with fewer seeds the bootstrap has little to resample."""
    if P["n_test"] >= PAPER_N_TEST and P["n_seeds"] >= PAPER_SEEDS:
        return ""
    return (f"the authors' protocol of {PAPER_SEEDS} seeds and {PAPER_N_TEST:,} test prompts (this run: {P['n_seeds']} "
            f"and {P['n_test']:,}; a smaller test set crosses the threshold early on noise, fewer seeds leave the "
            "bootstrap little to resample)")
