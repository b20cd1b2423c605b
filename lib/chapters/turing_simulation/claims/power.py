"""The worlds in which the robustness claims' own rules are run (lib.core.power.power_table; page.power): for each
row, the stored runs resampled (the mechanism in) and the stored runs relabelled so that the mechanism is out.
Page-side: no computation imports this module.

- `7-polylog-random` and `7-random-nocorr` read the random directions, the seeds of a robustness point (its spec
  counts them as `n_directions`): the faithful world draws each point's directions with replacement, independently
  per T and correction. Without the mechanism, the other arm's runs stand in at each T: the uncorrected radii in
  place of the corrected ones (no correction, for 7-polylog-random), the corrected radii in place of the uncorrected
  ones (a network the missing correction does not hurt, for 7-random-nocorr). 7-random-nocorr also runs with half
  the directions per T, since its bound can only tighten with more of them.
- `7-collapse` reads t*, the structured direction's radius: it has no seed (the counter machine's input is fixed),
  so its faithful world is the stored run itself; without the mechanism the stored t* are put at permuted T.

    >>> from lib.chapters import stored; P, results = stored("turing_simulation")   # the committed paper results
    >>> from lib.chapters.turing_simulation.claims import ROWS
    >>> from lib.core.power import power_table
    >>> [(t["row"], t["mechanism"], t["pass"]) for t in power_table(ROWS, WORLDS, P, results, draws=10)][-3:]
    [('7-random-nocorr', True, 1.0), ('7-random-nocorr', False, 0.0), ('7-random-nocorr', True, 1.0)]
"""
from __future__ import annotations

import numpy as np

from lib.core.power import World, resample_seeds

FIELDS = ("n_directions",)   # the spec field that counts a robustness point's runs (its random directions)


def directions(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """The stored robustness points (all the rows read), each point's directions drawn with replacement."""
    return resample_seeds(P, {"robust": results["robust"]}, rng, fields=FIELDS)


def swapped(into: bool):
    """A draw: the resampled runs, with the other arm's result at each T filed as the `into` arm's."""
    def draw(P, results, rng):
        out = directions(P, results, rng)["robust"]
        return {"robust": {**out, **{(T, into): out[(T, c)] for T, c in out if c != into}}}
    return draw


def half_directions(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """The stored robustness points with half their directions (at least one), drawn with replacement per point."""
    out = {}
    for key, rec in results["robust"].items():
        r = rec["result"]["r_random"]
        out[key] = {**rec, "result": {**rec["result"], "r_random": rng.choice(r, max(1, len(r) // 2)).tolist()}}
    return {"robust": out}


def permuted_T(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """The stored uncorrected t* put at randomly permuted T (the same values, no order in T)."""
    keys = sorted(k for k in results["robust"] if not k[1])
    t = [results["robust"][k]["result"]["t_struct"] for k in keys]
    out = dict(results["robust"])
    for k, i in zip(keys, rng.permutation(len(keys))):
        out[k] = {**out[k], "result": {**out[k]["result"], "t_struct": t[i]}}
    return {"robust": out}


RESAMPLED = World("faithful: the stored runs, their directions resampled within each T", True, directions)
WORLDS = {
    "7-polylog-random": (
        RESAMPLED,
        World("no correction: the uncorrected runs in place of the corrected ones at each T (directions resampled)",
              False, swapped(True))),
    "7-collapse": (
        World("faithful: the stored run itself (t* is deterministic: the counter machine's input is fixed, so "
              "resampling by seed leaves the stored run)", True,
              lambda P, results, rng: results),
        World("no order in T (a permuted-T null): the stored t* with their T labels permuted", False, permuted_T)),
    "7-random-nocorr": (
        RESAMPLED,
        World("no collapse: the corrected runs in place of the uncorrected ones at each T (directions resampled)",
              False, swapped(False)),
        World("faithful, half the directions: the stored runs, half as many directions drawn within each T", True,
              half_directions)),
}
