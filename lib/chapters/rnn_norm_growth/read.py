"""Readers of the rnn_norm_growth points beyond the phase diagram (widths.py): the norm table with its fits, the packing
geometry, the A.2 fit, the memoriser's fit and its crossover with the trained runs. Page-side: no computation imports
this module.

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> nt = norm_table(P, results)["1str"]; round(nt["lipr_slope"], 2), round(nt["lipr_se"], 2)
    (0.56, 0.16)
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rnn_norm_growth.compute import TASKS
from lib.core.store import result_array
from lib.science.stats import loglog_slope

LABELS = {"gru": "bidirectional GRU", "elman": "bidirectional Elman RNN, readout $U$",
          "1str": "1STR", "simple": "simple-1STR"}

# ============================================================================================== summary
def _loglog_fit(x, y) -> tuple[float, float]:
    """Least-squares slope of log y on log x over runs, and its standard error (NaN with fewer than 3 runs)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(set(x)) < 2:
        return float("nan"), float("nan")
    A = np.c_[np.log(x), np.ones(len(x))]
    coef, *_ = np.linalg.lstsq(A, np.log(y), rcond=None)
    se = float("nan")
    if len(x) > 2:
        s2 = float(np.sum((np.log(y) - A @ coef) ** 2) / (len(x) - 2))
        se = float(math.sqrt(s2 / np.sum((np.log(x) - np.log(x).mean()) ** 2)))
    return float(coef[0]), se


def norm_table(P: dict, results: dict) -> dict:
    """Elman runs of the widest width that reached the threshold: (L ||U|| r_h)^2 per N and task, and the fit
    (slope and its standard error); also the samples those runs took to reach the threshold, and their slope; on
    1STR the fixed-accuracy quantity (Lip rad)^2 (compute.lipschitz_on_states: the readout's Lipschitz constant on
    the states it sees times their radius) with its fit ("lipr", "lipr_slope", "lipr_se")."""
    out = {}
    S = P["n_seeds"]
    for task in TASKS:
        Ns, vals, steps, lipr = [], [], [], []
        for N in sorted(P["phase_N"]):
            rec = results["phase"][("elman", task, N)]
            v, n = result_array(rec, "product_sq")[-S:], result_array(rec, "samples")[-S:]
            ok = np.isfinite(n)
            Ns += [N] * int(ok.sum())
            vals += list(v[ok])
            steps += list(n[ok])
            if "pack_lipr_sq" in rec["result"]:
                lipr += list(result_array(rec, "pack_lipr_sq")[ok])
        Ns, vals = np.array(Ns, float), np.array(vals, float)
        slope, se = _loglog_fit(Ns, vals)
        out[task] = {"N": Ns, "value": vals, "slope": slope, "se": se, "samples": np.array(steps, float),
                     "samples_slope": float(np.polyfit(np.log(Ns), np.log(steps), 1)[0]) if len(set(Ns)) >= 2 else float("nan")}
        if len(lipr) == len(Ns):
            out[task]["lipr"] = np.array(lipr, float)
            out[task]["lipr_slope"], out[task]["lipr_se"] = _loglog_fit(Ns, lipr)
    return out


def packing_table(P: dict, results: dict) -> dict:
    """Per task: N, participation ratio (mean over the widest runs) and its log-log slope, the N at which none of
    those runs reached the threshold ("unlearned"); on 1STR the Phi distances."""
    out = {}
    for task in TASKS:
        Ns = sorted(P["phase_N"])
        recs = [results["phase"][("elman", task, N)] for N in Ns]
        pr = np.array([result_array(r, "pack_pr").mean() for r in recs])
        e = {"N": Ns, "pr": pr, "slope": loglog_slope(Ns, pr),
             "best": np.array([result_array(r, "best_mse")[-P["n_seeds"]:].mean() for r in recs]),
             # N where no widest run reached the threshold: the geometry there is of networks that never learned
             "unlearned": [N for N, r in zip(Ns, recs) if not np.isfinite(result_array(r, "samples")[-P["n_seeds"]:]).any()]}
        if task == "1str":
            e |= {k: np.array([result_array(r, f"pack_{k}").mean() for r in recs])
                  for k in ("dist_median", "g_dist_median", "phi_mse")}
        out[task] = e
    return out


