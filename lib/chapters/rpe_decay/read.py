"""Readers of rpe_decay's stored points, shared by the page, its claim rows and its figures: the best H-head errors of a
fit (`errors`), the heads a kernel needs (`heads_needed`), Thm 6.1's guaranteed rates, one row per training run with
its optimum (`train_table`), and the names and number formats the page uses.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> print(f'{errors(results, Kernel("power", beta=1.2), "log", 1e12)[8]["l1"]:.2e}')   # 8 log heads' best L1 error
    2.46e-06
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rpe_decay import compute
from lib.chapters.rpe_decay.compute import FAMILIES, Kernel, kernel_name


# --------------------------------------------------------------------------------------- reading results
def point_counts(results: dict) -> str:
    """What the stored points are, for the page's summary line."""
    n_H = sum(len(r["result"]["H"]) for r in results["fit"].values())
    return (f"They are the exact checks, {len(results['fit'])} kernel fits ({n_H} values of H, each from its own "
            f"starts) and {len(results['train'])} training sweeps.")


def errors(results: dict, k: Kernel, family: str, S: float, H_list=None) -> dict[int, dict]:
    """{H: {"l1", "l2", "p", "alpha"}} of one fit point, or {} if it is not in the results."""
    for (name, f, S_, Hs), rec in results["fit"].items():
        if name == kernel_name(k) and f == family and S_ == float(S) and (H_list is None or list(Hs) == list(H_list)):
            r = rec["result"]
            return {H: {"l1": r["l1"][i], "l2": r["l2"][i], "p": r["p"][i], "alpha": r["alpha"][i]}
                    for i, H in enumerate(r["H"])}
    return {}


def heads_needed(errs: dict[int, dict], eps: float, key: str = "l1") -> float:
    """Smallest H of the grid whose error is <= eps; inf if none."""
    ok = [H for H, e in sorted(errs.items()) if e[key] is not None and e[key] <= eps]
    return float(ok[0]) if ok else math.inf


def guaranteed_rate(k: Kernel, family: str) -> int:
    """The rate n that Thm 6.1 guarantees (0: none): log heads on power laws n <= floor(0.99 beta) - 1, lin heads
    on exponentially decaying kernels n <= floor(99 beta) with beta = 1/tau."""
    if k.kind == "power" and family == "log":
        return max(0, math.floor(0.99 * k.beta) - 1)
    if k.kind == "exp" and family == "lin":
        return max(0, math.floor(99 / k.tau))
    return 0


def train_table(results: dict) -> list[dict]:
    """One row per training run: kernel, S, family, H, seed, exact MSE, l1, and the VarPro optimum Var(x) E2^2."""
    rows = []
    for (name, S), rec in results["train"].items():
        r, k = rec["result"], Kernel(**rec["spec"]["kernel"])
        optima = {f: errors(results, k, f, float(S), rec["spec"]["H"]) for f in FAMILIES}   # once per sweep, not per run
        for i, (f, H, seed) in enumerate(r["runs"]):
            opt = optima[f].get(H, {})
            rows.append({"kernel": name, "k": k, "S": S, "family": f, "H": H, "seed": seed, "mse": r["mse_exact"][i],
                         "test_mse": r["test_mse"][i], "l1": r["l1"][i], "p": r["p"][i],
                         "opt": compute.VAR_X * opt["l2"] ** 2 if opt.get("l2") is not None else math.nan,
                         "opt_p": opt.get("p"), "opt_alpha": opt.get("alpha")})
    return rows


PRECISION_MARGIN = 100   # a lin run is limited by training's precision where its optimum is this many times below it


def training_floor(rows: list[dict]) -> tuple[float, int]:
    """(floor, n): what float32 AdamW on this run's budget resolves, measured from the lin runs' own precision: the
    median trained MSE of the lin runs whose fitter optimum is at least PRECISION_MARGIN times below their trained MSE
    (their error is training's, not the architecture's), and how many such runs there are; (0.0, 0) if none. No run
    is dropped for it: every run is compared with max(optimum, floor) (`reachable`)."""
    lin = [r["mse"] for r in rows if r["family"] == "lin" and r["opt"] * PRECISION_MARGIN <= r["mse"]]
    return (float(np.median(lin)), len(lin)) if lin else (0.0, 0)


def reachable(row: dict, floor: float) -> float:
    """What a run can be asked to reach: the fitter's optimum, or the training floor where that is higher."""
    return max(row["opt"], floor)


def furthest_from_floor(rows: list[dict]) -> dict | None:
    """The training run with the largest MSE / max(optimum, floor), over every run."""
    floor, _ = training_floor(rows)
    return max(rows, key=lambda r: r["mse"] / reachable(r, floor), default=None)


def label(k: Kernel) -> str:
    """A kernel's name for the page's text, tables and figures, in MyST (and matplotlib) math."""
    return {"power": lambda: rf"power law $\beta$ = {k.beta:g}", "exp": lambda: rf"exp. cutoff $\tau$ = {k.tau:g}",
            "bump": lambda: f"bump $T$ = {k.T}, $w$ = {k.w:g}", "delta": lambda: f"delta $T$ = {k.T}",
            "spow": lambda: f"$t^{{-{k.beta:g}}}$", "sexp": lambda: f"$e^{{-{k.beta:g}t}}$"}[k.kind]()


def times(x: float) -> str:
    """A ratio for the page: two digits, in scientific notation below 0.01 or from 1000 up (0.047×, 2.0e-04×)."""
    return f"{x:.1e}" if x < 0.01 or x >= 1000 else f"{x:.2g}"


def fmt(x: float) -> str:
    return "inf" if x is None or not np.isfinite(x) else f"{x:.1e}"
