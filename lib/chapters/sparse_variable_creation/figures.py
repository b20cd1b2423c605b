"""The sparse_variable_creation page's figures, drawn from the stored points through results.py's readers. Page-side:
no computation imports this module, so editing it leaves the chapter's results current.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> plot_and(results)
    <Figure size ... with ... Axes>
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.sparse_variable_creation.results import (
    LAW_TEXT,
    and_table,
    bounds,
    cells,
    compare_laws,
    criticals,
    floor_bits,
    minimal_R_fit,
    mstar_of,
)


def plot_and(results: dict):
    from lib.core.plotting import figure, mean_ci

    fig, axes = figure(ncols=2, width=3.9, height=3.3, squeeze=True)   # 858 px: near its size in the text column
    table, crit = and_table(results), criticals(results)
    shown = list(table)
    if len(shown) > 5:       # the paper's Figure 4 shows T = 100, 200, 400, 800; else four spread over the grid
        paper = [T for T in (100, 200, 400, 800) if T in table]
        shown = paper if len(paper) == 4 else [shown[int(i)] for i in np.unique(np.round(np.linspace(0, len(shown) - 1, 4)))]
    for k, T in enumerate(shown):     # the success share over the trials, with its bootstrap interval over them
        dodge = (k - (len(shown) - 1) / 2) * 2.5      # in m: the bars of the T at one m side by side, not on top
        mean_ci(axes[0], np.asarray(table[T]["m"], float) + dodge, table[T]["success"].astype(float), color=f"C{k}",
                bars=True, ms=5, label=f"T = {T}")
    axes[0].axhline(0.5, color="k", lw=0.8, ls=":")
    axes[0].set(xlabel="training samples $m$", ylabel="success fraction", ylim=(-0.05, 1.05))
    axes[0].legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, columnspacing=1, handlelength=1.5)
    T = np.array([k for k, v in crit.items() if np.isfinite(v[0])], float)
    if len(T):
        m, se = np.array([crit[int(k)][0] for k in T]), np.array([crit[int(k)][1] for k in T])
        axes[1].errorbar(T, m, yerr=np.nan_to_num(se), marker="o", capsize=3, color="k", label="measured $m^*$")
    grid = np.linspace(min(table), max(table), 100)
    if len(table) >= 3:      # the three laws that A11c compares, each fitted to every (T, m) cell
        laws = compare_laws(cells(table))["fits"]
        for (law, f), style in zip(laws.items(), ("C0--", "C2-.", "C3:")):
            axes[1].plot(grid, mstar_of(f, grid), style, label=f"logistic fit {LAW_TEXT[law]}")
    if len(T):
        axes[1].plot(grid, [floor_bits(int(g)) for g in grid], color="0.5", lw=1, label=r"floor $\log_2\binom{T}{3}$")
    cen = [(T, lo) for T, (lo, hi) in bounds(results).items() if not np.isfinite(hi)]
    if cen:                  # no m* in the grid: m* exceeds the largest m (a bound, never dropped)
        axes[1].plot(*zip(*cen), "k^", mfc="none", label="censored: $m^*$ > largest $m$")
    axes[1].set(xlabel="context length $T$", ylabel="critical sample size $m^*$")
    axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    return fig


def plot_curves(results: dict, T: int | None = None):
    """Training loss and validation accuracy of trial 0 at the smallest and largest m (Fig. 2 right)."""
    from lib.core.plotting import figure

    T = T or max(results["and"])
    r = results["and"][T]["result"]
    ms = sorted(r["curves"], key=int)
    fig, axes = figure(ncols=2, width=3.9, height=3.3, squeeze=True)   # 858 px: near its size in the text column
    for m, color in ((ms[0], "C3"), (ms[-1], "C0")):
        c = r["curves"][m]
        axes[0].semilogy(r["checks"], np.maximum(c["train_loss"], 1e-8), color=color, label=f"m = {m}")
        axes[1].plot(r["checks"], c["val_acc"], color=color, label=f"m = {m}")
    axes[1].axhline(0.99, color="k", lw=0.8, ls=":")
    axes[0].set(xlabel="iteration", ylabel="training loss (with dropout)", title=f"T = {T}")
    axes[1].set(xlabel="iteration", ylabel="validation accuracy", title=f"T = {T}")
    for ax in axes:
        ax.legend()
    return fig


def plot_parity(results: dict):
    """One panel per T, at most two in a row (four in a row drew 4-px ticks in the text column), the panels
    sharing their axes so that the T compare at a glance."""
    from lib.core.plotting import figure

    runs = sorted(results["parity"].items())
    ncols = min(2, len(runs))
    fig, axes = figure(ncols=ncols, nrows=math.ceil(len(runs) / ncols), width=3.9, height=2.9, squeeze=False,
                       sharex=True, sharey=True)
    for ax, (T, rec) in zip(axes.flat, runs):
        r = rec["result"]
        for seed, loss in enumerate(r["loss"]):
            ax.plot(r["iters_logged"], loss, lw=1, color=f"C{seed}", label=f"seed {seed}")
        ax.axhline(math.log(2), color="k", lw=0.8, ls=":")
        ax.set(title=f"T = {T}", ylim=(-0.02, 0.8))
    for ax in axes.flat[len(runs):]:                 # an odd number of T: the last cell stays blank, not an empty axes
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("iteration")
    for ax in axes[:, 0]:
        ax.set_ylabel("online loss")
    axes[0, 0].legend(loc="center right")
    return fig


def plot_minimal_R(results: dict):
    from lib.core.plotting import figure

    rows = results["exact"]["result"]["minimal_R"]
    T = np.array([r["T"] for r in rows], float)
    fig, ax = figure()
    ax.plot(np.log(T), [r["R_min"] for r in rows], "ko", label="least $R$ with error $\\leq \\gamma/4$")
    ax.plot(np.log(T), [r["R_lemma"] for r in rows], "C0--", label=r"Lemma B.2's $R = \log(8T/\gamma)$")
    f = minimal_R_fit(results)
    ax.plot(np.log(T), f["intercept"] + f["slope"] * np.log(T), "C3:", label=f"fit, slope {f['slope']:.2f}")
    ax.set(xlabel=r"$\ln T$", ylabel="query scale $R = \\|W_Q\\|_F$")
    ax.legend()
    return fig


def plot_norms(results: dict):
    """The trained weights' norms against T (compute.weight_norms): Cor. 4.4's capacity factor and max_h B_QK^inf,
    every trial, successes filled and failures hollow."""
    from matplotlib.ticker import NullFormatter

    from lib.core.plotting import figure

    fig, axes = figure(ncols=2, width=3.9, height=3.3, squeeze=True)   # 858 px: near its size in the text column
    for ax, key, label in ((axes[0], "capacity", "capacity factor of Cor. 4.4"),
                           (axes[1], "qk_norm", r"$\max_h B_{QK}^{\infty}$ (query-key)")):
        for T, rec in sorted(results["and"].items()):
            r = rec["result"]
            s, v = np.array(r["success"], bool), np.array(r[key])
            jitter = T * (1 + 0.03 * np.linspace(-1, 1, len(v)))
            ax.scatter(jitter[s], v[s], s=8, color="C0", label="success" if T == min(results["and"]) else None)
            ax.scatter(jitter[~s], v[~s], s=8, facecolors="none", edgecolors="C3",
                       label="failure" if T == min(results["and"]) else None)
        ax.set(xscale="log", yscale="log", xlabel="context length $T$", ylabel=label)
        ax.set_xticks(sorted(results["and"]), [str(T) for T in sorted(results["and"])])   # the T run, not 3 x 10^2
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.legend()
    return fig
