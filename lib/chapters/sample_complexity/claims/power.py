"""The power of the restated claim rules: each row's own function run on simulated result tables, from a faithful
reproduction (the effect at its measured size, seeds and task draws spread as measured) and from a world without the
theorem's mechanism. A rule that a faithful rerun often fails, or that the null world often passes, is not evidence.

Runs are drawn log-normal around a mean per (model, N): a task-draw offset per draw, then a seed's own. The spreads
come from the stored results (`measured_spreads`), so the simulation is of this book's experiment at its scale.
The attention row's power is measured the same way, on simulated attention (`peak_rates`). A simulated result passes
where the row's own rule decides it passes (a row's `decide`: its measure, then its rule). No computation imports
this module; benchmarks/power_sample_complexity.py prints the table, tests/test_sample_complexity.py checks it.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> from lib.chapters.sample_complexity.results import summarize
    >>> paper_means_rates(summarize(P, records), P, n_sim=20)     # pass shares of paper-means per world
    {'faithful': 1.0, 'one model x1.3 (the FFN)': 0.1, 'every mean x1.15': 0.1}
"""
from __future__ import annotations

import numpy as np
import torch

from lib.chapters.sample_complexity.claims import attention, figure1
from lib.chapters.sample_complexity.claims import wide as wide_claim
from lib.chapters.sample_complexity.compute import attention_stats
from lib.chapters.sample_complexity.results import MODELS, authors, wide
from lib.science.qstr import embed_dim_rule, rademacher_codes


def entry(by_draw: np.ndarray, N: list[int]) -> dict:
    """A summarize() table entry from (len(N), G, R) samples (no censored runs)."""
    runs = by_draw.reshape(len(N), -1)
    return {"N": list(N), "runs": runs, "by_draw": by_draw, "censored": np.zeros(len(N), int), "mean": runs.mean(1)}


def draw_runs(rng, mean, seed_sd, draw_sd, G: int, R: int) -> np.ndarray:
    """(len(mean), G, R) log-normal runs: per N a mean, a draw offset per draw and a seed offset per run."""
    mean, seed_sd = np.asarray(mean, float), np.broadcast_to(np.asarray(seed_sd, float), np.shape(mean))
    d = rng.standard_normal((len(mean), G, 1)) * draw_sd
    e = rng.standard_normal((len(mean), G, R)) * seed_sd[:, None, None]
    return mean[:, None, None] * np.exp(d + e)


def measured_spreads(table: dict, P: dict) -> dict:
    """{(panel, model): (N, seed_sd per N, draw_sd)} of the stored runs (authors.spreads), for the paper-means
    comparison's test sets."""
    out = {}
    for panel, test in authors.CLAIM_TEST.items():
        for m in MODELS:
            e = table.get(panel, {}).get(m, {}).get(test)
            if e is not None:
                seed_var, draw_var = authors.spreads(e)
                out[(panel, m)] = (e["N"], np.sqrt(seed_var), 0.0 if np.isnan(draw_var) else float(np.sqrt(draw_var)))
    return out


def paper_means_rates(table: dict, P: dict, n_sim: int = 200, seed: int = 0, G: int = 3, R: int = 5) -> dict:
    """Pass rates of paper-means (authors.comparison, figure1.means_measured, decided by figure1.RULE_PAPER_MEANS) over
    simulated reruns: the book's G
    draws of R seeds and the authors' one draw of R seeds from the same distribution ("faithful"), and with the
    authors' means from a world where the book's models differ from theirs: one model's means 1.3x, or all 1.15x."""
    spreads = measured_spreads(table, P)
    rng = np.random.default_rng(seed)
    worlds = {"faithful": {}, "one model x1.3 (the FFN)": {"ffn": 1.3}, "every mean x1.15": dict.fromkeys(MODELS, 1.15)}
    rates = {}
    for name, shift in worlds.items():
        passed = 0
        for _ in range(n_sim):
            sim, ref = {}, {}
            for (panel, m), (N, seed_sd, draw_sd) in spreads.items():
                true = np.array([authors.paper_means(panel)[m][n] for n in N], float)
                sim.setdefault(panel, {})[m] = {authors.CLAIM_TEST[panel]: entry(draw_runs(rng, true * shift.get(m, 1.0),
                                                                                         seed_sd, draw_sd, G, R), N)}
                theirs = draw_runs(rng, true, seed_sd, draw_sd, 1, R).mean((1, 2))
                ref.setdefault(panel, {})[m] = dict(zip(N, theirs))
            passed += figure1.RULE_PAPER_MEANS.decide(figure1.means_measured(authors.comparison(sim, P, ref), P)).passed
        rates[name] = passed / n_sim
    return rates


