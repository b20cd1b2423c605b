"""The sample-complexity chapter's numbers, read from its stored sweep points: Figure 1's table of samples to threshold
(`summarize`: per panel, model and test set, the runs of every N and their mean, censored runs at the cap), what it
says of censored runs, and the test-protocol table. Topics of their own beside it: bootstrap.py (the replicates the
claims test), authors.py (the authors' means and this run's comparison with them), wide.py (the laws fitted to the
wide sweep) and attention.py (the attention point). No computation imports this package.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> e = summarize(P, records)["a"]["transformer"]["authors"]; e["N"], e["runs"].shape, censored_points(summarize(P, records))
    ([2, 4, 6, 8, 10, 12], (6, 15), 'none')
"""
from __future__ import annotations

import numpy as np

from lib.science import sample_counts

MODELS = ("transformer", "rnn", "ffn")
LABELS = {"transformer": "Transformer", "rnn": "RNN (biGRU)", "ffn": "FFN"}
TESTS = {"authors": "authors' test", "task": "1STR test"}
SLOPE_FROM = {"a": 4, "b": 0}     # panel (a)'s slopes are fitted from N = 4 (N = 2 is cheap for every model)


def summarize(P: dict, records: dict) -> dict:
    """table[panel][model][test] = {"N": [...], "runs": (len(N), G*R) samples pooled over the G task draws the model
    has (NaN = censored), "by_draw": (len(N), G, R) the same with censored runs at the cap, "mean": [...],
    "censored": runs per N that never crossed} (lib.science.sample_counts.summarize, with the cap `max_samples`).
    The attention point (claims/attention.py) trains the same runs and is read, not tabulated: it is left out."""
    return sample_counts.summarize({key: rec for key, rec in records.items() if key[0] != "attention"},
                                   float(P["max_samples"]))


class Summary(dict):
    """A summary table (`summarize`) that stands in for the records it summarises: the power worlds of the claim rows
    (claims/power.py) resample the table itself, and `summary` passes it through."""


def summary(P: dict, results: dict) -> Summary:
    """The summary table of `results`: the stored records (summarised, about a millisecond) or a Summary as it is."""
    return results if isinstance(results, Summary) else Summary(summarize(P, results))


def censored(table: dict) -> int:
    """Runs of every panel, model and test set that never crossed their threshold."""
    return sum(int(e["censored"].sum()) for panel in table.values() for m in panel.values() for e in m.values())


def censored_points(table: dict) -> str:
    """Which means count censored runs at the cap (and so are lower bounds), in words; "none" if no run was."""
    parts = [f"panel ({p}) {LABELS[m]}{'' if p == 'b' else f', {TESTS[t]}'} at $N$ = {N} "
             f"({c} of {e['runs'].shape[1]})"
             for p, panel in sorted(table.items()) for m, tests in panel.items() for t, e in tests.items()
             for N, c in zip(e["N"], e["censored"]) if c]
    return "; ".join(parts) if parts else "none"


def per_draw(table: dict, panel: str, model: str, N: int) -> list[float]:
    """A model's mean per task draw at one N (draw 0 = task_seed first), censored runs at the cap."""
    e = table[panel][model]["authors" if panel == "a" else "task"]
    return [float(x) for x in e["by_draw"][e["N"].index(N)].mean(1)]


def runs_of(records: dict, panel: str, model: str, N: int, draw: int = 0) -> list[dict]:
    """The stored results of one (panel, model, N, draw): one batched record, or one per run of a split model (in run
    order); [] if none is stored."""
    label = (panel, model, N) + ((draw,) if draw else ())
    if label in records:
        return [records[label]["result"]]
    split = sorted(k for k in records if len(k) == 5 and k[:4] == (panel, model, N, draw))
    return [records[k]["result"] for k in split]


def _mean_at(entry, N):
    return float(entry["mean"][entry["N"].index(N)]) if N in entry["N"] else float("nan")


def protocol_table(P: dict, table: dict) -> str:
    """Markdown: panel (a) means under the authors' test set and the task's own, and their ratio."""
    a = table.get("a", {})
    rows = ["| model | $N$ | authors' test (simple-1STR prompts) | task's test (1STR prompts) | ratio |", "|---|---|---|---|---|"]
    for model in P["models"]:
        if model not in a:
            continue
        for N in a[model]["authors"]["N"]:
            x, y = _mean_at(a[model]["authors"], N), _mean_at(a[model]["task"], N)
            rows.append(f"| {LABELS[model]} | {N} | {x:,.0f} | {y:,.0f} | {y / x:.2f} |")
    return "\n".join(rows)

