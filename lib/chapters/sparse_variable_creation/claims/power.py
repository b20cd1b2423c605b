"""The worlds the planted-AND and parity rows' power is measured in (lib.core.power): each row's own measure and rule
run on result sets drawn from the stored runs. A point holds one T, its trials flattened over the grid of m, so the
faithful world resamples the trials within each (T, m) cell (lib.core.power.resample_cells); a parity point's seeds
are resampled by seed. A world without the theorem's mechanism (its name says which) gives some T another T's runs
(`from_T`), edits the faithful draw, or draws every cell from a success probability (`_drawn`): its T's smallest m's,
or the logistic law fitted to this run's cells (results.fit_law) with m* moved, in proportion to T or to the paper's
grid, to show what that grid can decide. Page-side: no computation imports this module.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> from lib.chapters.sparse_variable_creation.claims import ROWS
    >>> from lib.core.power import power_table
    >>> [(t["world"][:22], t["pass"]) for t in power_table(ROWS, {"A16": WORLDS["A16"]}, P, results, draws=10)]
    [('faithful: the stored t', 1.0), ('no variable: each succ', 0.0)]
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from lib.chapters.sparse_variable_creation.claims import LARGE_T, SMALL_T
from lib.chapters.sparse_variable_creation.results import PAPER, and_table, cells, fit_law, mstar_of
from lib.core.claims import Scope
from lib.core.power import World, resample_cells, resample_seeds


def resample(P: dict, results: dict, rng) -> dict:
    """The faithful world: each (T, m) cell's trials drawn with replacement from that cell alone ("checks", the
    validated iterations, are the point's)."""
    return resample_cells({"and": results["and"]}, rng, lambda r: [(r["and"], T) for T in r["and"]],
                          lambda res: res["m"], shared=("checks",))


def parity_seeds(P: dict, results: dict, rng) -> dict:
    """The faithful world of the parity rows: each T's seeds drawn with replacement (lib.core.power.resample_seeds)."""
    return resample_seeds(P, {"parity": results["parity"]}, rng)


def from_T(faithful, key: str, scope: Scope, source=None):
    """The faithful draw with every T of `key` in `scope` given the stored runs of one T: source(every T) where
    given, else a T of the scope drawn per run."""
    def draw(P, results, rng):
        runs, Ts = results[key], sorted(results[key])
        ours = scope(Ts)
        src = source(Ts) if source else ours[rng.integers(len(ours))]
        return faithful(P, {key: {**runs, **{T: {**runs[T], "result": runs[src]["result"]} for T in ours}}}, rng)
    return draw


def _drawn(grid: dict, p, rng) -> dict:
    """AND results on a grid (and_T, and_m, and_trials), every trial a success with probability p(T, m)."""
    out = {}
    for T in grid["and_T"]:
        m = np.repeat(grid["and_m"], grid["and_trials"])
        out[T] = {"result": {"m": m.tolist(), "success": (rng.random(len(m)) < p(T, m)).tolist()}}
    return {"and": out}


def flat_in_m(P: dict, results: dict, rng) -> dict:
    """Every cell of a T drawn with the success fraction of its smallest m."""
    first = {T: t["success"][0].mean() for T, t in and_table(results).items()}
    return _drawn(P, lambda T, m: np.full(len(m), first[T]), rng)


def law(name: str, grid: dict | None = None, mstar=lambda f, T, T0: mstar_of(f, T)):
    """Cells drawn from the logistic law `name` fitted to this run's cells, on `grid` (None: this run's), its m* at T
    mstar(fit, T, the smallest T)."""
    def draw(P, results, rng):
        f, T0 = fit_law(cells(and_table(results)), name), min(results["and"])
        return _drawn(grid or P, lambda T, m: expit((m - mstar(f, T, T0)) / f["s"]), rng)
    return draw


def no_variable(P: dict, results: dict, rng) -> dict:
    """The faithful draw, each success then given the [CLS] attention and top 3 of a failed trial of its T drawn at
    random (of every T's failures, where its T has none)."""
    sim = resample(P, results, rng)
    keys = ("planted_attention", "top3_is_planted")
    failed = {T: {k: np.asarray(rec["result"][k])[~np.asarray(rec["result"]["success"], bool)] for k in keys}
              for T, rec in results["and"].items()}
    for T, rec in sim["and"].items():
        r, s = rec["result"], np.asarray(rec["result"]["success"], bool)
        pool = failed[T] if len(failed[T][keys[0]]) else {k: np.concatenate([f[k] for f in failed.values()]) for k in keys}
        if s.any() and len(pool[keys[0]]):
            pick = rng.integers(0, len(pool[keys[0]]), s.sum())
            for k in keys:
                r[k] = np.array(r[k], dtype=pool[k].dtype)
                r[k][s] = pool[k][pick]
    return sim