def logn_rates(P: dict, N: list[int], seed_sd: float, n_sim: int = 100, seed: int = 0, R: int = 5,
               laws: dict | None = None) -> dict:
    """Pass rates of 1-tr-logN (its row, wide_claim.ROW) on simulated wide sweeps whose true means follow each law
    (default: a log law, and a power and a linear law through the same counts at the smallest and largest N)."""
    rng = np.random.default_rng(seed)
    if laws is None:
        lo, hi = 5000.0, 30000.0
        x0, x1 = np.log(min(N)), np.log(max(N))
        b = (hi - lo) / (x1 - x0)
        p = np.log(hi / lo) / (x1 - x0)
        laws = {"log": ("log", (lo - b * x0, b)), "power": ("power", (lo / min(N) ** p, p)),
                "linear": ("linear", (lo - (hi - lo) / (max(N) - min(N)) * min(N), (hi - lo) / (max(N) - min(N))))}
    rates = {}
    for name, (law, params) in laws.items():
        true = wide.law_curve(law, params, N)
        passed = 0
        for _ in range(n_sim):
            runs = draw_runs(rng, true, seed_sd, 0.0, 1, R)
            table = {"wide": {"transformer": {"task": entry(runs, list(N))}}}
            passed += wide_claim.ROW.decide(table, P).passed
        rates[name] = passed / n_sim
    return rates


def gap_rates(table: dict, P: dict, n_sim: int = 100, seed: int = 0, G: int = 3, R: int = 5) -> dict:
    """Pass rates of 4-ffn-gap (its row, figure1.BY_ID) on simulated panel (b) runs with the stored means and spreads
    ("faithful"), and with the FFN's mean at the larger of the other two at every N (no gap: Theorem 6's Nd cost
    absent)."""
    e = {m: table["b"][m]["task"] for m in MODELS}
    N = e["ffn"]["N"]
    sd = {m: authors.spreads(e[m]) for m in MODELS}
    rng = np.random.default_rng(seed)
    other = np.maximum(e["rnn"]["mean"], e["transformer"]["mean"])
    rates = {}
    for name, ffn_mean in (("faithful", e["ffn"]["mean"]), ("no gap", other)):
        passed = 0
        for _ in range(n_sim):
            sim = {"b": {}}
            for m in MODELS:
                mean = ffn_mean if m == "ffn" else e[m]["mean"]
                draw_sd = 0.0 if np.isnan(sd[m][1]) else float(np.sqrt(sd[m][1]))
                sim["b"][m] = {"task": entry(draw_runs(rng, mean, np.sqrt(sd[m][0]), draw_sd, G, R), N)}
            passed += figure1.BY_ID["4-ffn-gap"].decide(sim, P).passed
        rates[name] = passed / n_sim
    return rates


# ------------------------------------------------------------------------------------------- the attention row
def simulated(N: int, strength: float, noise: float, runs: int = 5, prompts: int = 40, seed: int = 0) -> dict:
    """An attention point's result from simulated attention: scores strength <w_{t_i}, w_j> + noise (N(0, noise^2)
    per query and key) on fresh codes and prompts, softmax over the keys; strength 0 is attention blind to the codes."""
    gen = torch.Generator().manual_seed(seed)
    E = rademacher_codes(N, embed_dim_rule(N, "floor"), gen)
    t = torch.randint(0, N, (prompts, N), generator=gen)
    scores = strength * (E[t] @ E.T) + noise * torch.randn(runs, prompts, N, N, generator=gen)
    return {**attention_stats(torch.softmax(scores, -1), t, E), "qk_block_share": [float("nan")] * runs,
            "samples": [[float("nan")] * 2] * runs, "d_e": E.shape[1]}


# Worlds at N = 12, (strength, noise): one that reads the code about as the paper run does (mass on t_i about 0.23,
# a peak there at about 3/4 of the positions), a weak reader whose attention leans to t_i's code but peaks there at
# about a third of the positions, and attention blind to the codes.
WORLDS = {"reads the code": (1.3, 0.4), "reads it weakly": (0.5, 0.4), "blind to the codes": (0.0, 0.4)}


def peak_rates(N: int = 12, n_sim: int = 200, runs: int = 5, prompts: int = 40) -> dict:
    """Pass rates of the row (attention.ROW) over n_sim simulated attention points per world (WORLDS), each of `runs`
    runs on `prompts` prompts (the paper run reads 1,000: fewer prompts only widen the simulated spread).

        >>> peak_rates(n_sim=20)
        {'reads the code': 1.0, 'reads it weakly': 0.0, 'blind to the codes': 0.0}
    """
    P = {"attention_N": N}
    rates = {}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)    # tensors of a few thousand numbers: on a busy 2-core CPU two threads ran 30x slower
    try:
        for name, (strength, noise) in WORLDS.items():
            passed = [attention.ROW.decide({("attention", "transformer", N): {"result": simulated(N, strength, noise, runs,
                                                                                             prompts, s)}}, P).passed
                      for s in range(n_sim)]
            rates[name] = float(np.mean(passed))
    finally:
        torch.set_num_threads(threads)
    return rates
