"""The power of a claim's rule, measured the one way: the row's own measure, decided by its own rule, on simulated
results drawn from worlds the row declares as data, and the shares of pass, FAIL and censored with their Monte
Carlo error.

A chapter declares, in its claims/power.py, `WORLDS = {row id: (World, ...)}`: for each row at least one world with
the theorem's mechanism (`mechanism=True`, the faithful world) and at least one without it. A faithful world is
made by resampling the stored runs, never from the rule's own assumptions: `resample_seeds` draws, independently in
each stored point (each N, each grid cell), its seeds with replacement, and every per-seed number of the point
follows its seed, so the spread of each cell is its own. A world without the mechanism relabels or transforms the
stored runs (`World.draw` is any function of (P, results, rng) that returns results shaped like the stored ones).

`power_table` runs every declared row in every one of its worlds; the chapter computes it once, when it computes
its claims (Chapter.finish stores it as power.json beside claims.json, under the manifest), and a page renders the
stored table (`to_markdown`).

    >>> import numpy as np
    >>> from lib.core.claims import Measured, Row
    >>> from lib.core.rules import AtLeast
    >>> results = {"x": {"spec": {"seeds": 4}, "result": {"gain": [1.0, 1.2, 0.9, 1.1]}}}
    >>> row = Row("gain", "claim", "s", "the gain is positive", AtLeast("mean gain", 0.5),
    ...           lambda P, r: Measured(float(np.mean(r["x"]["result"]["gain"]))))
    >>> flat = World("no gain: every run's gain minus the mean", False,
    ...              lambda P, r, rng: shifted(resample_seeds(P, r, rng), "gain", -1.05))
    >>> [(t["world"][:8], t["pass"]) for t in power_table([row], {"gain": (faithful(), flat)}, {}, results, draws=50)]
    [('faithful', 1.0), ('no gain:', 0.0)]
"""
from __future__ import annotations

import copy
import math
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

import numpy as np

from lib.core import gate
from lib.core.tables import markdown_table

OUTCOMES = ("pass", "fail", "censored")
DRAWS = 200          # simulated results per world at the paper's scale: a share's Monte Carlo SE at most 0.035
QUICK_DRAWS = 40     # per world for any other profile (a scale model, on 2 CPU cores): SE at most 0.08


def draws_for(profile: str) -> int:
    """How many simulated results per world a profile's power table draws."""
    return DRAWS if profile == "paper" else QUICK_DRAWS


ROLES = ("faithful", "with", "without")


@dataclass(frozen=True)
class World:
    """A world a row's rule is run in: its name in words (how it is made), whether the theorem's mechanism is in
    it, and `draw(P, results, rng)`, one simulated result set shaped like the stored one. Its `role` (lib.core.gate
    reads it): "faithful" (the stored runs resampled: `faithful()`), "with" (the stored runs moved to what the
    theorem predicts) or "without" (the mechanism taken away); by default a world with the mechanism whose name
    starts with "faithful" is the faithful one, any other with the mechanism is "with"."""
    name: str
    mechanism: bool
    draw: Callable
    role: str = ""

    def __post_init__(self):
        if not self.role:
            object.__setattr__(self, "role", ("faithful" if self.name.startswith("faithful") else "with")
                               if self.mechanism else "without")
        if self.role not in ROLES or (self.role == "without") == self.mechanism:
            raise ValueError(f"world {self.name!r}: role {self.role!r} with mechanism={self.mechanism}: a role is "
                             "one of faithful, with (both with the mechanism) or without")


# How many times its stored seeds (runs) each cell draws: 1 but inside `seeds_times(k)`, which the power harness uses
# to ask what more seeds per cell would decide; `_resampled` counts the draws that honoured it.
_TIMES = [1]
_resampled = [0]


@contextmanager
def seeds_times(k: int):
    """Within it, `resample_seeds` and `resample_cells` draw k times the stored runs of every point or cell."""
    _TIMES.append(int(k))
    try:
        yield
    finally:
        _TIMES.pop()


