"""The power of rnn_norm_growth's rules (lib.core.power): the worlds every claim row is run in, as data. A phase point,
one (architecture, task, N), holds every run of every width and seed (per-run numbers width-major, the widest runs'
packing numbers per seed). The faithful world (`resample_phase`) draws each point's seeds with replacement, point by
point (lib.core.power's `resample_cells`, a point's seeds its one cell); a drawn seed brings its runs of every width
and its packing numbers, so each N keeps its own spread. Every other world is a list of `Move`s, changes of the
stored points, then resampled the same way:

- with the mechanism (the stored runs moved to what the theorem predicts): 1STR's critical width doubling with N (the
  smallest N's runs, each width's runs moved to a width N / smallest N times wider), simple-1STR's fixed (its largest
  N's runs at every N), the widest Elman runs' norms or participation ratio growing like N, their separation fixed;
- without it: the smallest N's point at every N (flat), simple-1STR replaced by 1STR (no contrast), norms growing
  like N squared (for the reading at equality), the replayed outputs' distances shrinking like N^(-1/2).

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> from lib.core.power import power_table
    >>> table = power_table(ROWS, {"10b-norm-lower": WORLDS["10b-norm-lower"]}, P, results, draws=5, more_seeds=False)
    >>> [(t["world"].split(":")[0], t["pass"], t["censored"]) for t in table]   # N = 16 has no value: censored
    [('faithful', 0.0, 1.0), ('slope 1', 1.0, 0.0), ('flat', 0.0, 0.0)]
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from lib.chapters.rnn_norm_growth.claims import ARCHS, ROWS
from lib.chapters.rnn_norm_growth.results import runs_per_width
from lib.core.power import World, resample_cells

__all__ = ["ROWS", "WORLDS", "Move", "resample_phase"]

NORMS = ("product_sq", "pack_lipr_sq")     # the norms of a run at the threshold, the ones the slope worlds scale


def _per_run(P: dict, rec: dict) -> list[str]:
    """The fields of a phase point with one entry per run (width-major)."""
    n = len(P["widths"]) * runs_per_width(P, rec)
    return [k for k, v in rec["result"].items() if isinstance(v, list) and len(v) == n]


def resample_phase(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """The faithful world: every phase point's seeds drawn with replacement, independently point by point; each
    per-run list is read as (width, seed), so a drawn seed brings its runs of every width, and the per-seed packing
    lists follow the same draw; the other parts as stored (no row here reads them)."""
    W = len(P["widths"])
    shaped = {**results, "phase": {k: {**rec, "result": {**rec["result"], **{
        f: np.asarray(rec["result"][f], float).reshape(W, -1).tolist() for f in _per_run(P, rec)}}}
        for k, rec in results["phase"].items()}}
    fields = {f for rec in results["phase"].values() for f in _per_run(P, rec)}
    out = resample_cells(shaped, rng, lambda r: [(r["phase"], k) for k in r["phase"]],
                         lambda r: np.zeros(len(r["samples"][0])), run_axis=dict.fromkeys(fields, 1), shared=("widths",))
    for rec in out["phase"].values():
        rec["result"].update({f: np.ravel(v).tolist() for f, v in rec["result"].items() if f in fields})
    return out


@dataclass(frozen=True)
class Move:
    """One change a world makes to the stored phase points: the points of (arch, task) at every N replaced by
    (arch, source)'s at the smallest N ("first"), the largest ("last") or their own N ("own"); their `fields` times
    (N / smallest N)^power; `widen`: each width's runs moved to the width N / smallest N times wider (below the
    grid's narrowest width, the narrowest stored runs stand in: a narrower network does no better)."""
    arch: str
    task: str = "1str"
    source: str = "1str"
    at: str = "first"
    fields: tuple = ()
    power: float = 0.0
    widen: bool = False

    def result(self, P: dict, phase: dict, N: int) -> dict:
        Ns = sorted(P["phase_N"])
        rec = phase[(self.arch, self.source, {"first": Ns[0], "last": Ns[-1], "own": N}[self.at])]
        r = {**rec["result"], **{f: (np.asarray(rec["result"][f], float) * (N / Ns[0]) ** self.power).tolist()
                                 for f in self.fields if f in rec["result"]}}
        if self.widen:
            w = np.log(np.asarray(P["widths"], float))
            src = np.clip(np.searchsorted(w, w - np.log(N / Ns[0]) + 1e-9, side="right") - 1, 0, None)
            r |= {f: np.asarray(r[f], float).reshape(len(w), -1)[src].ravel().tolist() for f in _per_run(P, rec)}
        return r


def _draw(moves: tuple, P: dict, results: dict, rng: np.random.Generator) -> dict:
    """A world's draw: the stored phase points changed by each of `moves` (on the stored points, in turn), then
    resampled like the faithful world."""
    phase = dict(results["phase"])
    for m in moves:
        phase |= {k: {**rec, "result": m.result(P, results["phase"], k[2])} for k, rec in results["phase"].items()
                  if k[:2] == (m.arch, m.task)}
    return resample_phase(P, {**results, "phase": phase}, rng)


def world(name: str, mechanism: bool, *moves: Move) -> World:
    """A world declared as data: its name, whether the theorem's mechanism is in it, and the moves that make it."""
    return World(name, mechanism, partial(_draw, moves))


FAITHFUL = World("faithful: the stored runs, each point's seeds resampled (a seed keeps its runs of every width)",
                 True, resample_phase)
SLOPE_1 = world("slope 1: the smallest N's widest Elman runs at every N, their norms times N over it", True,
                Move("elman", fields=NORMS, power=1))
FLAT = world("flat: the smallest N's widest Elman runs at every N", False, Move("elman"))
STEEP = world("slope 2: the smallest N's widest Elman runs at every N, their norms times the square of N over it",
              False, Move("elman", fields=NORMS, power=2))
WORLDS = {
    **{f"10a-width-1str-{arch}": (FAITHFUL, world(
        "width doubling with N: the smallest N's 1STR runs at every N, each width's runs moved to a width N over "
        "it times wider", True, Move(arch, widen=True)),
        world("flat: the smallest N's 1STR point at every N", False, Move(arch))) for arch in ARCHS},
    **{f"10a-contrast-{arch}": (FAITHFUL, world(
        "contrast: 1STR's width doubling with N as in the width rows' world, simple-1STR's largest-N runs at every "
        "N (a width fixed in N)", True, Move(arch, widen=True), Move(arch, "simple", "simple", at="last")),
        world("no contrast: simple-1STR's points replaced by the same architecture's 1STR points", False,
              Move(arch, "simple", at="own"))) for arch in ARCHS},
    "10b-norm-lower": (FAITHFUL, SLOPE_1, FLAT),
    "10b-norm": (FAITHFUL, SLOPE_1, FLAT, STEEP),
    "10c-effective-dim": (FAITHFUL, world(
        "dimension growing on 1STR only: the smallest N's widest Elman runs at every N, on 1STR their participation "
        "ratio times N over it", True, Move("elman", fields=("pack_pr",), power=1), Move("elman", "simple", "simple")),
        FLAT),
    "10c-separation": (FAITHFUL, world("apart: the smallest N's widest Elman runs at every N (their separation "
                                       "fixed in N)", True, Move("elman")),
                       world("shrunk: the replayed outputs' distances times (smallest N / N)^(1/2)", False,
                             Move("elman", at="own", fields=("pack_dist_median",), power=-0.5))),
}
