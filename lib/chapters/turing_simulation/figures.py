"""The turing_simulation page's figures, drawn from the stored points through results.py. Page-side: no
computation imports this module, so editing it leaves the chapter's results current.

    >>> from lib.chapters import stored; P, results = stored("turing_simulation")   # the committed paper results
    >>> plot_robust(P, results)
    <Figure size ... with ... Axes>
"""
from __future__ import annotations

import numpy as np

from lib.chapters.turing_simulation.experiments.margins import rho_product_formula
from lib.chapters.turing_simulation.results import bound, robust_arrays, size_rows, softmax_arrays

GROUP_COLORS = {"st": "#66c2a5", "sym1": "#fc8d62", "sym2": "#8da0cb", "pos1": "#e78ac3", "pos2": "#a6d854",
                "pos3": "#ffd92f", "scr1": "#e5c494", "scr2": "#b3b3b3", "scr3": "#1b9e77", "f1": "#d95f02",
                "f2": "#7570b3", "tmp": "#e7298a", "dir": "#66a61e"}
LEGEND = 8.5           # legend font size: the figures are shown about 700 px wide


def _plain_log_y(ax):
    """Tick labels 0.3, 0.4 on a log y axis of less than a decade, not 3 x 10^-1."""
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:e}"[0] in "2346" else ""))


def layer_names(P_bits: int) -> list[str]:
    return (["input", "1 transition", "2 adder", "3 exists + input"] + [f"{4 + j} search bit {j + 1}" for j in range(P_bits)]
            + [f"{P_bits + 4} fetch + select"])


