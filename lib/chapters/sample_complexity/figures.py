"""The sample-complexity page's figures, drawn from the stored points and the summary of results/: Figure 1, its
learning curves, the comparison with the authors' means, the wide sweep and the attention point. Page-side: no
computation imports this module, so editing it leaves the chapter's results current.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> from lib.chapters.sample_complexity.results import summarize; plot_figure1(P, summarize(P, records))
    <Figure size ... with ... Axes>
"""
from __future__ import annotations

import numpy as np
import torch

from lib.chapters.sample_complexity.results import LABELS, SLOPE_FROM, TESTS, runs_of, wide
from lib.chapters.sample_complexity.results.attention import result
from lib.chapters.sample_complexity.results.authors import PAPER_MEANS, comparison
from lib.chapters.sample_complexity.results.bootstrap import replicates
from lib.science import qstr
from lib.science.stats import loglog_slope

TASK = {"a": "1STR", "b": "simple-1STR"}     # what each panel trains on


def plot_prompt(N: int = 8, d: int = 10, task_seed: int = 42, seed: int = 0):
    """One 1STR prompt and one simple-1STR prompt: the encoded tokens z_i and which token each position retrieves."""
    import matplotlib.pyplot as plt

    from lib.core.plotting import COLORS, use_style

    use_style()    # the prompt on top, the two retrieval patterns beneath it: 4.6 in wide, readable on a phone
    fig, axes = plt.subplot_mosaic([["z", "z"], ["one", "simple"]], figsize=(4.6, 5.8), height_ratios=(1.1, 1))
    task = qstr.QSTR(N=N, d=d, task_seed=task_seed)
    gen = torch.Generator().manual_seed(seed)
    X, T = task.draw(1, 1, gen)
    z = task.encode(X, T)[0, 0]
    ax = axes["z"]
    lim = float(z.abs().max())
    ax.imshow(z.numpy(), cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    for x in (d - 0.5, d + task.d_e - 0.5):
        ax.axvline(x, color="k", lw=1)
    ax.set(title=r"encoded prompt $z$ (1STR)", xlabel=rf"$x_i$ | $\omega_i$ | $\omega_{{t_i}}$   ($d={d}$, $d_e={task.d_e}$)",
           ylabel="position $i$")
    ax.grid(False)
    for ax, simple, title in ((axes["one"], False, "1STR: $t_i$ per position"),
                              (axes["simple"], True, "simple-1STR: one $t$")):
        _, T = task.draw(1, 1, gen, simple=simple)
        t = T[0, 0, :, 0].numpy()
        ax.scatter(t, np.arange(N), s=60, color=COLORS["transformer"])
        ax.set(xlim=(-0.5, N - 0.5), ylim=(N - 0.5, -0.5), xticks=range(N), yticks=range(N), title=title,
               xlabel="retrieved token $t_i$", ylabel="output position $i$")
    return fig


BAND = 0.95      # the two-sided level of Figure 1's bands: of the bootstrap replicates the claim rows test


def band(P: dict, panel: str, model: str, entry: dict) -> tuple[np.ndarray, np.ndarray]:
    """The BAND interval of a table entry's mean at each N: the quantiles of the claim rows' own bootstrap replicates
    (bootstrap.replicates with boot's key: task draws resampled, then seeds within each draw; censored runs at the
    cap, so an interval there bounds a lower bound)."""
    reps = replicates(entry, (P["seed"], panel, model))
    return np.quantile(reps, (1 - BAND) / 2, axis=0), np.quantile(reps, (1 + BAND) / 2, axis=0)


def plot_figure1(P: dict, table: dict):
    """Figure 1 of the paper: samples-to-threshold against N (log-log), means with their bootstrap band over task draws
    and seeds (`band`), each run, slopes in the legend."""
    from matplotlib.ticker import LogFormatterSciNotation, NullLocator

    from lib.core.plotting import COLORS, MARKERS, figure

    fig, axes = figure(1, 2, width=4.6, height=5.2, squeeze=False)   # stacked: a phone shows each panel at full width
    for ax, panel in zip(axes[:, 0], ("a", "b")):
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
                ax.fill_between(N, *band(P, panel, model, entry), color=COLORS[model], alpha=0.2, lw=0)
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
               title=f"({panel}) {TASK[panel]}, test MSE < {thr}")
        ax.set_xticks(sorted(P[f"N_{panel}"]))
        ax.get_xaxis().set_major_formatter("{x:.0f}")
        ax.xaxis.set_minor_locator(NullLocator())
        # under a decade of n: label some minor ticks too, or the panel shows a single tick label
        ax.yaxis.set_minor_formatter(LogFormatterSciNotation(labelOnlyBase=False))
        ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.16))  # below the axes, off the data
    return fig


