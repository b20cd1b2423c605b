"""What the sample-complexity page shows from stored sweep points: the run summary, the per-panel table of samples
to threshold (`summarize`), the claims of the paper's Figure 1 against the authors' means, the test-protocol table and
the figures. It reads results and computes no stored number, so editing it leaves the chapter's results current
(lib/sample_complexity.py holds the computation).

    >>> table = page.summarize(P, records); page.claims(P, records)
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.sample_complexity.bootstrap import LEVEL, boot, lower, replicates, slope, upper
from lib.chapters.sample_complexity.scale import MODELS, PAPER_GRU, crossing_scale, gru_scale, panel_b_scale, protocol_scale
from lib.core.claims import Row, Verdict, evaluate, unsettled
from lib.science.stats import loglog_slope

LABELS = {"transformer": "Transformer", "rnn": "RNN (biGRU)", "ffn": "FFN"}
TESTS = {"authors": "authors' test", "task": "1STR test"}

# The authors' code on one H100, 5 seeds (run unchanged for this book): the book's reference means.
PAPER_MEANS = {
    "a": {"N": [2, 4, 6, 8, 10, 12], "transformer": [2944, 5504, 10496, 14592, 15744, 17152],
          "rnn": [768, 16384, 32128, 39936, 62592, 71424], "ffn": [1920, 8448, 20864, 39424, 64512, 120192]},
    "b": {"N": [25, 27, 29, 31, 33], "transformer": [119e3, 170e3, 128e3, 124e3, 141e3],
          "rnn": [113e3, 141e3, 148e3, 160e3, 189e3], "ffn": [218e3, 383e3, 435e3, 527e3, 603e3]},
}
# With a 1STR test set instead (the same code, one line changed): FFN mean at N=12.
PAPER_FFN_TASK_TEST_N12 = 265e3


# ------------------------------------------------------------------------------------------------ summary
def summarize(P: dict, records: dict) -> dict:
    """table[panel][model][test] = {"N": [...], "runs": (len(N), G*R) samples pooled over the G task draws the model
    has (NaN = censored), "by_draw": (len(N), G, R) the same with censored runs at the cap, "mean": [...],
    "censored": runs per N that never crossed}. A censored run counts at the cap `max_samples` in the mean (dropping
    it would let the slowest runs vanish from the mean), so a mean with censored runs is a lower bound."""
    cap = float(P["max_samples"])
    groups: dict = {}
    for key, rec in records.items():   # (panel, model, N[, draw[, run]]): a split model has one record per run
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


# ------------------------------------------------------------------------------------------------- claims
def _mean_at(entry, N):
    return float(entry["mean"][entry["N"].index(N)]) if N in entry["N"] else float("nan")


SLOPE_FROM = {"a": 4, "b": 0}     # panel (a)'s slopes are fitted from N = 4 (N = 2 is cheap for every model)
SHORT = {"transformer": "TR", "rnn": "RNN", "ffn": "FFN"}


def _means(table: dict, panel: str, test: str) -> dict | None:
    """{model: {N: mean samples}} of one panel and test set, or None if a model is missing."""
    t = table.get(panel, {})
    if not all(m in t and test in t[m] for m in MODELS):
        return None
    return {m: dict(zip(t[m][test]["N"], t[m][test]["mean"])) for m in MODELS}


def _paper_means(panel: str) -> dict:
    ref = PAPER_MEANS[panel]
    return {m: dict(zip(ref["N"], ref[m])) for m in MODELS}


def _data(table: dict, P: dict, panel: str, select):
    """(means, replicates, grid, authors' means, authors' grid) of a panel's claim test set over the N `select`
    picks from the run's grid; None where the run has no such N."""
    test = "authors" if panel == "a" else "task"
    M = _means(table, panel, test)
    grid = select(sorted(M["ffn"])) if M else None
    if not grid:
        return None
    ref = _paper_means(panel)
    ref_grid = select([n for n in grid if n in ref["ffn"]]) or select(sorted(ref["ffn"]))
    return M, boot(table, P, panel, test), grid, ref, ref_grid


