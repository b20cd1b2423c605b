"""What the head_lower_bound page shows from the results of `lib.core.sweep.collect(compute.points(P), ...)`: the
Figure 2 statistics, the claim check (`ROWS`), the tables, the numbers its prose quotes, and the figures. Nothing
here computes a stored number, and no computation imports it, so editing it leaves the chapter's stored results
current.

    >>> page.claims(P, results)   # evaluate(ROWS, P, results)
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.head_lower_bound.compute import SETTINGS, lower_bound
from lib.core.claims import Row, Verdict, evaluate
from lib.core.tables import markdown_table
from lib.science import a2
from lib.science.stats import loglog_slope


# ------------------------------------------------------------------------------------------------ Figure 2
def figure2_stats(M: np.ndarray, d: int, d_e: int) -> dict:
    """The A.2 block of W_Q^T W_K (query rows [d+d_e, d+2d_e), key columns [d, d+d_e)) against everything else."""
    A = np.abs(M)
    block = A[d + d_e:d + 2 * d_e, d:d + d_e]
    diag = np.diag(M[d + d_e:d + 2 * d_e, d:d + d_e])
    off = block[~np.eye(d_e, dtype=bool)]
    outside = np.ones_like(A, dtype=bool)
    outside[d + d_e:d + 2 * d_e, d:d + d_e] = False
    rows, cols = np.unravel_index(np.argsort(A, axis=None)[::-1][:d_e], A.shape)   # the d_e largest entries
    on_diag = int(np.sum((rows >= d + d_e) & (rows < d + 2 * d_e) & (rows - (d + d_e) == cols - d)))
    template = a2.weights(1, d, d_e, 1.0)[0].numpy()                         # Eq. A.2 with q = 1, alpha = 1
    return {"diag_mean": float(np.abs(diag).mean()), "off_median": float(np.median(off)),
            "outside_median": float(np.median(A[outside])), "top_on_diag": on_diag,
            "positive": float(np.mean(diag > 0)), "corr": float(np.corrcoef(A.ravel(), template.ravel())[0, 1])}


# ---------------------------------------------------------------------------------------------------- claims
# Figure 2 of the paper, read from its pixels for this book: the reference the page compares to.
PAPER_FIG2 = {"diag_mean": 36.0, "off_median": 5.0, "top_on_diag": "23 of 23", "ratio": "6-7x"}


def _result(results: dict, name: str) -> dict:
    return results[name]["result"]


def _runs(res: dict, H=None):
    rows = zip(res["heads"], res["bound"], res["fvu"], res["fvu_se"], res["svals"])
    return [r for r in rows if H is None or r[0] == H]


def _rank(svals, tol=1e-3) -> int:
    return int(sum(s > tol for s in svals))


def scaling_table(P: dict, results: dict) -> dict:
    """{H: {"N": [...], "samples": (len(N), seeds), "mean": [...]}} for the samples-to-threshold sweep."""
    out = {}
    for H in (1, P["scale_q"]):
        rows = []
        for N in P["scale_N"]:
            r = results["scaling"][N]["result"]
            rows.append([s for h, s in zip(r["heads"], r["samples"]) if h == H])
        arr = np.array(rows, dtype=float)
        out[H] = {"N": list(P["scale_N"]), "samples": arr, "mean": arr.mean(1)}  # NaN where a run is censored
    return out


def _formula(c: dict) -> str:
    return ", ".join(f"{f:.3f}" for f in c["formula"])


def _calc_bayes(P, results):
    c = _result(results, "calculator")
    dev = [abs(b - f) / max(se, 1e-12) if f > 0 else abs(b) for b, f, se in zip(c["bayes"], c["formula"], c["bayes_se"])]
    return Verdict(", ".join(f"{b:.3f}±{s:.3f}" for b, s in zip(c["bayes"], c["bayes_se"])), max(dev) <= 3,
                   paper=_formula(c))


def _calc_mlp(P, results):
    c = _result(results, "calculator")
    return Verdict(", ".join(f"{m:.3f}" for m in c["mlp"]),
                   all(m >= f - 3 * s for m, f, s in zip(c["mlp"], c["formula"], c["mlp_se"])), paper=_formula(c))


def _floor_prop21(P, results):
    q = P["p21_q"]
    below = [(H, b, f, s) for H, b, f, s, _ in _runs(_result(results, "prop21")) if H < q]
    return Verdict(" / ".join(f"H={H}: {f:.3f}±{s:.3f}" for H, _, f, s in below),
                   all(f >= b - 3 * s for _, b, f, s in below),
                   paper=" / ".join(f"{max(0, 1 - H / q):.2f}" for H in range(1, q)), where=f"$d={P['p21_d']}$, $q={q}$")


def _reach_prop21(P, results):
    best_q = min(f for H, _, f, _, _ in _runs(_result(results, "prop21"), P["p21_q"]))
    return Verdict(f"{best_q:.3f}", best_q <= 0.05, paper="0 (Thm 4: $H=q$ suffices)")


def _rank_le_heads(P, results):
    q = P["p21_q"]
    ranks = [(H, _rank(sv)) for H, _, _, _, sv in _runs(_result(results, "prop21"))]
    return Verdict(", ".join(f"H={H}: {r}" for H, r in ranks), all(r <= min(H, q) for H, r in ranks), paper="rank ≤ $H$")


def _rank_full(P, results):
    q = P["p21_q"]
    _, r_best = min((f, _rank(sv)) for H, _, f, _, sv in _runs(_result(results, "prop21"), q))
    return Verdict(str(r_best), r_best == q, paper=str(q))


def _floor_prop3(P, results):
    rows = [(H, b, f, s) for H, b, f, s, _ in _runs(_result(results, "prop3")) if b > 0]
    return Verdict(" / ".join(f"H={H}: {f:.3f}±{s:.3f}" for H, _, f, s in rows) or "-",
                   bool(rows) and all(f >= b - 3 * s for _, b, f, s in rows),
                   paper=" / ".join(f"H={H}: {b:.2f}" for H, b in sorted({(H, b) for H, b, _, _ in rows})) or "vacuous",
                   where=f"$d={P['p3_d']}$, $q={P['p3_q']}$")


def _control(P, results):
    q = P["p21_q"]
    ctl = min(f for H, _, f, _, _ in _runs(_result(results, "control"), 1))
    sq1 = min(f for H, _, f, _, _ in _runs(_result(results, "prop21"), 1))
    return Verdict(f"{ctl:.3f} / {sq1:.3f}", ctl <= 0.05 and _floor_prop21(P, results).passed,
                   paper=f"0 / {1 - 1 / q:.2f}")


def _alpha_log_n(P, results):
    con = _result(results, "construction")
    fit = con["fit"]
    return Verdict(f"slope {fit['slope']:.2f} per ln N, R² = {fit['r2']:.3f}", fit["r2"] >= 0.95 and fit["slope"] > 0,
                   paper=r"$\alpha \propto \log N$ (Lemma 11)", where=f"off-target mass ≤ {P['off_target']}, {P['a2_statistic']} "
                   f"target, $N = {min(con['N'])},\\dots,{max(con['N'])}$")


def _scaling(P, results):
    tab = scaling_table(P, results)
    hq, h1 = tab[P["scale_q"]], tab[1]
    reached = not np.isnan(hq["samples"]).any()
    never = np.isnan(h1["samples"]).all()
    slope = loglog_slope(hq["N"], hq["mean"]) if reached else float("nan")
    return Verdict(f"slope {slope:.2f}; H=1 censored {int(np.isnan(h1['samples']).sum())}/{h1['samples'].size}",
                   reached and never and slope < 1, paper="slope ≈ 0 (polylog $N$, Thm 4)",
                   where=f"$q={P['scale_q']}$, threshold {P['scale_threshold']}")


def _figure2(P, results):
    f2 = _result(results, "figure2")
    return f2, figure2_stats(np.array(f2["M"]), P["fig2_d"], f2["d_e"])


def _fig2_diagonal(P, results):
    _, st = _figure2(P, results)
    return Verdict(f"{st['diag_mean']:.1f} vs {st['off_median']:.2f} "
                   f"({st['diag_mean'] / max(st['off_median'], 1e-12):.1f}×)", st["diag_mean"] >= 3 * st["off_median"],
                   paper=f"{PAPER_FIG2['diag_mean']:.0f} vs {PAPER_FIG2['off_median']:.0f} ({PAPER_FIG2['ratio']})")


def _fig2_outside(P, results):
    _, st = _figure2(P, results)
    return Verdict(f"{st['diag_mean']:.1f} vs {st['outside_median']:.3f}", st["diag_mean"] >= 5 * st["outside_median"],
                   paper="outside ≤ 5 (rendering floor)")


def _fig2_top(P, results):
    f2, st = _figure2(P, results)
    need = math.ceil(20 / 23 * f2["d_e"])     # 20 of the paper's 23, scaled to this run's d_e
    return Verdict(f"{st['top_on_diag']} of {f2['d_e']}", st["top_on_diag"] >= need, paper=PAPER_FIG2["top_on_diag"],
                   where=f"$d_e={f2['d_e']}$", expected=f"≥ {need} of {f2['d_e']} (20 of 23 scaled)")


def _fig2_sign(P, results):
    _, st = _figure2(P, results)
    return Verdict(f"{100 * st['positive']:.0f}% positive", st["positive"] >= 0.9, paper="not visible (absolute values plotted)")


FIG2 = "Figure 2 (paper)"
# The mechanism (calculator, floors, ranks) only a bug can break: checks. What training or random codes could
# refute (a model reaching zero error, the log N fit, the scaling, Figure 2's pattern): claims.
ROWS = [
    Row("calc-bayes", "check", "Prop. 21 (proof, Lemma 40)",
        r"The exact Bayes predictor from $\mathbf A\mathbf x$ has risk $2(q-\operatorname{rank}\mathbf A)/q$ "
        "(Monte Carlo, every rank)",
        "within 3 standard errors", _calc_bayes),
    Row("calc-mlp", "check", "Prop. 21 (proof, Lemma 40)",
        r"A fitted MLP regressor of $y$ from $\mathbf A\mathbf x$ does not beat the Bayes risk",
        r"MSE ≥ $2(q-\operatorname{rank}\mathbf A)/q - 3\,\mathrm{se}$", _calc_mlp),
    Row("5-floor-prop21", "check", "Prop. 21",
        r"Prop. 21, block-diagonal $\mathbf W_{QK}$: no trained model with $H<q$ beats $1-H/q$ on the positions $i\ge N/2$",
        r"FVU ≥ $1-H/q-3\,\mathrm{se}$, every run", _floor_prop21),
    Row("5-reach-prop21", "claim", "Theorem 4", "With $H=q$ heads a trained model gets the same data right",
        "best FVU at $H=q$ ≤ 0.05", _reach_prop21),
    Row("6-rank", "check", "Prop. 21 (proof)",
        r"Attention from a query $i\ge N/2$ onto the $q$ relevant keys has rank ≤ $H$ (its $H$ rows are all the prediction "
        "can see of them)", r"numerical rank ($\sigma > 10^{-3}$) ≤ $\min(H, q)$", _rank_le_heads),
    Row("6-rank-full", "claim", "Prop. 21 (proof)", "The best $H=q$ model uses all $q$ directions", "rank $q$", _rank_full),
    Row("7-floor-prop3", "check", "Prop. 3", r"Prop. 3, unrestricted $\mathbf W_{QK}$: no trained model beats $1-H(q+d)/(qd)$",
        r"FVU ≥ bound $-\,3\,\mathrm{se}$, every run with a non-vacuous bound", _floor_prop3),
    Row("control-one-head", "claim", "hypothesis (this book)",
        "Sparse averaging (a linear link) needs one head: $H=1$ gets it right where the square link is stuck at $1-1/q$",
        r"FVU(mean, $H=1$) ≤ 0.05 and FVU(square, $H=1$) ≥ $1-1/q-3\,\mathrm{se}$", _control),
    Row("11-alpha-logN", "claim", "Lemma 11 (Eq. A.2)",
        r"A.2: the $\alpha$ needed for a fixed off-target mass grows linearly in $\log N$",
        r"linear fit against $\ln N$ with $R^2 \ge 0.95$ and slope > 0", _alpha_log_n),
    Row("4-scaling", "claim", "Theorem 4; Prop. 3",
        "qSTR: $H=q$ reaches the FVU threshold at every $N$ with a sub-linear cost in $N$; $H=1$ never does",
        "every $H=q$ run crosses, slope < 1; every $H=1$ run censored", _scaling),
    Row("fig2-diagonal", "claim", FIG2, "Fig. 2: the A.2 diagonal stands out of its block",
        "diagonal mean ≥ 3 × block off-diagonal median", _fig2_diagonal),
    Row("fig2-outside", "claim", FIG2, "Fig. 2: everything outside the A.2 block is near zero",
        "diagonal mean ≥ 5 × median outside the block", _fig2_outside),
    Row("fig2-top", "claim", FIG2, "Fig. 2: the $d_e$ largest entries lie on the A.2 diagonal",
        r"≥ $\lceil 20 d_e / 23\rceil$ of $d_e$ (20 of 23 scaled)", _fig2_top),
    Row("fig2-sign", "claim", "Eq. A.2", "Fig. 2: the diagonal is positive, as A.2 ($\\alpha > 0$) says",
        "≥ 90% of the diagonal entries > 0", _fig2_sign),
]


def claims(P: dict, results: dict) -> list[dict]:
    """Every row of ROWS, evaluated on this run's results."""
    return evaluate(ROWS, P, results)


