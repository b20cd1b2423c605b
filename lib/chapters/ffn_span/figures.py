"""The ffn_span page's figures, drawn from the collected points and the tables of results.py. Page-side: no computation
imports this module, so editing it leaves the chapter's results current.

    >>> from lib.chapters import stored; from lib.chapters.ffn_span.results import ffn_table
    >>> P, results = stored("ffn_span"); plot_visibility(P, results, ffn_table(P, results))
    <Figure size ... with ... Axes>
"""
from __future__ import annotations

import numpy as np

from lib.core.store import result_array

LABELS = {"gd": "FFN, full-batch GD + L2", "adamw": "FFN, AdamW (the paper's optimiser)"}


def plot_span(P: dict, results: dict):
    """Off-span energy relative to its start (left) and off-span fraction rho (right) during training, GD and AdamW."""
    from lib.core.plotting import COLORS, figure

    sp = results["span"]["result"]
    steps = np.array(sp["steps"], float)
    fig, axes = figure(2, 1, width=3.9, height=3.3)
    pred = (1 - P["gd_lr"] * P["gd_l2"]) ** (2 * steps)
    for opt in ("gd", "adamw"):
        off, total = np.array(sp[opt]["off"], float), np.array(sp[opt]["total"], float)
        for r in range(off.shape[1]):
            lab = LABELS[opt] if r == 0 else None
            axes[0, 0].plot(steps, off[:, r] / off[0, r], color=COLORS[opt], lw=1.2, label=lab)
            axes[0, 1].plot(steps, off[:, r] / total[:, r], color=COLORS[opt], lw=1.2, label=lab)
    axes[0, 0].plot(steps, pred, "--", color="k", lw=1,
                    label=rf"prediction $(1-\eta\lambda)^{{2t}}$, $\eta\lambda = {P['gd_lr'] * P['gd_l2']:g}$")
    axes[0, 1].axhline(1e-6, color="k", ls=":", lw=0.8, label=r"$\rho = 10^{-6}$")
    axes[0, 0].set(yscale="log", xlabel="GD / AdamW step $t$", ylabel="off-span energy / its value at $t = 0$",
                   title=f"$N={sp['N']}$, $n={sp['n']} < Nd={sp['Nd']}$")
    axes[0, 1].set(yscale="log", xlabel="step $t$", ylabel=r"$\rho = \|W(I - V^\top V)\|_F^2 \,/\, \|W\|_F^2$",
                   title="off-span fraction of the first layer")
    # one legend for both panels, below them (the lines fill the axes)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    h1, l1 = axes[0, 1].get_legend_handles_labels()
    fig.legend(handles + h1[-1:], labels + l1[-1:], loc="outside lower center", ncols=2, fontsize=9)
    return fig


