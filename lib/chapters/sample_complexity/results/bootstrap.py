"""The uncertainty of Figure 1's claims: a one-sided hierarchical bootstrap over task draws and seeds.

A claim about Figure 1 is a statement about means of a few seeds, and the authors draw u and the position codes once
per N, so their seeds never average over that draw. Each claim is therefore tested on a one-sided bootstrap: the
runs of a (model, N) are resampled hierarchically (task draws with replacement, then seeds within each draw), and a
direction ("A needs fewer samples than B") passes where at least LEVEL of the replicates show it. A threshold on a
ratio is held against the replicates' lower (or upper) LEVEL bound. A model trained on one task draw is resampled
over its seeds only; the page says which models have several draws.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> from lib.chapters.sample_complexity.results import summarize; table = summarize(P, records)
    >>> B = boot(table, P, "a", "authors"); round(lower(B["ffn"][6] / B["transformer"][6]), 2)   # the ratio's 5% bound
    1.68
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sample_complexity.results import MODELS
from lib.science.seeds import seed_of

N_BOOT = 2000
LEVEL = 0.95


def replicates(entry: dict, key: tuple, draws: int | None = None) -> np.ndarray:
    """(N_BOOT, len(N)) bootstrap means of one table entry. draws: task draws per replicate (default: the entry's
    own count; 1 gives the spread of a single-draw mean like the authors'). The stream depends on `key` alone, so the
    two test sets of panel (a), which score the same runs, are resampled with the same indices (paired)."""
    by_draw = entry["by_draw"]
    n, G, R = by_draw.shape
    g = draws or G
    rng = np.random.default_rng(seed_of("bootstrap", *key, g))
    di = rng.integers(0, G, (N_BOOT, n, g))
    si = rng.integers(0, R, (N_BOOT, n, g, R))
    return by_draw[np.arange(n)[None, :, None, None], di[..., None], si].mean((2, 3))


def boot(table: dict, P: dict, panel: str, test: str) -> dict:
    """{model: {N: (N_BOOT,) replicate means}} of one panel and test set."""
    out = {}
    for m in MODELS:
        entry = table[panel][m][test]
        reps = replicates(entry, (P["seed"], panel, m))
        out[m] = {n: reps[:, i] for i, n in enumerate(entry["N"])}
    return out


def slope(grid, ys) -> np.ndarray:
    """Least-squares log-log slope of each replicate: ys (..., len(grid))."""
    x = np.log(np.asarray(grid, float))
    y = np.log(np.asarray(ys, float))
    x = x - x.mean()
    return ((y - y.mean(-1, keepdims=True)) * x).sum(-1) / (x * x).sum()


def lower(v) -> float:
    return float(np.quantile(v, 1 - LEVEL))


def upper(v) -> float:
    return float(np.quantile(v, LEVEL))
