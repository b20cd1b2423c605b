"""The rpe_decay page's figures, drawn from the stored points through results/'s readers. Page-side: no
computation imports this module, so editing it leaves the chapter's results current.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> plot_error_vs_H(P, results)
    <Figure size ... with ... Axes>
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rpe_decay.compute import main_kernels, window_of
from lib.chapters.rpe_decay.experiments.exact import fitted_kernel
from lib.chapters.rpe_decay.experiments.fit import Kernel, target
from lib.chapters.rpe_decay.experiments.train import FAMILIES
from lib.chapters.rpe_decay.results import errors, fmt, guaranteed_rate, heads_needed, label
from lib.chapters.rpe_decay.results.train import train_table

COLORS = {"lin": "#1b9e77", "log": "#d95f02"}
MARKERS = {"lin": "o", "log": "s"}
L1 = r"$\ell^1$ error"


def _window(S: float) -> str:
    """A window S for a title: 1e12 as 10^12, short windows as integers."""
    return rf"$S = 10^{{{round(np.log10(S))}}}$" if S > 1e4 else f"$S$ = {S:g}"


def _shared_legend(fig, ax, ncol: int, fontsize: float = 9):
    """One legend below the figure for the entries of `ax` (every panel has the same lines)."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=fontsize)


def plot_error_vs_H(P: dict, results: dict):
    """The main figure: l1 error of the best H-head kernel against H, both families, one panel per kernel."""
    from matplotlib.ticker import NullFormatter

    from lib.core.plotting import figure

    ks = main_kernels(P)
    # the sharp kernels shown: the smallest relative bump and the deltas at T = 2 and 4
    rel = [k for k in ks if k.kind == "bump" and k.w != P["bump_width"]][:1]
    ks = [k for k in ks if k.kind in ("power", "exp")] + rel + [k for k in ks if k.kind == "delta" and k.T in (2, 4)]
    ncols = min(3, len(ks))
    nrows = math.ceil(len(ks) / ncols)
    fig, axes = figure(ncols, nrows, width=3.0, height=2.5, squeeze=False, layout="constrained")
    Hs = np.array(sorted(P["H_grid"]), float)      # every main fit runs the whole grid (the relative bumps: and rel_bump_H)
    for ax, k in zip(axes.flat, ks):
        S = window_of(P, k)
        for f in FAMILIES:
            e = errors(results, k, f, S)                # the relative bumps also have rel_bump_H: drawn, not ticked
            ax.plot(sorted(e), [max(e[H]["l1"], 1e-16) for H in sorted(e)], marker=MARKERS[f], color=COLORS[f], ms=4,
                    label=f"{f} heads")
        for n, ls in ((1, "--"), (2, "-.")):       # reference rates from an error of 1 at the smallest H
            ax.plot(Hs, (Hs / Hs[0]) ** (-n), ls, color="0.5", lw=0.8, label=f"reference slope $H^{{-{n}}}$")
        for f in FAMILIES:                          # the guaranteed rate: named in the panel, not in the shared legend
            e, n = errors(results, k, f, S), guaranteed_rate(k, f)
            if n:
                ax.plot(Hs, e[sorted(e)[0]]["l1"] * (Hs / Hs[0]) ** (-n), ":", color=COLORS[f], lw=1.4)
                ax.text(0.04, 0.05, f"dotted: Thm 6.1's rate\nfor {f} heads, $H^{{-{n}}}$", transform=ax.transAxes,
                        ha="left", va="bottom", fontsize=9, color=COLORS[f])
        ax.set(xscale="log", yscale="log", xlabel="heads $H$", ylim=(1e-12, 3))
        ax.set_title(f"{label(k)}, {_window(S)}", fontsize=10)
        # a tick too close to the next on the log axis (24 beside 32) keeps its mark but not its label: the two ran together
        ax.set_xticks(Hs, labels=[f"{h:g}" if i + 1 == len(Hs) or Hs[i + 1] / h > 1.4 else "" for i, h in enumerate(Hs)])
        ax.xaxis.set_minor_formatter(NullFormatter())
    for ax in axes.flat[len(ks):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(L1)
    _shared_legend(fig, axes[0, 0], ncol=4)
    return fig


def plot_fits(P: dict, results: dict, H: int = 8):
    """Target kernels and the best H-head kernels of both families, on log-log axes (|values|)."""
    from lib.core.plotting import figure

    ks = ([k for k in main_kernels(P) if k.kind == "power"][:1] + [k for k in main_kernels(P) if k.kind == "exp"][:1]
          + [k for k in main_kernels(P) if k.kind == "bump" and k.w != P["bump_width"]][:1])

    fig, axes = figure(len(ks), 1, width=3.0, height=3.3, squeeze=False, layout="constrained")
    for ax, k in zip(axes[0], ks):
        S = window_of(P, k)
        s, w, rho = target(k, S)
        ax.plot(s, rho, color="k", lw=2.2, alpha=0.35, label=r"target $\rho$")
        for f in FAMILIES:
            e = errors(results, k, f, S)
            h = max(h for h in e if h <= H) if e else None
            if h is None:
                continue
            kk = fitted_kernel(f, e[h]["p"], e[h]["alpha"], s)
            ax.plot(s, kk if k.kind == "bump" else np.abs(kk), color=COLORS[f], lw=1.2,
                    label=f"{f}, $H$ = {h}: {fmt(e[h]['l1'])}")
        if k.kind == "bump":   # a bump reads better on linear axes
            ax.set(xlabel="distance $s$", ylim=(-0.5 * rho.max(), 1.5 * rho.max()))
            ax.set_title(label(k), fontsize=10)
        else:
            ax.set(xscale="log", yscale="log", xlabel="distance $s$",
                   ylim=(max(rho[rho > 0].min() * 1e-3, 1e-30), 2 * rho.max()))
            ax.set_title(f"{label(k)}, {_window(S)}", fontsize=10)
        # below the panel: the fits' l1 errors are what the legend says, and the panels have no empty corner
        ax.legend(fontsize=8.5, loc="upper center", bbox_to_anchor=(0.5, -0.2), title=f"{L1} of the fit",
                  title_fontsize=8.5)
    axes[0, 0].set_ylabel("kernel (absolute value)")
    return fig


def plot_context(P: dict, results: dict):
    """l1 error against the window S at H = context_H, power-law kernels, both families."""
    from lib.core.plotting import figure

    H0 = P["context_H"]

    fig, axes = figure(len(P["context_betas"]), 1, width=3.6, height=3.0, squeeze=False)
    for ax, b in zip(axes[0], P["context_betas"]):
        Ss = sorted(P["context_windows"])
        for f in FAMILIES:
            for H, ls in ((H0, "-"), (max(P["H_grid"]), ":")):
                y = [errors(results, Kernel("power", beta=float(b)), f, S).get(H, {}).get("l1", np.nan) for S in Ss]
                ax.plot(Ss, y, ls, marker=MARKERS[f], color=COLORS[f], ms=4, label=f"{f}, $H$ = {H}")
        ax.set(xscale="log", yscale="log", xlabel="window $S$ (context length)", title=rf"power law $\beta$ = {b:g}")
        ax.legend(fontsize=8.5)
    axes[0, 0].set_ylabel(f"{L1} of the best kernel")
    return fig


def heatmap_data(P: dict, results: dict):
    """(kernels, eps, M): M[i, j, l] the heads needed for l1 <= eps[i] on kernel j with family l."""
    ks = main_kernels(P)
    eps = list(P["eps_heatmap"])
    M = np.full((len(eps), len(ks), 2), np.nan)
    for i, e in enumerate(eps):
        for j, k in enumerate(ks):
            for l, f in enumerate(FAMILIES):
                M[i, j, l] = heads_needed(errors(results, k, f, window_of(P, k)), e)
    return ks, eps, M


def plot_heatmap(P: dict, results: dict):
    """Heads needed for l1 error <= eps, kernel x RPE family; '>H' where the grid's largest H does not reach it."""
    from lib.core.plotting import figure

    ks, eps, M = heatmap_data(P, results)
    Hmax = max(P["H_grid"])

    fig, axes = figure(len(eps), 1, width=3.1, height=0.36 * len(ks) + 1.2, squeeze=False)
    for ax, e, A in zip(axes[0], eps, M):
        shown = np.where(np.isfinite(A), np.log2(np.where(np.isfinite(A), A, 1)), np.log2(Hmax) + 1)
        ax.imshow(shown, cmap="viridis_r", vmin=0, vmax=np.log2(Hmax) + 1, aspect="auto")
        for (j, l), v in np.ndenumerate(A):
            ax.text(l, j, f"{v:.0f}" if np.isfinite(v) else f">{Hmax}", ha="center", va="center", fontsize=10,
                    color="w" if (not np.isfinite(v) or v > Hmax / 4) else "k")
        ax.set_xticks([0, 1], labels=[f"{f} heads" for f in FAMILIES], fontsize=10)
        ax.set_yticks(range(len(ks)), labels=[label(k) for k in ks] if ax is axes[0, 0] else [""] * len(ks), fontsize=9)
        ax.set_title(rf"heads for {L1} $\leq$ {e:g}", fontsize=10)
        ax.grid(False)
    return fig


def plot_memory(P: dict, results: dict):
    """Left: heads needed for l1 <= eps_memory against the memory distance T (deltas, narrow and relative bumps).
    Right: the bound factors of Thm 4.1, e^(0.01 T) and T^1.01, and their crossover."""
    from lib.core.plotting import figure

    fig, axes = figure(2, 1, width=4.0, height=3.4, squeeze=False, layout="constrained")
    ax = axes[0, 0]
    Hmax = max(P["H_grid"])
    fams = (("delta", "-", lambda T: Kernel("delta", T=T), P["delta_T"]),
            (f"bump $w$ = {P['bump_width']:g}", "--", lambda T: Kernel("bump", T=T, w=float(P["bump_width"])), P["bump_T"]),
            (f"bump $w = T/{1 / P['rel_bump_frac']:g}$", ":", lambda T: Kernel("bump", T=T, w=T * P["rel_bump_frac"]),
             P["rel_bump_T"]))
    for name, ls, mk, Ts in fams:
        for f in FAMILIES:
            y = [heads_needed({H: e for H, e in errors(results, mk(T), f, window_of(P, mk(T))).items() if H <= Hmax},
                              P["eps_memory"]) for T in Ts]
            yy = [v if np.isfinite(v) else 1.5 * Hmax for v in y]
            ax.plot(Ts, yy, ls, marker=MARKERS[f], color=COLORS[f], ms=4, label=f"{name}, {f}")
    ax.axhline(1.5 * Hmax, color="0.6", lw=0.8)
    ax.text(1, 1.4 * Hmax, f"not reached with $H \\leq$ {Hmax}", fontsize=8.5, va="top")
    ax.set(xscale="log", yscale="log", xlabel="memory distance $T$", ylabel=rf"heads for {L1} $\leq$ {P['eps_memory']:g}",
           title="sparse memories")
    ax.legend(fontsize=8.5, loc="upper left", bbox_to_anchor=(0, -0.18), ncol=2)
    ax = axes[0, 1]
    T = np.geomspace(1.0, 3000.0, 400)
    lo, hi = results["exact"]["result"]["crossover"]
    ax.plot(T, np.exp(0.01 * T), color=COLORS["lin"], label="lin: $e^{0.01T}$")
    ax.plot(T, T ** 1.01, color=COLORS["log"], label="log: $T^{1.01}$")
    ax.axvline(hi, color="0.4", ls="--", lw=0.8)
    ax.text(hi * 0.9, 1e8, f"$T$ = {hi:.1f}", fontsize=9, ha="right")
    ax.set(xscale="log", yscale="log", xlabel="memory distance $T$", ylabel="bound factor (to the power $n + 1$)",
           title="Thm 4.1's bound factors")
    ax.legend(fontsize=9)
    return fig


def plot_training(P: dict, results: dict):
    """Trained MSE (exact, from the learned kernel) against H, per kernel, both families, next to the VarPro
    optimum Var(x) E2(H)^2 of the same family and window (dashed)."""
    from matplotlib.ticker import NullFormatter

    from lib.core.plotting import figure, mean_ci

    rows = train_table(results)
    names = sorted({(r["kernel"], r["S"]) for r in rows})

    fig, axes = figure(min(4, len(names)), math.ceil(len(names) / 4), width=2.9, height=2.7, squeeze=False,
                       layout="constrained")
    kernels = {r["kernel"]: r["k"] for r in rows}
    for ax, (name, S) in zip(axes.flat, names):
        for f in FAMILIES:
            sel = [r for r in rows if r["kernel"] == name and r["S"] == S and r["family"] == f]
            Hs = sorted({r["H"] for r in sel})
            ax.scatter([r["H"] * (0.94 if f == "lin" else 1.06) for r in sel], [r["mse"] for r in sel], s=12,
                       marker=MARKERS[f], color=COLORS[f], alpha=0.8)
            mean_ci(ax, Hs, [[r["mse"] for r in sel if r["H"] == H] for H in Hs], color=COLORS[f], estimator="median",
                    marker="", lw=1, label=f"{f} heads, trained (median, 95% CI)")
            ax.plot(Hs, [max(next(r["opt"] for r in sel if r["H"] == H), 1e-14) for H in Hs], "--", color=COLORS[f],
                    lw=1, label=f"{f} heads, optimum")
        ax.set(xscale="log", yscale="log", xlabel="heads $H$", ylim=(5e-15, None))
        ax.set_title(f"{label(kernels[name])}, $S$ = {S}", fontsize=10)
        ax.set_xticks(Hs, labels=[str(h) for h in Hs])
        ax.xaxis.set_minor_formatter(NullFormatter())
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(r"test MSE $= \mathrm{Var}(x)\,\Vert k - \rho\Vert^2$")
    _shared_legend(fig, axes[0, 0], ncol=2)
    return fig