def plot_visibility(P: dict, results: dict, table: dict):
    """nu(n) against n with n/(Nd) (left); the risk of the oracle, the span-restricted least-squares learner and the
    trained FFN against n/(Nd), with 1 - n/(Nd) (right); table: ffn_table(P, results)."""
    import matplotlib.pyplot as plt

    from lib.core.plotting import figure, mean_ci

    fig, axes = figure(2, 1, width=3.9, height=3.6)
    cmap = plt.get_cmap("viridis")
    Ns = sorted(results["visibility"])
    for k, N in enumerate(Ns):     # every mark a mean over draws or runs with its 95% bootstrap interval (seaborn)
        col = cmap(k / max(1, len(Ns) - 1) * 0.85)
        rec = results["visibility"][N]
        n = np.array(rec["result"]["n"], float)
        Nd = N * P["d"]
        axes[0, 0].plot([0, Nd], [0, 1], color=col, lw=0.8)
        mean_ci(axes[0, 0], n, result_array(rec, "nu"), color=col, bars=True, ls="none", ms=5,
                label=f"$N={N}$ ($Nd={Nd}$)")
        mean_ci(axes[0, 1], n / Nd, result_array(rec, "oracle_mse"), color=col, bars=True, ls="none", marker="X", ms=6)
        ffn, readout = results["ffn"][(N, False)], results["readout"][N]
        mean_ci(axes[0, 1], np.array(table[N]["n"], float) / Nd, result_array(ffn, "test_mse"), color=col, bars=True,
                marker="s", ms=4, lw=1)
        mean_ci(axes[0, 1], np.array(readout["result"]["n"], float) / Nd, result_array(readout, "readout_mse"),
                color=col, bars=True, ls="none", marker="D", ms=4, mfc="none", mec=col)
    lo, hi = min(P["n_over_Nd"]) / 1.5, max(max(P["n_over_Nd"]), 1) * 1.5
    x = np.geomspace(lo, 1, 60)
    axes[0, 1].plot(np.r_[x, hi], np.r_[1 - x, 0], "k--", lw=1, label="$1 - n/(Nd)$ (Thm 6)")
    # the colours are the N of the left panel's legend; here one grey entry per kind of point
    axes[0, 1].plot([], [], "s-", color="gray", ms=4, lw=1, label="FFN (GD), mean, 95% CI")
    axes[0, 1].plot([], [], "X", color="gray", label=r"oracle $E[y \mid Vx, t, u]$")
    axes[0, 1].plot([], [], "D", color="gray", ms=3, mfc="none", label="span least squares")
    axes[0, 1].axhline(P["threshold"], color="gray", ls=":", lw=0.8, label="threshold")
    axes[0, 0].set(xlabel="$n$ (training prompts)", ylabel=r"$\nu(n) = E\,\|V P_t u\|^2$", title="visible fraction of the target")
    axes[0, 1].set(xscale="log", xlim=(lo, hi), xlabel="$n / (Nd)$", ylabel="test MSE", title="risk against the Theorem 6 line")
    axes[0, 0].legend(fontsize=9, loc="lower right")
    axes[0, 1].legend(fontsize=9, ncols=2, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig


def plot_rotation(P: dict, results: dict):
    """Test MSE against n for the GD-trained FFN and the AdamW-trained Transformer, plain and rotated prompts."""
    from lib.core.plotting import COLORS, figure, mean_ci

    fig, ax = figure(1, 1, width=6.4, height=4.4)
    N = P["N_rotation"]
    for rot, style in ((False, "-"), (True, "--")):    # means over runs with their 95% bootstrap intervals (seaborn)
        rec = results["ffn"][(N, rot)]
        mean_ci(ax, rec["result"]["n"], result_array(rec, "test_mse"), color=COLORS["ffn"], bars=True, marker="s",
                ls=style, ms=4, lw=1.2, label=f"FFN (GD + L2){', rotated $Qx$' if rot else ''}")
    tr = results["transformer"]["result"]
    n = np.array(tr["n"], float)
    for key, style, lab in (("test_mse", "-", ""), ("test_mse_rotated", "--", ", rotated $Qx$")):
        mse = np.array(tr[key], float)   # (len(n), runs): few runs, so every run is drawn beside the mean's band
        mean_ci(ax, n, mse, color=COLORS["transformer"], marker="^", ls=style, ms=5, lw=1.2,
                label=f"Transformer (AdamW){lab}")
        ax.plot(np.repeat(n, mse.shape[1]), mse.ravel(), "^", color=COLORS["transformer"], ms=3, alpha=0.35)
    Nd = N * P["d"]
    x = np.geomspace(min(n) / 1.2, Nd, 50)
    ax.plot(x, 1 - x / Nd, "k:", lw=1, label="$1 - n/(Nd)$")
    ax.set(xscale="log", xlabel="$n$ (training prompts)", ylabel="test MSE", title=f"rotation test, $N={N}$, $d={P['d']}$")
    handles, labels = ax.get_legend_handles_labels()   # FFN first, then the Transformer, then the line: one column each
    order = sorted(range(len(labels)), key=lambda i: (not labels[i].startswith("FFN"), labels[i].startswith("$"), labels[i]))
    ax.legend([handles[i] for i in order], [labels[i] for i in order], fontsize=9, ncols=3, loc="upper center",
              bbox_to_anchor=(0.5, -0.16))
    return fig


def plot_samples(P: dict, table: dict, ref: dict):
    """Samples to threshold against N: GD-trained FFNs here (from ffn_table), the AdamW FFN of Figure 1(b) (from
    adamw_reference), one panel each. A set of runs none of which reached its threshold, or a reference that is not
    stored, has no panel (the figure's caption and the table beneath it say so); with neither, the GD panel says why."""
    from lib.core.plotting import COLORS, figure

    Ns = np.array(sorted(table), float)
    nstar = np.array([table[int(N)]["nstar"] for N in Ns])
    gd = np.isfinite(nstar).any()
    shown = (["gd"] if gd or not ref["available"] else []) + (["ref"] if ref["available"] else [])
    fig, axes = figure(len(shown), 1, width=3.9, height=4.0, squeeze=False)
    for ax, which in zip(axes[0], shown):
        if which == "gd":
            _fit(ax, Ns, nstar, COLORS["ffn"], "FFN, full-batch GD + L2" if gd else None)   # no points: no legend entry
            if not gd:   # nothing reached, and no reference to show instead: the panel says why
                ax.text(0.5, 0.6, f"no GD-trained FFN reached\ntest MSE < {P['threshold']} at any $N$\n(within the $n$ it "
                        "was given)", ha="center", va="center", transform=ax.transAxes, fontsize=9,
                        bbox={"facecolor": "white", "edgecolor": "0.7", "boxstyle": "round"})
            ax.plot(Ns, (1 - P["threshold"]) * Ns * P["d"], "k--", lw=1, label=f"Thm 6 bound $(1 - {P['threshold']})\\,Nd$")
            ax.set(title=f"GD-trained FFN: test MSE < {P['threshold']}, $d={P['d']}$")
        else:
            Nr = np.array(ref["N"], float)
            _fit(ax, Nr, np.array(ref["mean"], float), COLORS["adamw"], "FFN, online AdamW (Figure 1b)")
            ax.plot(Nr, (1 - ref["threshold"]) * Nr * ref["d"], "k--", lw=1, label=f"$(1 - {ref['threshold']})\\,Nd$")
            ax.set(title=f"Figure 1(b)'s FFN: test MSE < {ref['threshold']}, $d={ref['d']}$")
        ax.set(xlabel="$N$ (sequence length)", ylabel="$n$ (training prompts)")
        ax.title.set_fontsize(10)
        ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig


def _fit(ax, N, n, color, label):
    """Points, their least-squares line on log-log axes and its slope; ticks at the N that were run."""
    ax.set(xscale="log", yscale="log")
    ok = np.isfinite(n)
    ax.plot(N[ok], n[ok], "o", color=color, ms=6, label=label)
    if ok.sum() >= 2:
        b, a = np.polyfit(np.log(N[ok]), np.log(n[ok]), 1)
        grid = np.geomspace(N[ok].min(), N[ok].max(), 20)
        ax.plot(grid, np.exp(a) * grid ** b, "-", color=color, lw=1, label=f"fit: slope {b:.2f}")
    ax.minorticks_off()
    ax.set_xticks(N, [f"{v:.0f}" for v in N])
