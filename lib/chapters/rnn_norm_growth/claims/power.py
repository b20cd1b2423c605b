"""The power of rnn_norm_growth's rules (lib.core.power): the worlds every claim row is run in, as data. A phase point,
one (architecture, task, N), holds every run of every width and seed (per-run numbers width-major, the widest runs'
packing numbers per seed). The faithful world (`resample_phase`) draws each point's seeds with replacement, point by
point (lib.core.power's `resample_cells`, a point's seeds its one cell); a drawn seed brings its runs of every width
and its packing numbers, so each N keeps its own spread. A world without a row's mechanism changes the stored
points first (`moved`), then resamples them the same way:

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


def moved(arch: str, task: str = "1str", source: str = "1str", at_N0: bool = True, fields=(), by=None):
    """A world without a mechanism: the phase points of (arch, task) replaced by (arch, source)'s at the smallest N
    (`at_N0`) or at their own N, their `fields` times by(smallest N, N); then resampled like the faithful world."""
    def draw(P, results, rng):
        phase, N0 = results["phase"], min(P["phase_N"])

        def change(k):
            if k[:2] != (arch, task):
                return phase[k]["result"]
            r = phase[(arch, source, N0 if at_N0 else k[2])]["result"]
            return {**r, **{f: (np.asarray(r[f], float) * by(N0, k[2])).tolist() for f in fields if f in r}}
        return resample_phase(P, {**results, "phase": {k: {**rec, "result": change(k)} for k, rec in phase.items()}}, rng)
    return draw


def one_N(slope: float):
    """The Elman 1STR point of the smallest N at every N, its norms times (N / smallest N)^slope."""
    return moved("elman", fields=NORMS, by=lambda N0, N: (N / N0) ** slope)


FAITHFUL = World("faithful: the stored runs, each point's seeds resampled (a seed keeps its runs of every width)",
                 True, resample_phase)
SLOPE_1 = World("slope 1: the smallest N's widest runs, resampled, at every N, their norms scaled by N over it",
                True, one_N(1.0))
FLAT = World("flat: the smallest N's widest runs, resampled, at every N", False, one_N(0.0))
STEEP = World("slope 2: the smallest N's widest runs, resampled, at every N, their norms scaled by the square of N "
              "over it", False, one_N(2.0))
WORLDS = {
    **{f"10a-width-1str-{arch}": (FAITHFUL, World("flat: the smallest N's 1STR point at every N, resampled", False,
                                                  moved(arch))) for arch in ARCHS},
    **{f"10a-contrast-{arch}": (FAITHFUL, World(
        "no contrast: simple-1STR's points replaced by the same architecture's 1STR points, resampled", False,
        moved(arch, "simple", at_N0=False))) for arch in ARCHS},
    "10b-norm-lower": (FAITHFUL, SLOPE_1, FLAT),
    "10b-norm": (FAITHFUL, SLOPE_1, FLAT, STEEP),
    "10c-effective-dim": (FAITHFUL, FLAT),
    "10c-separation": (FAITHFUL, World("shrunk: the replayed outputs' distances times (smallest N / N)^(1/2), "
                                       "resampled", False, moved("elman", at_N0=False, fields=("pack_dist_median",),
                                                                by=lambda N0, N: (N0 / N) ** 0.5))),
}
