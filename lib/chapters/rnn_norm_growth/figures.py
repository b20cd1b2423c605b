"""The rnn_norm_growth page's figures, drawn from the stored points through results.py's readers. Page-side: no
computation imports this module, so editing it leaves the chapter's results current.

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> plot_phase(P, results)
    <Figure size ... with ... Axes>
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rnn_norm_growth.compute import TASKS
from lib.chapters.rnn_norm_growth.results import (
    LABELS,
    a2_fit,
    crossover_table,
    memoriser_fit,
    norm_table,
    packing_table,
    phase_table,
)

TASK_COLORS = {"1str": "#fc8d62", "simple": "#8da0cb"}
SHORT = {"gru": "GRU", "elman": "Elman RNN"}     # the architectures in a panel title
LEGEND = 8.5           # legend font size: the figures are shown about 700 px wide
PHASE_TEXT = 12.5      # the phase figure's text (pt): 6.6 in wide, shown about 350 px wide on a phone, 9 px there


def plot_construction(P: dict, results: dict):
    """Left: MSE of the accumulator on simple-qSTR and qSTR against N. Right: state error of the biased transition,
    unrectified and rectified, with the lines N eps sqrt(q) / 2 and sqrt(q) eps."""
    from lib.core.plotting import figure

    c = results["construction"]["result"]
    N = np.array(c["N"], float)
    fig, axes = figure(1, 2, width=4.4, height=3.3)   # stacked: readable on a phone
    ax = axes[0, 0]
    ax.plot(N, c["mse_simple"], "o-", color=TASK_COLORS["simple"], label=f"simple-qSTR ($q$ = {P['q']})")
    ax.plot(N, c["mse_full"], "s-", color=TASK_COLORS["1str"], label=f"qSTR, independent indices ($q$ = {P['q']})")
    ax.axhline(1, color="gray", ls=":", lw=0.8, label="predicting 0")
    ax.set(xscale="log", xlabel="$N$ (sequence length)", ylabel="test MSE", ylim=(-0.1, max(2.2, max(c["mse_full"]) + 0.2)),
           title=f"accumulator, $d_h = qd$ = {P['q'] * P['d']} per direction")
    ax.legend(fontsize=LEGEND, loc="center right", bbox_to_anchor=(1, 0.27))   # in the empty band below MSE 1
    ax = axes[1, 0]
    ax.plot(N, c["err_plain"], "o-", color="#e78ac3", label=r"unrectified: $f = \Psi$ + bias")
    ax.plot(N, c["err_rect"], "s-", color="#66c2a5", label="rectified: dead zone of the bias's width")
    ax.plot(N, N * P["eps"] * math.sqrt(P["q"]) / 2, "k--", lw=0.8, label=r"$N\varepsilon\sqrt{q}/2$")
    ax.axhline(math.sqrt(P["q"]) * P["eps"], color="k", ls=":", lw=0.8, label=r"$\sqrt{q}\,\varepsilon$")
    ax.set(xscale="log", yscale="log", xlabel="$N$",
           ylabel=r"max state error $\Vert h - (x_{t_1}, \dots, x_{t_q})\Vert$",
           title=rf"per-step bias $\varepsilon/2$ per token block, $\varepsilon$ = {P['eps']:g}")
    ax.legend(fontsize=LEGEND)
    return fig


def plot_phase(P: dict, results: dict):
    """Per architecture (a column): median best test MSE over (N, width) on 1STR and on simple-1STR (red x: a run
    censored at the cap), and below them d_h*(N) (a down triangle: censored, d_h* is at most that). Two columns
    with text at PHASE_TEXT points: a phone shows the figure about 350 px wide, where that is still 9 px or more."""
    import matplotlib.pyplot as plt

    from lib.core.plotting import figure, use_style

    table = phase_table(P, results)
    archs = P["archs"]
    use_style()                  # the book's style stays set once the context below restores what was before it
    with plt.rc_context():
        fig, axes = figure(len(archs), 3, width=3.3, height=2.9, squeeze=False)
        plt.rcParams.update({k: PHASE_TEXT for k in ("font.size", "axes.titlesize", "axes.labelsize",
                                                      "xtick.labelsize", "ytick.labelsize", "legend.fontsize")})
        _phase_panels(P, table, archs, fig, axes)
    return fig


def _phase_panels(P: dict, table: dict, archs: list, fig, axes) -> None:
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    W = np.array(P["widths"], float)
    for a, arch in enumerate(archs):
        for k, task in enumerate(TASKS):
            e, ax = table[(arch, task)], axes[k, a]
            im = ax.imshow(e["median"].T, origin="lower", aspect="auto", cmap="viridis_r", vmin=0, vmax=1)
            # no printed values (unreadable at page size; the table below gives d_h*): a white dot marks the cells
            # at or below the threshold instead
            i, j = np.nonzero(e["median"] <= P["threshold"])
            ax.plot(i, j, "o", mfc="w", mec="k", mew=0.8, ms=6, ls="none")
            i, j = np.nonzero((e["status"] == 2).any(2))        # a run cut off by the cap, undecided (censored)
            ax.plot(i, j, "x", color="r", ms=6, mew=1.4, ls="none")
            ax.set(xticks=range(len(e["N"])), xticklabels=e["N"], yticks=range(len(W)), yticklabels=P["widths"],
                   xlabel="$N$", ylabel="width $d_h$", title=f"{SHORT[arch]} on {LABELS[task]}")
            ax.grid(False)

        ax = axes[2, a]
        if not any(np.isfinite(table[(arch, task)]["dstar"]).any() for task in TASKS):
            _nothing_to_draw(ax, f"no width up to {P['widths'][-1]} reached\nmedian MSE $\\leq$ {P['threshold']} "
                                 "at any $N$:\nno critical width to draw", f"{SHORT[arch]}: critical width")
            continue
        for task in TASKS:
            e = table[(arch, task)]
            ok = np.isfinite(e["dstar"])
            ax.plot(np.array(e["N"])[ok], e["dstar"][ok], "o-", color=TASK_COLORS[task],
                    label=f"{LABELS[task]}: slope {e['slope']:.2f}")
            at_most = ok & (e["lo"] < e["hi"])                   # censored: d* in (lo, hi], drawn as "at most"
            ax.plot(np.array(e["N"])[at_most], e["hi"][at_most], "v", color=TASK_COLORS[task], ms=9, ls="none")
        Ns = np.array(table[(arch, "1str")]["N"], float)
        ref = table[(arch, "1str")]["dstar"]
        if np.isfinite(ref[0]):
            ax.plot(Ns, ref[0] * Ns / Ns[0], "k:", lw=0.8, label="slope 1")
        ax.set(xscale="log", yscale="log", xlabel="$N$", ylabel=rf"$d_h^*$ (MSE $\leq$ {P['threshold']})",
               title=f"{SHORT[arch]}: critical width")
        # widths read 1, 2, 4, 8, not 10^0; no minor labels (at this text size they run into each other)
        ax.yaxis.set_major_locator(FixedLocator([2.0 ** k for k in range(8)]))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(Ns, [f"{v:.0f}" for v in Ns])
        _no_minor_x(ax)
        ax.legend(fontsize=PHASE_TEXT - 2, loc="upper center", bbox_to_anchor=(0.5, -0.3))
    # one colour bar for the four maps (one scale, 0 to 1), under them, the threshold marked on it
    bar = fig.colorbar(im, ax=list(axes[:2].ravel()), location="bottom", shrink=0.7, aspect=30,
                       label="median best test MSE")
    bar.ax.axvline(P["threshold"], color="w", lw=1.6)
    bar.ax.plot(P["threshold"], 0.5, "o", mfc="w", mec="k", mew=0.8, ms=6, transform=bar.ax.get_xaxis_transform())


def plot_norm(P: dict, results: dict):
    """Left: (L ||U||_op r_h)^2 of the widest Elman runs at the threshold, against N. Right: alpha*(N) of A.2."""
    from lib.core.plotting import COLORS, figure, mean_ci

    fig, axes = figure(1, 2, width=4.4, height=3.3)   # stacked: readable on a phone
    ax = axes[0, 0]
    table = norm_table(P, results)
    if not any(len(e["N"]) for e in table.values()):
        _nothing_to_draw(ax, _no_elman_runs(P), "squared Lipschitz product")
        table = {}
    for task, e in table.items():
        if not len(e["N"]):
            continue
        ax.plot(e["N"], e["value"], "o", color=TASK_COLORS[task], alpha=0.7, label=f"{LABELS[task]}: slope {e['slope']:.2f}")
        Ns = np.array(sorted(set(e["N"])))
        # the geometric mean over the runs at each N (the slopes are fitted on the log scale), with its 95%
        # bootstrap interval over the runs (seaborn)
        mean_ci(ax, Ns, [e["value"][e["N"] == N] for N in Ns], color=TASK_COLORS[task], estimator=geometric_mean,
                marker="")
        if "lipr" in e:      # the fixed-accuracy quantity measured on the states (rows 10b)
            ax.plot(e["N"], e["lipr"], "s", mfc="none", color=TASK_COLORS[task],
                    label=rf"{LABELS[task]}: $(\mathrm{{Lip}}\cdot\mathrm{{rad}})^2$, slope {e['lipr_slope']:.2f}")
            mean_ci(ax, Ns, [e["lipr"][e["N"] == N] for N in Ns], color=TASK_COLORS[task], estimator=geometric_mean,
                    marker="", ls="--")
    if table:
        ax.set(xscale="log", yscale="log", xlabel="$N$", ylabel="squared Lipschitz product",
               title=f"Elman RNN, $d_h$ = {max(P['widths'])}, at test MSE {P['threshold']}")
        _no_minor_x(ax)
        ax.set_xticks(sorted(P["phase_N"]), [str(n) for n in sorted(P["phase_N"])])
        ax.legend(fontsize=LEGEND)
    ax = axes[1, 0]
    fit = a2_fit(results)
    ax.plot(fit["N"], fit["alpha"], "^", color=COLORS["transformer"],
            label=r"$\alpha^*(N) = \Vert W_{QK}\Vert_{op}$ of Eq. A.2")
    if np.isfinite(fit["slope"]):     # a line needs two lengths (a2_fit)
        ax.plot(fit["N"], fit["slope"] * np.log(fit["N"]) + fit["intercept"], "-", color=COLORS["transformer"],
                label=f"{fit['slope']:.2f} ln $N$ + {fit['intercept']:.2f}"
                + (f", $R^2$ = {fit['r2']:.3f}" if np.isfinite(fit["r2"]) else " (no spread: no $R^2$)"))
    else:
        ax.text(0.5, 0.1, "one length: no line to fit", transform=ax.transAxes, ha="center")
    ax.set(xscale="log", xlabel="$N$ (log scale)", ylabel=r"$\alpha^*$", title=f"Transformer, off-target mass {P['off_target']}")
    ax.legend(fontsize=LEGEND)
    return fig


def plot_packing(P: dict, results: dict):
    """Left: participation ratio of the states against N, both tasks. Right: pairwise distances of Phi, 1STR."""
    from matplotlib.ticker import FuncFormatter

    from lib.core.plotting import figure

    fig, axes = figure(1, 2, width=4.4, height=3.3)   # stacked: readable on a phone
    if "elman" not in P["archs"]:
        for ax, title in zip(axes[:, 0], ("effective dimension", "pairwise separation on 1STR")):
            _nothing_to_draw(ax, _no_elman_runs(P), title)
        return fig
    pk = packing_table(P, results)
    ax = axes[0, 0]
    for task, e in pk.items():
        ax.plot(e["N"], e["pr"], "o-", color=TASK_COLORS[task], label=f"{LABELS[task]}: slope {e['slope']:.2f}")
    Ns = np.array(pk["1str"]["N"], float)
    ax.plot(Ns, pk["1str"]["pr"][0] * Ns / Ns[0], "k:", lw=0.8, label="slope 1")
    ax.set(xscale="log", yscale="log", xlabel="$N$", ylabel=r"participation ratio of Cov$(s_j)$",
           title=f"effective dimension, Elman $d_h$ = {max(P['widths'])}")
    ax.set_xticks(Ns, [f"{v:.0f}" for v in Ns])
    _no_minor_x(ax)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))      # 3, 4, 6 rather than 3 x 10^0
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.legend(fontsize=LEGEND)
    ax = axes[1, 0]
    e = pk["1str"]
    ax.plot(Ns, e["dist_median"], "o-", color=TASK_COLORS["1str"], label=r"replayed outputs $\Phi(s_j)$")
    ax.plot(Ns, e["g_dist_median"], "s--", color="gray", label=r"labels $g = (\langle u, x_k\rangle)_{k \neq j}$")
    ax.plot(Ns, np.sqrt(np.clip(1 - e["phi_mse"], 0, None)), ":", color=TASK_COLORS["1str"],
            label=r"$\sqrt{1 - \mathrm{MSE\ of\ }\Phi}$")
    ax.set(xscale="log", xlabel="$N$", ylabel=r"median $\Vert\Phi - \Phi'\Vert\,/\sqrt{2(N-1)}$", ylim=(0, 1.3),
           title="pairwise separation on 1STR")
    ax.set_xticks(Ns, [f"{v:.0f}" for v in Ns])
    _no_minor_x(ax)
    ax.legend(fontsize=LEGEND, loc="lower right")
    return fig


def plot_memoriser(P: dict, results: dict):
    """Top: ||vec Theta||^2 of Thm 9's memoriser against n (every draw, medians, the fitted line). Middle: the same
    line near the crossovers, with the norms of the generalising Elman runs at each N (solid: the proof's lower bound
    2 L ||U|| r_h; dashed: their measured ||vec Theta||^2) and the crossovers n*. Bottom: Lemma 37, the smallest gap
    of the projected tokens against n, with the lemma's bound. The panels are stacked, one column 4.4 inches wide,
    so that a phone (about 360 px for the figure) shows its smallest text, the legends', at about 10 px."""
    from matplotlib import colormaps
    from matplotlib.ticker import FuncFormatter

    from lib.core.plotting import figure, mean_ci

    r, fit = results["memoriser"]["result"], memoriser_fit(results)
    cx, n = crossover_table(P, results, fit), fit["n"]
    line = lambda x: np.exp(fit["intercept"]) * x ** fit["slope"]
    fig, axes = figure(1, 3, width=4.4, height=3.2, squeeze=False)
    ax = axes[0, 0]
    ax.plot(np.repeat(n, fit["all"].shape[1]), fit["all"].ravel(), ".", color="gray", alpha=0.4, ms=4, label="each training set")
    mean_ci(ax, n, fit["all"], color="k", estimator="median", bars=True, ls="none", ms=5, label="median, 95% CI")
    ax.plot(n, line(n), "k-", lw=1, label=f"fit: slope {fit['slope']:.2f}")
    ax.set(xscale="log", yscale="log", xlabel="$n$ (training prompts)", ylabel=THETA_SQ, title="the memoriser")
    ax.legend(fontsize=LEGEND)
    ax = axes[1, 0]
    levels = np.r_[cx["bound"], cx["theta_sq"]]
    stars = np.r_[cx["n_bound"], cx["n_theta"]]
    if np.isfinite(levels).any():
        lo, hi = np.nanmin(np.r_[stars, n[0]]) / 1.5, max(np.nanmax(stars) * 1.5, n[1])
        grid = np.geomspace(lo, hi, 50)
        ax.plot(grid, line(grid), "k-", lw=1, label="memoriser (fit)")
        keep = (n >= lo) & (n <= hi)
        ax.plot(np.repeat(n[keep], fit["all"].shape[1]), fit["all"][keep].ravel(), ".", color="gray", alpha=0.4, ms=4)
        ax.plot(n[keep], fit["median"][keep], "o", color="k", ms=5)
        colors = colormaps["viridis"](np.linspace(0, 0.85, len(cx["N"])))
        for i, N in enumerate(cx["N"]):
            for key, nkey, ls, mk in (("bound", "n_bound", "-", "o"), ("theta_sq", "n_theta", "--", "s")):
                if np.isfinite(cx[key][i]):
                    ax.axhline(cx[key][i], color=colors[i], ls=ls, lw=1, label=f"$N$ = {N}" if key == "bound" else None)
                    ax.plot(cx[nkey][i], cx[key][i], mk, color=colors[i], mfc="none", ms=8)
        ax.set(xlim=(lo, hi), ylim=(np.nanmin(levels) / 3, np.nanmax(levels) * 3))
    else:
        ax.text(0.5, 0.5, _no_elman_runs(P), ha="center", va="center", transform=ax.transAxes, fontsize=LEGEND + 1)
    ax.set(xscale="log", yscale="log", xlabel="$n$", ylabel=THETA_SQ)
    ax.set_title("crossovers $n^*$\n(solid: bound, dashed: measured)", fontsize=10)
    # a narrow log axis: 3, 4, 6, 10 rather than 3 x 10^0 ..., and no crowded labels at 7, 8, 9
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:e}"[0] in "2346" else ""))
    if np.isfinite(levels).any():
        ax.legend(fontsize=LEGEND, loc="upper left")
    ax = axes[2, 0]
    gap = np.array(r["gap"], float)
    ax.plot(np.repeat(n, gap.shape[1]), gap.ravel(), ".", color="gray", alpha=0.5, ms=4, label="each training set")
    mean_ci(ax, n, gap, color="k", estimator="median", bars=True, ls="none", ms=5, label="median, 95% CI")
    ax.plot(n, math.sqrt(math.pi) / (3 * n ** 2), "k--", lw=0.8, label=r"$\sqrt{\pi}/(3n^2)$")
    ax.set(xscale="log", yscale="log", xlabel="$n$", ylabel=r"smallest gap between the $z_i$", title="Lemma 37")
    ax.legend(fontsize=LEGEND)
    return fig


THETA_SQ = r"$\Vert\mathrm{vec}\,\Theta\Vert^2$"


def geometric_mean(values) -> float:
    """exp of the mean log: the centre of norms that span decades, as the log-log slopes read them."""
    return float(np.exp(np.mean(np.log(values))))


def _no_elman_runs(P: dict) -> str:
    """Why a panel of the widest Elman runs at the threshold has nothing to draw."""
    if "elman" not in P["archs"]:
        return "the Elman RNN was not trained\n(archs does not list elman)"
    return (f"no Elman run of width {P['widths'][-1]}\nreached test MSE $\\leq$ {P['threshold']}\n"
            "at any $N$: nothing to draw")


def _nothing_to_draw(ax, text: str, title: str) -> None:
    """A panel whose quantity this run did not measure: the reason in its middle, no axes to scale."""
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, fontsize=LEGEND + 1)
    ax.set(xticks=[], yticks=[], title=title)
    ax.grid(False)


def _no_minor_x(ax):
    """No minor ticks on a log x axis whose ticks are the N that were run (a log y axis keeps its labelled minor
    ticks: within a decade they are the only labels)."""
    from matplotlib.ticker import NullLocator

    ax.xaxis.set_minor_locator(NullLocator())
