"""The power of head_lower_bound's claim rules, declared as worlds (lib.core.power): for each row, the stored runs
resampled within each head count H (and N), the stored runs moved to what the theorem predicts, and the stored runs
relabelled or rescaled so that the mechanism is absent. Figure 2 is one run: its worlds resample, shuffle or rebuild
the entries of its stored map |W_Q^T W_K|.

    >>> from lib.chapters import stored; from lib.core.power import power_table
    >>> from lib.chapters.head_lower_bound.claims import ROWS
    >>> P, results = stored("head_lower_bound")   # the committed paper results
    >>> t = power_table(ROWS, {"7-below-floor-prop3": WORLDS["7-below-floor-prop3"]}, P, results, draws=20)
    >>> [(x["role"], x["pass"]) for x in t]
    [('faithful', 1.0), ('with', 1.0), ('without', 0.0)]
"""
from __future__ import annotations

import numpy as np

from lib.chapters.head_lower_bound.claims.heads import LUCK
from lib.chapters.head_lower_bound.compute import SETTINGS
from lib.chapters.head_lower_bound.results import REACH, scaling_table
from lib.core.power import World, resample_cells
from lib.core.rules import number

RUN_AXIS = {"curves": 1}            # a per-run field whose run axis is not its first (curves: checkpoints x runs)
SHARED = ("curve_samples",)         # a list of the point's, not of its runs, whatever its length
DESIGN = ("heads", "bound")         # what a run is (its H and its floor), kept where a run's outcome is swapped in
SHORT = "H ≥ q no better than q − 1: the resampled H ≥ q runs replaced by stored H = q − 1 runs"
ONE, BELOW, UP, AT_Q = (lambda H, q: H == 1), (lambda H, q: H < q), (lambda H, q: H >= q), (lambda H, q: H == q)


def _points(results: dict):
    """(container, key) of every stored point that holds runs: the H sweeps and the scaling sweep's N."""
    yield from ((results, s) for s in SETTINGS if s in results)
    yield from ((results["scaling"], N) for N in results.get("scaling", {}))


