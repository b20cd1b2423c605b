"""The power of ffn_span's claim rules, declared as worlds (lib.core.power): for each row, the stored runs resampled
(the faithful world, with the mechanism of Theorem 6's proof) and the stored runs changed so that the mechanism is
absent. Every stored point keeps its runs on one axis (GD and AdamW runs, Transformer pairs, Monte-Carlo draws), so
the faithful world draws them with replacement point by point (`resample_seeds`); the rotation test's plain and
rotated FFN points are twins run by run, so they are drawn together. Page-side: no computation imports this module.

    >>> from lib.chapters import stored; from lib.core.power import power_table
    >>> from lib.chapters.ffn_span.claims import ROWS
    >>> P, results = stored("ffn_span")   # the committed paper results
    >>> t = power_table(ROWS, {"8a-adamw": WORLDS["8a-adamw"]}, P, results, draws=20)
    >>> [(x["mechanism"], x["pass"]) for x in t]
    [(True, 1.0), (False, 0.0)]
"""
from __future__ import annotations

from functools import partial

import numpy as np

from lib.chapters.ffn_span.claims import off_span
from lib.chapters.ffn_span.experiments.ffn import LAW_FLOOR
from lib.core.power import World, resample_seeds

CHEAP = ("span", "ffn", "transformer")   # the points every world resamples (the Monte-Carlo ones only where read)
GROUP = {"nu": "visibility", "oracle_mse": "visibility", "readout_mse": "readout"}   # the points a field is in


def resampled(P: dict, results: dict, rng: np.random.Generator, groups=CHEAP) -> dict:
    """The stored runs of the `groups` of points drawn with replacement within each point (a run's numbers together;
    the Monte-Carlo points by draw; the rest shared, unread by the row), the rotation test's plain and rotated FFN
    points by one draw, so that run r stays the twin of run r."""
    out = {**results, **resample_seeds(P, {g: results[g] for g in groups}, rng, fields=("draws",))}
    if "ffn" in groups:
        plain, rotated = (P["N_rotation"], False), (P["N_rotation"], True)
        k = results["ffn"][plain]["spec"]["n_seeds"]
        idx = rng.integers(0, k, size=k)
        for key in (plain, rotated):
            rec = results["ffn"][key]
            out["ffn"][key] = {**rec, "result": {f: np.take(v, idx, axis=1).tolist() if np.ndim(v) == 2 else v
                                                 for f, v in rec["result"].items()}}
    return out


def faithful(*groups: str) -> World:
    """The faithful world of a row that reads the points of `groups` besides the CHEAP ones."""
    return World("faithful: the stored runs (and Monte-Carlo draws) resampled within each point", True,
                 partial(resampled, groups=(*CHEAP, *groups)))


def _world(name: str, change, groups=CHEAP, mechanism: bool = False) -> World:
    """A world whose draw is the faithful resample of `groups`, then change(P, sim, rng, results) made to it."""
    def draw(P: dict, results: dict, rng: np.random.Generator) -> dict:
        sim = resampled(P, results, rng, groups)
        change(P, sim, rng, results)
        return sim
    return World(name, mechanism, draw)


def _edited(name: str, **hows) -> World:
    """A world without the mechanism: each field named in `hows`, of every stored point that has it, replaced by
    how(P, sim, result, values): the values as an array (n x runs or draws)."""
    groups = tuple(sorted({GROUP.get(f, "ffn") for f in hows}))
    def change(P: dict, sim: dict, rng, results: dict):
        for g in groups:
            for rec in sim[g].values():
                r = rec["result"]
                for field in set(hows) & set(r):
                    r[field] = hows[field](P, sim, r, np.asarray(r[field], float)).tolist()
    return _world(name, change, ("span", *groups))


# The values of a learner with more than its span: the line of n + 1 inputs (one direction beyond the span, 1/(Nd)
# lower at each n), the line of 2n inputs (n/(Nd) lower), the visible fraction of n + 1 inputs, and an FFN whose
# first layer is not held to the span (its excess over the oracle on the same test prompts: over an oracle that
# sees all of x, risk 0).
one_more = lambda P, sim, r, v: v - 1 / r["Nd"]
twice = lambda P, sim, r, v: v - (np.asarray(r["n"], float) / r["Nd"])[:, None]
more_nu = lambda P, sim, r, v: v * ((np.asarray(r["n"]) + 1) / np.asarray(r["n"]))[:, None]
no_span = lambda P, sim, r, v: v - np.asarray(r["oracle_mse"], float)