# ------------------------------------------------------------------------------------------ tables and notes
def heads_table(results: dict) -> str:
    rows = []
    for setting in SETTINGS:
        r = results[setting]["result"]
        for H, b, f, s, m in zip(r["heads"], r["bound"], r["fvu"], r["fvu_se"], r["mse_all"]):
            rows.append([setting, H, f"{b:.3f}", f"{f:.3f} ± {s:.3f}", f"{m:.3f}"])
    return markdown_table(["setting", "$H$", "floor", "measured (± se)", "average over all positions"], rows)


def h1_best(P: dict, results: dict) -> str:
    """The best unexplained variance the H = 1 runs reached, per N of the scaling sweep ("N: value, ...")."""
    best = []
    for N in P["scale_N"]:
        r = results["scaling"][N]["result"]
        best.append(f"{N}: {min(f for h, f in zip(r['heads'], r['best_fvu']) if h == 1):.2f}")
    return ", ".join(best)


def figure2_numbers(P: dict, results: dict) -> dict:
    """The numbers the Figure 2 paragraph quotes (for Chapter.glue): training, and the A.2 block statistics."""
    f2, st = _figure2(P, results)
    return {"f2_epochs": len(f2["epoch_loss"]), "f2_loss": f2["epoch_loss"][-1], "f2_test": f2["test_mse"],
            "f2_diag": st["diag_mean"], "f2_off": st["off_median"], "f2_outside": st["outside_median"],
            "f2_top": st["top_on_diag"], "f2_de": f2["d_e"], "f2_corr": st["corr"]}