def _censored_in(table: dict, panel: str, tests, grid) -> str:
    """The means over `grid` that count censored runs at the cap (lower bounds), in words; "" if none. A claim that
    reads one says "censored" instead of a verdict: the bound alone does not tell which way the statistic goes."""
    parts = [f"{SHORT[m]} at N={n} ({int(e['censored'][i])} of {e['runs'].shape[1]})"
             for m in MODELS for t in tests for e in [table[panel][m][t]] for i, n in enumerate(e["N"])
             if n in grid and e["censored"][i]]
    return ", ".join(parts)


def _verdict(table, P, panel, grid, measured, passed, paper, where, scale="", tests=None) -> Verdict:
    cen = _censored_in(table, panel, tests or ["authors" if panel == "a" else "task"], grid)
    scale = "; ".join(x for x in (scale, protocol_scale(P)) if x)
    return Verdict(measured, bool(passed) and not cen, paper, where=where, scale=scale, censored=cen)


RERUN = "authors' code, re-run"


def _tr_fewest(table: dict, P: dict) -> Verdict | None:
    d = _data(table, P, "a", lambda Ns: [n for n in Ns if n >= 4])
    if d is None:
        return None
    M, B, grid, ref, rg = d
    share = {n: float(np.mean(B["transformer"][n] < np.minimum(B["rnn"][n], B["ffn"][n]))) for n in grid}
    weak = min(grid, key=share.get)
    lowest = [n for n in rg if ref["transformer"][n] < min(ref["rnn"][n], ref["ffn"][n])]
    return _verdict(table, P, "a", grid, f"TR lowest in ≥ {share[weak]:.1%} of replicates at every N (weakest at N={weak})",
                    all(v >= LEVEL for v in share.values()), f"{RERUN}: lowest at N={lowest} of {rg}", f"N={grid}")


def _gap_largest(table: dict, P: dict) -> Verdict | None:
    d = _data(table, P, "a", lambda Ns: [max(Ns)] if max(Ns) >= 8 else None)
    if d is None:
        return None
    M, B, (n,), ref, rg = d
    lo = {m: lower(B[m][n] / B["transformer"][n]) for m in ("ffn", "rnn")}
    r = {m: M[m][n] / M["transformer"][n] for m in ("ffn", "rnn")}
    paper = ", ".join(f"{SHORT[m]}/TR {ref[m][rg[0]] / ref['transformer'][rg[0]]:.1f}×" for m in ("ffn", "rnn"))
    return _verdict(table, P, "a", [n], ", ".join(f"{SHORT[m]}/TR {r[m]:.1f}× (bound {lo[m]:.1f}×)" for m in ("ffn", "rnn")),
                    min(lo.values()) >= 2, f"{RERUN}: {paper} at N={rg[0]}", f"N={n}", gru_scale(P, M, [n]))


def _slopes(table: dict, P: dict, start: int):
    d = _data(table, P, "a", lambda Ns: [n for n in Ns if n >= start] if len([n for n in Ns if n >= start]) >= 2 else None)
    if d is None:
        return None
    M, B, grid, ref, rg = d
    point = {m: loglog_slope(grid, [M[m][n] for n in grid]) for m in MODELS}
    reps = {m: slope(grid, np.stack([B[m][n] for n in grid], -1)) for m in MODELS}
    paper = {m: loglog_slope(rg, [ref[m][n] for n in rg]) for m in MODELS}
    return point, reps, paper, grid, rg, M


def _tr_flattest(table: dict, P: dict) -> Verdict | None:
    s = _slopes(table, P, SLOPE_FROM["a"])
    if s is None:
        return None
    point, reps, paper, grid, rg, M = s
    share = float(np.mean(reps["transformer"] < np.minimum(reps["rnn"], reps["ffn"])))
    text = lambda v: ", ".join(f"{SHORT[m]} {v[m]:.2f}" for m in ("ffn", "rnn", "transformer"))
    return _verdict(table, P, "a", grid, f"{text(point)}; TR flattest in {share:.1%} of replicates", share >= LEVEL,
                    f"{RERUN}: {text(paper)}", f"N={grid}", gru_scale(P, M, grid))


