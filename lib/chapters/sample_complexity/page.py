"""What the sample-complexity page shows from stored sweep points: the run summary, the per-panel table of samples
to threshold (`summarize`), the claims of the paper's Figure 1 against the authors' means, the test-protocol table and
the figures. It reads results and computes no stored number, so editing it leaves the chapter's results current
(lib/sample_complexity.py holds the computation).

    >>> table = page.summarize(P, records); page.claims(P, records)
"""
from __future__ import annotations

import math

import numpy as np
import torch

from lib.core.claims import Row, Verdict, evaluate
from lib.science import qstr
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
    """table[panel][model][test] = {"N": [...], "runs": (len(N), R) samples (NaN = censored), "mean": [...],
    "censored": runs per N that never crossed}. A censored run counts at the cap `max_samples` in the mean (dropping
    it would let the slowest runs vanish from the mean), so a mean with censored runs is a lower bound."""
    cap = float(P["max_samples"])
    table = {}
    for (panel, model, N), rec in records.items():
        res = rec["result"]
        samples = np.array(res["samples"], dtype=float)  # None (censored) -> nan
        for k, test in enumerate(res["tests"]):
            entry = table.setdefault(panel, {}).setdefault(model, {}).setdefault(test, {"N": [], "runs": []})
            entry["N"].append(N)
            entry["runs"].append(samples[:, k])
    for panel in table.values():
        for model in panel.values():
            for entry in model.values():
                entry["runs"] = np.array(entry["runs"])
                entry["censored"] = np.isnan(entry["runs"]).sum(1)
                entry["mean"] = np.nan_to_num(entry["runs"], nan=cap).mean(1)
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


MODELS = ("transformer", "rnn", "ffn")
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


# Each statistic maps ({model: {N: mean}}, grid) to (text, passed). It is applied to this run's means and to the
# authors' means on the same grid (or, where the authors have no such N, on theirs), so the "paper" column of the
# claim table is computed exactly as the "measured" one.
def _tr_fewest(M, grid):
    lowest = [n for n in grid if M["transformer"][n] < min(M["rnn"][n], M["ffn"][n])]
    missed = [n for n in grid if n not in lowest]
    return f"lowest at {lowest}" + (f", not at {missed}" if missed else ""), not missed


def _ordering(M, grid):
    tr, rnn, ffn = (M[m][grid[-1]] for m in MODELS)
    return (f"{ffn:,.0f} > {rnn:,.0f} > {tr:,.0f} ({ffn / tr:.1f}x, {rnn / tr:.1f}x)",
            ffn > rnn > tr and ffn / tr >= 4 and rnn / tr >= 2.5)


def _slopes(M, grid):
    s = {m: loglog_slope(grid, [M[m][n] for n in grid]) for m in MODELS}
    return ", ".join(f"{SHORT[m]} {s[m]:.2f}" for m in ("ffn", "rnn", "transformer")), s


def _tr_flattest(M, grid):
    text, s = _slopes(M, grid)
    return text, s["transformer"] < min(s["rnn"], s["ffn"])


def _ffn_steepest(M, grid):
    text, s = _slopes(M, grid)
    return text, s["ffn"] > max(s["rnn"], s["transformer"])


def _growth_4_12(M, grid):
    g = {m: M[m][12] / M[m][4] for m in MODELS}
    return (", ".join(f"{SHORT[m]} {g[m]:.1f}x" for m in ("ffn", "rnn", "transformer")),
            g["ffn"] >= 8 and 3 <= g["rnn"] <= 6 and g["transformer"] <= 4)


def _ffn_vs_rnn(sign):
    def stat(M, grid):
        ok = all((M["ffn"][n] - M["rnn"][n]) * sign > 0 for n in grid)
        return ", ".join(f"N={n}: {M['ffn'][n]:,.0f} vs {M['rnn'][n]:,.0f}" for n in grid), ok
    return stat


def _small_n(M, grid):
    v = [M[m][2] for m in MODELS]
    return ", ".join(f"{SHORT[m]} {x:,.0f}" for m, x in zip(MODELS, v)), max(v) <= 3200


