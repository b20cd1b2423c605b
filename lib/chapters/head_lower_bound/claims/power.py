"""The power of head_lower_bound's claim rules, declared as worlds (lib.core.power): for each row, the stored runs
resampled (the faithful world, with Theorem 4's mechanism) and the stored runs relabelled or rescaled so that the
mechanism is absent. A stored point holds several cells, one per head count H (the H sweeps: `heads` lists every
run's H; the scaling sweep: H = q and H = 1 at each N), each with n_seeds runs, so the faithful world draws the runs
of each cell with replacement, cell by cell (`resample_runs`): every per-run number of a run follows it, and no
spread is pooled across cells. Page-side: no computation imports this module.

    >>> from lib.chapters import stored; from lib.core.power import power_table
    >>> from lib.chapters.head_lower_bound.claims import ROWS
    >>> P, results = stored("head_lower_bound")   # the committed paper results
    >>> t = power_table(ROWS, {"7-below-floor-prop3": WORLDS["7-below-floor-prop3"]}, P, results, draws=20)
    >>> [(x["mechanism"], x["pass"]) for x in t]
    [(True, 1.0), (False, 0.0)]
"""
from __future__ import annotations

import numpy as np

from lib.chapters.head_lower_bound.compute import SETTINGS
from lib.chapters.head_lower_bound.results import REACH, scaling_table
from lib.core.power import World

RUN_AXIS = {"curves": 1}            # a per-run field whose run axis is not its first (curves: checkpoints x runs)
SHARED = ("curve_samples",)         # a list of the point's, not of its runs, whatever its length
DESIGN = ("heads", "bound")         # what a run is (its H and its floor), kept where a run's outcome is swapped in


def _records(results: dict):
    """(container, key) of every stored point that holds runs: the H sweeps and the scaling sweep's N."""
    yield from ((results, s) for s in SETTINGS if s in results)
    yield from ((results["scaling"], N) for N in results.get("scaling", {}))


def _per_run(result: dict):
    """(field, its run axis) of every per-run field of a stored result (an axis as long as its `heads`)."""
    n = len(result["heads"])
    for k, v in result.items():
        axis = RUN_AXIS.get(k, 0)
        if k not in SHARED and isinstance(v, list) and np.ndim(v) > axis and np.shape(v)[axis] == n:
            yield k, axis


def _arr(v) -> np.ndarray:
    """A stored list as an array, its ints kept (H) and a run that never crossed (None) read as NaN."""
    a = np.asarray(v)
    return a.astype(float) if a.dtype == object else a


def _reindexed(rec: dict, idx: np.ndarray) -> dict:
    """The point with its runs taken in the order `idx` (every per-run field by the same index)."""
    r = dict(rec["result"])
    for k, axis in list(_per_run(r)):
        r[k] = np.take(_arr(r[k]), idx, axis=axis).tolist()
    return {**rec, "result": r}


