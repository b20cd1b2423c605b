"""The power of rpe_decay's restated rules (issue 37): each row's own measure run on simulated results, drawn from a
world with the mechanism the row tests and from one without it. A world is a log-normal per group of runs: a
centre (log10 MSE) and a spread over seeds (sd in decades, at least MIN_SD: seeds that agree to three digits would
make every simulation the same). `stored_groups` (Part C) and `stored_apph` (Appendix H) read centres and
spreads from stored results, so a faithful world is the stored runs redrawn; the benchmark
(benchmarks/rpe_decay_power.py) prints the shares, the test runs a few.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> from lib.chapters.rpe_decay.results.training import train_table
    >>> groups = stored_groups(train_table(results))      # the stored Part C runs, redrawn 20 times
    >>> part_c_shares(part_c_world(groups), "14b-train-floor", P, sims=20)   # 14b fails on them, as on the page
    {'pass': 0.0, 'fail': 1.0, 'below scale': 0.0}
"""
from __future__ import annotations

from collections.abc import Callable
from unittest import mock

import numpy as np

from lib.chapters.rpe_decay.claims import ROWS, training
from lib.chapters.rpe_decay.experiments.fit import Kernel, kernel_name
from lib.chapters.rpe_decay.results.apph import apph_table, arms

MIN_SD = 0.1            # decades: the least spread a simulated group is drawn with
COPY_4B = float(np.sum(np.exp(-10.0 * np.arange(1, 1000))))   # 4b's copy-the-current-token baseline at S = 1000


def _row(row_id: str):
    """The claim row of that id (its measure and its rule: `row.decide(P, results)` is its verdict)."""
    return next(r for r in ROWS if r.id == row_id)


# ------------------------------------------------------------------------------------------- Part C (14a, 14b)
def part_c_rows(rng, groups: dict, seeds: int = 3, S: int = 1024) -> list[dict]:
    """Fake train_table rows: groups[(kind, family, H)] = (log10 centre, sd, optimum); kind "power" or "exp"."""
    out = []
    for (kind, family, H), (centre, sd, opt) in groups.items():
        k = Kernel("power", beta=1.2) if kind == "power" else Kernel("exp", tau=10.0)
        for s in range(seeds):
            out.append({"kernel": kernel_name(k), "k": k, "S": S, "family": family, "H": H, "seed": s,
                        "mse": 10 ** rng.normal(centre, max(sd, MIN_SD)), "opt": opt, "p": [1.0] * H,
                        "opt_alpha": [1.0] * H})
    return out


def part_c_world(groups: dict, seeds: int = 3) -> Callable:
    return lambda rng: part_c_rows(rng, groups, seeds)


def part_c_shares(world: Callable, row_id: str, P: dict, sims: int = 200, seed: int = 0) -> dict:
    """Shares of pass / FAIL / below scale of row 14a or 14b over `sims` draws of world(rng) -> train_table rows."""
    row = _row(row_id)        # 14a or 14b: their measures read training.train_table, patched to each draw
    rng, out = np.random.default_rng(seed), {"pass": 0, "fail": 0, "below scale": 0}
    for _ in range(sims):
        drawn = world(rng)
        with mock.patch.object(training, "train_table", lambda results, drawn=drawn: drawn):
            v = row.decide(P, {})
        out["pass" if v.passed else "below scale" if v.scale else "fail"] += 1
    return {k: n / sims for k, n in out.items()}


def collapsed(groups: dict) -> dict:
    """The world without 14b's mechanism (training reaching what its heads can): every log run at its kernel's
    one-head level whatever its H, as the old recipe's runs were (one exponent for all heads)."""
    one = {kind: groups[(kind, "log", min(H for k, f, H in groups if k == kind and f == "log"))][0]
           for kind, _, _ in groups}
    return {key: ((one[key[0]], 0.0, v[2]) if key[1] == "log" else v) for key, v in groups.items()}


def unordered(groups: dict) -> dict:
    """The world without 14a's mechanism (the RPE's decay matters): at every H both families drawn like the lin runs."""
    return {key: (groups[(key[0], "lin", key[2])][:2] + (v[2],)) for key, v in groups.items()}