def plot_curves(P: dict, records: dict, panel: str = "a"):
    """Test MSE against samples seen at the largest N of a panel, every seed, each test set."""
    from lib.core.plotting import COLORS, figure

    N = max(P[f"N_{panel}"])
    fig, axes = figure(1, 1, width=6.4, height=4.2)
    ax = axes
    for model in P["models"]:
        for i, res in enumerate(runs_of(records, panel, model, N)):   # one batched record, or one per run
            x = np.array(res["curve_samples"], float)
            curves = np.array(res["curves"], dtype=float)  # (C, R, K)
            for k, test in enumerate(res["tests"]):
                for r in range(curves.shape[1]):
                    ax.plot(x, curves[:, r, k], "-" if test == "authors" else "--", color=COLORS[model], lw=1,
                            alpha=0.8, label=f"{LABELS[model]}, {TESTS[test]}" if i == r == 0 else None)
    ax.axhline(P[f"threshold_{panel}"], color="k", lw=0.8, ls=":")
    ax.set(xscale="log", yscale="log", xlabel="training samples seen", ylabel="test MSE",
           title=f"learning curves at $N={N}$ ({TASK[panel]})")
    ax.legend(fontsize=9, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.2))   # one column per model
    return fig


def plot_comparison(P: dict, table: dict):
    """This run's means over the authors' (results/authors.py): the ratio at every (panel, model, N) on a log axis, with
    the band of three standard errors that seeds and task draws give it; a band that misses 1 is |z| > 3."""
    from matplotlib.ticker import NullLocator

    from lib.core.plotting import COLORS, MARKERS, figure

    rows = comparison(table, P)
    panels = [p for p in ("a", "b") if any(r["panel"] == p for r in rows)]
    if not panels:      # another threshold, or only a narrower GRU: the authors' means are not this run's quantity
        fig, ax = figure(1, 1, width=6.0, height=1.2)
        ax.text(0.5, 0.5, "This run's models or thresholds are not the paper's: nothing to compare.", ha="center",
                va="center")
        ax.set_axis_off()
        return fig
    fig, axes = figure(1, len(panels), width=4.6, height=3.2, squeeze=False)   # stacked: readable on a phone
    for ax, panel in zip(axes[:, 0], panels):
        grid = sorted({r["N"] for r in rows if r["panel"] == panel})
        step = min(np.diff(grid)) if len(grid) > 1 else 1
        for k, model in enumerate(("transformer", "rnn", "ffn")):
            own = [r for r in rows if r["panel"] == panel and r["model"] == model]
            if not own:
                continue
            x = np.array([r["N"] for r in own]) + (k - 1) * 0.18 * step      # side by side at each N
            ratio = np.array([r["ratio"] for r in own])
            sigma = np.array([r["sigma"] for r in own])                      # the z's standard error, in log
            err = [ratio - ratio * np.exp(-3 * sigma), ratio * np.exp(3 * sigma) - ratio]
            draws = own[0]["draws"]
            ax.errorbar(x, ratio, yerr=err, fmt=MARKERS[model], color=COLORS[model], ms=5, capsize=2,
                        label=f"{LABELS[model]} ({draws} task draw{'s' if draws > 1 else ''})")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set(yscale="log", xlabel="$N$ (sequence length)", ylabel="this run's mean / the authors' mean",
               title=f"({panel}) {TASK[panel]}")
        ax.set_xticks(grid)
        lo, hi = ax.get_ylim()
        ax.set_yticks([t for t in (0.25, 0.35, 0.5, 0.7, 1.0, 1.4, 2.0, 2.8, 4.0) if lo <= t <= hi])
        ax.get_yaxis().set_major_formatter("{x:.2g}")
        ax.yaxis.set_minor_locator(NullLocator())
    fig.legend(*axes[0][0].get_legend_handles_labels(), fontsize=9, ncols=2, loc="outside lower center")
    return fig


