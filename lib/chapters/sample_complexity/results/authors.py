"""This run's Figure 1 against the authors' code, re-run unchanged for this book (5 seeds, one H100): the reference
means, and each mean's ratio to them with z (`comparison`, `comparison_table`); the claim `paper-means` that holds
them to a family-wise rule is claims/figure1.py's.

z = ln(ratio) / sigma, where sigma is the log standard deviation that seeds and task draws give the ratio of this
run's mean (G draws of R seeds) to a mean of R seeds on one other draw (the authors'). Both parts are measured on this
run: the seeds' variance at each N (single runs' log variance within a draw, pooled over draws) and the model's
variance between task draws (the variance of its draw means less their seed part, at least 0 at each N, averaged over
the N of its panel, so that each model has its own draw spread, estimated from all its lengths instead of three draws
at one N; the floor at 0 errs towards a wider sigma). A model
trained on one draw has no draw spread to measure: its sigma counts seeds only, and the table says so.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> from lib.chapters.sample_complexity.results import summarize
    >>> rows = comparison(summarize(P, records), P); len(rows), sum(abs(r["z"]) > BEYOND for r in rows)   # 33 means
    (33, 1)
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.sample_complexity.results import LABELS, MODELS, per_draw, summary

# The authors' code on one H100, 5 seeds (run unchanged for this book): the book's reference means.
PAPER_MEANS = {
    "a": {"N": [2, 4, 6, 8, 10, 12], "transformer": [2944, 5504, 10496, 14592, 15744, 17152],
          "rnn": [768, 16384, 32128, 39936, 62592, 71424], "ffn": [1920, 8448, 20864, 39424, 64512, 120192]},
    "b": {"N": [25, 27, 29, 31, 33], "transformer": [119e3, 170e3, 128e3, 124e3, 141e3],
          "rnn": [113e3, 141e3, 148e3, 160e3, 189e3], "ffn": [218e3, 383e3, 435e3, 527e3, 603e3]},
}
# With a 1STR test set instead (the same code, one line changed): FFN mean at N=12.
PAPER_FFN_TASK_TEST_N12 = 265e3
PAPER_THRESHOLDS = {"a": 0.7, "b": 0.02}
CLAIM_TEST = {"a": "authors", "b": "task"}     # the test set each panel's claims read
BEYOND = 3.0          # |z| beyond this: a difference that seeds and draws do not explain
SHORT = {"transformer": "TR", "rnn": "RNN", "ffn": "FFN"}
PAPER_GRU = 500        # the authors' GRU units per direction: a narrower GRU's means are not compared with theirs


def paper_means(panel: str) -> dict:
    """{model: {N: the authors' mean}} of one panel."""
    ref = PAPER_MEANS[panel]
    return {m: dict(zip(ref["N"], ref[m])) for m in MODELS}


def spreads(entry: dict) -> tuple[np.ndarray, float]:
    """(seed_var per N, draw_var) on the log scale: single runs' variance within a draw (pooled over draws), and the
    variance between task draws pooled over N (NaN for a model trained on one draw)."""
    logs = np.log(entry["by_draw"])                                        # (len(N), G, R), censored runs at the cap
    n, G, R = logs.shape
    seed_var = logs.var(2, ddof=1).mean(1) if R > 1 else np.zeros(n)
    if G < 2:
        return seed_var, math.nan
    between = logs.mean(2).var(1, ddof=1) - seed_var / R                   # draw means' variance less its seed part
    return seed_var, float(np.clip(between, 0.0, None).mean())   # clipped at each N, then pooled: errs on the wide side


def _z(ratio: float, sigma: float) -> float:
    """ln(ratio) / sigma; where the runs have no spread at all (sigma 0: every run alike, as a resample of a few runs
    can be), any difference lies beyond every |z| and none lies at 0.

        >>> _z(1.1, 0.0), _z(1.0, 0.0), round(_z(1.1, 0.1), 3)
        (inf, 0.0, 0.953)
    """
    if sigma > 0:
        return math.log(ratio) / sigma
    return 0.0 if ratio == 1 else math.copysign(math.inf, math.log(ratio))


def comparison(table: dict, P: dict, ref: dict | None = None) -> list[dict]:
    """This run's mean against the authors' at every (panel, model, N) both have, where the run's model and threshold
    are the paper's: the ratio, sigma (see the module) and z = ln(ratio) / sigma. ref: {panel: {model: {N: mean}}}
    (default: PAPER_MEANS; benchmarks/power_sample_complexity.py's simulation passes its own)."""
    rows = []
    for panel, thr in PAPER_THRESHOLDS.items():
        if panel not in table or P[f"threshold_{panel}"] != thr:
            continue
        means = (ref or {}).get(panel) or paper_means(panel)
        for m in MODELS:
            entry = table[panel].get(m, {}).get(CLAIM_TEST[panel])
            if entry is None or (m == "rnn" and P["rnn_hidden"] < PAPER_GRU):
                continue
            seed_var, draw_var = spreads(entry)
            _, G, R = entry["by_draw"].shape
            dv = 0.0 if math.isnan(draw_var) else draw_var
            for i, n in enumerate(entry["N"]):
                if n not in means[m]:
                    continue
                se_run, se_one = seed_var[i] / (G * R) + dv / G, seed_var[i] / R + dv
                ratio, sigma = entry["mean"][i] / means[m][n], math.sqrt(se_run + se_one)
                rows.append({"panel": panel, "model": m, "N": n, "mean": float(entry["mean"][i]),
                             "se": math.sqrt(se_run), "authors": means[m][n], "ratio": ratio, "sigma": sigma,
                             "z": _z(ratio, sigma), "draws": G, "draw_sd": math.sqrt(draw_var) if G > 1 else None,
                             "censored": int(entry["censored"][i])})
    return rows


def comparison_table(table: dict, P: dict) -> str:
    """Markdown: `comparison`, one row per (panel, model, N), the ones beyond what seeds and draws explain marked."""
    rows = comparison(table, P)
    if not rows:
        return "This run's models or thresholds are not the paper's: nothing to compare with the authors' code."
    out = ["| panel | model | $N$ | task draws (their spread) | this run | authors' code (re-run) | ratio | $z$ | |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        flag = "beyond seeds and draws" if abs(r["z"]) > BEYOND else ""
        flag += f"{'; ' if flag else ''}{r['censored']} censored (a lower bound)" if r["censored"] else ""
        spread = f" (±{r['draw_sd']:.0%})" if r["draw_sd"] is not None else " (seeds only)"
        out.append(f"| ({r['panel']}) | {LABELS[r['model']]} | {r['N']} | {r['draws']}{spread} | {r['mean']:,.0f} "
                   f"(±{r['se']:.0%}) | {r['authors']:,.0f} | {r['ratio']:.2f} | {r['z']:+.1f} | {flag} |")
    return "\n".join(out)


def spread_note(P: dict, table: dict, largest: int = 3) -> str:
    """Under the comparison with the authors: each model's measured spread over task draws, and the means farthest
    from the authors' with their per-draw means, so a reader sees whether the authors' one draw sits among this run's."""
    rows = comparison(table, P)
    if not rows:
        return ""
    spread = {}
    for r in rows:
        spread.setdefault((r["panel"], r["model"]), r["draw_sd"])
    measured = [f"{LABELS[m]} ({p}) {sd:.0%}" for (p, m), sd in sorted(spread.items()) if sd is not None]
    single = sorted({LABELS[m] for (p, m), sd in spread.items() if sd is None})
    far = sorted(rows, key=lambda r: -abs(r["z"]))[:largest]
    draws = lambda r: " / ".join(f"{x:,.0f}" for x in per_draw(table, r["panel"], r["model"], r["N"]))
    return ("Each model's spread over task draws, as this run measures it (the log standard deviation of a draw's mean "
            "beyond its seeds, pooled over the panel's $N$): " + (", ".join(measured) or "none") + "."
            + (f" Trained on one draw, so their $z$ counts seeds only: {', '.join(single)}." if single else "")
            + " The means farthest from the authors', with this run's mean per task draw: " + "; ".join(
                f"{LABELS[r['model']]} ({r['panel']}) $N$ = {r['N']}: {draws(r)} against the authors' "
                f"{r['authors']:,.0f} ($z$ {r['z']:+.1f})" for r in far)
            + ". The authors draw $\\mathbf u$ and the position codes once per $N$ (from the GPU's random stream), so "
            "their mean is one more draw: where it sits outside this run's draws but within their spread, the difference "
            "is the draw.")


def pairs(P: dict, results: dict, ref: dict | None = None) -> tuple[list, dict]:
    """(the compared means (`comparison`; ref: other authors' means), {(panel, model): (geometric mean ratio, z)}):
    z is the sum of the pair's log ratios over the root of the sum of their variances (its N's task draws are
    independent); the claim `paper-means` holds it to a bound."""
    rows, out = comparison(summary(P, results), P, ref), {}
    for r in rows:
        out.setdefault((r["panel"], r["model"]), []).append((np.log(r["ratio"]), r["sigma"] ** 2))
    z = lambda s, v: s / np.sqrt(v) if v > 0 else 0.0 if s == 0 else np.inf * np.sign(s)
    return rows, {k: (float(np.exp(np.mean([x for x, _ in v]))), z(*np.sum(v, 0))) for k, v in out.items()}
