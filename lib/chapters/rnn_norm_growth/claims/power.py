"""The power of rnn_norm_growth's rules (lib.core.power): the worlds every claim row is run in, as data. A phase point,
one (architecture, task, N), holds every run of every width and seed (per-run numbers width-major, the widest runs'
packing numbers per seed). The faithful world (`resample_phase`) draws each point's seeds with replacement, point by
point (lib.core.power's `resample_cells`, a point's seeds its one cell); a drawn seed brings its runs of every width
and its packing numbers, so each N keeps its own spread. A world without a row's mechanism changes the stored
points first (`changed`), then resamples them the same way:

- 10a-width-*: the smallest N's 1STR point at every N (flat);
- 10a-contrast-*: simple-1STR's points replaced by the same architecture's 1STR points (no contrast);
- 10b-norm*, 10c-effective-dim: the Elman 1STR point of the smallest N at every N (flat); for 10b-norm also its norms
  scaled by (N / smallest N)^2 (slope 2). The norm rows are censored where an N has no value at the threshold, so a
  world with the mechanism, those norms scaled by N / smallest N (slope 1), shows what they decide where every N has;
- 10c-separation: the replayed outputs' distances shrunk by (smallest N / N)^(1/2).

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> from lib.core.power import power_table
    >>> table = power_table(ROWS, {"10b-norm-lower": WORLDS["10b-norm-lower"]}, P, results, draws=5)
    >>> [(t["world"].split(":")[0], t["pass"], t["censored"]) for t in table]   # N = 16 has no value: censored
    [('faithful', 0.0, 1.0), ('slope 1', 1.0, 0.0), ('flat', 0.0, 0.0)]
"""
from __future__ import annotations

import numpy as np

from lib.chapters.rnn_norm_growth.claims import ARCHS, ROWS
from lib.core.power import World, resample_cells

__all__ = ["ROWS", "WORLDS", "resample_phase"]

NORMS = ("product_sq", "pack_lipr_sq")     # the norms of a run at the threshold, the ones the slope worlds scale


def resample_phase(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """The faithful world: every phase point's seeds drawn with replacement, independently point by point; each
    per-run list is read as (width, seed), so a drawn seed brings its runs of every width, and the per-seed packing
    lists follow the same draw; the other parts as stored (no row here reads them)."""
    W, S = len(P["widths"]), P["n_seeds"]
    per_run = lambda r: [k for k, v in r.items() if isinstance(v, list) and len(v) == W * S]
    shaped = {**results, "phase": {k: {**rec, "result": {**rec["result"], **{
        f: np.asarray(rec["result"][f], float).reshape(W, S).tolist() for f in per_run(rec["result"])}}}
        for k, rec in results["phase"].items()}}
    fields = {f for rec in results["phase"].values() for f in per_run(rec["result"])}
    out = resample_cells(shaped, rng, lambda r: [(r["phase"], k) for k in r["phase"]], lambda r: np.zeros(S),
                         run_axis=dict.fromkeys(fields, 1), shared=("widths",))
    for rec in out["phase"].values():
        rec["result"].update({f: np.ravel(v).tolist() for f, v in rec["result"].items() if f in fields})
    return out


def changed(change):
    """A world that changes the stored phase points, change(P, key, phase) -> the result to put at `key`, and then
    resamples them."""
    def draw(P, results, rng):
        phase = results["phase"]
        return resample_phase(P, {**results, "phase": {k: {**rec, "result": change(P, k, phase)}
                                                      for k, rec in phase.items()}}, rng)
    return draw


def _scaled(result: dict, by: float, fields=NORMS) -> dict:
    return {**result, **{f: (np.asarray(result[f], float) * by).tolist() for f in fields if f in result}}


def one_N(slope: float):
    """The Elman 1STR point of the smallest N at every N (the rows that read it read its widest runs), its norms
    times (N / smallest N)^slope."""
    def change(P, k, phase):
        N0 = min(P["phase_N"])
        return (_scaled(phase[("elman", "1str", N0)]["result"], (k[2] / N0) ** slope) if k[:2] == ("elman", "1str")
                else phase[k]["result"])
    return changed(change)


def _shrunk(P, k, phase):
    """The replayed outputs' distances on 1STR times (smallest N / N)^(1/2)."""
    r = phase[k]["result"]
    return _scaled(r, (min(P["phase_N"]) / k[2]) ** 0.5, ("pack_dist_median",)) if k[:2] == ("elman", "1str") else r


def _flat(arch):
    """The smallest N's 1STR point of `arch` at every N."""
    return lambda P, k, phase: phase[(arch, "1str", min(P["phase_N"])) if k[:2] == (arch, "1str") else k]["result"]


def _no_contrast(arch):
    """Simple-1STR's points of `arch` replaced by its 1STR points at the same N."""
    return lambda P, k, phase: phase[(arch, "1str", k[2]) if k[:2] == (arch, "simple") else k]["result"]


FAITHFUL = World("faithful: the stored runs, each point's seeds resampled (a seed keeps its runs of every width)",
                 True, resample_phase)
SLOPE_1 = World("slope 1: the smallest N's widest runs, resampled, at every N, their norms scaled by N over it",
                True, one_N(1.0))
FLAT = World("flat: the smallest N's widest runs, resampled, at every N", False, one_N(0.0))
STEEP = World("slope 2: the smallest N's widest runs, resampled, at every N, their norms scaled by the square of N "
              "over it", False, one_N(2.0))
WORLDS = {
    **{f"10a-width-1str-{arch}": (FAITHFUL, World("flat: the smallest N's 1STR point at every N, resampled", False,
                                                  changed(_flat(arch)))) for arch in ARCHS},
    **{f"10a-contrast-{arch}": (FAITHFUL, World(
        "no contrast: simple-1STR's points replaced by the same architecture's 1STR points, resampled", False,
        changed(_no_contrast(arch)))) for arch in ARCHS},
    "10b-norm-lower": (FAITHFUL, SLOPE_1, FLAT),
    "10b-norm": (FAITHFUL, SLOPE_1, FLAT, STEEP),
    "10c-effective-dim": (FAITHFUL, FLAT),
    "10c-separation": (FAITHFUL, World("shrunk: the replayed outputs' distances times (smallest N / N)^(1/2), "
                                       "resampled", False, changed(_shrunk))),
}
