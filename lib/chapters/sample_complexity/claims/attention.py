"""The learned mechanism, beyond Figure 1: where a trained Transformer of panel (a) looks. compute.run_attention trains
Figure 1's Transformer at attention_N to the panel's threshold and summarises its attention on fresh 1STR prompts
(compute.attention_stats); this module holds its claim row `5-attn-reads-t`, a hypothesis of this book (the worlds
of its power are claims/power.py's; the numbers the prose quotes are results/attention.py's).

The theory's construction (Theorem 4, Eq. A.2) retrieves t_i by attention alone: the score of key j at query i is
alpha <w_{t_i}, w_j>, the query's code of t_i against the key's own code, so the attention peaks at j = t_i and, on
the other keys, grows with the overlap of the two codes.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> ROW.decide(P, records).passed
    True
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sample_complexity.results.attention import numbers, result
from lib.core.claims import Measured, Row
from lib.core.rules import Share

# A majority of positions, whatever N: attention blind to the codes (by content, or spread evenly) peaks at t_i at
# 1/N of them (1/12 at N = 12).
RULE_PEAK = Share("positions whose attention peaks at $t_i$", at_least=0.5, binomial=True,
                  why="a majority; attention blind to the position codes peaks there at $1/N$ of the positions",
                  where="in every run")


def _reads_code(P: dict, records: dict) -> Measured | None:
    res = result(P, records)
    if res is None:
        return None
    x = numbers(P, records)
    k = np.array(res["peak_k"])
    text = (f"peak at $t_i$ at {x['peak_lo']:.1%}–{x['peak_hi']:.1%} of the {res['peak_n']:,} positions of each run "
            f"(blind to the codes: {x['uniform']:.1%}); attention mass on $t_i$ {x['share_lo']:.3f}–{x['share_hi']:.3f} "
            f"(uniform {x['uniform']:.3f}); $W_Q^\\top W_K$: {x['block_lo']:.0%}–{x['block_hi']:.0%} of its squared "
            "norm in the block of Eq. (A.2)")
    return Measured(k, text, n=np.full_like(k, res["peak_n"]),
                    paper="Figure 2: the trained $W_Q^\\top W_K$ has the diagonal block of Eq. (A.2) (at $N = 100$,"
                          " on simple-1STR); the paper shows no attention weights",
                    where=f"$N = {x['N']}$, {x['runs']} runs at the threshold")


ROW = Row("5-attn-reads-t", "claim", "hypothesis (this book), from Theorem 4's construction (Eq. A.2)",
          "1STR, Figure 1's Transformer at the largest $N$ of panel (a), trained to the threshold: its attention from "
          "position $i$ peaks at $t_i$, the key whose own code $\\omega_j$ is the query's $\\omega_{t_i}$ (it reads the "
          "position code)", RULE_PEAK, _reads_code)

