"""The power of the planted-AND rows: each row's own function (claims/__init__.py, through evaluate) run on success tables
simulated from a law of m*(T) fitted to the stored points, so that a reader sees how often each rule passes, fails
or reads censored in a world where the log law holds, where a power or a linear law holds, and where the success
curve does not move with T. A16 is simulated by resampling the stored trials: successes (the variable created) against
failures (a world without it). Page-side: no computation imports this module.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> print(power_table(P, results, sims=20).splitlines()[0])   # pass / FAIL / censored shares per row and world
    | row | log world | power world | linear world | no shift world |
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sparse_variable_creation.claims import ROWS
from lib.chapters.sparse_variable_creation.results import LAWS, and_table, cells, fit_law, logistic
from lib.core.claims import evaluate
from lib.core.tables import markdown_table

SCALING_ROWS = ("A11a", "A11b", "A11c", "A12", "A13b")
WORLDS = ("log", "power", "linear", "no shift")
SIMS = 200


def worlds(c: dict) -> dict:
    """{world: (law, coefficients on (1, m, g(T)))}: each law's maximum-likelihood fit to the stored cells, and the
    no-shift world (one logistic curve in m for every T, fitted to the same cells)."""
    out = {law: (law, np.array(fit_law(c, law)["coef"])) for law in LAWS}
    coef, _ = logistic(np.column_stack([np.ones_like(c["m"]), c["m"]]), c["k"], c["n"])
    out["no shift"] = ("log", np.r_[coef, 0.0])
    return out


def simulate(world: tuple, T_grid, ms, trials: int, rng) -> dict:
    """One simulated run: {"and": {T: {"result": {"m", "success"}}}} with success ~ Bernoulli(logistic)."""
    law, coef = world
    out = {}
    for T in T_grid:
        m = np.repeat(np.asarray(ms, float), trials)
        p = 1 / (1 + np.exp(-(coef[0] + coef[1] * m + coef[2] * LAWS[law](float(T)))))
        out[T] = {"result": {"m": m.astype(int).tolist(), "success": (rng.random(len(m)) < p).tolist()}}
    return {"and": out}


def rates(P: dict, world: tuple, ids=SCALING_ROWS, sims: int = SIMS, seed: int = 0, grid: dict | None = None) -> dict:
    """{row id: (pass, FAIL, censored) shares} of the rows' own functions over `sims` simulated runs of the grid
    (default: the profile's T, m and trials; `grid` overrides any of and_T, and_m, and_trials)."""
    G = {**P, **(grid or {})}
    rows = [r for r in ROWS if r.id in ids]
    rng = np.random.default_rng(seed)
    tally = {}                       # a row this grid cannot measure (A12 without T = 400) is left out
    for _ in range(sims):
        for v in evaluate(rows, G, simulate(world, G["and_T"], G["and_m"], G["and_trials"], rng)):
            tally.setdefault(v["id"], np.zeros(3))[2 if v.get("censored") else 0 if v["passed"] else 1] += 1
    return {i: tuple((t / sims).tolist()) for i, t in tally.items()}


def attention_rates(P: dict, results: dict, sims: int = SIMS, seed: int = 0) -> dict:
    """{"faithful" | "null": A16's pass share} over runs whose trials are drawn (with replacement, as many per T as
    the run's successes) from the stored successes, or from the stored failures (the heads without the variable)."""
    row = [r for r in ROWS if r.id == "A16"]
    rng = np.random.default_rng(seed)
    out = {}
    for world, want in (("faithful", True), ("null", False)):
        passed = 0
        for _ in range(sims):
            fake = {}
            for T, rec in results["and"].items():
                r = rec["result"]
                s = np.array(r["success"], bool)
                pool = np.flatnonzero(s == want)
                if not len(pool) or not s.any():
                    continue
                pick = rng.choice(pool, s.sum())
                fake[T] = {"result": {"m": np.array(r["m"])[pick].tolist(), "success": [True] * len(pick),
                                      "planted_attention": np.array(r["planted_attention"])[pick].tolist(),
                                      "top3_is_planted": np.array(r["top3_is_planted"], bool)[pick].tolist()}}
            v = evaluate(row, P, {"and": fake})
            passed += bool(v and v[0]["passed"])
        out[world] = passed / sims
    return out


def _cell(r: tuple) -> str:
    return f"{r[0]:.0%} / {r[1]:.0%} / {r[2]:.0%}"


def power_table(P: dict, results: dict, sims: int = SIMS, grid: dict | None = None) -> str:
    """Markdown: per row (A11a, A11b, A11c, A12, A13b) and world (each law fitted to the stored cells, and no shift), the
    shares of simulated runs that pass / FAIL / read censored, on the profile's grid or `grid`."""
    W = worlds(cells(and_table(results)))
    R = {w: rates(P, W[w], sims=sims, grid=grid) for w in WORLDS}
    ids = [i for i in SCALING_ROWS if i in R[WORLDS[0]]]
    return markdown_table(["row", *(f"{w} world" for w in WORLDS)], [[f"`{i}`", *(_cell(R[w][i]) for w in WORLDS)]
                                                                      for i in ids])