# ----------------------------------------------------------------------------------------------------- plots
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
    from lib.core.plotting import figure

    r = results["prop21"]["result"]
    q = P["p21_q"]
    fig, ax = figure(width=4.8, height=3.4)
    seen = set()
    for H, sv in zip(r["heads"], r["svals"]):
        ax.semilogy(np.arange(1, q + 1), np.maximum(sv, 1e-8), "o-", color=f"C{H - 1}", alpha=0.8,
                    label=f"$H={H}$" if H not in seen else None)
        seen.add(H)
    ax.axhline(1e-3, color="k", ls=":", lw=1)
    ax.set(xlabel="singular value index", ylabel="singular value of $A$ (median over prompts)", xticks=np.arange(1, q + 1),
           ylim=(1e-8, 3))
    ax.legend(fontsize=9)
    return fig


def plot_construction(P: dict, results: dict):
    from lib.core.plotting import figure

    a = results["construction"]["result"]
    fig, axes = figure(ncols=2, width=3.9, height=3.4)
    ax = axes[0, 0]
    alpha = np.array(a["alpha"])
    for i, N in enumerate(a["N"]):
        if i % 2 == 0 or N == a["N"][-1]:
            ax.loglog(alpha, np.maximum(a["mass"][i], 1e-12), label=f"$N={N}$", color=f"C{i % 10}")
    ax.axhline(P["off_target"], color="k", ls=":", lw=1)
    ax.set(xlabel=r"$\alpha$", ylabel=f"off-target attention mass ({P['a2_statistic']} target)", ylim=(1e-8, 1.5))
    ax.legend(fontsize=9)
    ax = axes[0, 1]
    logN = np.log(a["N"])
    ax.plot(logN, a["alpha_star"], "o", color="#66c2a5")
    fit = a["fit"]
    ax.plot(logN, fit["slope"] * logN + fit["intercept"], "k-", lw=1,
            label=rf"${fit['slope']:.2f}\,\ln N + {fit['intercept']:.1f}$, $R^2 = {fit['r2']:.3f}$")
    ax.set(xlabel=r"$\ln N$", ylabel=rf"$\alpha^*$ (off-target mass ≤ {P['off_target']})")
    ax.legend(fontsize=9)
    return fig


