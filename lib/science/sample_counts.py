"""Samples to threshold, read from stored training runs: per (panel, model, test set), the count of every run at each
N, pooled over task draws, and the mean with censored runs (never below the threshold) counted at the cap. The
sample_complexity chapter tabulates Figure 1 this way, and the ffn_span chapter reads the FFN of its panel (b) from
that chapter's stored points the same way. No computation imports this module.

    >>> rec = lambda *s: {"result": {"tests": ["task"], "samples": [[x] for x in s]}}     # one run per row
    >>> e = summarize({("b", "ffn", 4): rec(10, 30), ("b", "ffn", 8): rec(20, None)}, cap=100)["b"]["ffn"]["task"]
    >>> e["N"], e["mean"].tolist(), e["censored"].tolist()    # the censored run counts at the cap: a lower bound
    ([4, 8], [20.0, 60.0], [0, 1])
"""
from __future__ import annotations

import numpy as np


def summarize(records: dict, cap: float) -> dict:
    """table[panel][model][test] = {"N": [...], "runs": (len(N), G*R) samples pooled over the G task draws the model
    has (NaN = censored), "by_draw": (len(N), G, R) the same with censored runs at the cap, "mean": [...],
    "censored": runs per N that never crossed}. records: {(panel, model, N[, draw[, run]]): record} (a split model
    has one record per run), each result with "samples" (runs x test sets, None where censored) and "tests". A
    censored run counts at the cap in the mean (dropping it would let the slowest runs vanish from the mean), so a
    mean with censored runs is a lower bound."""
    groups: dict = {}
    for key, rec in records.items():
        panel, model, N = key[:3]
        draw, run = (key[3] if len(key) > 3 else 0), (key[4] if len(key) > 4 else 0)
        res = rec["result"]
        samples = np.array(res["samples"], dtype=float)  # None (censored) -> nan
        for k, test in enumerate(res["tests"]):
            groups.setdefault((panel, model, test), {}).setdefault(N, {}).setdefault(draw, []).append((run, samples[:, k]))
    table = {}
    for (panel, model, test), by_N in groups.items():
        Ns = sorted(by_N)
        draws = np.array([[np.concatenate([s for _, s in sorted(by_N[n][g], key=lambda rs: rs[0])])
                           for g in sorted(by_N[n])] for n in Ns])   # (len(N), G, R), draw 0 (task_seed) first
        runs = draws.reshape(len(Ns), -1)
        table.setdefault(panel, {}).setdefault(model, {})[test] = {
            "N": Ns, "runs": runs, "by_draw": np.nan_to_num(draws, nan=cap), "censored": np.isnan(runs).sum(1),
            "mean": np.nan_to_num(runs, nan=cap).mean(1)}
    return table