LAW_STYLE = {"log": "-", "power": "--", "linear": ":"}


def plot_wide(P: dict, table: dict):
    """The wide sweep (Theorem 1 beyond Figure 1): the Transformer's samples against N on a log N axis, where a log law
    is a straight line, with the three fitted laws; and the log-log slope between consecutive lengths against what the
    log law (falling) and the power law (flat) predict."""
    from lib.core.plotting import COLORS, figure

    w = wide.series(table, P, "task")
    if w is None or len(w["N"]) < 2:
        fig, ax = figure(1, 1, width=6.0, height=1.2)
        ax.text(0.5, 0.5, "This run has no wide sweep (no lengths beyond Figure 1's)." if w is None else
                f"The wide sweep has {'one length' if w['N'] else 'no length'} from $N$ = {wide.FROM_N} on"
                + (f" ($N$ = {w['N'][0]})" if w["N"] else "") + ": no law to fit, no slope between lengths.",
                ha="center", va="center", wrap=True)
        ax.set_axis_off()
        return fig
    fits = wide.fit_laws(w["N"], w["runs"].mean(1))
    N = np.array(w["N"], float)
    grid = np.geomspace(N.min(), N.max(), 200)
    fig, axes = figure(1, 2, width=4.6, height=3.6, squeeze=False)   # stacked: readable on a phone
    axes = axes[:, 0]
    ax = axes[0]
    for r in range(w["runs"].shape[1]):
        ax.scatter(N, w["runs"][:, r], color=COLORS["transformer"], alpha=0.3, s=12)
    ax.plot(N, w["runs"].mean(1), "^", color=COLORS["transformer"], ms=6, label="mean of the seeds")
    for law in wide.LAWS:
        ax.plot(grid, wide.law_curve(law, fits[law]["params"], grid), LAW_STYLE[law], color="0.25", lw=1.2,
                label=f"{wide.LAW_TEXT[law]} (RSS {fits[law]['rss']:.3f})")
    ax.set(xscale="log", xlabel="$N$ (sequence length, log scale)", ylabel="$n$ (training samples)",
           title="Transformer, 1STR (1STR test)", ylim=(0, None))
    ax.set_xticks(N[[0] + [i for i in range(1, len(N)) if N[i] >= 2 * N[0] and np.log2(N[i]) % 1 == 0]])
    ax.get_xaxis().set_major_formatter("{x:.0f}")
    ax.minorticks_off()
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    ax = axes[1]
    mids, slopes = wide.local_slopes(w)
    ax.plot(mids, slopes, "^-", color=COLORS["transformer"], label="this run, between consecutive $N$")
    a, b = fits["log"]["params"]
    ax.plot(grid, b / (a + b * np.log(grid)), LAW_STYLE["log"], color="0.25", label="log law: $b/(a + b\\ln N)$")
    ax.axhline(fits["power"]["params"][1], ls=LAW_STYLE["power"], color="0.25", label="power law: $p$")
    ax.axhline(0, color="0.6", lw=0.8)
    ax.set(xscale="log", xlabel="$N$", ylabel="log-log slope of $n$", title="local slope: falling, or flat?")
    ax.set_xticks(axes[0].get_xticks())
    ax.get_xaxis().set_major_formatter("{x:.0f}")
    ax.minorticks_off()
    ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig


# ------------------------------------------------------------------------------------------- the attention point
def _none(text: str):
    from lib.core.plotting import figure

    fig, ax = figure(1, 1, width=6.0, height=1.2)
    ax.text(0.5, 0.5, text, ha="center", va="center")
    ax.set_axis_off()
    return fig