def _ffn_gap(M, grid):
    r = min(M["ffn"][n] / max(M["rnn"][n], M["transformer"][n]) for n in grid)
    return f"min ratio {r:.2f}", r >= 1.8


def _growth_b(M, grid):
    g = {m: M[m][grid[-1]] / M[m][grid[0]] for m in MODELS}
    return (", ".join(f"{SHORT[m]} {g[m]:.2f}x" for m in ("ffn", "rnn", "transformer")),
            g["ffn"] >= 2 and g["rnn"] <= 1.7 and g["transformer"] <= 1.7)


def _at_least(k):
    return lambda grid: grid if len(grid) >= k else None


def _figure1(panel: str, select, stat, scale=None):
    """A row's measure: `stat` on this run's means of a panel, over the N that `select` picks from the run's grid
    (None: the run has no such N), and the same statistic on the authors' means (on the same N where they have
    them, else on theirs). `scale(P, M, grid)`, where given, names the scale the effect needs when this run is
    below it ("" when it is not)."""
    def measure(table: dict, P: dict) -> Verdict | None:
        M = _means(table, panel, "authors" if panel == "a" else "task")
        grid = select(sorted(M["ffn"])) if M else None
        if grid is None:
            return None
        ref = _paper_means(panel)
        paper_grid = select([n for n in grid if n in ref["ffn"]]) or select(sorted(ref["ffn"]))
        measured, passed = stat(M, grid)
        paper = f"{stat(ref, paper_grid)[0]} (N={paper_grid})" if paper_grid else "n/a"
        return Verdict(measured, bool(passed), paper, where=f"N={grid}", scale=scale(P, M, grid) if scale else "")
    return measure


PAPER_GRU = 500        # the authors' GRU units per direction


def _gru_scale(P, M, grid):
    """Prop. 8: a GRU's width must grow with N on 1STR; a narrower one than the authors' needs more samples as N grows,
    which steepens its curve (the rnn_norm_growth chapter measures the width it needs)."""
    return "" if P["rnn_hidden"] >= PAPER_GRU else (
        f"the authors' {PAPER_GRU}-unit GRU (the paper profile); with {P['rnn_hidden']} units the GRU is narrower than "
        "Prop. 8 asks as $N$ grows, so its own count grows faster")


def _panel_b_scale(P, M, grid):
    """Growth over a panel (b) grid: the paper's grid sits past the crossing, where the FFN rises steeply, and its GRU
    is the 500-unit one."""
    if max(grid) >= min(PAPER_MEANS["b"]["N"]) and P["rnn_hidden"] >= PAPER_GRU:
        return ""
    return (f"the paper's $N$ = 25..33 with its {PAPER_GRU}-unit GRU (this run: $N$ = {min(grid)}..{max(grid)}, "
            f"{P['rnn_hidden']} units), past the crossing where the FFN's count overtakes the others")


def _crossing_scale(P, M, grid):
    """On simple-1STR the FFN's count grows like N d from below the N-free counts of the RNN and the Transformer: below
    the crossing the gap cannot show. Where this run's grid ends before the paper's (N = 25), name the N at which
    this run's own log-log fits put the FFN at 1.8x each of the two (none where that one grows as fast here)."""
    if max(grid) >= min(PAPER_MEANS["b"]["N"]) or len(grid) < 2:
        return ""
    fit = {m: np.polyfit(np.log(grid), np.log([M[m][n] for n in grid]), 1) for m in MODELS}   # (slope, intercept)
    at = {}
    for m in ("transformer", "rnn"):   # the lines ln n = b ln N + a meet at ln N = (a_m + ln 1.8 - a_ffn) / (b_ffn - b_m)
        gain = fit["ffn"][0] - fit[m][0]
        log_N = (fit[m][1] + math.log(1.8) - fit["ffn"][1]) / gain if gain > 0 else math.inf
        at[m] = (f"near $N$ = {max(max(grid), math.ceil(math.exp(log_N))):,}" if log_N < math.log(1e6) else
                 "nowhere below $N = 10^6$ (its count grows about as fast as the FFN's here)")
    gru = (f"; a {P['rnn_hidden']}-unit GRU where the paper's has {PAPER_GRU}" if P["rnn_hidden"] < PAPER_GRU else "")
    return (f"the paper's $N$ = 25..33{gru}: the FFN's count, growing like $Nd$, passes 1.8× the Transformer's "
            f"{at['transformer']} and the RNN's {at['rnn']} on this run's log-log fits")


