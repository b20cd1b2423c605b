"""The power of the rules issue 36 restated (rows 10a-contrast-* and 10b-norm*): each row, its measure decided by its
rule, run on simulated results drawn like the stored paper results, from a world with the theorem's mechanism and from one
without it. Page-side: no computation imports this module; benchmarks/rnn_norm_growth_power.py prints the numbers,
and tests/test_rnn_norm_growth.py runs a smaller version that can fail.

    >>> contrast_power("gru", "faithful", sims=20)     # shares of the row's verdicts in a world with the mechanism
    {'pass': 1.0, 'fail': 0.0, 'censored': 0.0}

The simulated phase diagram (`fake_phase`): every run of width w has its own critical width c, the world's d*(N)
times exp(SIGMA_RUN * normal); a run with w >= c reaches the threshold (best MSE uniform in [0.15, threshold), as
the stored runs that stopped there), one with w < c plateaus at threshold + 0.7 (1 - exp(-0.8 log2(c / w))) plus
normal noise of sd 0.03 (kept above the threshold): about 0.69 at half its critical width, 0.86 at a quarter, as in
the stored GRU and Elman points. The simulated norms (`fake_norms`): (Lip rad)^2 = C N^slope exp(SIGMA_NORM *
normal) for each of the three widest runs per N.
"""
from __future__ import annotations

import numpy as np

from lib.chapters.rnn_norm_growth.claims import ROWS, contrast_numbers

# the stored paper grid
PAPER_GRID = {"archs": ["gru", "elman"], "phase_N": [4, 8, 16], "widths": [1, 2, 4, 8, 16, 32], "n_seeds": 3,
              "threshold": 0.3, "d": 4, "max_samples": 2048000}
SIGMA_RUN = 0.2      # log sd of a run's own critical width: about the share of (N, width) cells whose seeds split
                     # between reaching and plateauing in the stored paper points (4 of 72, `mixed_share`; 0.2 gives 0.045)
SIGMA_NORM = 0.14    # log sd of (Lip rad)^2 about its fit: 0.13 (paper) and 0.15 (quick) in the stored points
# d*(N) of each world, between grid widths (a true d* anywhere in (w/2, w] reads about w, the runs at w stopping just
# below the threshold): 1STR 3 N / 4, which reads about 3.9, 8, 16 as the stored GRU runs (slope 1); simple-1STR
# flat (Theorem 7's width fixed in N) at 1.5, which reads about 2 as the stored N = 8 value, or at 1.0, reached at
# the floor d_h = 1 by some seeds; or growing like 1STR at a quarter of its level (0.75, 1.5, 3: reads about
# <= 1, 2, 3.9 as the stored runs: no contrast)
DSTAR = {"1str": lambda N: 0.75 * N, "flat": lambda N: 1.5 + 0 * N, "flat-floor": lambda N: 1.0 + 0 * N,
         "null": lambda N: 0.75 * N / 4}


_ROW = {row.id: row for row in ROWS}


def _read(v) -> str:
    return "censored" if v.censored else "pass" if v.passed else "fail"


def fake_phase(P: dict, dstar: dict, rng: np.random.Generator, sigma: float = SIGMA_RUN) -> dict:
    """{(arch, task, N): {"result": {"best_mse", "samples", "status"}}} for every arch of P, drawn as the module
    docstring says; dstar: {task: d*(N)}."""
    out, W, S, thr = {}, np.asarray(P["widths"], float), P["n_seeds"], P["threshold"]
    for arch in P["archs"]:
        for task, f in dstar.items():
            for N in P["phase_N"]:
                c = f(N) * np.exp(sigma * rng.standard_normal((len(W), S)))
                w = W[:, None]
                above = thr + 0.7 * (1 - np.exp(-0.8 * np.log2(np.maximum(c / w, 1.0))))
                above = np.maximum(above + 0.03 * rng.standard_normal(c.shape), thr + 1e-3)
                reached = w >= c
                best = np.where(reached, rng.uniform(0.15, thr, c.shape), above)
                out[(arch, task, N)] = {"result": {"best_mse": best.ravel().tolist(),
                                                   "samples": np.where(reached, 1e5, np.nan).ravel().tolist(),
                                                   "status": np.where(reached, 0, 1).ravel().tolist()}}
    return {"phase": out}


def mixed_share(P: dict, results: dict) -> float:
    """The share of (arch, task, N, width) cells whose runs split between reaching the threshold and not."""
    cells = [np.asarray(r["result"]["status"]).reshape(len(P["widths"]), P["n_seeds"]) == 0
             for r in results["phase"].values()]
    return float(np.mean([np.any(c, 1) & ~np.all(c, 1) for c in cells]))


def contrast_power(arch: str, world: str, sims: int = 200, seed: int = 0, sigma: float = SIGMA_RUN) -> dict:
    """Shares of `sims` simulated diagrams on which row 10a-contrast-<arch> reads pass, FAIL, censored. world:
    "faithful" (simple-1STR flat at 2.0), "faithful-floor" (flat at 1.4) or "null" (simple-1STR grows like 1STR)."""
    simple = {"faithful": "flat", "faithful-floor": "flat-floor", "null": "null"}[world]
    rng, P, row, out = np.random.default_rng(seed), {**PAPER_GRID, "archs": [arch]}, _ROW[f"10a-contrast-{arch}"], []
    for _ in range(sims):
        res = fake_phase(P, {"1str": DSTAR["1str"], "simple": DSTAR[simple]}, rng, sigma)
        out.append(_read(row.decide(P, res)))
        assert out[-1] == contrast_numbers(P, res, arch)["decision"]
    return {k: out.count(k) / sims for k in ("pass", "fail", "censored")}


def fake_norms(P: dict, slope: float, rng: np.random.Generator, unknown_N: tuple = (), sigma: float = SIGMA_NORM) -> dict:
    """Phase records of the widest Elman runs on 1STR with (Lip rad)^2 = 30 (N / 4)^slope exp(sigma normal), every run
    reached; at the N in unknown_N every widest run is cut off by the cap (no value)."""
    S, out = P["n_seeds"], {}
    for N in P["phase_N"]:
        lipr = 30 * (N / 4) ** slope * np.exp(sigma * rng.standard_normal(S))
        cut = N in unknown_N
        out[("elman", "1str", N)] = {"result": {"product_sq": lipr.tolist(), "pack_lipr_sq": lipr.tolist(),
                                                "samples": [np.nan if cut else 1e5] * S, "status": [2 if cut else 0] * S}}
        out[("elman", "simple", N)] = {"result": {"product_sq": [1.0] * S, "samples": [1e5] * S, "status": [0] * S}}
    return {"phase": out}


def norm_power(slope: float, sims: int = 200, seed: int = 0, unknown_N: tuple = ()) -> dict:
    """Shares of `sims` simulated sets of widest runs (three per N of the paper grid, true slope `slope`) on which
    rows 10b-norm-lower and 10b-norm read pass, FAIL, censored."""
    rng = np.random.default_rng(seed)
    P = {**PAPER_GRID, "archs": ["elman"], "widths": [PAPER_GRID["widths"][-1]]}
    out = {"10b-norm-lower": [], "10b-norm": []}
    for _ in range(sims):
        res = fake_norms(P, slope, rng, unknown_N)
        for k in out:
            out[k].append(_read(_ROW[k].decide(P, res)))
    return {k: {o: v.count(o) / sims for o in ("pass", "fail", "censored")} for k, v in out.items()}
