"""The head_lower_bound page's figures, drawn from the stored points through results.py's readers. Page-side: no
computation imports this module, so editing it leaves the chapter's results current.

    >>> from lib.chapters import stored; P, results = stored("head_lower_bound")
    >>> plot_heads(P, results)
    <Figure size ... with ... Axes>
"""
from __future__ import annotations

import numpy as np

from lib.chapters.head_lower_bound.compute import SETTINGS, lower_bound
from lib.chapters.head_lower_bound.results import RANK_TOL, REACH, scaling_table
from lib.science import a2
from lib.science.stats import loglog_slope


def plot_calculator(results: dict):
    from lib.core.plotting import figure

    c = results["calculator"]["result"]
    fig, ax = figure(width=4.8, height=3.4)
    r = np.array(c["rank"])
    ax.plot(r, c["formula"], "k-", label=r"$2(q - \mathrm{rank}\,A)/q$")
    ax.errorbar(r - 0.06, c["bayes"], yerr=np.array(c["bayes_se"]) * 2, fmt="o", color="#66c2a5",
                label="Bayes predictor (Monte Carlo)")
    ax.errorbar(r + 0.06, c["mlp"], yerr=np.array(c["mlp_se"]) * 2, fmt="s", color="#8da0cb", label="fitted MLP regressor")
    ax.set(xlabel=r"rank of $A$ (= number of heads $H$)", ylabel="test MSE", xticks=r)
    ax.legend()
    return fig


def plot_heads(P: dict, results: dict):
    from lib.core.plotting import figure

    fig, axes = figure(ncols=2, width=3.9, height=3.5)
    titles = (rf"Prop. 21: $d={P['p21_d']}$, $q={P['p21_q']}$, block-diagonal $W_{{QK}}$",
              rf"Prop. 3: $d={P['p3_d']}$, $q={P['p3_q']}$, unrestricted $W_{{QK}}$")
    for ax, setting, title in zip(axes[0], ("prop21", "prop3"), titles):
        r = results[setting]["result"]
        key = SETTINGS[setting][0]
        q, d = P[f"{key}_q"], P[f"{key}_d"]
        Hs = np.arange(1, q + 2)
        ax.plot(Hs, [lower_bound(setting, H, q, d) for H in Hs], "k-", label="lower bound")
        ax.errorbar(np.array(r["heads"]), r["fvu"], yerr=2 * np.array(r["fvu_se"]), fmt="o", color="#fc8d62",
                    label="trained, square link")
        if setting == "prop21":
            c = results["control"]["result"]
            ax.plot(np.array(c["heads"]) + 0.1, c["fvu"], "^", color="#66c2a5", label="trained, mean link (control)")
        ax.set(xlabel=r"heads $H$", ylabel=r"unexplained variance, positions $i \geq N/2$", xticks=Hs, title=title,
               ylim=(-0.05, 1.05))
        ax.title.set_fontsize(9)
        ax.legend(fontsize=9)
    return fig


def plot_spectra(P: dict, results: dict):
    """Singular values of the attention onto the relevant keys relative to the largest, per trained Prop. 21 model."""
    from lib.core.plotting import figure

    r = results["prop21"]["result"]
    q = P["p21_q"]
    fig, ax = figure(width=4.8, height=3.4)
    seen = set()
    for H, f, sv in zip(r["heads"], r["fvu"], r["svals"]):
        rel = np.asarray(sv, float) / max(sv[0], 1e-300)
        ax.semilogy(np.arange(1, q + 1), np.maximum(rel, 1e-8), "o-" if f <= REACH else "x--", color=f"C{H - 1}",
                    alpha=0.8, label=f"$H={H}$" if H not in seen else None)
        seen.add(H)
    ax.axhline(RANK_TOL, color="k", ls=":", lw=1)
    ax.set(xlabel="singular value index $k$", ylabel=r"$\sigma_k / \sigma_1$ of $A$ (median spectrum over prompts)",
           xticks=np.arange(1, q + 1), ylim=(1e-8, 3))
    ax.legend(fontsize=9)
    return fig


