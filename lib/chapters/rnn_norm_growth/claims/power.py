"""The power of rnn_norm_growth's rules (lib.core.power): the worlds rows 10a-contrast-* and 10b-norm* are run in, as
data, every one made from the stored phase points. A phase point, one (architecture, task, N), holds every run of
every width and seed (its per-run numbers in width-major order, the widest runs' packing numbers per seed). The
faithful world (`resample_phase`) draws each point's seeds with replacement, independently point by point, and a
drawn seed brings its runs of every width, so each N keeps its own spread. The worlds without a row's mechanism:

- 10a-contrast-* (1STR needs a width growing with N, simple-1STR does not): simple-1STR's points replaced by the
  same architecture's 1STR points at the same N, resampled (`no_contrast`);
- 10b-norm* (the Lipschitz product grows like N): the widest Elman runs on 1STR at every N replaced by those of
  the smallest N, resampled (`one_N`): flat; for 10b-norm (slope 1 and no more) also their norms scaled by
  (N / smallest N)^2, slope 2. Both rows read the slope over every N of the profile and are censored where a
  widest run left its value at the threshold unknown, so a profile with such an N (the paper's Elman at N = 16)
  gives them no decided faithful draw; one more world with the mechanism, the smallest N's runs scaled by
  N / smallest N (slope 1), shows what the rules decide where every N has a value.

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> from lib.core.power import power_table
    >>> table = power_table(ROWS, {"10b-norm-lower": WORLDS["10b-norm-lower"]}, P, results, draws=5)
    >>> [(t["world"].split(":")[0], t["pass"], t["censored"]) for t in table]   # N = 16 has no value: censored
    [('faithful', 0.0, 1.0), ('slope 1', 1.0, 0.0), ('flat', 0.0, 0.0)]
"""
from __future__ import annotations

import numpy as np

from lib.chapters.rnn_norm_growth.claims import ARCHS, ROWS
from lib.core.power import World

__all__ = ["ROWS", "WORLDS", "no_contrast", "one_N", "resample_phase", "resample_point"]

NORMS = ("product_sq", "pack_lipr_sq")     # the norms of a run at the threshold, the ones the slope worlds scale


def resample_point(rec: dict, idx: np.ndarray, widths: int) -> dict:
    """A phase record with its seeds re-indexed by idx: a per-run list (widths x seeds, width-major) takes, at every
    width, the runs of the drawn seeds; a per-seed list (pack_*, the widest runs' packing numbers) the drawn seeds;
    the rest (the grid's widths, N) stays."""
    S = len(idx)

    def take(k, v):
        if isinstance(v, list) and len(v) == widths * S:
            return np.asarray(v, float).reshape(widths, S)[:, idx].ravel().tolist()
        return np.asarray(v, float)[idx].tolist() if k.startswith("pack_") else v
    return {**rec, "result": {k: take(k, v) for k, v in rec["result"].items()}}


def _draw(P, rec, rng):
    S = P["n_seeds"]
    return resample_point(rec, rng.integers(0, S, S), len(P["widths"]))


def resample_phase(P: dict, results: dict, rng: np.random.Generator) -> dict:
    """The faithful world: every phase point's seeds drawn with replacement, independently point by point (a drawn
    seed brings its runs of every width); the other parts as stored (no row here reads them)."""
    return {**results, "phase": {k: _draw(P, rec, rng) for k, rec in results["phase"].items()}}


def no_contrast(arch: str):
    """No contrast for `arch`: the faithful world, then simple-1STR's point at each N replaced by the 1STR point of
    the same architecture and N, resampled on its own."""
    def draw(P, results, rng):
        out = resample_phase(P, results, rng)
        for N in P["phase_N"]:
            out["phase"][(arch, "simple", N)] = {**results["phase"][(arch, "simple", N)], "result": _draw(
                P, results["phase"][(arch, "1str", N)], rng)["result"]}
        return out
    return draw


def one_N(slope: float):
    """The widest Elman runs on 1STR at every N: the faithful world, then at each N the widest runs (and their
    packing numbers) of the smallest N, resampled on their own, with their norms times (N / smallest N)^slope."""
    def draw(P, results, rng):
        out = resample_phase(P, results, rng)
        S, N0 = P["n_seeds"], min(P["phase_N"])
        for N in P["phase_N"]:
            src = _draw(P, results["phase"][("elman", "1str", N0)], rng)["result"]
            rec = out["phase"][("elman", "1str", N)]
            r = dict(rec["result"])
            for k, v in src.items():
                if isinstance(v, list) and len(v) == len(P["widths"]) * S:
                    r[k] = r[k][:-S] + v[-S:]                          # the widest width is the last S runs
                elif k.startswith("pack_"):
                    r[k] = v
            for k in NORMS:                                           # per run: the widest S; per seed: all
                if k in r:
                    r[k] = r[k][:-S] + (np.asarray(r[k][-S:], float) * (N / N0) ** slope).tolist()
            out["phase"][("elman", "1str", N)] = {**rec, "result": r}
        return out
    return draw


FAITHFUL = World("faithful: the stored runs, each point's seeds resampled (a seed keeps its runs of every width)",
                 True, resample_phase)
SLOPE_1 = World("slope 1: the smallest N's widest runs, resampled, at every N, their norms scaled by N over it",
                True, one_N(1.0))
FLAT = World("flat: the smallest N's widest runs, resampled, at every N", False, one_N(0.0))
STEEP = World("slope 2: the smallest N's widest runs, resampled, at every N, their norms scaled by the square of N "
              "over it", False, one_N(2.0))
WORLDS = {
    **{f"10a-contrast-{arch}": (FAITHFUL, World(
        "no contrast: simple-1STR's points replaced by the same architecture's 1STR points, resampled", False,
        no_contrast(arch))) for arch in ARCHS},
    "10b-norm-lower": (FAITHFUL, SLOPE_1, FLAT),
    "10b-norm": (FAITHFUL, SLOPE_1, FLAT, STEEP),
}
