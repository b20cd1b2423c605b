"""The power of the planted-AND rows, as worlds (lib.core.power): each row's own measure and rule run on result sets
drawn from the stored trials. A point holds one T, its trials flattened over the grid of m (every per-trial number a
list as long as `m`), so the faithful world resamples the trials within each (T, m) cell (`resample_seeds` would find
no axis as long as the spec's trial count). The worlds without the theorem's mechanism relabel the same trials: every
T's cells drawn from one stored T (m* does not move with T), the smallest T's trials at m scaled down by the ratio of
the T (m* in proportion to T), every cell of a T from its smallest m (success does not rise with m), and the
successes given the failed runs' attention (heads without the variable). Page-side: no computation imports this
module.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> from lib.chapters.sparse_variable_creation.claims import ROWS
    >>> from lib.core.power import power_table
    >>> [(t["world"][:22], t["pass"]) for t in power_table(ROWS, {"A16": WORLDS["A16"]}, P, results, draws=10)]
    [('faithful: the stored t', 1.0), ('no variable: each succ', 0.0)]
"""
from __future__ import annotations

import numpy as np

from lib.core.power import World

NOT_PER_TRIAL = ("m", "checks")     # "m" labels a trial's cell (it stays); "checks": the validated iterations


def _redraw(results: dict, source) -> dict:
    """`results` with every AND point's trials redrawn: source(T, m) -> (stored result, index), trial i of point T
    taking every per-trial number of trial index[i] of that stored result (its own m label stays)."""
    out = {}
    for T, rec in results["and"].items():
        src, idx = source(T, np.asarray(rec["result"]["m"]))
        n = len(src["m"])
        out[T] = {**rec, "result": {**rec["result"], **{k: np.asarray(v)[idx] for k, v in src.items()
                                                         if k not in NOT_PER_TRIAL and isinstance(v, list) and len(v) == n}}}
    return {**results, "and": out}


def _draw(m: np.ndarray, rng, cells) -> np.ndarray:
    """Per slot of m, a stored trial drawn with replacement from the mixture cells(slot's m): a list of (the indices
    of a pool of trials, weight)."""
    idx = np.empty(len(m), int)
    for v in np.unique(m):
        slots, mix = np.flatnonzero(m == v), cells(v)
        which = rng.choice(len(mix), len(slots), p=[w for _, w in mix])
        for j, (pool, _) in enumerate(mix):
            here = slots[which == j]
            idx[here] = rng.choice(pool, len(here))
    return idx


def _cells(r: dict) -> dict:
    """{m: the indices of a stored point's trials at m}."""
    m = np.asarray(r["m"])
    return {v: np.flatnonzero(m == v) for v in np.unique(m).tolist()}


def resample_trials(P: dict, results: dict, rng) -> dict:
    """The faithful world: each (T, m) cell's trials drawn with replacement from that cell alone."""
    def source(T, m):
        r = results["and"][T]["result"]
        c = _cells(r)
        return r, _draw(m, rng, lambda v: [(c[v], 1.0)])
    return _redraw(results, source)


def one_T(P: dict, results: dict, rng) -> dict:
    """m* does not move with T: one stored T drawn per run, and every T's cell at m resampled from its cell at m."""
    r0 = results["and"][list(results["and"])[rng.integers(len(results["and"]))]]["result"]
    c = _cells(r0)
    return _redraw(results, lambda T, m: (r0, _draw(m, rng, lambda v: [(c[v], 1.0)])))


def _scaled(c: dict, failed: np.ndarray, x: float) -> list[tuple]:
    """The stored cells {m: indices} at m = x, as a mixture: the success probability interpolated linearly between
    the two stored m around x, below the smallest between it and no success at m = 0 (its failed trials), above the
    largest m as at the largest."""
    grid = sorted(c)
    if x >= grid[-1]:
        return [(c[grid[-1]], 1.0)]
    if x < grid[0]:
        w = x / grid[0]
        return [(c[grid[0]], w), (failed, 1.0 - w)] if len(failed) else [(c[grid[0]], 1.0)]
    hi = int(np.searchsorted(grid, x))
    if grid[hi] == x:
        return [(c[x], 1.0)]
    w = (grid[hi] - x) / (grid[hi] - grid[hi - 1])
    return [(c[grid[hi - 1]], w), (c[grid[hi]], 1.0 - w)]


def proportional(P: dict, results: dict, rng) -> dict:
    """m* in proportion to T: the cell (T, m) drawn from the smallest T's trials at m x (smallest T) / T."""
    T0 = min(results["and"])
    r0 = results["and"][T0]["result"]
    c = _cells(r0)
    failed = c[min(c)][~np.asarray(r0["success"], bool)[c[min(c)]]]
    return _redraw(results, lambda T, m: (r0, _draw(m, rng, lambda v: _scaled(c, failed, v * T0 / T))))


def flat_in_m(P: dict, results: dict, rng) -> dict:
    """Success does not rise with m: every cell of a T drawn from that T's trials at its smallest m."""
    def source(T, m):
        r = results["and"][T]["result"]
        c = _cells(r)
        return r, _draw(m, rng, lambda v: [(c[min(c)], 1.0)])
    return _redraw(results, source)


def no_variable(P: dict, results: dict, rng) -> dict:
    """Heads without the variable: the faithful draw, each success then given the [CLS] attention and top 3 of a
    failed trial of its T drawn at random (of every T's failures, where its T has none)."""
    sim = resample_trials(P, results, rng)
    keys = ("planted_attention", "top3_is_planted")
    failed = {T: {k: np.asarray(rec["result"][k])[~np.asarray(rec["result"]["success"], bool)] for k in keys}
              for T, rec in results["and"].items()}
    for T, rec in sim["and"].items():
        r, s = rec["result"], np.asarray(rec["result"]["success"], bool)
        pool = failed[T] if len(failed[T][keys[0]]) else {k: np.concatenate([f[k] for f in failed.values()]) for k in keys}
        if s.any() and len(pool[keys[0]]):
            pick = rng.integers(0, len(pool[keys[0]]), s.sum())
            for k in keys:
                v = np.array(r[k], dtype=pool[k].dtype)
                v[s] = pool[k][pick]
                r[k] = v
    return sim


FAITHFUL = World("faithful: the stored trials, resampled within each $(T, m)$ cell", True, resample_trials)
NO_SHIFT = World("$m^*$ does not move with $T$: every $T$'s cells resampled from one stored $T$'s (drawn per run)", False,
                 one_T)
LINEAR = World("$m^*$ in proportion to $T$: the smallest $T$'s trials, at $m$ scaled down by the ratio of the $T$", False,
               proportional)
FLAT = World("success does not rise with $m$: every cell drawn from its $T$'s smallest $m$", False, flat_in_m)
NO_VARIABLE = World("no variable: each success given the attention of a failed run of its $T$", False, no_variable)

WORLDS = {
    "A11a": (FAITHFUL, FLAT, LINEAR),
    "A11b": (FAITHFUL, LINEAR, NO_SHIFT),
    "A11c": (FAITHFUL, LINEAR, NO_SHIFT),
    "A12": (FAITHFUL, FLAT, LINEAR),
    "A13a": (FAITHFUL, FLAT),
    "A13b": (FAITHFUL, NO_SHIFT),
    "A16": (FAITHFUL, NO_VARIABLE),
}