def plot_scaling(P: dict, results: dict):
    from matplotlib.ticker import NullFormatter

    from lib.core.plotting import figure

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
        if not np.isnan(s).any():
            ax.plot(N, t["mean"], "-", color=color, label=f"$H={H}$: slope {loglog_slope(N, t['mean']):.2f}")
        else:
            ax.plot([], [], "x", color=color, label=f"$H={H}$: censored at the cap")
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
    M, d, d_e = np.abs(np.array(f2["M"])), P["fig2_d"], f2["d_e"]
    template = a2.weights(1, d, d_e, 1.0)[0].numpy()
    fig, axes = figure(ncols=2, width=4.0, height=3.6)
    for ax, A, title in ((axes[0, 0], M, r"trained $|W_Q^\top W_K|$"), (axes[0, 1], template, "Eq. A.2 template ($q=h=1$)")):
        im = ax.imshow(A, cmap="viridis", norm=PowerNorm(gamma=2, vmin=A.min(), vmax=A.max()) if A is M else None)
        ax.axvline(d - 0.5, color="y", ls="--", lw=1)
        ax.axhline(d + d_e - 0.5, color="r", ls="--", lw=1)
        ax.axvline(d + d_e - 0.5, color="r", ls="--", lw=1)
        ax.set(title=title, xticks=[], yticks=[], xlabel="key features", ylabel="query features")
        ax.grid(False)
        if A is M:
            fig.colorbar(im, ax=ax, shrink=0.8, label="|weight|")
    return fig