def plot_anatomy(P: dict, results: dict):
    from matplotlib.patches import Rectangle

    from lib.core.plotting import figure

    an = results["anatomy"]["result"]
    L = np.array(an["layers"])
    fig, ax = figure(width=9.0, height=0.34 * L.shape[0] + 2.0)
    ax.imshow(L, cmap="Greys", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    ax.grid(False)
    for f, (a, b) in an["fields"].items():
        ax.add_patch(Rectangle((a - 0.5, -2.6), b - a, 1.9, color=GROUP_COLORS[f], clip_on=False))
        # a field one or two coordinates wide gets its name upright, so that neighbours do not overlap
        ax.text((a + b - 1) / 2, -1.65, f, ha="center", va="center", fontsize=9, rotation=90 if b - a < 3 else 0)
        ax.axvline(a - 0.5, color=GROUP_COLORS[f], lw=0.8)
    ax.set_ylim(L.shape[0] - 0.5, -2.7)
    ax.set_yticks(range(L.shape[0]), layer_names(an["P"]), fontsize=9)
    ax.set_xticks([])
    i, ip = an["step"], an["last"][an["step"]]
    ax.set_xlabel(f"residual-stream coordinate (width {L.shape[1]}); black = 1")
    ax.set_title(f"{an['machine']}, $T$ = {an['T']}: the stream at step $i$ = {i}, layer by layer (last write to the new "
                 f"head cell: step {ip})", fontsize=10)
    return fig


def plot_spacetime(P: dict, results: dict):
    from lib.core.plotting import figure

    an = results["anatomy"]["result"]
    fig, axes = figure(3, width=3.1, height=4.2)
    axes = axes.ravel()
    T = an["T"]
    for ax, key, title in ((axes[0], "interp", "interpreter"), (axes[1], "tf", "transformer (decoded)")):
        tape = np.array(an[f"tape_{key}"])
        ax.imshow(tape, cmap="Blues", aspect="auto", interpolation="nearest", vmin=0,
                  extent=(an["lo"] - 0.5, an["hi"] + 0.5, T + 0.5, -0.5))
        ax.plot(np.array(an[f"head_{key}"]), np.arange(T + 1), color="#fc8d62", lw=0.8)
        ax.set_title(f"tape and head:\n{title}", fontsize=10)
        ax.set(xlabel="cell", ylabel="step $i$")
        ax.grid(False)
    att = np.array(an["attn"])                                # (T+1, T+2): column 0 is the null key
    axes[2].imshow(att[:, 1:], cmap="Greys", aspect="auto", interpolation="nearest", vmin=0, vmax=1)
    last = np.array(an["last"])
    i = np.arange(T + 1)
    axes[2].scatter(last[last >= 0], i[last >= 0], s=6, facecolors="none", edgecolors="#e7298a", lw=0.6,
                    label="interpreter's last write $i'$")
    axes[2].set_title("fetch-layer attention\n(query $i$, key $t$)", fontsize=10)
    axes[2].set(xlabel="key step $t$", ylabel="query step $i$")
    axes[2].grid(False)
    axes[2].legend(loc="lower left", fontsize=LEGEND, markerscale=2)
    return fig


def theory_forms(k, A, Pb):
    """The theorem's forms: alpha ~ k|A| + log T (k + |A| + log T), p ~ log T (k|A| + log T)^2."""
    Pb = np.asarray(Pb, float)
    return k * A + Pb * (k + A + Pb), Pb * (k * A + Pb) ** 2


def plot_sizes(P: dict, results: dict):
    from lib.core.plotting import figure

    sr = size_rows(results)
    k, A = results["sizes"]["result"]["k"], results["sizes"]["result"]["A"]
    T = np.array([r["T"] for r in sr], float)
    Pb = np.array([r["P"] for r in sr], float)
    fig, axes = figure(2, width=4.4, height=3.8)
    axes = axes.ravel()
    ax = axes[0]
    ax.plot(np.log2(T), [r["d"] for r in sr], "o-", label="depth $d$ (= $P$ + 4)")
    ax.plot(np.log2(T), [r["w"] for r in sr], "s-", label="width $w$")
    ax.plot(np.log2(T), [r["H"] for r in sr], "^-", label="FF hidden width")
    ax.set(xlabel="$\\log_2 T$", title="architecture")
    ax.legend(fontsize=LEGEND)
    ax = axes[1]
    alpha_f, p_f = theory_forms(k + 1, A, Pb)
    p = np.array([r["p"] for r in sr], float)
    l1 = np.array([r["l1"] for r in sr], float)
    for y, form, lab, c in ((p, p_f, "parameters $p$", "#8da0cb"), (l1, alpha_f, r"$\Vert\theta\Vert_1$", "#66c2a5")):
        ax.plot(T, y, "o-", color=c, label=lab)
        scale = np.exp(np.mean(np.log(y) - np.log(form)))
        ax.plot(T, scale * form, "--", color=c, lw=1, label=f"theorem's form × {scale:.2g}")
    ax.plot(T, [r["linf"] for r in sr], "^-", color="#e78ac3", label=r"$\Vert\theta\Vert_\infty$")
    vc = np.array([r["w"] for r in sr], float) * T
    ax.plot(T, vc * p[0] / vc[0], ":", color="k", label="VC proxy $wT$ (scaled to $p$ at the smallest $T$)")
    ax.set_xscale("log", base=2)
    ax.set(yscale="log", xlabel="$T$", title="size and norms")
    # six entries: below the panel, where they cover no line
    ax.legend(fontsize=LEGEND, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    return fig


def plot_robust(P: dict, results: dict):
    from lib.core.plotting import figure, mean_ci

    fig, axes = figure(2, width=4.4, height=3.6)
    axes = axes.ravel()
    for corr, c, lab in ((True, "#66c2a5", "with correction"), (False, "#fc8d62", "without correction")):
        a = robust_arrays(results, corr)
        axes[0].plot(a["T"], np.clip(a["t"], 1e-17, None), "o-", color=c, label=lab)
        r = np.clip(a["r"], 1e-17, None)
        for j in range(r.shape[1]):
            axes[1].plot(a["T"], r[:, j], "-", color=c, alpha=0.35, lw=0.7)
        if np.isfinite(r).all():   # a direction nothing corrupts (inf) has no place in a median's resamples
            mean_ci(axes[1], a["T"], r, color=c, estimator="median", ms=4, lw=1.4,
                    label=f"{lab}: median, 95% CI")
    axes[0].axhline(1 / 3, color="k", ls=":", lw=1, label="1/3")
    for ax, t in ((axes[0], "structured: transition output × $(1 - t)$"),
                  (axes[1], r"random unit directions: $\Vert\delta\Vert_2$")):
        ax.set_xscale("log", base=2)
        ax.set(yscale="log", xlabel="$T$")
        ax.set_title(t, fontsize=10)
        ax.legend(fontsize=LEGEND)
    axes[0].set_ylabel("smallest perturbation that corrupts the trace")
    return fig


def plot_softmax_precision(P: dict, results: dict):
    from lib.core.plotting import figure

    fig, axes = figure(2, width=4.4, height=3.6)
    axes = axes.ravel()
    ax = axes[0]
    for corr, c, lab in ((True, "#66c2a5", "with correction"), (False, "#fc8d62", "without correction")):
        T, b = softmax_arrays(results, corr)
        ax.plot(T[np.isfinite(b)], b[np.isfinite(b)], "o-", color=c, label=lab)
        if (~np.isfinite(b)).any():
            ax.plot(T[~np.isfinite(b)], np.full((~np.isfinite(b)).sum(), P["beta_max"]), "x", color=c, ms=8,
                    label=rf"none $\leq$ {P['beta_max']:g}")
    Tg = np.array(sorted({k[0] for k in results["softmax"]}), float)
    ax.plot(Tg, np.log(3 * (Tg + 1)), "k:", label=r"$\ln(3(T+1))$")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="$T$", ylabel=r"smallest exact inverse temperature $\beta^*$")
    ax.set_title("softmax instead of hard-max", fontsize=10)
    ax.legend(fontsize=LEGEND)
    ax = axes[1]
    pr = results["precision"]["result"]["collisions"]
    for dt, ls in (("float16", "-"), ("bfloat16", "--")):
        rows = pr[dt]
        T = np.array([r["T"] for r in rows], float)
        ax.plot(T, [r["i/T"] / r["T"] for r in rows], "o" + ls, color="#8da0cb", label=f"$i/T$, {dt}")
        ax.plot(T, [r["1/i"] / r["T"] for r in rows], "s" + ls, color="#fc8d62", label=f"$1/i$, {dt}")
    ax.axhline(1, color="#66c2a5", lw=2, label=r"$\mathrm{Bin}(i)$, any dtype")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="$T$", ylabel="distinct codes / $T$")
    ax.set_title("scalar position codes in low precision", fontsize=10)
    ax.legend(fontsize=LEGEND)
    return fig