def _ffn_superlinear(table: dict, P: dict) -> Verdict | None:
    s = _slopes(table, P, SLOPE_FROM["a"])
    if s is None:
        return None
    point, reps, paper, grid, rg, M = s
    every = _slopes(table, P, 0)            # the whole grid from N = 2: the ordering of the slopes can change
    alt = f"; from N={every[3][0]}: FFN {every[0]['ffn']:.2f}, RNN {every[0]['rnn']:.2f}" if every and every[3] != grid else ""
    return _verdict(table, P, "a", grid, f"FFN {point['ffn']:.2f} (bound {lower(reps['ffn']):.2f}){alt}",
                    lower(reps["ffn"]) > 1, f"{RERUN}: FFN {paper['ffn']:.2f}", f"N={grid}")


def _ffn_vs_rnn(sign: int, select):
    def measure(table: dict, P: dict) -> Verdict | None:
        d = _data(table, P, "a", select)
        if d is None:
            return None
        M, B, grid, ref, rg = d
        share = {n: float(np.mean((B["ffn"][n] - B["rnn"][n]) * sign > 0)) for n in grid}
        paper = ", ".join(f"N={n}: {ref['ffn'][n]:,.0f} vs {ref['rnn'][n]:,.0f}" for n in rg)
        return _verdict(table, P, "a", grid, ", ".join(f"N={n}: {M['ffn'][n]:,.0f} vs {M['rnn'][n]:,.0f} ({share[n]:.1%})"
                                                      for n in grid),
                        all(v >= LEVEL for v in share.values()), f"{RERUN}: {paper}", f"N={grid}", gru_scale(P, M, grid))
    return measure


def _ffn_gap(table: dict, P: dict) -> Verdict | None:
    d = _data(table, P, "b", lambda Ns: Ns)
    if d is None:
        return None
    M, B, grid, ref, rg = d
    share = {n: float(np.mean(B["ffn"][n] > np.maximum(B["rnn"][n], B["transformer"][n]))) for n in grid}
    ratio = {n: M["ffn"][n] / max(M["rnn"][n], M["transformer"][n]) for n in grid}
    weak = min(grid, key=share.get)
    paper = min(ref["ffn"][n] / max(ref["rnn"][n], ref["transformer"][n]) for n in rg)
    return _verdict(table, P, "b", grid, f"FFN above in ≥ {share[weak]:.1%} of replicates at every N; min ratio "
                    f"{min(ratio.values()):.2f}", all(v >= LEVEL for v in share.values()), f"{RERUN}: min ratio {paper:.2f}",
                    f"N={grid}", crossing_scale(P, M, grid))


def _rnn_milder(table: dict, P: dict) -> Verdict | None:
    d = _data(table, P, "b", lambda Ns: Ns if len(Ns) >= 2 else None)
    if d is None:
        return None
    M, B, grid, ref, rg = d
    lo, hi = grid[0], grid[-1]
    g = {m: M[m][hi] / M[m][lo] for m in MODELS}
    share = {m: float(np.mean(B["ffn"][hi] / B["ffn"][lo] > B[m][hi] / B[m][lo])) for m in ("rnn", "transformer")}
    paper = ", ".join(f"{SHORT[m]} {ref[m][rg[-1]] / ref[m][rg[0]]:.2f}×" for m in ("ffn", "rnn", "transformer"))
    return _verdict(table, P, "b", [lo, hi], ", ".join(f"{SHORT[m]} {g[m]:.2f}×" for m in ("ffn", "rnn", "transformer"))
                    + f"; FFN faster in ≥ {min(share.values()):.1%} of replicates", min(share.values()) >= LEVEL,
                    f"{RERUN}: {paper}", f"N={lo}..{hi}", panel_b_scale(P, M, grid))