def a2_fit(results: dict) -> dict:
    """alpha*(N) and its stored fit against ln N (a2.compare_fits), with the fit's R^2 for the legend."""
    r = results["a2"]["result"]
    alpha, fit = np.array(r["alpha_star"], float), r["compare"]["fits"]["ln N"]
    r2 = 1 - fit["rss"] / float(((alpha - alpha.mean()) ** 2).sum())
    return {"N": np.array(r["N"], float), "alpha": alpha, "slope": fit["slope"], "intercept": fit["intercept"], "r2": r2}


def memoriser_fit(results: dict) -> dict:
    """The memoriser's ||vec Theta||^2 against n: every draw, the median over draws, its log-log slope and the
    least-squares line log y = slope log n + intercept; the same for the optimally rescaled interpolant."""
    r = results["memoriser"]["result"]
    n = np.array(r["n"], float)
    # each training error against the rounding bound sqrt(K) u R_i of a sum of K = n + D terms of size R_i
    out = {"n": n, "rounding": np.array(r["rounding_ratio"], float) / np.sqrt(n + r["D"])[:, None]}
    for key, name in (("theta_sq", ""), ("norm_sq_balanced", "balanced_")):
        vals = np.array(r[key], float)
        med = np.median(vals, 1)
        slope, icpt = np.polyfit(np.log(n), np.log(med), 1)
        out |= {f"{name}all": vals, f"{name}median": med, f"{name}slope": float(slope), f"{name}intercept": float(icpt)}
    return out


def crossover_table(P: dict, results: dict, fit: dict | None = None) -> dict:
    """Per N, the widest Elman runs on 1STR that reached the threshold: the lower bound of Thm 9's proof on the
    ||vec Theta||^2 of a network that generalises, L_y (L^2 ||U||^2)^(1/L_y) with L_y = 2 in the theorem's
    normalisation r_h = 1 (which moves r_h into U: 2 L ||U||_op r_h), and their measured ||vec Theta||^2; the median
    of each over runs, and n*, the n at which the memoriser's fitted ||vec Theta||^2 reaches it (NaN with no runs);
    the log-log slopes of the bound and of its n* against N. `fit`: memoriser_fit(results), if already computed."""
    fit = fit or memoriser_fit(results)
    n_at = lambda g: float(np.exp((np.log(g) - fit["intercept"]) / fit["slope"])) if np.isfinite(g) else float("nan")
    S = P["n_seeds"]
    out = {k: [] for k in ("N", "runs", "bound", "theta_sq", "n_bound", "n_theta")}
    for N in sorted(P["phase_N"]):
        rec = results["phase"][("elman", "1str", N)]
        ok = np.isfinite(result_array(rec, "samples"))[-S:]
        bound = 2 * np.sqrt(result_array(rec, "product_sq")[-S:][ok])
        theta_sq = result_array(rec, "theta")[-S:][ok] ** 2
        med = lambda v: float(np.median(v)) if len(v) else float("nan")
        out["N"].append(N)
        out["runs"].append(int(ok.sum()))
        out["bound"].append(med(bound))
        out["theta_sq"].append(med(theta_sq))
        out["n_bound"].append(n_at(out["bound"][-1]))
        out["n_theta"].append(n_at(out["theta_sq"][-1]))
    out = {k: np.array(v) for k, v in out.items()}
    return out | {"bound_slope": loglog_slope(out["N"], out["bound"]), "n_bound_slope": loglog_slope(out["N"], out["n_bound"])}