def plot_bound(P: dict, results: dict):
    from lib.core.plotting import figure

    b = bound(results)
    fig, ax = figure(width=5.2, height=3.6)
    x = np.log2(b["T"])
    ax.plot(x, b["n_hat"], "o-", color="#66c2a5", label=r"$\hat n = \alpha^2 \log p\,/\,\hat\gamma^2$")
    ax.plot(x, b["vc"] * b["n_hat"][0] / b["vc"][0], "s--", color="#fc8d62", label="VC proxy $wT$ (scaled)")
    ax.set(yscale="log", xlabel="$\\log_2 T$", ylabel=r"bound value (no $\epsilon$)")
    ax.legend(fontsize=9)
    return fig


def plot_toy(P: dict, results: dict):
    from lib.core.plotting import figure

    t = results["toy"]["result"]
    ds = np.array(t["depths"], float)
    fig, ax = figure(width=5.0, height=3.6)
    dd = np.arange(1, int(ds.max()) + 1)
    ax.plot(dd, rho_product_formula(dd), color="#fc8d62", label=r"$\sqrt{d}\,(1 - 2^{-1/d})$")
    ax.plot(ds, t["numeric"], "o", color="#fc8d62", mfc="none", label="no rounding: SLSQP")
    ax.plot(ds, t["rounded"], "s-", color="#66c2a5", label="with rounding: dynamic programme")
    ax.axhline(1 / 3, color="k", ls=":", lw=1, label="1/3")
    ax.set_xscale("log", base=2)
    ax.set(yscale="log", xlabel="depth $d$", ylabel=r"all-layer margin $\rho$")
    _plain_log_y(ax)
    ax.legend(fontsize=9)
    return fig