def faithful(name: str = "faithful: the stored runs, resampled by seed within each point",
             fields: tuple = ()) -> World:
    """The faithful world: the stored runs resampled by seed, point by point (`resample_seeds`; `fields`: the spec
    fields that count a point's runs, where they are not named *seeds)."""
    return World(name, True, partial(resample_seeds, fields=fields) if fields else resample_seeds)


def seed_count(spec: dict, fields: tuple = ()) -> int | None:
    """A stored point's number of runs: its spec's field named *seeds (n_seeds, seeds, tr_seeds...) or one of
    `fields` (trials, say), if one is > 1."""
    counts = {v for k, v in spec.items() if (k in fields or k.endswith("seeds")) and isinstance(v, int)
              and not isinstance(v, bool) and v > 1}
    return max(counts) if counts else None


def _records(node):
    """Every stored record in a nested results dict (a dict with "spec" and "result"), as (parent, key) pairs."""
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, dict) and "spec" in v and "result" in v:
                yield node, k
            else:
                yield from _records(v)


def _take(value, k: int, idx: np.ndarray):
    """`value` with its seed axis (the first axis of length k) indexed by idx; a value without one as it is."""
    if isinstance(value, dict):
        return {key: _take(v, k, idx) for key, v in value.items()}
    if not isinstance(value, list):
        return value
    try:
        a = np.asarray(value, dtype=float)          # JSON's null (a NaN stored) reads as NaN
    except (ValueError, TypeError):
        return value
    axis = next((i for i, n in enumerate(a.shape) if n == k), None)
    return value if axis is None else np.take(a, idx, axis=axis).tolist()


def resample_seeds(P: dict, results: dict, rng: np.random.Generator, fields: tuple = ()) -> dict:
    """A copy of `results` in which each stored point's seeds are drawn with replacement, independently point by
    point: every number with a seed axis (the first axis as long as the spec's seed count, `seed_count`) is
    re-indexed by the same draw, so that a seed's numbers stay together. Points with one seed are left as they are."""
    out = copy.deepcopy(results)
    for parent, key in _records(out):
        rec = parent[key]
        k = seed_count(rec["spec"], fields)
        if k:
            if not _has_axis(rec["result"], k):
                raise ValueError(f"point {key}: its spec counts {k} runs but no stored number has an axis of {k}: "
                                 "its runs are stored otherwise (flattened over a grid, say): give the chapter a "
                                 "resampler of its own")
            _resampled[0] += 1
            parent[key] = {**rec, "result": _take(rec["result"], k, rng.integers(0, k, size=k * _TIMES[-1]))}
    return out


def _has_axis(value, k: int) -> bool:
    """Whether any number in a result has an axis of length k."""
    if isinstance(value, dict):
        return any(_has_axis(v, k) for v in value.values())
    try:
        return isinstance(value, list) and k in np.asarray(value, dtype=float).shape
    except (ValueError, TypeError):
        return False


def resample_cells(results: dict, rng: np.random.Generator, points: Callable, cells: Callable,
                   run_axis: dict | None = None, shared: tuple = ()) -> dict:
    """A copy of `results` in which each point's runs, stored flattened over a grid (one list entry per run, every
    cell's runs side by side), are drawn with replacement within their cell. `points(results)` yields the (container,
    key) of every such point (in the copy it is given); `cells(result)` gives each run's cell label (its H, its T,
    its (N, width)...). Every list whose run axis (`run_axis[field]`, else 0) is as long as the run count is
    re-indexed by the same draw, so a run's numbers stay together; `shared` names lists of the point's, not its runs'.

        >>> r = {"p": {"spec": {}, "result": {"H": [1, 1, 2, 2], "loss": [0.1, 0.2, 0.3, 0.4]}}}
        >>> sim = resample_cells(r, np.random.default_rng(0), lambda r: [(r, "p")], lambda res: res["H"])
        >>> sim["p"]["result"]["H"], set(sim["p"]["result"]["loss"][:2]) <= {0.1, 0.2}
        ([1, 1, 2, 2], True)
    """
    out = copy.deepcopy(results)
    run_axis = run_axis or {}
    times = _TIMES[-1]
    for parent, key in points(out):
        rec = parent[key]
        labels = np.asarray(cells(rec["result"]))
        idx = np.repeat(np.arange(len(labels)), times)     # with k times the runs, each run's place holds k draws
        for lab in np.unique(labels, axis=0):
            cell = np.flatnonzero(np.all((labels == lab).reshape(len(labels), -1), axis=1))
            at = np.flatnonzero(np.isin(idx, cell))
            idx[at] = rng.choice(cell, len(at))
        _resampled[0] += 1
        r = dict(rec["result"])
        for k, v in r.items():
            axis = run_axis.get(k, 0)
            if k in shared or not isinstance(v, list):
                continue
            a = np.asarray(v)
            if a.ndim > axis and a.shape[axis] == len(labels):
                a = a.astype(float) if a.dtype == object else a          # a run that never crossed (null): NaN
                r[k] = np.take(a, idx, axis=axis).tolist()
        parent[key] = {**rec, "result": r}
    return out