def _test_protocol(table: dict, P: dict) -> Verdict | None:
    A, T = _means(table, "a", "authors"), _means(table, "a", "task")
    if not (A and T):
        return None
    N = max(A["ffn"])
    BA, BT = boot(table, P, "a", "authors"), boot(table, P, "a", "task")   # paired: the same runs, the same draws
    r = {m: T[m][N] / A[m][N] for m in ("ffn", "transformer")}
    ffn_lo, tr_hi = lower(BT["ffn"][N] / BA["ffn"][N]), upper(BT["transformer"][N] / BA["transformer"][N])
    return _verdict(table, P, "a", [N], f"FFN {r['ffn']:.2f}× (bound {ffn_lo:.2f}×), TR {r['transformer']:.2f}× (bound "
                    f"{tr_hi:.2f}×)", ffn_lo > 1.2 and tr_hi < 1.2,
                    f"{RERUN}: FFN {PAPER_FFN_TASK_TEST_N12 / _paper_means('a')['ffn'][12]:.1f}× at N=12, TR about 1.0×",
                    f"N={N}", tests=["authors", "task"])


def comparison(table: dict, P: dict) -> list[dict]:
    """This run's mean against the authors' re-run at every (panel, model, N) both have, where the run's model and
    threshold are the paper's: the ratio, and z = ln(ratio) / sigma, sigma = sqrt(se_run^2 + se_one^2) with the log
    standard errors of this run's mean and of a one-draw, n_seeds mean like the authors' (both from this run's
    bootstrap)."""
    rows = []
    for panel, test, thr in (("a", "authors", 0.7), ("b", "task", 0.02)):
        if panel not in table or P[f"threshold_{panel}"] != thr:
            continue
        ref = _paper_means(panel)
        for m in MODELS:
            entry = table[panel].get(m, {}).get(test)
            if entry is None or (m == "rnn" and P["rnn_hidden"] < PAPER_GRU):
                continue
            own = np.log(replicates(entry, (P["seed"], panel, m))).std(0)
            one = np.log(replicates(entry, (P["seed"], panel, m), draws=1)).std(0)
            for i, n in enumerate(entry["N"]):
                if n in ref[m]:
                    ratio, sigma = entry["mean"][i] / ref[m][n], math.hypot(own[i], one[i])
                    rows.append({"panel": panel, "model": m, "N": n, "mean": float(entry["mean"][i]), "se": float(own[i]),
                                 "authors": ref[m][n], "ratio": ratio, "sigma": sigma, "z": math.log(ratio) / sigma,
                                 "draws": entry["by_draw"].shape[1], "censored": int(entry["censored"][i])})
    return rows


