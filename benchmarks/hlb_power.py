"""Power of head_lower_bound's restated claim rules (issue 36): each row's own function (the code that decides its
verdict) run on simulated results drawn (1) like the stored paper results, the effect at its measured size and
spread, and (2) from a world without the theorem's mechanism; the pass rate of each.

    .venv/bin/python benchmarks/hlb_power.py --sims 200      # reads results/head_lower_bound/paper
"""
from __future__ import annotations

import argparse
import copy
import dataclasses
import json
from fractions import Fraction

import numpy as np

from lib.chapters.head_lower_bound import compute as hl
from lib.chapters.head_lower_bound.claims import heads as heads_claims
from lib.chapters.head_lower_bound.claims import scaling as scaling_claims
from lib.chapters.head_lower_bound.results import REACH, scaling_table
from lib.core import params
from lib.core.store import ROOT, Store
from lib.core.sweep import collect


def load_paper():
    P = params.resolve("head_lower_bound", "paper")
    store = Store("head_lower_bound", "paper", root=ROOT / "results", stored_only=True)
    return P, collect(hl.points(P), store, "cpu", log=None)


def _with_runs(results: dict, setting: str, heads, fvus, svals) -> dict:
    out = copy.copy(results)
    r = dict(results[setting]["result"])
    r.update(heads=list(heads), fvu=list(fvus), fvu_se=[0.005] * len(fvus), svals=list(svals),
             bound=[0.0] * len(fvus))
    out[setting] = {**results[setting], "result": r}
    return out


def reach_fraction_power(P: dict, results: dict, sims: int, seed: int = 0) -> dict:
    """5-reach-fraction. Faithful: each H >= q run reaches with a probability drawn from Beta(k+1, n-k+1), the
    posterior of the stored k of n, its FVU then drawn from the stored runs that reached (else from those that
    stalled). Null (no Theorem 4 mechanism): H >= q heads do no better than q - 1, every run's FVU drawn from the
    stored H = q - 1 runs. Weak null: training finds the solution in 1 run of 10 (p = 0.1)."""
    rng = np.random.default_rng(seed)
    q = P["p21_q"]
    r = results["prop21"]["result"]
    runs = [(H, f, sv) for H, f, sv in zip(r["heads"], r["fvu"], r["svals"]) if H >= q]
    reached = [x for x in runs if x[1] <= REACH]
    stalled = [x for x in runs if x[1] > REACH]
    below = [(H, f, sv) for H, f, sv in zip(r["heads"], r["fvu"], r["svals"]) if H == q - 1]
    heads = [H for H, _, _ in runs]
    k, n = len(reached), len(runs)

    def one(p_reach=None, pool=None):
        if pool is None:
            hit = rng.random(n) < p_reach
            pick = [reached[rng.integers(len(reached))] if h else stalled[rng.integers(len(stalled))] for h in hit]
        else:
            pick = [pool[rng.integers(len(pool))] for _ in range(n)]
        return heads_claims.RULE_REACH_FRACTION.decide(heads_claims.reach_fraction(
            P, _with_runs(results, "prop21", heads, [x[1] for x in pick], [x[2] for x in pick]))).passed

    faithful = np.mean([one(rng.beta(k + 1, n - k + 1)) for _ in range(sims)])
    at_estimate = np.mean([one(k / n) for _ in range(sims)])
    null = np.mean([one(pool=below) for _ in range(sims)])
    weak = np.mean([one(0.1) for _ in range(sims)])
    return {"row": "5-reach-fraction", "sims": sims, "runs": n, "stored": f"{k} of {n}",
            "faithful_posterior": float(faithful), "faithful_at_estimate": float(at_estimate),
            "null_no_mechanism": float(null), "null_p0.1": float(weak)}