def shifted(results: dict, field: str, by: float) -> dict:
    """`results` with `by` added to every stored number named `field` (a world whose effect is moved by `by`)."""
    out = copy.deepcopy(results)
    for parent, key in _records(out):
        r = parent[key]["result"]
        if field in r:
            r[field] = (np.asarray(r[field], float) + by).tolist()
    return out


def _fresh(node):
    """A copy of a nested results dict's dicts (its lists shared): a world may then replace any value in it without
    touching the stored results or another draw."""
    return {k: _fresh(v) for k, v in node.items()} if isinstance(node, dict) else node


def edited(name: str, base: World, mechanism: bool = False, role: str = "", **edits) -> World:
    """A world declared as data: the draw of `base` (the faithful world, say), then every stored number named in
    `edits` replaced, in each record that has it, by edits[field](values, result): the values as a float array and the
    record's result (its other fields). A swap is `swapped`.

        >>> r = {"p": {"spec": {"seeds": 2}, "result": {"gain": [1.0, 3.0], "base": [0.5, 0.5]}}}
        >>> w = edited("no gain: each run's gain is its base", faithful(), gain=lambda v, res: res["base"])
        >>> w.draw({}, r, np.random.default_rng(0))["p"]["result"]["gain"], r["p"]["result"]["gain"], w.role
        ([0.5, 0.5], [1.0, 3.0], 'without')
    """
    def draw(P: dict, results: dict, rng: np.random.Generator) -> dict:
        sim = _fresh(base.draw(P, results, rng))
        for parent, key in _records(sim):
            r = parent[key]["result"]
            for field in set(edits) & set(r):
                r[field] = np.asarray(edits[field](np.asarray(r[field], float), r), float).tolist()
        return sim
    return World(name, mechanism, draw, role)


def swapped(name: str, base: World, a: str, b: str, mechanism: bool = False, role: str = "") -> World:
    """A world declared as data: the draw of `base`, then the stored fields `a` and `b` exchanged in every record that
    has both (two arms' runs swapped: the lin and the log head's, GD's and AdamW's)."""
    def draw(P: dict, results: dict, rng: np.random.Generator) -> dict:
        sim = _fresh(base.draw(P, results, rng))
        for parent, key in _records(sim):
            r = parent[key]["result"]
            if a in r and b in r:
                r[a], r[b] = r[b], r[a]
        return sim
    return World(name, mechanism, draw, role)


def outcome(row, *data) -> str | None:
    """"pass", "fail" or "censored": the row's own measure decided by its own rule (None: not measured)."""
    v = row.decide(*data)
    return None if v is None else "censored" if v.censored else "pass" if v.passed else "fail"


def rates(row, world: World, P: dict, results: dict, draws: int = DRAWS, seed: int = 0,
          data: Callable | None = None) -> dict:
    """One row in one world: the share of `draws` simulated result sets on which it passes, FAILs, is censored (or
    is not measured), and the Monte Carlo SE of the largest share. data(P, results): the row's arguments, where a
    chapter's measures take others than (P, results)."""
    rng = np.random.default_rng(seed)
    counts = dict.fromkeys(OUTCOMES + ("unmeasured",), 0)
    for _ in range(draws):
        sim = world.draw(P, results, rng)
        got = outcome(row, *(data(P, sim) if data else (P, sim)))
        counts[got or "unmeasured"] += 1
    shares = {k: counts[k] / draws for k in counts}
    worst = max(shares[k] * (1 - shares[k]) for k in OUTCOMES)
    return {"row": row.id, "world": world.name, "mechanism": world.mechanism, "role": world.role, "draws": draws,
            **{k: shares[k] for k in OUTCOMES}, **({"unmeasured": shares["unmeasured"]} if counts["unmeasured"] else {}),
            "se": round(math.sqrt(worst / draws), 4)}


