"""The worlds the planted-AND and parity rows' power is measured in (lib.core.power): each row's own measure and rule
run on result sets drawn from the stored runs. A point holds one T, its trials flattened over the grid of m, so the
faithful world resamples the trials within each (T, m) cell (lib.core.power.resample_cells); a parity point's seeds
are resampled by seed. A world without the theorem's mechanism (its name says which) gives some T another T's runs
(`from_T`), deals the parity seeds to the T at random (`shuffled_T`), edits the faithful draw, or draws every cell
from a success probability (`_drawn`): its T's smallest m's, or a logistic law fitted to this run's cells with m*
moved. A world with the mechanism draws this run's grid from the log law fitted to its cells (`LOG`: the stored runs
moved to what the theorem predicts), or a larger grid from the log and the sqrt T law (`GRIDS`), to show which grid
decides A11c. A11b's worlds in which m* grows in proportion to T keep the stored curves' shape (`scaled`: the success
a logistic function of ln m, whose width grows with m*; it fits the stored cells better than a logistic in m, by e^5
in likelihood on the paper profile): a logistic in m of fixed width, at m* = 0.4 T, passes A11b's rule 30% of the
time, its curves steepening with T where the stored ones flatten. Page-side: no computation imports this module.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> from lib.chapters.sparse_variable_creation.claims import ROWS
    >>> from lib.core.power import power_table
    >>> [(t["world"][:22], t["pass"]) for t in power_table(ROWS, {"A16": WORLDS["A16"]}, P, results, draws=10)]
    [('faithful: the stored t', 1.0), ('no variable: each succ', 0.0)]
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.special import expit

from lib.chapters.sparse_variable_creation.claims import FIT_LOSS, LARGE_T, SMALL_T
from lib.chapters.sparse_variable_creation.results import PAPER, and_table, cells, exponent_fit, fit_law, mstar_of
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


def scaled(c: float | None = None):
    """Cells drawn from m* = c T (c None: the fitted m* at the smallest T, scaled with T), the success the logistic
    function of ln m - ln m*(T) fitted to this run's cells (results.exponent_fit) with its exponent set to 1. Where
    success does not rise with m in that fit, it has no m* to scale: the fitted curve, flat or falling in m, moves
    the same way (the smallest T's curve shifted by ln(T / T0) in ln m; with c, centred on ln(c T))."""
    def draw(P, results, rng):
        f, T0 = exponent_fit(cells(and_table(results))), min(results["and"])
        if not f["rise"] > 0:
            b0, bm, bT = f["coef"]
            logit = ((lambda T, m: bm * (np.log(m) - np.log(c * T))) if c else
                     (lambda T, m: b0 + bT * np.log(T0) + bm * (np.log(m) - np.log(T / T0))))
            return _drawn(P, lambda T, m: expit(logit(T, m)), rng)
        ln_c = np.log(c) if c else f["ln_c"] + (f["alpha"] - 1) * np.log(T0)
        return _drawn(P, lambda T, m: expit((np.log(m) - ln_c - np.log(T)) / f["sigma"]), rng)
    return draw


def shuffled_T(P: dict, results: dict, rng) -> dict:
    """The faithful parity draw with the seeds of every T up to 50, pooled, dealt back to those T at random (each T
    keeps its number of seeds)."""
    sim = parity_seeds(P, results, rng)
    runs = sim["parity"]
    Ts = SMALL_T(sorted(runs))
    n = [len(runs[T]["result"]["test_acc"]) for T in Ts]
    order = rng.permutation(sum(n))
    for key in ("acc", "loss", "test_acc"):
        pool = np.concatenate([np.asarray(runs[T]["result"][key], float) for T in Ts])[order]
        for T, part in zip(Ts, np.split(pool, np.cumsum(n)[:-1])):
            runs[T]["result"][key] = part.tolist()
    return sim


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


def fits(P: dict, results: dict, rng) -> dict:
    """The faithful draw with every trial fitting its training set, as App. C.1 reports of every run: training
    accuracy 1 and the lowest training loss below the bar (FIT_LOSS) where it was not."""
    sim = resample(P, results, rng)
    for rec in sim["and"].values():
        r = rec["result"]
        r["final_train_acc"] = [1.0] * len(r["final_train_acc"])
        r["min_train_loss"] = np.minimum(r["min_train_loss"], FIT_LOSS / 2).tolist()
    return sim


def unlearnt(P: dict, results: dict, rng) -> dict:
    """The faithful draw with every seed's test and online accuracy held at chance, 1/2."""
    sim = parity_seeds(P, results, rng)
    for rec in sim["parity"].values():
        r = rec["result"]
        r["test_acc"], r["acc"] = [0.5] * len(r["test_acc"]), (np.asarray(r["acc"], float) * 0 + 0.5).tolist()
    return sim


FAITHFUL = World("faithful: the stored trials, resampled within each $(T, m)$ cell", True, resample)
LOG = World("$m^* = a + b\\ln T$: this run's grid drawn from the log law fitted to its cells", True, law("log"))
NO_SHIFT = World("$m^*$ does not move with $T$: every $T$'s cells resampled from one stored $T$'s (drawn per run)", False,
                 from_T(resample, "and", Scope("T")))
LINEAR = World("$m^*$ in proportion to $T$: the log law fitted to this run's cells, its $m^*$ at the smallest $T$ "
               "scaled with $T$", False, law("log", mstar=lambda f, T, T0: mstar_of(f, T0) * T / T0))
PROPORTIONAL = World("$m^*$ in proportion to $T$, the stored curves' shape: $m^*$ at the smallest $T$ scaled with $T$",
                     False, scaled())
PROPORTIONAL_40 = World("$m^* = 0.4\\,T$ (below the grid's smallest $m$ at the smallest $T$), the stored curves' shape",
                        False, scaled(0.4))
FLAT = World("success does not rise with $m$: every cell drawn from its $T$'s smallest $m$", False, flat_in_m)
NO_VARIABLE = World("no variable: each success given the attention of a failed run of its $T$", False, no_variable)
SQRT = World("$m^* = a + b\\sqrt T$: this run's grid drawn from the $\\sqrt T$ law fitted to its cells", True,
             law("power"))
FOUR_T = {"and_T": [100, 200, 400, 800], "and_m": list(range(50, 201, 25)), "and_trials": 50}
GRIDS = {"T = 100, 200, 400, 800 at m = 50 to 200 in steps of 25, 50 trials": FOUR_T,   # plain words: the first
         "the paper's grid (11 T to 800, 16 m, 50 trials)": PAPER}                        # screen quotes them
GRID_WORLDS = {(words, name): World(f"{words}, drawn from the {law_words} law fitted to this run's cells", name == "log",
                                    law(name, grid))
               for words, grid in GRIDS.items() for name, law_words in (("log", "log"), ("power", "√T"))}

FITS = World("training fits, as App. C.1 reports: every trial given training accuracy 1 and a loss below the bar",
             True, fits)
UNDERFIT = World("failures underfit: each failed trial given a majority-label model's training accuracy and loss",
                  False, underfit)
PARITY = World("faithful: the stored parity seeds, resampled within each $T$", True, parity_seeds)
UNLEARNT = World("no seed learns: every seed's accuracy held at chance", False, unlearnt)
SHUFFLED = World("the transition does not move with $T$: the resampled seeds of every $T$ up to 50 dealt to those $T$ "
                 "at random", False, shuffled_T)
BEYOND = World("beyond $T = 50$ as at the largest $T$ up to 50: its seeds drawn from that $T$'s", False,
               from_T(parity_seeds, "parity", LARGE_T, lambda Ts: max(SMALL_T(Ts))))

WORLDS = {
    "A10": (FAITHFUL, FITS, UNDERFIT),
    "A11a": (FAITHFUL, LOG, FLAT, LINEAR),
    "A11b": (FAITHFUL, LOG, SQRT, LINEAR, PROPORTIONAL, PROPORTIONAL_40),
    "A11c": (FAITHFUL, LOG, replace(SQRT, mechanism=False, role="without"), LINEAR, NO_SHIFT, *GRID_WORLDS.values()),
    "A12": (FAITHFUL, LOG, FLAT, LINEAR),
    "A13a": (FAITHFUL, LOG, FLAT),
    "A13b": (FAITHFUL, LOG, NO_SHIFT),
    "A14a": (PARITY, UNLEARNT),
    "A14b": (PARITY, SHUFFLED),
    "A15": (PARITY, BEYOND),
    "A16": (FAITHFUL, NO_VARIABLE),
}
