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

from lib.chapters.sample_complexity.claims import HEADLINES, ROWS, claims, figure1
from lib.chapters.sample_complexity.claims.power import WORLDS
from lib.chapters.sample_complexity.results import (
    LABELS,
    MODELS,
    SLOPE_FROM,
    censored,
    censored_points,
    protocol_table,
    runs_of,
    summarize,
)
from lib.chapters.sample_complexity.results.attention import numbers
from lib.chapters.sample_complexity.results.authors import (
    PAPER_FFN_TASK_TEST_N12,
    comparison_table,
    paper_means,
    spread_note,
)
from lib.chapters.sample_complexity.results.bootstrap import LEVEL, N_BOOT
from lib.chapters.sample_complexity.results.wide import doubling_note, law_note
from lib.core.claims import explanations
from lib.core.power import power_table
from lib.core.rules import number
from lib.science.stats import loglog_slope

__all__ = ["HEADLINES", "LABELS", "LEVEL", "N_BOOT", "attention_glue", "calibration_note",
           "censored", "censored_points", "claims", "comparison_table", "doubling_note", "findings", "law_note",
           "power", "power_note", "protocol_table", "runs_of", "scale_note", "spread_note", "summarize"]


def findings(P: dict, records: dict, rows: list[dict]) -> str:
    """One bullet per claim row whose badge is FAIL or censored: each row's own explanation (Row.explain) from the
    stored points; "" where there is none.

        >>> from lib.chapters import stored; P, records = stored("sample_complexity")
        >>> findings(P, records, claims(P, records))     # every claim of the paper results passes
        ''
    """
    return "\n".join(f"- {b}" for b in explanations(ROWS, rows, P, records))


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
    """The power of the rows that declare worlds (claims/power.py) and that this run measures: each row's own measure
    and rule on `draws` result sets per world (lib.core.power.power_table)."""
    return power_table(ROWS, WORLDS, P, records, draws)


def calibration_note() -> str:
    """The claim check's paragraph on which numbers in the rules are this book's calibration, with the authors' values
    beside them, and which figure readings are not tested, every number computed from the authors' means and
    every threshold read from the rule objects of claims/figure1.py (RULE_*), so the words move with the rules."""
    a, b = paper_means("a"), paper_means("b")
    n = max(a["ffn"])
    slope = loglog_slope([k for k in sorted(a["ffn"]) if k >= SLOPE_FROM["a"]],
                         [a["ffn"][k] for k in sorted(a["ffn"]) if k >= SLOPE_FROM["a"]])
    first_b, n0, cross = min(b["ffn"]), min(a["ffn"]), figure1.LARGEST_10.lo     # 3-ffn-above-rnn starts past the crossing
    level = figure1.RULE_TR_FEWEST.rule.level
    return (f"The numbers in the rules are this book's calibration, not the paper's: the factor "
            f"{number(figure1.RULE_GAP_LARGEST.rule.bar)} of `1-gap-largest-N` (the authors' code gives "
            f"{a['ffn'][n] / a['transformer'][n]:.1f} and {a['rnn'][n] / a['transformer'][n]:.1f} at $N = {n}$), the slope "
            f"{number(figure1.RULE_FFN_SUPERLINEAR.bar)} of `2-ffn-superlinear` ({slope:.1f}), the "
            f"{number(figure1.RULE_PROTOCOL.parts[0].bar)} of `test-protocol` ({PAPER_FFN_TASK_TEST_N12 / a['ffn'][n]:.1f} and "
            f"about 1.0), the bound {number(figure1.RULE_MEANS.bound)} on each model's $|z|$ in `paper-means` (the value "
            f"that separates a faithful rerun from runs moved away from the authors' means), and the {level:.0%} level. "
            "Figure readings that the authors' own code reproduces only within its seeds and draws are not tested "
            f"alone: the FFN at {b['ffn'][first_b] / max(b['rnn'][first_b], b['transformer'][first_b]):.1f}× the others "
            f"at $N = {first_b}$ (where its count passes theirs and the order depends on the draw: `4-ffn-gap` averages "
            f"the FFN's excess over the paper's $N$ = {first_b} to {max(b['ffn'])}), the crossing of FFN and RNN at "
            f"$N = {cross}$ where their means differ by {abs(a['ffn'][cross] / a['rnn'][cross] - 1):.0%}, and every "
            f"model at {max(a[m][n0] for m in MODELS):,.0f} samples or fewer at $N = {n0}$.")


def scale_note(P: dict, table: dict) -> str:
    """The paragraph on the scale the claims need, from the stored means: Theorem 6's bound on the FFN of panel (b)
    against its measured count, and each model's growth over panel (b)'s grid. "" without panel (b)."""
    b = table.get("b", {})
    if not all(m in b for m in MODELS):
        return ""
    mean = {m: dict(zip(b[m]["task"]["N"], b[m]["task"]["mean"])) for m in MODELS}
    lo, hi = min(mean["ffn"]), max(mean["ffn"])
    growth = {m: mean[m][hi] / mean[m][lo] for m in MODELS}
    return (f"On simple-1STR Theorem 6 bounds the FFN's count from below by a multiple of $Nd$, {lo * P['d']:,} samples "
            f"at $N = {lo}$ for a constant of 1, against the {mean['ffn'][lo]:,.0f} this run measures there: a lower "
            "bound of that order says nothing about where the FFN stands among the models at these $N$, and the "
            f"panel's order is what the runs show. From $N$ = {lo} to {hi} the FFN's count grows "
            f"{growth['ffn']:.2f}×, the Transformer's {growth['transformer']:.2f}× and the RNN's {growth['rnn']:.2f}×; "
            "near the smallest $N$ where the FFN's count passes the others' the order depends on the task draw, and on "
            "grids that stop below that $N$ (a scale model's) the FFN needs *fewer* samples than the other two.")


def power_note(table: list[dict], low: float = 0.8) -> str:
    """Under the power table: each row whose rule passes fewer than `low` of the draws of a world with the
    mechanism, with its rate there and the highest rate of its worlds without it ("" where none does)."""
    rows = []
    for row in dict.fromkeys(t["row"] for t in table):
        ws = [t for t in table if t["row"] == row]
        absent = max(t["pass"] for t in ws if not t["mechanism"])
        rows += [f"`{row}` {t['pass']:.0%} in *{t['world'].split(':')[0]}* (without the mechanism at most {absent:.0%})"
                 for t in ws if t["mechanism"] and t["pass"] < low]
    return "" if not rows else (f"Rules that pass fewer than {low:.0%} of a world with the mechanism: "
                                + "; ".join(rows) + ".")


def _one_if_equal(text: str) -> str:
    """A range over the runs whose ends print alike ("0.22 to 0.22") as its one value, said to hold in every run.

        >>> _one_if_equal("0.22 to 0.22"), _one_if_equal("0.19 to 0.21")
        ('0.22 in every run', '0.19 to 0.21')
    """
    lo, sep, hi = text.partition(" to ")
    return f"{lo} in every run" if sep and lo == hi else text