def below_floor_prop3_power(P: dict, results: dict, sims: int, seed: int = 0) -> dict:
    """7-below-floor-prop3. Faithful: each H >= q Prop. 3 run goes below the H = q - 1 floor with a probability drawn
    from Beta(k+1, n-k+1), the posterior of the stored k of n, its FVU then drawn from the stored runs that did (else
    from the stored H = q - 1 runs: a run that stalls with a head short). Null (no Theorem 4 mechanism): H >= q heads
    do no better than q - 1, every FVU drawn from the stored H = q - 1 runs."""
    rng = np.random.default_rng(seed)
    q, d = P["p3_q"], P["p3_d"]
    r = results["prop3"]["result"]
    floor = hl.lower_bound("prop3", q - 1, q, d)
    runs = [(H, f, s) for H, f, s in zip(r["heads"], r["fvu"], r["fvu_se"]) if H >= q]
    below = [x for x in runs if x[1] + 3 * x[2] < floor]
    short = [(H, f, s) for H, f, s in zip(r["heads"], r["fvu"], r["fvu_se"]) if H == q - 1]
    k, n = len(below), len(runs)
    keep = [(H, f, s) for H, f, s in zip(r["heads"], r["fvu"], r["fvu_se"]) if H < q]

    def one(p_below):
        hit = rng.random(n) < p_below
        pick = [below[rng.integers(len(below))] if h and below else short[rng.integers(len(short))] for h in hit]
        out = copy.copy(results)
        rr = dict(r)
        rr.update(heads=[H for H, _, _ in keep] + [H for H, _, _ in runs], fvu=[f for _, f, _ in keep] + [x[1] for x in pick],
                  fvu_se=[s for _, _, s in keep] + [x[2] for x in pick])
        out["prop3"] = {**results["prop3"], "result": rr}
        return heads_claims.RULE_BELOW_FLOOR_PROP3.decide(heads_claims.below_floor_prop3(P, out)).passed

    return {"row": "7-below-floor-prop3", "sims": sims, "runs": n, "stored": f"{k} of {n}",
            "faithful_posterior": float(np.mean([one(rng.beta(k + 1, n - k + 1)) for _ in range(sims)])),
            "faithful_at_estimate": float(np.mean([one(k / n) for _ in range(sims)])),
            "null_no_mechanism": float(np.mean([one(0.0) for _ in range(sims)]))}


def scaling_power(P: dict, results: dict, sims: int, seed: int = 0) -> dict:
    """4-scaling (its rule unchanged, its text restated). Faithful: ln n* = a + p ln N + noise with the stored fit's
    p and residual spread. Null: the same noise around a sqrt N law (p = 1/2), and around a linear one (p = 1)."""
    rng = np.random.default_rng(seed)
    q = P["scale_q"]
    table = scaling_table(P, results)[q]
    N, S = np.array(table["N"], float), table["samples"]
    x, y = np.repeat(np.log(N), S.shape[1]), np.log(S).ravel()
    p, a = np.polyfit(x, y, 1)
    sd = float(np.std(y - a - p * x, ddof=2))

    def one(power):
        out = copy.copy(results)
        out["scaling"] = {}
        for n in table["N"]:
            r = dict(results["scaling"][n]["result"])
            s = np.exp(a + power * (np.log(n) - x.mean()) + p * x.mean() + sd * rng.standard_normal(S.shape[1]))
            heads = list(r["heads"])
            samples = np.array(r["samples"], float)
            samples[[j for j, h in enumerate(heads) if h == q]] = s
            r["samples"] = samples
            out["scaling"][n] = {**results["scaling"][n], "result": r}
        return scaling_claims.RULE_SCALING.decide(scaling_claims.scaling_claim(P, out)).passed

    return {"row": "4-scaling", "sims": sims, "fit": f"p = {p:.2f}, residual sd {sd:.2f} (log samples)",
            "faithful": float(np.mean([one(p) for _ in range(sims)])),
            "null_sqrtN": float(np.mean([one(0.5) for _ in range(sims)])),
            "null_N": float(np.mean([one(1.0) for _ in range(sims)]))}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=200)
    a = ap.parse_args()
    P, results = load_paper()
    for f in (reach_fraction_power, below_floor_prop3_power, scaling_power):
        print(json.dumps(f(P, results, a.sims)))
    rule = heads_claims.RULE_REACH_FRACTION                         # the rule before issue 36, for comparison: share >= 1/2
    heads_claims.RULE_REACH_FRACTION = dataclasses.replace(rule, bound=Fraction(1, 2))
    print(json.dumps({**reach_fraction_power(P, results, a.sims), "rule": "before issue 36: share >= 1/2"}))
    heads_claims.RULE_REACH_FRACTION = rule