def at_reach(groups: dict, floor: float, factor: float = 2.0) -> dict:
    """A world with 14b's mechanism: every run at `factor` times what its heads can reach, max(optimum, floor), with
    its group's spread."""
    return {key: (float(np.log10(factor * max(v[2], floor))), v[1], v[2]) for key, v in groups.items()}


def matched_better(groups: dict, decades: float = 1.0) -> dict:
    """A world with 14a's mechanism: at every H the matched RPE (log on the power law, lin on the exponential) a given
    number of decades below the other, which keeps its stored level."""
    good = {"power": "log", "exp": "lin"}
    return {key: ((groups[(key[0], "lin" if key[1] == "log" else "log", key[2])][0] - decades, v[1], v[2])
                  if key[1] == good[key[0]] and (key[0], "lin" if key[1] == "log" else "log", key[2]) in groups else v)
            for key, v in groups.items()}


def stored_groups(train_rows: list[dict]) -> dict:
    """{(kind, family, H): (log10 centre, sd, optimum)} of stored Part C runs at their largest S."""
    out = {}
    for key in sorted({(r["k"].kind, r["family"], r["H"]) for r in train_rows}):
        S = max(r["S"] for r in train_rows if r["k"].kind == key[0])
        sel = [r for r in train_rows if (r["k"].kind, r["family"], r["H"]) == key and r["S"] == S]
        lv = np.log10([r["mse"] for r in sel])
        out[key] = (float(lv.mean()), float(lv.std(ddof=1)) if len(lv) > 1 else 0.0, sel[0]["opt"])
    return out


# ------------------------------------------------------------------------------------------------ Appendix H
def apph_results(rng, groups: dict, seeds: int = 3, Hs=(1, 64)) -> dict:
    """Fake Appendix H results of both arms: groups[(arm, kind, family, H)] = (log10 centre, sd); others at MSE 1."""
    k = [{"kind": "spow", "beta": 0.5, "tau": None, "T": None, "w": None},
         {"kind": "sexp", "beta": 5.0, "tau": None, "T": None, "w": None}]
    kinds = ("spow", "sexp")
    runs = [[r, j, f, H] for r in range(seeds) for j in range(2) for f in ("lin", "log") for H in Hs]

    def mse(c, j, f, H):
        centre, sd = groups.get((c, kinds[j], f, H), (0.0, 0.0))
        return 10 ** rng.normal(centre, max(sd, MIN_SD)) if (c, kinds[j], f, H) in groups else 1.0
    return {"fit": {}, "apph": {c: {"spec": {"kernels": k, "S": 1000, "H": list(Hs)}, "result": {
        "runs": runs, "p": [[1.0] * H for *_, H in runs], "mse_exact": [mse(c, j, f, H) for _, j, f, H in runs]}}
        for c in ("free", "none")}}


def apph_world(groups: dict, seeds: int = 3) -> Callable:
    return lambda rng: apph_results(rng, groups, seeds)


def apph_shares(world: Callable, row_id: str, P: dict, sims: int = 200, seed: int = 0) -> dict:
    """Shares of pass / FAIL of one Appendix H row over `sims` draws of world(rng) -> results."""
    row = _row(row_id)
    rng = np.random.default_rng(seed)
    passed = sum(bool(row.decide(P, world(rng)).passed) for _ in range(sims))
    return {"pass": passed / sims, "fail": 1 - passed / sims}


def stored_apph(results: dict) -> dict:
    """{(arm, kind, family, H): (log10 centre, sd)} of stored Appendix H runs."""
    out = {}
    for arm in arms(results):
        table = apph_table({}, results, arm)
        for key in sorted({(r["k"].kind, r["family"], r["H"]) for r in table}):
            lv = np.log10([max(r["mse"], 1e-300) for r in table if (r["k"].kind, r["family"], r["H"]) == key])
            out[(arm, *key)] = (float(lv.mean()), float(lv.std(ddof=1)) if len(lv) > 1 else 0.0)
    return out
