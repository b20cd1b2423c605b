"""Readers of the turing_simulation points: the exact-simulation sums per machine and horizon, the size rows, the
robustness, bound and softmax arrays. The page's tables (page.py), its claim rows (claims/) and its figures
(figures.py) all read the results through these; no computation imports this module.

    >>> from lib.chapters import stored; P, results = stored("turing_simulation")   # the committed paper results
    >>> exact_rows(results)[0]["tf_mismatch"], robust_arrays(results, True)["r"].shape   # (len(robust_T), directions)
    (0, (10, 6))
"""
from __future__ import annotations

import math

import numpy as np


def exact_rows(results: dict) -> list[dict]:
    """One row per (machine or random set, T) with the sums over its runs."""
    rows = []
    for (name, T), rec in sorted(results["exact"].items(), key=lambda kv: (kv[0][1], kv[0][0])):
        rows.append({"name": name, "T": T, "runs": 1, **_agg(rec["result"]["machines"].values())})
    for T, rec in sorted(results["random"].items()):
        rows.append({"name": "random", "T": T, "runs": len(rec["result"]["machines"]),
                     **_agg(rec["result"]["machines"].values())})
    return rows


def _agg(ms) -> dict:
    ms = list(ms)
    s = lambda k: sum(m[k] for m in ms)
    return {"inputs": s("B"), "steps": sum(m["B"] * (m["T"] + 1) for m in ms), "tf_mismatch": s("tf_mismatch"),
            "tf_bit_exact": all(m["tf_bit_exact"] for m in ms), "ro_runs": sum(m["B"] for m in ms if m["rollout"]),
            "ro_mismatch": s("ro_mismatch"), "ro_bit_exact": all(m["ro_bit_exact"] for m in ms),
            "nonbinary": s("nonbinary"), "lookup_bad": s("lookup_bad"), "halted": s("halted"), "cls_bad": s("cls_bad"),
            "tape_bad": s("tape_bad"), "gap": min(m["gap"] if m["gap"] is not None else math.inf for m in ms),
            "tie_spread": max(m["tie_spread"] for m in ms), "max_overwrites": max(m["max_overwrites"] for m in ms),
            "d": max(m["d"] for m in ms), "w": max(m["w"] for m in ms)}


def size_rows(results: dict, correction: bool = True) -> list[dict]:
    return [r for r in results["sizes"]["result"]["rows"] if r["correction"] == correction]


def robust_arrays(results: dict, corr: bool) -> dict:
    recs = [results["robust"][k]["result"] for k in sorted(results["robust"]) if k[1] == corr]
    # None is how JSON stores inf: a direction that nothing up to the largest scale corrupts (smallest_failing).
    # Read as NaN, the nan-aggregates below would skip exactly the robust directions.
    f = lambda x: np.array([math.inf if v is None else v for v in np.atleast_1d(x)], float)
    return {"T": np.array([r["T"] for r in recs]), "t": np.concatenate([f(r["t_struct"]) for r in recs]),
            "l2": np.concatenate([f(r["struct_l2"]) for r in recs]),
            "r": np.stack([f(r["r_random"]) for r in recs]), "alpha": np.array([r["alpha"] for r in recs]),
            "p": np.array([r["p"] for r in recs]), "w": np.array([r["w"] for r in recs])}


def bound(results: dict) -> dict:
    """n_hat(T) = alpha^2 log p / gamma_hat^2 with gamma_hat the smallest corrupting l2 perturbation found (with
    correction): an upper bound on the margin, so n_hat is a lower estimate of the bound; beside VC ~ w T."""
    a = robust_arrays(results, True)
    gamma = np.fmin(a["l2"], np.nanmin(a["r"], axis=1))
    return {"T": a["T"], "gamma": gamma, "alpha": a["alpha"], "p": a["p"],
            "n_hat": a["alpha"] ** 2 * np.log(a["p"]) / gamma ** 2, "vc": a["w"] * a["T"]}


def softmax_arrays(results: dict, corr: bool) -> tuple[np.ndarray, np.ndarray]:
    ks = sorted(k for k in results["softmax"] if k[1] == corr)
    b = [results["softmax"][k]["result"]["beta_star"] for k in ks]
    return np.array([k[0] for k in ks]), np.array([math.inf if v is None else v for v in b], float)
