"""The head_lower_bound chapter's stored points, read into the numbers its claims (claims/) and figures (figures.py)
use: the runs of the H sweeps and the relative rank of their attention, the tables of the H sweeps and of the A.2
construction, the samples-to-threshold counts per N and their power fit, and the statistics of Figure 2's
|W_Q^T W_K| against the A.2 block. Nothing here computes a stored number, and no computation imports it, so editing
it leaves the chapter's stored results current.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")   # the committed paper results
    >>> out = results["figure2"]["result"]; stats = figure2_stats(np.asarray(out["M"]), P["figure2_d"], out["d_e"])
    >>> round(stats["diag_mean"], 1), stats["top_on_diag"]
    (35.7, 23)
    >>> tab = scaling_table(P, results)[P["scale_q"]]; round(power_fit(tab["N"], tab["samples"])["p"], 2)
    0.23
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.head_lower_bound.compute import SETTINGS
from lib.core.tables import markdown_table
from lib.science import a2, qstr

# The FVU that counts as "gets it right": RULE_REACH's bound (claims/heads.py: 5-reach-prop21, 5-reach-fraction,
# 6-rank-used, the control), and the line between a solid and a dashed spectrum in figures.plot_spectra.
REACH = 0.05
RANK_TOL = 0.1    # sigma_k / sigma_1 above which a direction counts as used (the book's calibration)


# ------------------------------------------------------------------------------------------------ the H sweeps
def result_of(results: dict, name: str) -> dict:
    return results[name]["result"]


def heads_runs(res: dict, H=None):
    """(H, floor, FVU, se, singular values) of each run of an H sweep, of every H or of one."""
    rows = zip(res["heads"], res["bound"], res["fvu"], res["fvu_se"], res["svals"])
    return [r for r in rows if H is None or r[0] == H]


def relative_rank(svals) -> int:
    """Directions the attention passes on, relative to its largest: sigma_k / sigma_1 > RANK_TOL. An absolute
    tolerance counts every direction of an untrained model (near-uniform attention has all sigma_k > 1e-3)."""
    s = np.asarray(svals, float)
    return int(np.sum(s > RANK_TOL * s[0])) if s[0] > 0 else 0


def heads_table(results: dict) -> str:
    rows = []
    for setting in SETTINGS:
        r = results[setting]["result"]
        for H, b, f, s, m in zip(r["heads"], r["bound"], r["fvu"], r["fvu_se"], r["mse_all"]):
            rows.append([setting, H, f"{b:.3f}", f"{f:.3f} ± {s:.3f}", f"{m:.3f}"])
    return markdown_table(["setting", "$H$", "floor", "measured (± se)", "average over all positions"], rows)


def check_set_se(P: dict, results: dict, check_prompts: int = 1000) -> float:
    """The standard error of an H = 1 run's FVU on a check set of `check_prompts` prompts, scaled from the Prop. 21
    H = 1 runs' test standard error (n_test prompts): what makes the best of many checks fall below the floor."""
    se = [s for H, _, _, s, _ in heads_runs(result_of(results, "prop21"), 1)]
    return float(np.median(se)) * math.sqrt(P["n_test"] / check_prompts)


