"""The power of the two uncorrected robustness rows: each row's own function (the rows of claims/) run on runs
simulated from the stored points, in a world like this run (the effect at its measured size and spread) and in a
world without the mechanism, so that a reader sees how often each rule passes in both. Page-side: no computation
imports this module.

- `7-random-nocorr`: per T, the uncorrected radii of `directions` random directions drawn (with replacement) from
  the stored ones; the null world draws them from the corrected radii at the same T (a network the missing
  correction does not hurt).
- `7-collapse`: ln t* of the measured uncorrected radii plus normal noise of the line's residual spread (a value that
  falls to the float64 floor is censored, as the search stores it); the null world puts the same stored radii at
  randomly permuted T (the same values, no order in T).

    >>> from lib.chapters import stored; P, results = stored("turing_simulation")   # the committed paper results
    >>> nocorr_rates(P, results)["faithful"], collapse_rates(P, results)["null"]   # pass shares
    (1.0, 0.0)
"""
from __future__ import annotations

import numpy as np

from lib.chapters.turing_simulation import claims as R
from lib.chapters.turing_simulation.results import robust_arrays

SIMS = 200


def _robust_copy(results: dict) -> dict:
    return {"robust": {k: {"result": dict(v["result"])} for k, v in results["robust"].items()}}


def _passed(row_id: str, P: dict, fake: dict) -> bool:
    """Whether the row passes on the simulated run (its rule on what its measure finds; a censored row does not)."""
    return bool(next(r for r in R.ROWS if r.id == row_id).decide(P, fake).passed)


def nocorr_rates(P: dict, results: dict, sims: int = SIMS, seed: int = 0, directions: int | None = None) -> dict:
    """{"faithful", "null"}: the pass shares of `7-random-nocorr` over `sims` resampled runs with `directions`
    random directions each (default: the run's)."""
    rng = np.random.default_rng(seed)
    T = sorted(k[0] for k in results["robust"] if not k[1])
    out = {}
    for world, source in (("faithful", False), ("null", True)):
        passed = 0
        for _ in range(sims):
            fake = _robust_copy(results)
            for t in T:
                pool = np.asarray(results["robust"][(t, source)]["result"]["r_random"], float)
                fake["robust"][(t, False)]["result"]["r_random"] = rng.choice(pool, directions or len(pool)).tolist()
            passed += _passed("7-random-nocorr", P, fake)
        out[world] = passed / sims
    return out


def collapse_rates(P: dict, results: dict, sims: int = SIMS, seed: int = 0) -> dict:
    """{"faithful", "null"}: the pass shares of `7-collapse` over `sims` simulated runs (module docstring)."""
    rng = np.random.default_rng(seed)
    a = robust_arrays(results, False)
    ok = np.isfinite(a["t"]) & (a["t"] > R.FLOOR)
    (slope, icpt), _ = R._fit(a["T"][ok].astype(float), np.log(a["t"][ok]))
    resid = np.log(a["t"][ok]) - (slope * a["T"][ok] + icpt)
    sd = float(np.std(resid, ddof=2)) if ok.sum() > 2 else 0.0
    out = {}
    for world in ("faithful", "null"):
        passed = 0
        for _ in range(sims):
            if world == "faithful":
                t = np.exp(slope * a["T"] + icpt + rng.normal(0, sd, len(a["T"])))
                t = np.where(t > R.FLOOR, t, 1e-17)
            else:
                t = rng.permutation(a["t"])
            fake = _robust_copy(results)
            for Ti, ti in zip(a["T"], t):
                fake["robust"][(int(Ti), False)]["result"]["t_struct"] = float(ti)
            passed += _passed("7-collapse", P, fake)
        out[world] = passed / sims
    return out