def comparison_table(table: dict, P: dict) -> str:
    """Markdown: `comparison`, one row per (panel, model, N), the ones beyond what seeds and draws explain marked."""
    rows = comparison(table, P)
    if not rows:
        return "This run's models or thresholds are not the paper's: nothing to compare with the authors' code."
    out = ["| panel | model | $N$ | task draws | this run | authors' code (re-run) | ratio | $z$ | |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        flag = "beyond seeds and draws" if abs(r["z"]) > 3 else ""
        flag += f"{'; ' if flag else ''}{r['censored']} censored (a lower bound)" if r["censored"] else ""
        out.append(f"| ({r['panel']}) | {LABELS[r['model']]} | {r['N']} | {r['draws']} | {r['mean']:,.0f} "
                   f"(±{r['se']:.0%}) | {r['authors']:,.0f} | {r['ratio']:.2f} | {r['z']:+.1f} | {flag} |")
    return "\n".join(out)


def _paper_means_row(table: dict, P: dict) -> Verdict | None:
    rows = comparison(table, P)
    if not rows:
        return None
    worst = max(rows, key=lambda r: abs(r["z"]))
    beyond = sum(abs(r["z"]) > 3 for r in rows)
    cen = ", ".join(f"{SHORT[r['model']]} at N={r['N']}" for r in rows if r["censored"])
    return Verdict(f"max |z| {abs(worst['z']):.1f} ({SHORT[worst['model']]}, panel ({worst['panel']}), N={worst['N']}, "
                   f"ratio {worst['ratio']:.2f}); {beyond} of {len(rows)} beyond 3", beyond == 0 and not cen,
                   f"{RERUN}: 5 seeds, one H100", where=f"{len(rows)} means", censored=cen, scale=protocol_scale(P))


FIG1 = "Figure 1 (paper)"
READ = "Figure 1 (a reading of the figure; the book's calibration)"
# The paper's statements about Figure 1 (§1: on 1STR "both FFNs and RNNs suffer from a large sample complexity for
# larger N"; on simple-1STR "RNNs perform closer to Transformers with a much milder dependence on N compared to
# FFNs"), readings of the figure, the test-protocol finding of this book, and the authors' own numbers. Each row tests
# a direction or a bound on the bootstrap (see above); the "paper" column holds the same statistic on the means of the
# authors' code, re-run on one H100 for this book (not the published figure, whose means are only readable from a PNG).
ROWS = [
    Row("1-tr-fewest", "claim", FIG1,
        "1STR, authors' test set: the Transformer needs the fewest samples at every $N \\ge 4$",
        f"TR lowest in ≥ {LEVEL:.0%} of replicates at each $N$", _tr_fewest),
    Row("1-gap-largest-N", "claim", READ,
        "1STR at the largest $N$ (≥ 8): the FFN and the RNN each need at least twice the Transformer's samples",
        f"lower {LEVEL:.0%} bounds of FFN/TR, RNN/TR ≥ 2", _gap_largest),
    Row("2-tr-flattest", "claim", "Theorem 1 (Thm 4 vs 6, 9); Figure 1(a)",
        "1STR: the Transformer's log-log slope of samples against $N$ ($N \\ge 4$) is the smallest",
        f"TR flattest in ≥ {LEVEL:.0%} of replicates", _tr_flattest),
    Row("2-ffn-superlinear", "claim", READ,
        "1STR: the FFN's samples grow faster than linearly in $N$ (log-log slope from $N = 4$; the slopes from $N = 2$, "
        "where the GRU's can be the steepest, are shown beside it)", f"lower {LEVEL:.0%} bound of the slope > 1",
        _ffn_superlinear),
    Row("3-ffn-below-rnn", "claim", READ, "1STR: the FFN needs fewer samples than the RNN at $4 \\le N \\le 6$",
        f"FFN < RNN in ≥ {LEVEL:.0%} of replicates at each $N$", _ffn_vs_rnn(-1, lambda Ns: [n for n in Ns if 4 <= n <= 6])),
    Row("3-ffn-above-rnn", "claim", READ,
        "1STR: the FFN needs more samples than the RNN at the largest $N$ (≥ 10; at $N = 10$ the authors' means differ "
        "by 3%, within their seeds, so the crossing itself is not tested)",
        f"FFN > RNN in ≥ {LEVEL:.0%} of replicates", _ffn_vs_rnn(+1, lambda Ns: [max(Ns)] if max(Ns) >= 10 else None)),
    Row("4-ffn-gap", "claim", "Theorem 1 (Thm 6 vs 4, 7); Figure 1(b)",
        "simple-1STR: at every $N$ the FFN needs more samples than both the RNN and the Transformer",
        f"FFN above in ≥ {LEVEL:.0%} of replicates at each $N$", _ffn_gap),
    Row("4-rnn-milder", "claim", "§1 and Figure 1(b) (paper)",
        "simple-1STR: from the smallest to the largest $N$ the RNN's and the Transformer's samples grow less than the "
        "FFN's (\"a much milder dependence on $N$\")", f"FFN's growth larger in ≥ {LEVEL:.0%} of replicates",
        _rnn_milder),
    Row("test-protocol", "claim", "hypothesis (this book), from the authors' code",
        "1STR: scored on 1STR prompts instead of the authors' simple-1STR prompts, the FFN needs more samples and "
        "the Transformer about the same", f"FFN ratio's lower {LEVEL:.0%} bound > 1.2, TR's upper bound < 1.2 (the "
        "book's calibration)", _test_protocol),
    Row("paper-means", "claim", "the authors' code, re-run (5 seeds, one H100)",
        "every mean this run shares with the authors' re-run (same model, threshold and $N$) is within what seeds and "
        "task draws explain", r"$\lvert z\rvert \le 3$ for every mean", _paper_means_row),
]


def claims(P: dict, records: dict) -> list[dict]:
    """The rows of ROWS this run can measure (those whose sweep points it has), evaluated on its means. records: the
    sweep's points (`collect(compute.points(P), ...)`), as every chapter's page.claims takes them."""
    return evaluate(ROWS, summarize(P, records), P)


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


# ----------------------------------------------------------------------------------------------- findings
def _draw_spread(table: dict, panel: str, test: str) -> float | None:
    """Median over (model, N) of the log standard deviation of one-draw means across task draws, for the models trained
    on several draws; None if none was. What a single-draw model's z leaves out."""
    sds = [np.log(e["by_draw"].mean(2)).std(1, ddof=1) for m in MODELS for e in [table[panel][m][test]]
           if e["by_draw"].shape[1] > 1]
    return float(np.median(np.concatenate(sds))) if sds else None


def _gap_finding(P: dict, table: dict, rows: dict) -> str:
    """Where the panel (b) gap fails: per task draw, the FFN's mean against the other two at each N below LEVEL."""
    M, B, grid, ref, _ = _data(table, P, "b", lambda Ns: Ns)
    share = {n: float(np.mean(B["ffn"][n] > np.maximum(B["rnn"][n], B["transformer"][n]))) for n in grid}
    weak, held = [n for n in grid if share[n] < LEVEL], [n for n in grid if share[n] >= LEVEL]
    ffn = table["b"]["ffn"]["task"]
    step = P["batch_size"] * P["check_every_b"]
    said = []
    for n in weak:
        draws = ", ".join(f"{x:,.0f}" for x in ffn["by_draw"][ffn["N"].index(n)].mean(1))
        other = max(ref["rnn"].get(n, math.nan), ref["transformer"].get(n, math.nan))
        authors = (f"; the authors' one draw: {ref['ffn'][n]:,.0f}, {ref['ffn'][n] / other:.2f}× the larger of the other "
                   "two" if n in ref["ffn"] else "")
        seeds = ", ".join(str(P["task_seed"] + j) for j in range(ffn["by_draw"].shape[1]))
        said.append(f"at $N$ = {n} only in {share[n]:.1%} of replicates: the FFN's mean per task draw (task seeds {seeds}) "
                    f"is {draws} against the Transformer's {M['transformer'][n]:,.0f} and the RNN's {M['rnn'][n]:,.0f}"
                    + authors)
    milder = rows.get("4-rnn-milder")
    growth = ("" if milder is None else f" The growth claim `4-rnn-milder` {'passes' if milder['passed'] else 'fails'} "
              "on the same runs.")
    return ("`4-ffn-gap`: the FFN needs more samples than both others "
            + (f"at $N$ = {', '.join(map(str, held))} (≥ {min(share[n] for n in held):.1%} of replicates), but " if held else "")
            + "; ".join(said) + ". On simple-1STR the FFN's count grows like $Nd$ (Theorem 6) from below the "
            "$N$-free counts of the other two, so near the $N$ where it passes them the order depends on the task draw "
            f"and the seeds (counts are multiples of {step:,} samples, the check interval). Theorem 6 is a rate, not a "
            "constant: what fails is the reading that the paper's grid already starts past the crossing in every draw."
            + growth)


def _means_finding(P: dict, table: dict) -> str:
    """The means beyond |z| = 3: for a single-draw model, the z it would have with the draw spread of the others."""
    every = comparison(table, P)
    rows = [r for r in every if abs(r["z"]) > 3 or r["censored"]]
    out = []
    single = [r for r in rows if r["draws"] == 1]
    if single:
        spread = {p: _draw_spread(table, p, "authors" if p == "a" else "task") for p in {r["panel"] for r in single}}
        # z with twice the borrowed draw variance added to its own (seeds-only) squared standard error
        adj = [(r, math.log(r["ratio"]) / math.hypot(r["sigma"], math.sqrt(2) * spread[r["panel"]]))
               for r in single if spread[r["panel"]] is not None]
        kept = [f"{SHORT[r['model']]} ({r['panel']}) $N$ = {r['N']}" for r, z in adj if abs(z) > 3]
        models = sorted({LABELS[r["model"]] for r in single})
        one = len(models) == 1
        text = (f"the {' and the '.join(models)} {'is' if one else 'are'} trained on one task draw, so "
                f"{'its' if one else 'their'} $z$ counts the seeds' spread only, while this run's draw of the position "
                "codes is not the authors' (their script draws the codes from the GPU's random stream): a difference of "
                "two draws. ")
        if adj:
            text += ("Adding twice the draw spread that the models trained on several draws show (median log spread of "
                     "a one-draw mean: " + ", ".join(f"{d:.1%} in panel ({p})" for p, d in sorted(spread.items())
                                                     if d is not None)
                     + "; a hypothesis of this book) gives "
                     + "; ".join(f"{SHORT[r['model']]} ({r['panel']}) $N$ = {r['N']}: ratio {r['ratio']:.2f}, $z$ "
                                 f"{r['z']:+.1f} → {z:+.1f}" for r, z in adj)
                     + f": {len(kept)} of {len(adj)} stay beyond 3"
                     + (f" ({', '.join(kept)}: a difference that neither the seeds nor a typical draw explain). " if kept
                        else ". "))
        else:
            text += "No model of this run was trained on several draws, so it has no draw spread to add. "
        out.append(text + f"Training {'it' if one else 'them'} on further draws (`task_draw_models`; the `paper-draws` "
                   f"profile does so for the GRU) would measure {'its' if one else 'their'} own spread.")
    multi = [r for r in rows if r["draws"] > 1]
    if multi:
        out.append("beyond the spread of seeds and draws that this run measured: " + "; ".join(
            f"{LABELS[r['model']]} ({r['panel']}) $N$ = {r['N']}: {r['mean']:,.0f} against {r['authors']:,.0f}, ratio "
            f"{r['ratio']:.2f}, $z$ {r['z']:+.1f}" + (f", {r['censored']} censored" if r["censored"] else "") for r in multi)
                   + f" (of {sum(r['draws'] > 1 for r in every)} means with several draws).")
    return "`paper-means`: " + " ".join(o[0].upper() + o[1:] for o in out)


def findings_markdown(P: dict, records: dict, rows: list[dict]) -> str:
    """One bullet per claim row whose badge is FAIL or censored (lib.core.claims.unsettled), computed from the stored
    points: where it fails and what that means for the paper's claim; an empty string when there is none. A failure
    below its scale is left to its row, which names the scale it needs.  >>> page.findings_markdown(P, records, rows)"""
    bad = unsettled(rows)
    table = summarize(P, records)
    out = []
    if "4-ffn-gap" in bad:
        out.append(_gap_finding(P, table, {r["id"]: r for r in rows}))
    if "paper-means" in bad:
        out.append(_means_finding(P, table))
    out += [f"`{k}`: {r['measured']} (rule: {r['expected']}); this page has no further analysis of it." for k, r in bad.items()
            if k not in ("4-ffn-gap", "paper-means")]
    return "\n".join(f"- {b}" for b in out)