def _over_runs(per_run: np.ndarray, v: np.ndarray) -> np.ndarray:
    """One value per AdamW run of the span point laid over the GD runs of v (run j gets AdamW run j mod k), where v
    is measured (n < Nd)."""
    return np.where(np.isfinite(v), per_run[np.arange(v.size).reshape(v.shape) % len(per_run)], v)


def _adamw_law(P: dict, sim: dict, r: dict, v: np.ndarray) -> np.ndarray:
    """Every run's decay-law deviation replaced by that of an AdamW run of the span point (its off-span energy
    against GD's (1 - eta lambda)^(2t), checked down to LAW_FLOOR as for GD)."""
    sp = sim["span"]["result"]
    off = np.array(sp["adamw"]["off"], float)
    law = (1 - P["gd_lr"] * P["gd_l2"]) ** (2 * np.asarray(sp["steps"], float))
    shown = law >= LAW_FLOOR
    return _over_runs(np.abs(off[shown] / (off[0] * law[shown, None]) - 1).max(0), v)


def _swapped(P: dict, sim: dict, rng, results: dict):
    """The span point's optimisers swapped: AdamW's runs are GD's (which keep the span), and GD's AdamW's."""
    sp = sim["span"]["result"]
    sp["gd"], sp["adamw"] = sp["adamw"], sp["gd"]


def _adamw_at(P: dict, sim: dict, rng, results: dict, offset: float):
    """AdamW's runs moved so that their mean sits `offset` from the line 1 - n/(Nd) (their spread kept): an AdamW
    FFN that fits, on the line (0) or beating it (< 0)."""
    sp = sim["span"]["result"]
    mse = np.array(sp["adamw"]["test_mse"], float)
    sp["adamw"]["test_mse"] = (mse - mse.mean() + 1 - sp["n"] / sp["Nd"] + offset).tolist()


def _ffn_rotated_like_tr(P: dict, sim: dict, rng, results: dict):
    """The rotation costs the FFN what it costs the Transformer: each rotated FFN run plus the Transformer's mean
    rotated - plain gap at its n (the same n grid)."""
    tr = sim["transformer"]["result"]
    gap = (np.array(tr["test_mse_rotated"], float) - np.array(tr["test_mse"], float)).mean(1)
    r = sim["ffn"][(P["N_rotation"], True)]["result"]
    r["test_mse"] = (np.array(r["test_mse"], float) + gap[:, None]).tolist()


def _tr_unrotated(P: dict, sim: dict, rng, results: dict):
    """The Transformer's rotated arm replaced by its plain runs (this draw's, as many as it has), drawn again: a
    rotation that changes nothing."""
    tr = sim["transformer"]["result"]
    plain = np.array(tr["test_mse"], float)
    tr["test_mse_rotated"] = plain[:, rng.integers(0, plain.shape[1], size=plain.shape[1])].tolist()


FAITHFUL = faithful()
ONE_MORE = "one direction beyond the span: the line of $n+1$ inputs"
WORLDS = {
    "8a-decay-law": (FAITHFUL, _edited("AdamW's off-span decay in place of GD's", law_dev=_adamw_law)),
    "8a-span": (FAITHFUL, _edited(r"AdamW's end-of-training $\rho$ in place of GD's",
                                  rho=lambda P, sim, r, v: _over_runs(off_span(sim["span"]["result"], "adamw")[-1], v))),
    "8a-adamw": (FAITHFUL, _world("the optimisers swapped: AdamW's runs are GD's", _swapped)),
    "8-visible": (faithful("visibility"), _edited(ONE_MORE, nu=more_nu)),
    "8-oracle": (faithful("visibility"), _edited(ONE_MORE, oracle_mse=one_more)),
    "8b-readout-on-line": (faithful("readout"), _edited(ONE_MORE, readout_mse=one_more)),
    "8b-ffn-above-line": (FAITHFUL, _edited("no span: the FFN's excess over the oracle, over an oracle that sees all "
                                            "of x", test_mse=no_span)),
    "8c-floor": (faithful("readout"), _edited(ONE_MORE + " (read-out and FFN)", readout_mse=one_more, test_mse=one_more),
                 _edited("twice the span: the line of $2n$ inputs (read-out and FFN)", readout_mse=twice, test_mse=twice)),
    "8b-adamw-line": (FAITHFUL, _world("AdamW that fits, on the line", partial(_adamw_at, offset=0.0), mechanism=True),
                      _world("AdamW that fits and beats the line by 0.1", partial(_adamw_at, offset=-0.1))),
    "rotation-ffn": (FAITHFUL, _world("the rotation costs the FFN what it costs the Transformer", _ffn_rotated_like_tr)),
    "rotation-transformer": (FAITHFUL, _world("the rotation changes nothing: the rotated arm is the plain runs drawn "
                                              "again", _tr_unrotated)),
}