def resample(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """A copy of `results` with each point's runs drawn with replacement within each H."""
    return resample_cells(results, rng, _points, lambda r: r["heads"], run_axis=RUN_AXIS, shared=SHARED)


def _arr(v) -> np.ndarray:
    """A stored list as an array, a run that never crossed (None) read as NaN."""
    a = np.asarray(v)
    return a.astype(float) if a.dtype == object else a


def _outcomes(setting: str, key: str, to, src, luck: float = 0.0, donor: str | None = None):
    """The resampled runs of `setting` whose H is `to(H, q)` given the outcomes (every per-run field but the run's
    DESIGN) of stored runs of `donor` (default: the same setting) whose H is `src(H, q)`, or with chance `luck` of a
    stored H >= q run that reached FVU <= REACH."""
    def draw(P, results, rng):
        stored, q = results[donor or setting]["result"], P[key]
        heads = np.asarray(stored["heads"])
        reached = np.flatnonzero((heads >= q) & (_arr(stored["fvu"]) <= REACH))
        sources = np.flatnonzero(src(heads, q))
        sim = resample(P, results, rng)
        rec = sim[setting]["result"]
        r, n = dict(rec), len(rec["heads"])
        to_i = np.flatnonzero(to(np.asarray(rec["heads"]), q))      # in the resample: k x the stored runs
        pick = [rng.choice(reached) if len(reached) and rng.random() < luck else rng.choice(sources) for _ in to_i]
        for k, v in rec.items():
            axis = RUN_AXIS.get(k, 0)
            if k in DESIGN or k in SHARED or not isinstance(v, list) or np.ndim(v) <= axis or np.shape(v)[axis] != n:
                continue
            a = np.moveaxis(_arr(v), axis, 0).copy()
            a[to_i] = np.moveaxis(_arr(stored[k]), axis, 0)[pick]
            r[k] = np.moveaxis(a, 0, axis).tolist()
        sim[setting] = {**sim[setting], "result": r}
        return sim
    return draw


def _short(setting: str, key: str, luck=0) -> World:
    """H >= q no better than H = q - 1, but for a stored H >= q run that reached with chance `luck`."""
    name = (f"training finds the solution by luck: each H ≥ q run a stored H ≥ q run that reached with chance "
            f"{number(luck)}, else a stored H = q − 1 run") if luck else SHORT
    return World(name, False, _outcomes(setting, key, UP, lambda H, q: H == q - 1, float(luck)))


def _solved(setting: str, key: str, which, who: str) -> World:
    """With the mechanism: the resampled runs whose H is `which(H, q)` moved to the FVU 0 the theorem predicts."""
    def draw(P, results, rng):
        sim = resample(P, results, rng)
        r = sim[setting]["result"]
        r["fvu"] = np.where(which(np.asarray(r["heads"]), P[key]), 0.0, _arr(r["fvu"])).tolist()
        return sim
    return World(f"solved: the resampled {who} runs moved to FVU 0 (their se kept)", True, draw)


def _growth(shape, name: str) -> World:
    """Without (or with) the mechanism: the resampled H = q counts of each N multiplied by shape(N) / shape(N_min)
    over (N / N_min)^p, p the power fitted to the stored runs that crossed, so that they grow like `shape` with each
    N's own spread; a count over the cap never crossed."""
    def draw(P, results, rng):
        tab, N0 = scaling_table(P, results)[P["scale_q"]], min(P["scale_N"])
        x, y = np.repeat(np.log(tab["N"]), tab["samples"].shape[1]), np.log(tab["samples"]).ravel()
        p = np.polyfit(x[np.isfinite(y)], y[np.isfinite(y)], 1)[0]          # the runs that crossed
        sim = resample(P, results, rng)
        for N in P["scale_N"]:
            r = sim["scaling"][N]["result"]
            s = _arr(r["samples"]) * np.where(np.asarray(r["heads"]) == P["scale_q"],
                                              shape(N) / shape(N0) / (N / N0) ** p, 1)
            r["samples"] = np.where(s > P["scale_max_samples"], np.nan, s).tolist()
        return sim
    return World(name, name.startswith("growth like ln"), draw)


def _figure2(edit, name: str, mechanism: bool) -> World:
    """A world of Figure 2's one stored map M = W_Q^T W_K: `edit(M, cls, rng)`, cls labelling each entry 0 (the A.2
    diagonal), 1 (the rest of the A.2 block) or 2 (outside the block; results.figure2_stats reads the same)."""
    def draw(P, results, rng):
        trained = results["figure2"]["result"]
        M, d, d_e = np.array(trained["M"], float), P["figure2_d"], trained["d_e"]
        cls = np.full(M.shape, 2)
        cls[d + d_e:d + 2 * d_e, d:d + d_e] = 1
        cls[d + d_e + np.arange(d_e), d + np.arange(d_e)] = 0
        return {**results, "figure2": {**results["figure2"], "result": {**trained, "M": edit(M, cls, rng).tolist()}}}
    return World(name, mechanism, draw)


def _within(M, cls, rng):
    """Each entry replaced by one drawn with replacement from the stored entries of its class."""
    out = M.copy()
    for c in range(3):
        out[cls == c] = rng.choice(M[cls == c], int(np.sum(cls == c)))
    return out


def _keys_permuted(M, cls, rng):
    """The key columns of the A.2 block permuted: each query code looks up another key's code."""
    cols = np.flatnonzero((cls < 2).any(0))
    out = M.copy()
    out[:, cols] = M[:, rng.permutation(cols)]
    return out


FIGURE2 = (_figure2(_within, "faithful: the stored map's entries resampled within their class (the A.2 diagonal, the rest "
                    "of its block, outside it); one run, so no seed to resample", True),
           _figure2(lambda M, cls, rng: np.where(cls == 0, np.abs(M[cls == 0]).mean(), rng.choice(M[cls == 2], M.shape)),
                    "A.2 at the stored scale: α I on the block (α the stored diagonal's mean magnitude), every other entry a "
                    "stored entry from outside the block", True),
           _figure2(lambda M, cls, rng: rng.permutation(M.ravel()).reshape(M.shape),
                    "no A.2 pattern: the stored map's entries shuffled over the whole matrix", False),
           _figure2(_keys_permuted, "codes crossed: the A.2 block's key columns permuted at random", False))
FAITHFUL = World("faithful: the stored runs, resampled within each H (and N)", True, resample)
NO_FLOOR = ("no floor: the resampled H < q runs given the outcomes of stored H ≥ q runs (their floors kept)", False)
SHORT21 = _short("prop21", "p21_q")

WORLDS = {
    "5-floor-prop21": (FAITHFUL, World(*NO_FLOOR, _outcomes("prop21", "p21_q", BELOW, UP))),
    "7-floor-prop3": (FAITHFUL, World(*NO_FLOOR, _outcomes("prop3", "p3_q", BELOW, UP))),
    "5-reach-prop21": (FAITHFUL, _solved("prop21", "p21_q", AT_Q, "H = q"), SHORT21),
    "5-reach-fraction": (FAITHFUL, _solved("prop21", "p21_q", UP, "H ≥ q"), SHORT21, _short("prop21", "p21_q", LUCK),
                         _short("prop21", "p21_q", 0.1)),
    "7-below-floor-prop3": (FAITHFUL, _solved("prop3", "p3_q", UP, "H ≥ q"), _short("prop3", "p3_q")),
    "control-one-head": (FAITHFUL, _solved("control", "p21_q", ONE, "H = 1 control"),
                         World("one head on the square link: the control's resampled H = 1 runs replaced by stored "
                               "Prop. 21 H = 1 runs", False, _outcomes("control", "p21_q", ONE, ONE, donor="prop21"))),
    "4-scaling": (FAITHFUL,
                  _growth(np.log, "growth like ln N (Thm 4's polylog): the resampled counts of each N rescaled so that "
                                  "they grow like ln N"),
                  _growth(np.sqrt, "growth like √N: the resampled counts of each N rescaled so that their fitted power "
                                   "is 1/2, counts over the cap never crossed"),
                  _growth(lambda N: N, "growth linear in N (an FFN's, Thm 6): the resampled counts rescaled so that "
                                       "their fitted power is 1, counts over the cap never crossed")),
    **{rid: FIGURE2 for rid in ("figure2-diagonal", "figure2-outside", "figure2-top", "figure2-sign")},
}