def _test_protocol(table: dict, P: dict) -> Verdict | None:
    A, T = _means(table, "a", "authors"), _means(table, "a", "task")
    if not (A and T):
        return None
    N = max(A["ffn"])
    r = {m: T[m][N] / A[m][N] for m in ("ffn", "transformer")}
    return Verdict(f"FFN {r['ffn']:.2f}x, TR {r['transformer']:.2f}x", bool(r["ffn"] > 1.2 and r["transformer"] < 1.2),
                   f"FFN {PAPER_FFN_TASK_TEST_N12 / _paper_means('a')['ffn'][12]:.1f}x at N=12, TR about 1.0x",
                   where=f"N={N}")


def _paper_means_at(panel: str, test: str, N: int):
    def measure(table: dict, P: dict) -> Verdict | None:
        M = _means(table, panel, test)
        if not M or N not in M["ffn"]:
            return None
        ref = _paper_means(panel)
        dev = {m: M[m][N] / ref[m][N] - 1 for m in MODELS}
        return Verdict(", ".join(f"{SHORT[m]} {M[m][N]:,.0f} ({dev[m]:+.0%})" for m in MODELS),
                       bool(all(abs(v) <= 0.3 for v in dev.values())),
                       ", ".join(f"{SHORT[m]} {ref[m][N]:,.0f}" for m in MODELS))
    return measure


FIG1 = "Figure 1 (paper; the authors' means)"
# Claims 1-4 of the paper's Figure 1 (each beside the same statistic of the authors' means), the test-protocol
# finding of this book, and the authors' own numbers where this run's grid has the paper's N. Every row is an
# empirical claim that a run can refute; this chapter has no exact construction to check.
ROWS = [
    Row("1-tr-fewest", "claim", FIG1, "1STR, authors' test set: the Transformer needs the fewest samples at every $N \\ge 4$",
        "TR lowest at every $N \\ge 4$", _figure1("a", lambda Ns: _at_least(1)([n for n in Ns if n >= 4]), _tr_fewest)),
    Row("1-ordering-12", "claim", FIG1, "1STR at $N=12$: FFN > RNN > Transformer, with FFN/TR ≥ 4 and RNN/TR ≥ 2.5",
        "FFN > RNN > TR; 4×, 2.5×", _figure1("a", lambda Ns: [12] if 12 in Ns else None, _ordering)),
    Row("2-tr-flattest", "claim", "Theorem 1 (Thm 4 vs 6, 9); Figure 1(a)",
        "1STR: the Transformer's log-log slope of samples against $N$ ($N \\ge 4$) is the smallest", "slope TR < RNN, FFN",
        _figure1("a", lambda Ns: _at_least(2)([n for n in Ns if n >= SLOPE_FROM["a"]]), _tr_flattest)),
    Row("2-ffn-steepest", "claim", FIG1,
        "1STR: the FFN's log-log slope of samples against $N$ ($N \\ge 4$) is the largest", "slope FFN > RNN, TR",
        _figure1("a", lambda Ns: _at_least(2)([n for n in Ns if n >= SLOPE_FROM["a"]]), _ffn_steepest,
                 _gru_scale)),
    Row("2-growth-4-12", "claim", FIG1, "1STR: growth of the samples needed from $N=4$ to $N=12$",
        "FFN ≥ 8×, RNN 3–6×, TR ≤ 4×", _figure1("a", lambda Ns: [4, 12] if {4, 12} <= set(Ns) else None, _growth_4_12)),
    Row("3-ffn-below-rnn", "claim", FIG1, "1STR: the FFN needs fewer samples than the RNN at $4 \\le N \\le 6$", "FFN < RNN",
        _figure1("a", lambda Ns: _at_least(1)([n for n in Ns if 4 <= n <= 6]), _ffn_vs_rnn(-1))),
    Row("3-ffn-above-rnn", "claim", FIG1, "1STR: the FFN needs more samples than the RNN at $N \\ge 10$", "FFN > RNN",
        _figure1("a", lambda Ns: _at_least(1)([n for n in Ns if n >= 10]), _ffn_vs_rnn(+1))),
    Row("3-small-N", "claim", FIG1, "1STR at $N=2$: every model needs at most about 3k samples", "≤ 3,200",
        _figure1("a", lambda Ns: [2] if 2 in Ns else None, _small_n)),
    Row("4-ffn-gap", "claim", "Theorem 1 (Thm 6 vs 4, 7); Figure 1(b)",
        "simple-1STR: at every $N$ the FFN needs ≥ 1.8× the samples of both RNN and Transformer", "min ratio ≥ 1.8",
        _figure1("b", _at_least(1), _ffn_gap, _crossing_scale)),
    Row("4-growth", "claim", "Theorem 1 (Thm 6 vs 4, 7); Figure 1(b)",
        "simple-1STR: from the smallest to the largest $N$ the FFN grows ≥ 2× while RNN and Transformer grow ≤ 1.7×",
        "FFN ≥ 2×; RNN, TR ≤ 1.7×", _figure1("b", _at_least(2), _growth_b, _panel_b_scale)),
    Row("test-protocol", "claim", "hypothesis (this book), from the authors' code",
        "1STR: scored on 1STR prompts instead of the authors' simple-1STR prompts, the FFN needs more samples and "
        "the Transformer about the same", "FFN ratio > 1.2, TR ratio < 1.2", _test_protocol),
    Row("paper-means-N12", "claim", "the authors' code (5 seeds, one H100)",
        "panel (a) at $N=12$: each mean within ±30% of the authors' code", r"$\lvert\text{deviation}\rvert \le 30\%$",
        _paper_means_at("a", "authors", 12)),
    Row("paper-means-N33", "claim", "the authors' code (5 seeds, one H100)",
        "panel (b) at $N=33$: each mean within ±30% of the authors' code", r"$\lvert\text{deviation}\rvert \le 30\%$",
        _paper_means_at("b", "task", 33)),
]