def power_table(rows: list, worlds: dict, P: dict, results: dict, draws: int = DRAWS, seed: int = 0,
                data: Callable | None = None, more_seeds: bool = True) -> list[dict]:
    """Every row that declares worlds and that this run measures, in each of its worlds (rows in their order, worlds
    in theirs). A row must declare a world with the mechanism and one without it. For a claim row whose verdict its
    power leaves undecided (lib.core.gate), `what_more_seeds` adds its worlds redrawn with more seeds per cell
    (more_seeds=False: not)."""
    by_id = {r.id: r for r in rows}
    unknown = set(worlds) - set(by_id)
    if unknown:
        raise ValueError(f"worlds declared for rows that do not exist: {sorted(unknown)}")
    out = []
    for i, row in enumerate(rows):
        ws = worlds.get(row.id, ())
        if not ws:
            continue
        if not any(w.mechanism for w in ws) or all(w.mechanism for w in ws):
            raise ValueError(f"row {row.id}: its worlds need one with the theorem's mechanism and one without it")
        stored = outcome(row, *(data(P, results) if data else (P, results)))
        if stored is None:
            continue                                    # not measured on this run: no row of its claim check
        here = [rates(row, w, P, results, draws, seed + 1000 * i + j, data) for j, w in enumerate(ws)]
        out += here
        if more_seeds and row.kind == "claim" and (stored == "censored" or gate.why(
                {"id": row.id, "kind": "claim", "passed": stored == "pass"}, here)):
            out += what_more_seeds(row, ws, P, results, max(draws // 2, min(draws, 20)), seed + 1000 * i, data)
    return out


def what_more_seeds(row, worlds: tuple, P: dict, results: dict, draws: int, seed: int = 0,
                    data: Callable | None = None) -> list[dict]:
    """The row's worlds redrawn with k times the stored seeds per cell (`seeds_times`), for the k the search needs:
    k = MAX_TIMES first, then halving towards the smallest k at which the gate (lib.core.gate.holds) lets a verdict
    stand. Each entry carries `seeds_times`. [] where no world resamples seeds (more seeds would change nothing)."""
    def at(k):
        before = _resampled[0]
        with seeds_times(k):
            got = [{**rates(row, w, P, results, draws, seed + 97 * k + j, data), "seeds_times": k}
                   for j, w in enumerate(worlds)]
        return got, _resampled[0] > before

    top, resampled = at(gate.MAX_TIMES)
    if not resampled:
        return []
    out, lo, hi = list(top), 1, gate.MAX_TIMES
    if gate.holds(row.id, top, gate.MAX_TIMES):
        while hi - lo > 1:                              # the smallest k that decides, by halving
            mid = (lo + hi) // 2
            got, _ = at(mid)
            out += got
            lo, hi = (lo, mid) if gate.holds(row.id, got, mid) else (mid, hi)
    return out


def to_markdown(table: list[dict], ids: list[str] | None = None) -> str:
    """The power table a page shows: per row and world, the shares of pass, FAIL and censored (± their Monte Carlo
    SE), in the order the rows and their worlds are declared."""
    rows = [t for t in table if (ids is None or t["row"] in ids) and t.get("unmeasured", 0) < 1
            and t.get("seeds_times", 1) == 1]
    if not rows:
        return "No row of this run declares its power."
    pct = lambda x: f"{x:.0%}" if x in (0, 1) or round(x, 2) == x else f"{x:.1%}"    # 99.5% is not 100%
    return markdown_table(["row", "world", "mechanism", "pass", "FAIL", "censored"],
                          [[f"`{t['row']}`", t["world"], "yes" if t["mechanism"] else "no",
                            f"{pct(t['pass'])} ± {pct(t['se'])}", pct(t["fail"]), pct(t["censored"])]
                           for t in rows])
