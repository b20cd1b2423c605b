"""What the sample-complexity notebook calls, in the order it calls it: the summary table and its words on censored
runs (results/), the comparison with the authors' code and the notes beside it, the wide sweep's doubling note, the
attention point's numbers (`attention_glue`), the test-protocol table, and the claim check with its findings
(claims/) and the power of its rules (`power`, in the worlds of claims/power.py). The figures are figures.py's.
Nothing here changes a stored number.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> table = summarize(P, records); censored(table), attention_glue(P, records)["attn_share"]
    (0, '0.19 to 0.21')
"""
from __future__ import annotations

from lib.chapters.sample_complexity.claims import ROWS, attention, claims
from lib.chapters.sample_complexity.claims.findings import RULE_CHANGES, calibration_note, findings, spread_note
from lib.chapters.sample_complexity.claims.power import ATTENTION_WORLDS, WORLDS
from lib.chapters.sample_complexity.results import LABELS, censored, censored_points, protocol_table, runs_of, summarize
from lib.chapters.sample_complexity.results.attention import numbers
from lib.chapters.sample_complexity.results.authors import comparison_table
from lib.chapters.sample_complexity.results.bootstrap import LEVEL, N_BOOT
from lib.chapters.sample_complexity.results.wide import doubling_note
from lib.core.power import power_table

__all__ = ["LABELS", "LEVEL", "N_BOOT", "RULE_CHANGES", "attention_glue", "calibration_note", "censored",
           "censored_points", "claims", "comparison_table", "doubling_note", "findings_markdown", "power",
           "protocol_table", "runs_of", "spread_note", "summarize"]


def findings_markdown(P: dict, records: dict, rows: list[dict]) -> str:
    """One bullet per claim row whose badge is FAIL or censored, computed from the stored points (claims/findings.py).

        >>> from lib.chapters import stored; P, records = stored("sample_complexity")
        >>> findings_markdown(P, records, claims(P, records))     # every claim of the paper results passes
        ''
    """
    return findings(P, summarize(P, records), rows)


def attention_glue(P: dict, records: dict) -> dict:
    """The page's numbers about the attention point, as text ("—" where this run has none)."""
    x = numbers(P, records)
    text = {"attn_N": "{N}", "attn_runs": "{runs}", "attn_prompts": "{prompts:,}", "attn_uniform": "{uniform:.3f}",
            "attn_share": "{share_lo:.2f} to {share_hi:.2f}", "attn_peak": "{peak_lo:.0%} to {peak_hi:.0%}",
            "attn_block": "{block_lo:.0%} to {block_hi:.0%}", "attn_d_e": "{d_e}",
            "attn_overlap": "{overlap:.2f}", "attn_samples": "{samples:,.0f}"}
    out = {k: f.format(**x, overlap=x["d_e"] ** -0.5) if x else "—" for k, f in text.items()}
    out["attn_share"] = _one_if_equal(out["attn_share"])     # the prose reads "... is 0.19 to 0.21" or "... is 0.22 in every run"
    return out


def power(P: dict, records: dict, draws: int) -> list[dict]:
    """The power of the rows that declare worlds (claims/power.py) and that this run measures: each row's own rule on
    `draws` result sets per world (lib.core.power.power_table). Figure 1's rows and 1-tr-logN read the summary table,
    so their worlds resample and change that table; the attention row reads its stored point."""
    table = summarize(P, records)
    worlds = {k: w for k, w in WORLDS.items() if next(r for r in ROWS if r.id == k).decide(table, P) is not None}
    key = ("attention", "transformer", P.get("attention_N", 0))
    return (power_table(ROWS, worlds, P, table, draws, data=lambda P, t: (t, P))
            + (power_table([attention.ROW], ATTENTION_WORLDS, P, {key: records[key]}, draws, seed=len(ROWS) * 1000,
                           data=lambda P, r: (r, P)) if key in records else []))


def _one_if_equal(text: str) -> str:
    """A range over the runs whose ends print alike ("0.22 to 0.22") as its one value, said to hold in every run.

        >>> _one_if_equal("0.22 to 0.22"), _one_if_equal("0.19 to 0.21")
        ('0.22 in every run', '0.19 to 0.21')
    """
    lo, sep, hi = text.partition(" to ")
    return f"{lo} in every run" if sep and lo == hi else text