def underfit(P: dict, results: dict, rng) -> dict:
    """The faithful draw, each failed trial then given the training numbers of a model that predicts the majority
    label (accuracy 7/8, the cross-entropy of a 1/8 label rate)."""
    sim = resample(P, results, rng)
    for rec in sim["and"].values():
        r = rec["result"]
        failed = ~np.asarray(r["success"], bool)
        r["final_train_acc"] = np.where(failed, 7 / 8, r["final_train_acc"]).tolist()
        r["min_train_loss"] = np.where(failed, -(np.log(7 / 8) * 7 + np.log(1 / 8)) / 8, r["min_train_loss"]).tolist()
    return sim


def unlearnt(P: dict, results: dict, rng) -> dict:
    """The faithful draw with every seed's test and online accuracy held at chance, 1/2."""
    sim = parity_seeds(P, results, rng)
    for rec in sim["parity"].values():
        r = rec["result"]
        r["test_acc"], r["acc"] = [0.5] * len(r["test_acc"]), (np.asarray(r["acc"], float) * 0 + 0.5).tolist()
    return sim


FAITHFUL = World("faithful: the stored trials, resampled within each $(T, m)$ cell", True, resample)
NO_SHIFT = World("$m^*$ does not move with $T$: every $T$'s cells resampled from one stored $T$'s (drawn per run)", False,
                 from_T(resample, "and", Scope("T")))
LINEAR = World("$m^*$ in proportion to $T$: the log law fitted to this run's cells, its $m^*$ at the smallest $T$ "
               "scaled with $T$", False, law("log", mstar=lambda f, T, T0: mstar_of(f, T0) * T / T0))
LINEAR_40 = World("$m^* = 0.4\\,T$ (below the grid's smallest $m$ at the smallest $T$): the log law's logistic, moved",
                  False, law("log", mstar=lambda f, T, T0: 0.4 * T))
FLAT = World("success does not rise with $m$: every cell drawn from its $T$'s smallest $m$", False, flat_in_m)
NO_VARIABLE = World("no variable: each success given the attention of a failed run of its $T$", False, no_variable)
PAPER_LOG = World("the paper's grid (11 $T$, 16 $m$, 50 trials), drawn from the log law fitted to this run's cells",
                  True, law("log", PAPER))
PAPER_SQRT = World("the paper's grid, drawn from the $\\sqrt T$ law fitted to this run's cells", False,
                   law("power", PAPER))
SQRT = World("$m^* = a + b\\sqrt T$: this run's grid drawn from the $\\sqrt T$ law fitted to its cells", True,
             law("power"))

UNDERFIT = World("failures underfit: each failed trial given a majority-label model's training accuracy and loss",
                  False, underfit)
PARITY = World("faithful: the stored parity seeds, resampled within each $T$", True, parity_seeds)
UNLEARNT = World("no seed learns: every seed's accuracy held at chance", False, unlearnt)
SAME_T = World("the transition does not move with $T$: every $T$ up to 50 drawn from one of them (per run)", False,
               from_T(parity_seeds, "parity", SMALL_T))
BEYOND = World("beyond $T = 50$ as at the largest $T$ up to 50: its seeds drawn from that $T$'s", False,
               from_T(parity_seeds, "parity", LARGE_T, lambda Ts: max(SMALL_T(Ts))))

WORLDS = {
    "A10": (FAITHFUL, UNDERFIT),
    "A11a": (FAITHFUL, FLAT, LINEAR),
    "A11b": (FAITHFUL, SQRT, LINEAR, LINEAR_40),
    "A11c": (FAITHFUL, LINEAR, NO_SHIFT, PAPER_LOG, PAPER_SQRT),
    "A12": (FAITHFUL, FLAT, LINEAR),
    "A13a": (FAITHFUL, FLAT),
    "A13b": (FAITHFUL, NO_SHIFT),
    "A14a": (PARITY, UNLEARNT),
    "A14b": (PARITY, SAME_T),
    "A15": (PARITY, BEYOND),
    "A16": (FAITHFUL, NO_VARIABLE),
}
