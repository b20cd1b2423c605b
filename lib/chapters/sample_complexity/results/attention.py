"""The attention point (compute.run_attention: Figure 1's panel (a) Transformer at attention_N, trained to the
threshold, its attention summarised on fresh 1STR prompts), read: its stored result and the numbers the page and the
claim `5-attn-reads-t` quote. No computation imports this module.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> x = numbers(P, records); x["N"], x["runs"], x["prompts"]
    (12, 5, 1000)
"""
from __future__ import annotations

import numpy as np


def result(P: dict, records: dict) -> dict | None:
    """The attention point's stored result, or None where this run has none (attention_N 0, or absent)."""
    rec = records.get(("attention", "transformer", P.get("attention_N", 0)))
    return None if rec is None else rec["result"]


def numbers(P: dict, records: dict) -> dict | None:
    """What the prose and the row quote, from the stored point: N, runs, prompts, the mass on t_i and the share of
    positions peaking there (each run's, lowest and highest), the uniform 1/N, and W_Q^T W_K's share in the A.2 block."""
    res = result(P, records)
    if res is None:
        return None
    share, peak = np.array(res["share"]), np.array(res["peak_k"]) / res["peak_n"]
    block = np.array(res["qk_block_share"])
    samples = np.array(res["samples"], float)
    return {"N": P["attention_N"], "runs": len(share), "prompts": len(res["share_per_prompt"][0]),
            "share_lo": share.min(), "share_hi": share.max(), "uniform": 1 / P["attention_N"],
            "peak_lo": peak.min(), "peak_hi": peak.max(), "block_lo": block.min(), "block_hi": block.max(),
            "samples": float(samples.mean()) if np.isfinite(samples).all() else float("nan"), "d_e": res["d_e"]}


def point(P: dict, records: dict) -> dict:
    """The attention point's record alone, keyed as stored ({} where this run has none): what its row reads."""
    key = ("attention", "transformer", P.get("attention_N", 0))
    return {key: records[key]} if key in records else {}
