"""The worlds in which each claim row's own rule is run (lib.core.power.power_table; page.power): a faithful world
and at least one without the row's mechanism, each named by how it is made. The random directions are the seeds of a
robustness point (its spec counts them as `n_directions`); t* and beta* have none (the counter machine's input is
fixed), so a rerun gives the stored numbers and their rows' faithful world is the stored run itself. Page-side: no
computation imports this module.

    >>> from lib.chapters import stored; P, results = stored("turing_simulation")   # the committed paper results
    >>> from lib.chapters.turing_simulation.claims import ROWS
    >>> from lib.core.power import power_table
    >>> [(t["row"], t["mechanism"], t["pass"]) for t in power_table(ROWS, WORLDS, P, results, draws=10)][4:7]
    [('7-random-nocorr', True, 1.0), ('7-random-nocorr', False, 0.0), ('7-random-nocorr', True, 1.0)]
"""
from __future__ import annotations

import numpy as np

from lib.core.power import World, resample_seeds

FIELDS = ("n_directions",)   # the spec field that counts a robustness point's runs (its random directions)


def directions(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """Each robustness point's directions drawn with replacement (the core resampler on those points alone)."""
    return {**results, "robust": resample_seeds(P, {"robust": results["robust"]}, rng, fields=FIELDS)["robust"]}


def swapped(section: str, into: bool, resample: bool = True):
    """A draw: the other arm's result at each T filed as the `into` arm's, after resampling directions (`resample`)."""
    def draw(P, results, rng):
        sec = (directions(P, results, rng) if resample else results)[section]
        return {**results, section: {**sec, **{(T, into): sec[(T, c)] for T, c in sec if c != into}}}
    return draw


def permuted(section: str, field: str, arm: bool):
    """A draw: the stored `field` of the `arm` points of `section` at randomly permuted T (no order in T)."""
    def draw(P, results, rng):
        keys = sorted(k for k in results[section] if k[1] == arm)
        vals = [results[section][k]["result"][field] for k in keys]
        out = dict(results[section])
        for k, i in zip(keys, rng.permutation(len(keys))):
            out[k] = {**out[k], "result": {**out[k]["result"], field: vals[i]}}
        return {**results, section: out}
    return draw


def half_directions(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """The stored robustness points with half their directions (at least one), drawn with replacement per point."""
    out = {}
    for key, rec in results["robust"].items():
        r = rec["result"]["r_random"]
        out[key] = {**rec, "result": {**rec["result"], "r_random": rng.choice(r, max(1, len(r) // 2)).tolist()}}
    return {**results, "robust": out}


RESAMPLED = World("faithful: the stored runs, their directions resampled within each T", True, directions)
STORED = World("faithful: the stored run itself (deterministic: the counter machine's input is fixed, so a rerun "
               "gives the same numbers)", True, lambda P, results, rng: results)
WORLDS = {
    "7-polylog-random": (
        RESAMPLED,
        World("no correction: the uncorrected runs in place of the corrected ones at each T (directions resampled)",
              False, swapped("robust", True))),
    "7-collapse": (
        STORED,
        World("no order in T (a permuted-T null): the stored t* with their T labels permuted", False,
              permuted("robust", "t_struct", False))),
    "7-random-nocorr": (
        RESAMPLED,
        World("no collapse: the corrected runs in place of the uncorrected ones at each T (directions resampled)",
              False, swapped("robust", False)),
        World("faithful, half the directions: the stored runs, half as many directions drawn within each T", True,
              half_directions)),
    "8-beta": (
        STORED,
        World("no growth in ln T (a permuted-T null): the stored β* with their T labels permuted", False,
              permuted("softmax", "beta_star", True)),
        World("no correction: the uncorrected β* in place of the corrected ones", False,
              swapped("softmax", True, resample=False))),
    "8-beta-nocorr": (
        STORED,
        World("no correction effect: the corrected β* in place of the uncorrected ones", False,
              swapped("softmax", False, resample=False))),
}