def plot_attention(P: dict, records: dict):
    """Top: one run's attention on one 1STR prompt, query position i against key j, with t_i circled. Bottom: every
    run's mean attention on t_i and on the other keys by the overlap of the query's code of t_i with the key's own."""
    from lib.core.plotting import COLORS, figure

    res = result(P, records)
    if res is None:
        return _none("This run has no attention point (it trains none for the attention reading).")
    N = P["attention_N"]
    fig, axes = figure(1, 2, width=4.6, height=3.8, squeeze=False)   # stacked: readable on a phone
    ax = axes[0, 0]
    A, t = np.array(res["example"][0]), res["example_t"]
    im = ax.imshow(A, cmap="viridis", vmin=0, vmax=A.max(), aspect="equal")
    ax.scatter(t, range(N), s=90, facecolors="none", edgecolors="red", linewidths=1.5, label="$t_i$")
    ax.set(xticks=range(0, N, 2 if N > 8 else 1), yticks=range(0, N, 2 if N > 8 else 1), xlabel="key position $j$",
           ylabel="query position $i$", title=f"run 1: attention on one prompt ($N={N}$)")
    ax.grid(False)
    fig.colorbar(im, ax=ax, shrink=0.8, label="attention weight")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=9)
    ax = axes[1, 0]
    levels = np.array(res["overlap_levels"])
    for r, (curve, share) in enumerate(zip(np.array(res["by_overlap"], float), res["share"])):
        seen = np.isfinite(curve) & (levels < 1)
        ax.plot(levels[seen], curve[seen], "o-", color=COLORS["transformer"], alpha=0.7, ms=4,
                label="other keys $j$, each run" if r == 0 else None)
        ax.plot([1.0], [share], "*", color="red", ms=11, alpha=0.8, label="the key $t_i$, each run" if r == 0 else None)
    ax.axhline(1 / N, color="0.3", ls="--", lw=1, label=f"uniform $1/N$ = {1 / N:.3f}")
    ax.set(xlabel=r"code overlap $\langle\omega_{t_i}, \omega_j\rangle$", ylabel="mean attention weight",
           title="attention by the overlap of the codes", ylim=(0, None))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=9)
    return fig


def plot_attention_summary(P: dict, records: dict):
    """Top: each run's attention mass on t_i over the prompts (one value per prompt: the mean over its positions),
    against the uniform 1/N. Bottom: |W_Q^T W_K| of run 1 with the blocks of the encoding (the paper's Figure 2)."""
    import pandas as pd
    import seaborn as sns

    from lib.core.plotting import COLORS, figure

    res = result(P, records)
    if res is None:
        return _none("This run has no attention point (it trains none for the attention reading).")
    N, d, d_e = P["attention_N"], P["d"], res["d_e"]
    fig, axes = figure(1, 2, width=4.6, height=3.6, squeeze=False)   # stacked: readable on a phone
    ax = axes[0, 0]
    peak = np.array(res["peak_k"]) / res["peak_n"]
    frame = pd.DataFrame([(f"{r + 1}\n{peak[r]:.0%}", v) for r, vs in enumerate(res["share_per_prompt"]) for v in vs],
                         columns=["run", "share"])
    sns.boxplot(data=frame, x="run", y="share", color=COLORS["transformer"], width=0.5, fliersize=2, ax=ax)
    ax.axhline(1 / N, color="0.3", ls="--", lw=1, label=f"uniform $1/N$ = {1 / N:.3f}")
    ax.set(xlabel="run (and its positions peaking at $t_i$)", ylabel="attention mass on $t_i$ per prompt",
           title=f"{len(res['share_per_prompt'][0]):,} prompts per run", ylim=(0, None))
    ax.legend(loc="lower right", fontsize=9)      # below the boxes: a reader of code-blind attention looks there
    ax = axes[1, 0]
    qk = np.abs(np.array(res["qk"]))
    im = ax.imshow(qk, cmap="viridis", aspect="equal")
    for x, style in ((d - 0.5, ":"), (d + d_e - 0.5, "--")):
        ax.axvline(x, color="w", ls=style, lw=1)
        ax.axhline(x, color="w", ls=style, lw=1)
    edges = [0, d, d + d_e, d + 2 * d_e]
    ax.set(xticks=[(a + b) / 2 - 0.5 for a, b in zip(edges, edges[1:])], xticklabels=[r"$x_j$", r"$\omega_j$",
           r"$\omega_{t_j}$"], yticks=[(a + b) / 2 - 0.5 for a, b in zip(edges, edges[1:])],
           yticklabels=[r"$x_i$", r"$\omega_i$", r"$\omega_{t_i}$"], xlabel="key features", ylabel="query features",
           title=r"run 1: $|W_Q^\top W_K|$")
    ax.grid(False)
    fig.colorbar(im, ax=ax, shrink=0.8)
    return fig