def resample_runs(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """A copy of `results` in which, in every stored point and within each of its cells (runs of one H), the runs are
    drawn with replacement; the points are copied where changed, the rest shared."""
    out = {**results, **({"scaling": dict(results["scaling"])} if "scaling" in results else {})}
    for parent, key in _records(out):
        heads = np.asarray(parent[key]["result"]["heads"])
        idx = np.arange(len(heads))
        for H in np.unique(heads):
            cell = np.flatnonzero(heads == H)
            idx[cell] = rng.choice(cell, len(cell))
        parent[key] = _reindexed(parent[key], idx)
    return out


def _swapped(results: dict, setting: str, to, src: dict, pick) -> dict:
    """`results` with the outcome of the runs `to` of `setting` replaced by those of the runs `pick` of the stored
    result `src` (every per-run field but the run's design: its H and its floor)."""
    rec = results[setting]["result"]
    r = dict(rec)
    for k, axis in _per_run(rec):
        if k in DESIGN:
            continue
        a, d = np.moveaxis(_arr(rec[k]), axis, 0).copy(), np.moveaxis(_arr(src[k]), axis, 0)
        a[to] = d[pick]
        r[k] = np.moveaxis(a, 0, axis).tolist()
    return {**results, setting: {**results[setting], "result": r}}


def _short(setting: str, key: str, luck: float = 0.0):
    """H >= q no better than H = q - 1: the outcome of each resampled H >= q run that of a stored H = q - 1 run
    (with `luck`, that of a stored H >= q run that reached FVU <= REACH, with that chance, where one did)."""
    def draw(P, results, rng):
        sim, stored, q = resample_runs(P, results, rng), results[setting]["result"], P[key]
        heads = np.asarray(stored["heads"])
        to = np.flatnonzero(heads >= q)
        short = np.flatnonzero(heads == q - 1)
        reached = np.flatnonzero((heads >= q) & (_arr(stored["fvu"]) <= REACH))
        pick = [rng.choice(reached) if len(reached) and rng.random() < luck else rng.choice(short) for _ in to]
        return _swapped(sim, setting, to, stored, pick)
    return draw


def _one_head_square(P, results, rng):
    """The control's resampled H = 1 runs given the outcomes of stored Prop. 21 H = 1 runs (the square link)."""
    sim, src = resample_runs(P, results, rng), results["prop21"]["result"]
    to = np.flatnonzero(np.asarray(sim["control"]["result"]["heads"]) == 1)
    return _swapped(sim, "control", to, src, rng.choice(np.flatnonzero(np.asarray(src["heads"]) == 1), len(to)))


def _growth(power: float):
    """The resampled H = q counts of each N multiplied by (N / N_min)^(power - p), p the power fitted to the stored
    runs that crossed, so that they grow like N^power with each N's own spread; a count over the cap becomes a run
    that never crossed."""
    def draw(P, results, rng):
        tab = scaling_table(P, results)[P["scale_q"]]
        x, y = np.repeat(np.log(tab["N"]), tab["samples"].shape[1]), np.log(tab["samples"]).ravel()
        shift = power - np.polyfit(x[np.isfinite(y)], y[np.isfinite(y)], 1)[0]    # the runs that crossed
        sim = resample_runs(P, results, rng)
        for N in P["scale_N"]:
            r = dict(sim["scaling"][N]["result"])
            s = _arr(r["samples"]) * np.where(np.asarray(r["heads"]) == P["scale_q"], (N / min(P["scale_N"])) ** shift, 1)
            r["samples"] = np.where(s > P["scale_max_samples"], np.nan, s).tolist()
            sim["scaling"][N] = {**sim["scaling"][N], "result": r}
        return sim
    return draw


FAITHFUL = World("faithful: the stored runs, resampled within each H (and N)", True, resample_runs)
SHORT = "H ≥ q no better than q − 1: the resampled H ≥ q runs replaced by stored H = q − 1 runs"
WORLDS = {
    "5-reach-prop21": (FAITHFUL, World(SHORT, False, _short("prop21", "p21_q"))),
    "5-reach-fraction": (FAITHFUL, World(SHORT, False, _short("prop21", "p21_q")),
                         World("training finds the solution by luck: each H ≥ q run a stored H ≥ q run that reached with "
                               "chance 1 in 10, else a stored H = q − 1 run", False,
                               _short("prop21", "p21_q", luck=0.1))),
    "7-below-floor-prop3": (FAITHFUL, World(SHORT, False, _short("prop3", "p3_q"))),
    "control-one-head": (FAITHFUL, World("one head on the square link: the control's resampled H = 1 runs replaced by "
                                         "stored Prop. 21 H = 1 runs", False, _one_head_square)),
    "4-scaling": (FAITHFUL,
                  World("growth like √N: the resampled counts of each N rescaled so that their fitted power is 1/2, "
                        "counts over the cap never crossed", False, _growth(0.5)),
                  World("growth linear in N (an FFN's, Thm 6): the resampled counts rescaled so that their fitted "
                        "power is 1, counts over the cap never crossed", False, _growth(1.0))),
}