def claims(P: dict, records: dict) -> list[dict]:
    """The rows of ROWS this run can measure (those whose sweep points it has), evaluated on its means. records: the
    sweep's points (`collect(compute.points(P), ...)`), as every chapter's page.claims takes them."""
    return evaluate(ROWS, summarize(P, records), P)


# ----------------------------------------------------------------------------------------------- figures
def plot_prompt(N: int = 8, d: int = 10, task_seed: int = 42, seed: int = 0):
    """One 1STR prompt and one simple-1STR prompt: the encoded tokens z_i and which token each position retrieves."""
    from lib.core.plotting import COLORS, figure

    fig, axes = figure(3, 1, width=2.75, height=2.9)
    task = qstr.QSTR(N=N, d=d, task_seed=task_seed)
    gen = torch.Generator().manual_seed(seed)
    X, T = task.draw(1, 1, gen)
    z = task.encode(X, T)[0, 0]
    ax = axes[0, 0]
    lim = float(z.abs().max())
    ax.imshow(z.numpy(), cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    for x in (d - 0.5, d + task.d_e - 0.5):
        ax.axvline(x, color="k", lw=1)
    ax.set(title=r"encoded prompt $z$ (1STR)", xlabel=rf"$x_i$ | $\omega_i$ | $\omega_{{t_i}}$   ($d={d}$, $d_e={task.d_e}$)",
           ylabel="position $i$")
    ax.grid(False)
    for ax, simple, title in ((axes[0, 1], False, "1STR: $t_i$ per position"), (axes[0, 2], True, "simple-1STR: one shared $t$")):
        _, T = task.draw(1, 1, gen, simple=simple)
        t = T[0, 0, :, 0].numpy()
        ax.scatter(t, np.arange(N), s=60, color=COLORS["transformer"])
        ax.set(xlim=(-0.5, N - 0.5), ylim=(N - 0.5, -0.5), xticks=range(N), yticks=range(N), title=title,
               xlabel="retrieved token $t_i$", ylabel="output position $i$")
    return fig



def plot_figure1(P: dict, table: dict):
    """Figure 1 of the paper: samples-to-threshold against N (log-log), means and each seed, slopes in the legend."""
    from matplotlib.ticker import LogFormatterSciNotation, NullLocator

    from lib.core.plotting import COLORS, MARKERS, figure

    fig, axes = figure(2, 1, width=4.0, height=4.6)
    for ax, panel in zip(axes[0], ("a", "b")):
        for model in P["models"]:
            for test, style in (("authors", "-"), ("task", "--")):
                entry = table.get(panel, {}).get(model, {}).get(test)
                if entry is None:
                    continue
                N = np.array(entry["N"])
                label = f"{LABELS[model]}" + (", authors' test" if panel == "a" and test == "authors" else
                                             ", 1STR test" if panel == "a" else "")
                fit = N >= SLOPE_FROM[panel]                   # the N the slope claims fit, so legend and table agree
                slope = loglog_slope(N[fit], entry["mean"][fit])
                ax.plot(N, entry["mean"], style, marker=MARKERS[model], color=COLORS[model], ms=5,
                        label=f"{label}: slope {slope:.2f}")
                runs = np.where(np.isnan(entry["runs"]), float(P["max_samples"]), entry["runs"])  # censored: at the cap
                for r in range(runs.shape[1]):
                    ax.scatter(N, runs[:, r], color=COLORS[model], alpha=0.25, s=12)
                low = entry["censored"] > 0         # a mean counting censored runs at the cap is a lower bound
                if low.any():
                    ax.scatter(N[low], entry["mean"][low], marker="^", s=60, facecolors="none", edgecolors=COLORS[model],
                               label=f"{LABELS[model]}: mean with censored runs (≥)")
        ref = PAPER_MEANS[panel]
        shown = [i for i, n in enumerate(ref["N"]) if min(P[f"N_{panel}"]) <= n <= max(P[f"N_{panel}"])]
        for model in P["models"]:  # the authors' means, where this run's N range covers them
            ax.scatter([ref["N"][i] for i in shown], [ref[model][i] for i in shown], marker="x", color=COLORS[model], s=30)
        thr = P[f"threshold_{panel}"]
        ax.set(xscale="log", yscale="log", xlabel="$N$ (sequence length)", ylabel="$n$ (training samples)",
               title=f"({panel}) {'1STR' if panel == 'a' else 'simple-1STR'}, test MSE < {thr}")
        ax.set_xticks(sorted(P[f"N_{panel}"]))
        ax.get_xaxis().set_major_formatter("{x:.0f}")
        ax.xaxis.set_minor_locator(NullLocator())
        # under a decade of n: label some minor ticks too, or the panel shows a single tick label
        ax.yaxis.set_minor_formatter(LogFormatterSciNotation(labelOnlyBase=False))
        ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.2))   # below the axes, off the data
    return fig


def plot_curves(P: dict, records: dict, panel: str = "a"):
    """Test MSE against samples seen at the largest N of a panel, every seed, each test set."""
    from lib.core.plotting import COLORS, figure

    N = max(P[f"N_{panel}"])
    fig, axes = figure(1, 1, width=6.4, height=4.2)
    ax = axes
    for model in P["models"]:
        res = records[(panel, model, N)]["result"]
        x = np.array(res["curve_samples"], float)
        curves = np.array(res["curves"], dtype=float)  # (C, R, K)
        for k, test in enumerate(res["tests"]):
            for r in range(curves.shape[1]):
                ax.plot(x, curves[:, r, k], "-" if test == "authors" else "--", color=COLORS[model], lw=1,
                        alpha=0.8, label=f"{LABELS[model]}, {TESTS[test]}" if r == 0 else None)
    ax.axhline(P[f"threshold_{panel}"], color="k", lw=0.8, ls=":")
    ax.set(xscale="log", yscale="log", xlabel="training samples seen", ylabel="test MSE",
           title=f"learning curves at $N={N}$ ({'1STR' if panel == 'a' else 'simple-1STR'})")
    ax.legend(fontsize=9, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.2))   # one column per model
    return fig


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