# ------------------------------------------------------------------------------------------ the A.2 construction
def code_overlaps(P: dict) -> dict:
    """How many pairs of qSTR's random position codes (Figure 2's N and task seed) break Assumption 3 (|overlap| > 1/2),
    for the sentence on why the A.2 construction repairs its codes."""
    task = qstr.QSTR(N=P["figure2_N"], d=P["figure2_d"], q=1, task_seed=P["task_seed"], d_e_rule=P["d_e_rule"])
    G = (task.E.double() @ task.E.double().T).fill_diagonal_(0)
    return {"bad_pairs": int((G.abs() > 0.5).sum()) // 2, "codes_N": P["figure2_N"]}


def construction_table(results: dict) -> str:
    """alpha*(N) of the worst target, per N: the draws' mean and range, the bounds, the (2,1) norm; then the fits."""
    a = results["construction"]["result"]
    rows = [[N, d_e, f"{m:.2f}", f"{min(d):.2f} to {max(d):.2f}", f"{lo:.2f} to {hi:.2f}", f"{n:.0f}"]
            for N, d_e, m, d, lo, hi, n in
            zip(a["N"], a["d_e"], a["alpha_star"], a["alpha_draws"], a["low"], a["high"], a["norm"])]
    table = markdown_table(["$N$", "$d_e$", r"$\alpha^*$ (mean)", "over draws", "bounds", r"$(2,1)$ norm $\alpha^* d_e$"], rows)
    label = {"ln N": r"$a+b\ln N$", "N^1/4": r"$a+bN^{1/4}$", "N^1/2": r"$a+bN^{1/2}$"}
    fits = [[label[k], f"{v['slope']:.3f}", f"{v['intercept']:.2f}", f"{v['rss']:.3f}", f"{v['aic']:.1f}"]
            for k, v in ((k, a["compare"]["fits"][k]) for k in a2.GROWTHS)]   # a fixed order: a reload sorts keys
    return table + "\n\n" + markdown_table(["fit", "$b$", "$a$", "residual sum of squares", "AIC"], fits)


# ---------------------------------------------------------------------------------- samples-to-threshold against N
def scaling_table(P: dict, results: dict) -> dict:
    """{H: {"N": [...], "samples": (len(N), seeds), "mean": [...]}} for the samples-to-threshold sweep."""
    out = {}
    for H in (1, P["scale_q"]):
        rows = []
        for N in P["scale_N"]:
            r = results["scaling"][N]["result"]
            rows.append([s for h, s in zip(r["heads"], r["samples"]) if h == H])
        arr = np.array(rows, dtype=float)
        out[H] = {"N": list(P["scale_N"]), "samples": arr, "mean": arr.mean(1)}  # NaN where a run is censored
    return out


SAMPLE_GROWTHS = {"ln N": np.log, "N^1/2": np.sqrt, "N": lambda n: n}   # polylog against powers, for n*(N)


def power_fit(N, samples) -> dict:
    """Least-squares slope p of ln n* against ln N over every run (not the means: the spread over seeds is the
    noise), its standard error, and the number of runs; NaN where fewer than three runs."""
    x = np.repeat(np.log(np.asarray(N, float)), np.asarray(samples).shape[1])
    y = np.log(np.asarray(samples, float)).ravel()
    if len(y) < 3:
        return {"p": float("nan"), "se": float("nan"), "runs": len(y)}
    p, a = np.polyfit(x, y, 1)
    rss = float(np.sum((y - a - p * x) ** 2))
    se = math.sqrt(rss / (len(y) - 2) / float(np.sum((x - x.mean()) ** 2)))
    return {"p": float(p), "se": se, "runs": len(y)}


def h1_best(P: dict, results: dict) -> str:
    """The best unexplained variance the H = 1 runs (Prop. 21's data) reached, per N of the scaling sweep."""
    best = []
    for N in P["scale_N"]:
        r = results["scaling"][N]["result"]
        best.append(f"{N}: {min(f for h, f in zip(r['heads'], r['best_fvu']) if h == 1):.2f}")
    return ", ".join(best)


# ------------------------------------------------------------------------------------------------------ Figure 2
def figure2_stats(M: np.ndarray, d: int, d_e: int) -> dict:
    """The A.2 block of W_Q^T W_K (query rows [d+d_e, d+2d_e), key columns [d, d+d_e)) against everything else."""
    A = np.abs(M)
    block = A[d + d_e:d + 2 * d_e, d:d + d_e]
    diag = np.diag(M[d + d_e:d + 2 * d_e, d:d + d_e])
    off = block[~np.eye(d_e, dtype=bool)]
    outside = np.ones_like(A, dtype=bool)
    outside[d + d_e:d + 2 * d_e, d:d + d_e] = False
    rows, cols = np.unravel_index(np.argsort(A, axis=None)[::-1][:d_e], A.shape)   # the d_e largest entries
    on_diag = int(np.sum((rows >= d + d_e) & (rows < d + 2 * d_e) & (rows - (d + d_e) == cols - d)))
    template = a2.weights(1, d, d_e, 1.0)[0].numpy()                         # Eq. A.2 with q = 1, alpha = 1
    return {"diag_mean": float(np.abs(diag).mean()), "diag_median": float(np.median(np.abs(diag))),
            "off_median": float(np.median(off)),
            "outside_median": float(np.median(A[outside])), "top_on_diag": on_diag,
            "positive": float(np.mean(diag > 0)), "corr": float(np.corrcoef(A.ravel(), template.ravel())[0, 1])}