def plot_construction(P: dict, results: dict):
    from lib.core.plotting import figure, mean_ci

    a = results["construction"]["result"]
    fig, axes = figure(ncols=2, width=3.9, height=3.4)
    ax = axes[0, 0]
    alpha = np.array(a["alpha"])
    for i, N in enumerate(a["N"]):
        if i % 2 == 0 or N == a["N"][-1]:
            ax.loglog(alpha, np.maximum(a["mass_worst"][i], 1e-12), label=f"$N={N}$", color=f"C{i % 10}")
            ax.loglog(alpha, np.maximum(a["mass_median"][i], 1e-12), ":", color=f"C{i % 10}")
    ax.axhline(P["off_target"], color="k", ls=":", lw=1)
    ax.set(xlabel=r"$\alpha$", ylabel="off-target attention mass", ylim=(1e-8, 1.5))
    ax.legend(fontsize=9)
    ax = axes[0, 1]
    logN = np.log(a["N"])
    ax.fill_between(logN, a["low"], a["high"], color="0.9", label="bounds under Assumption 3")
    for j in range(len(a["alpha_draws"][0])):
        ax.plot(logN, [d[j] for d in a["alpha_draws"]], ".", color="#66c2a5", alpha=0.6)
    fit = a["compare"]["fits"]["ln N"]
    mean_ci(ax, logN, a["alpha_draws"], color="#66c2a5", bars=True, ls="none", ms=6,
            label=r"$\alpha^*$ (mean over draws, 95% CI)")
    ax.plot(logN, fit["slope"] * logN + fit["intercept"], "k-", lw=1,
            label=rf"${fit['slope']:.2f}\,\ln N + {fit['intercept']:.1f}$")
    ax.set(xlabel=r"$\ln N$", ylabel=rf"$\alpha^*$ (worst off-target mass ≤ {P['off_target']})")
    ax.legend(fontsize=9)
    return fig


def plot_scaling(P: dict, results: dict):
    from matplotlib.ticker import NullFormatter

    from lib.core.plotting import figure, mean_ci

    tab = scaling_table(P, results)
    fig, ax = figure(width=4.8, height=3.4)
    cap = P["scale_max_samples"]
    for H, color in ((P["scale_q"], "#66c2a5"), (1, "#fc8d62")):
        t = tab[H]
        N = np.array(t["N"], float)
        s = t["samples"]
        for j in range(s.shape[1]):
            y = np.where(np.isnan(s[:, j]), cap, s[:, j])
            ax.scatter(N, y, marker="x" if np.isnan(s[:, j]).any() else "o", color=color, s=18, alpha=0.7)
        if not np.isnan(s).any():      # the mean over seeds with its 95% bootstrap interval (seaborn, a band)
            mean_ci(ax, N, s, color=color, marker="", label=f"$H={H}$, qSTR: slope {loglog_slope(N, t['mean']):.2f}")
        else:
            ax.plot([], [], "x", color=color, label=f"$H={H}$, Prop. 21's data: censored at the cap" if H == 1 else
                    f"$H={H}$, qSTR: censored at the cap")
    ax.axhline(cap, color="k", ls=":", lw=1)
    ax.set(xscale="log", yscale="log", xlabel="$N$", ylabel="samples to threshold")
    ax.set_xticks(P["scale_N"], [str(n) for n in P["scale_N"]])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.legend(fontsize=9)
    return fig


def plot_figure2(P: dict, results: dict):
    from matplotlib.colors import PowerNorm

    from lib.core.plotting import figure

    f2 = results["figure2"]["result"]
    M, d, d_e = np.abs(np.array(f2["M"])), P["figure2_d"], f2["d_e"]
    template = a2.weights(1, d, d_e, 1.0)[0].numpy()
    fig, axes = figure(ncols=2, width=4.0, height=3.6)
    for ax, A, title in ((axes[0, 0], M, r"trained $|W_Q^\top W_K|$"), (axes[0, 1], template, "Eq. A.2 template ($q=h=1$)")):
        im = ax.imshow(A, cmap="viridis", norm=PowerNorm(gamma=2, vmin=A.min(), vmax=A.max()) if A is M else None)
        # Plain hex colours: the theme's "y" and "r" are two oranges, and the caption names yellow and red.
        ax.axvline(d - 0.5, color="#ffe119", ls="--", lw=1.2)
        ax.axhline(d + d_e - 0.5, color="#e6194b", ls="--", lw=1.2)
        ax.axvline(d + d_e - 0.5, color="#e6194b", ls="--", lw=1.2)
        ax.set(title=title, xticks=[], yticks=[], xlabel="key features", ylabel="query features")
        ax.grid(False)
        if A is M:
            fig.colorbar(im, ax=ax, shrink=0.8, label="|weight|")
    return fig
