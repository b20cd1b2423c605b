"""What the rnn_norm_growth page shows, read from the points `lib.chapters.rnn_norm_growth.compute.compute` returns: the phase,
norm, packing, A.2 and memoriser tables and fits, the run summary, the claim check and the figures. Nothing here
computes a stored number, so editing it leaves the chapter's stored results current (lib.core.store leaves *_page
modules out of the lib hash).

    >>> page.claims(P, results)
"""
from __future__ import annotations

import math

import numpy as np

from lib.science import a2
from lib.core.claims import Claim
from lib.chapters.rnn_norm_growth.compute import TASKS
from lib.science.stats import log_crossing, loglog_slope
from lib.core.store import result_array

LABELS = {"gru": "bidirectional GRU", "elman": "bidirectional Elman RNN, readout U",
          "1str": "1STR", "simple": "simple-1STR"}

# ============================================================================================== summary
def critical_width(widths, mse, threshold: float) -> float:
    """The width at which the median best test MSE first drops to `threshold` (interpolated in log width), NaN if
    no width gets there."""
    return log_crossing(widths, mse, threshold)


def phase_table(P: dict, results: dict) -> dict:
    """{(arch, task): {"N", "median" (len N, len widths), "reached" (fraction of seeds), "dstar", "slope"}}."""
    out = {}
    Ns = sorted(P["phase_N"])
    for arch in P["archs"]:
        for task in TASKS:
            med, frac = [], []
            for N in Ns:
                rec = results["phase"][(arch, task, N)]
                best = result_array(rec, "best_mse").reshape(len(P["widths"]), P["n_seeds"])
                reached = np.isfinite(result_array(rec, "samples")).reshape(len(P["widths"]), P["n_seeds"])
                med.append(np.median(best, 1))
                frac.append(reached.mean(1))
            dstar = [critical_width(P["widths"], m, P["threshold"]) for m in med]
            out[(arch, task)] = {"N": Ns, "median": np.array(med), "reached": np.array(frac), "dstar": np.array(dstar),
                                 "slope": loglog_slope(Ns, dstar)}
    return out


def norm_table(P: dict, results: dict) -> dict:
    """Elman runs of the widest width that reached the threshold: (L ||U|| r_h)^2 per N and task, and the fit."""
    out = {}
    S = P["n_seeds"]
    for task in TASKS:
        Ns, vals = [], []
        for N in sorted(P["phase_N"]):
            rec = results["phase"][("elman", task, N)]
            v, ok = result_array(rec, "product_sq")[-S:], np.isfinite(result_array(rec, "samples"))[-S:]
            Ns += [N] * int(ok.sum())
            vals += list(v[ok])
        Ns, vals = np.array(Ns, float), np.array(vals, float)
        slope, se = float("nan"), float("nan")
        if len(set(Ns)) >= 2:
            A = np.c_[np.log(Ns), np.ones(len(Ns))]
            coef, resid, *_ = np.linalg.lstsq(A, np.log(vals), rcond=None)
            slope = float(coef[0])
            if len(Ns) > 2:
                s2 = float(np.sum((np.log(vals) - A @ coef) ** 2) / (len(Ns) - 2))
                se = float(math.sqrt(s2 / np.sum((np.log(Ns) - np.log(Ns).mean()) ** 2)))
        out[task] = {"N": Ns, "value": vals, "slope": slope, "se": se}
    return out


def packing_table(P: dict, results: dict) -> dict:
    """Per task: N, participation ratio (mean over the widest runs) and its log-log slope; on 1STR the Phi distances."""
    out = {}
    for task in TASKS:
        Ns = sorted(P["phase_N"])
        recs = [results["phase"][("elman", task, N)] for N in Ns]
        pr = np.array([result_array(r, "pack_pr").mean() for r in recs])
        e = {"N": Ns, "pr": pr, "slope": loglog_slope(Ns, pr),
             "best": np.array([result_array(r, "best_mse")[-P["n_seeds"]:].mean() for r in recs])}
        if task == "1str":
            e |= {k: np.array([result_array(r, f"pack_{k}").mean() for r in recs]) for k in ("dist_median", "g_dist_median", "phi_mse")}
        out[task] = e
    return out


def a2_fit(results: dict) -> dict:
    r = results["a2"]["result"]
    return {"N": np.array(r["N"], float), "alpha": np.array(r["alpha_star"], float), **a2.log_fit(r["N"], r["alpha_star"])}


def memoriser_fit(results: dict) -> dict:
    """The memoriser's ||vec Theta||^2 against n: every draw, the median over draws, its log-log slope and the
    least-squares line log y = slope log n + intercept; the same for the optimally rescaled interpolant."""
    r = results["memoriser"]["result"]
    n = np.array(r["n"], float)
    # each training error against the rounding bound sqrt(K) u R_i of a sum of K = n + D terms of size R_i
    out = {"n": n, "rounding": np.array(r["rounding_ratio"], float) / np.sqrt(n + r["D"])[:, None]}
    for key, name in (("theta_sq", ""), ("norm_sq_balanced", "balanced_")):
        vals = np.array(r[key], float)
        med = np.median(vals, 1)
        slope, icpt = np.polyfit(np.log(n), np.log(med), 1)
        out |= {f"{name}all": vals, f"{name}median": med, f"{name}slope": float(slope), f"{name}intercept": float(icpt)}
    return out


def crossover_table(P: dict, results: dict, fit: dict | None = None) -> dict:
    """Per N, the widest Elman runs on 1STR that reached the threshold: the lower bound of Thm 9's proof on the
    ||vec Theta||^2 of a network that generalises, L_y (L^2 ||U||^2)^(1/L_y) with L_y = 2 in the theorem's
    normalisation r_h = 1 (which moves r_h into U: 2 L ||U||_op r_h), and their measured ||vec Theta||^2; the median
    of each over runs, and n*, the n at which the memoriser's fitted ||vec Theta||^2 reaches it (NaN with no runs);
    the log-log slopes of the bound and of its n* against N. `fit`: memoriser_fit(results), if already computed."""
    fit = fit or memoriser_fit(results)
    n_at = lambda g: float(np.exp((np.log(g) - fit["intercept"]) / fit["slope"])) if np.isfinite(g) else float("nan")
    S = P["n_seeds"]
    out = {k: [] for k in ("N", "runs", "bound", "theta_sq", "n_bound", "n_theta")}
    for N in sorted(P["phase_N"]):
        rec = results["phase"][("elman", "1str", N)]
        ok = np.isfinite(result_array(rec, "samples"))[-S:]
        bound = 2 * np.sqrt(result_array(rec, "product_sq")[-S:][ok])
        theta_sq = result_array(rec, "theta")[-S:][ok] ** 2
        med = lambda v: float(np.median(v)) if len(v) else float("nan")
        out["N"].append(N)
        out["runs"].append(int(ok.sum()))
        out["bound"].append(med(bound))
        out["theta_sq"].append(med(theta_sq))
        out["n_bound"].append(n_at(out["bound"][-1]))
        out["n_theta"].append(n_at(out["theta_sq"][-1]))
    out = {k: np.array(v) for k, v in out.items()}
    return out | {"bound_slope": loglog_slope(out["N"], out["bound"]), "n_bound_slope": loglog_slope(out["N"], out["n_bound"])}


# ================================================================================================ claims
def claims(P: dict, results: dict) -> list[Claim]:
    """Claims 9 and 10 of the reading guide (section 6), every number from this run's points."""
    out = []
    c = results["construction"]["result"]
    Ns, q, eps = c["N"], P["q"], P["eps"]
    mse = np.array(c["mse_simple"], float)
    out.append(Claim("9-exact", f"The hand-built accumulator (d_h = q d = {q * P['d']} per direction) on simple-qSTR, "
                     f"q={q}, N from {min(Ns)} to {max(Ns)}", "MSE < 1e-6 at every N", "Thm 7 / Prop. 26-28: exact construction",
                     f"max MSE {mse.max():.1e} over N = {Ns}; max |x| = {max(c['max_abs_x']):.2f} <= B = {P['gadget_B']}",
                     bool(mse.max() < 1e-6 and max(c["max_abs_x"]) <= P["gadget_B"])))
    plain, rect = np.array(c["err_plain"], float), np.array(c["err_rect"], float)
    slope = loglog_slope(Ns, plain)
    out.append(Claim("9-drift", f"With a per-step bias of norm eps/2 = {eps / 2:g} per token block, the unrectified "
                     "accumulator's state error grows linearly in N", "log-log slope in [0.9, 1.1]",
                     "App. C.1: error O(N eps)", f"slope {slope:.3f}; error {plain[0]:.2g} at N={Ns[0]}, {plain[-1]:.2g} at N={Ns[-1]}",
                     bool(0.9 <= slope <= 1.1)))
    out.append(Claim("9-rectified", "The same bias through the dead-zone rectifier: the state error stays below "
                     "sqrt(q) eps at every N", f"max error <= sqrt(q) eps = {math.sqrt(q) * eps:.3g}",
                     "App. C.2 / Prop. 26: exact zero off target", f"max {rect.max():.3g} (N={Ns[int(np.argmax(rect))]})",
                     bool(rect.max() <= math.sqrt(q) * eps)))
    full = np.array(c["mse_full"], float)
    out.append(Claim("9-fails-qstr", f"The same fixed-width network on qSTR (q={q}, every position its own indices; "
                     "1STR for q = 1) does not retrieve", "MSE >= 0.9 at every N (0 predicts 1)",
                     "Sec. 3.4 of the guide: the state would have to hold all N tokens",
                     f"MSE from {full.min():.2f} to {full.max():.2f}", bool(full.min() >= 0.9)))

    table = phase_table(P, results)
    for arch in P["archs"]:
        e1, es = table[(arch, "1str")], table[(arch, "simple")]
        found = [N for N, v in zip(e1["N"], e1["dstar"]) if np.isfinite(v)]
        fmt = lambda e: ", ".join(f"{v:.1f}" if np.isfinite(v) else "none" for v in e["dstar"])
        out.append(Claim(f"10a-width-1str-{arch}", f"{LABELS[arch]}: the critical width d_h*(N) at which the median best "
                         f"test MSE reaches {P['threshold']} on 1STR grows with N (N = {e1['N']})",
                         "log-log slope in [0.6, 1.2]", "Prop. 8: d_h >~ N / log(1 + L^2 ||U||^2), slope ~1",
                         f"slope {e1['slope']:.2f}; d_h* = {fmt(e1)}", bool(len(found) >= 2 and 0.6 <= e1["slope"] <= 1.2)))
        found_s = [N for N, v in zip(es["N"], es["dstar"]) if np.isfinite(v)]
        out.append(Claim(f"10a-width-simple-{arch}", f"{LABELS[arch]}: the same critical width on simple-1STR stays flat",
                         "log-log slope <= 0.2", "Thm 7: a fixed width suffices", f"slope {es['slope']:.2f}; d_h* = {fmt(es)}"
                         + (" (the smallest width of the grid reaches it: d_h* is at most that)" if np.all(es["dstar"] <= P["widths"][0]) else ""),
                         bool(len(found_s) >= 2 and es["slope"] <= 0.2)))

    if "elman" in P["archs"]:
        nt = norm_table(P, results)["1str"]
        out.append(Claim("10b-norm", f"Elman RNN of width {max(P['widths'])}: (L ||U||_op r_h)^2 of the runs when they reach "
                         f"test MSE {P['threshold']} on 1STR grows with N", "fitted log-log slope > 0",
                         "Prop. 8: (L ||U||)^2 >~ N / log(1 + d_h), slope ~1",
                         f"slope {nt['slope']:.2f}" + (f" ± {nt['se']:.2f} (SE)" if np.isfinite(nt["se"]) else "")
                         + f" over {len(nt['value'])} runs at N = {sorted(set(nt['N'].astype(int).tolist()))}",
                         bool(np.isfinite(nt["slope"]) and nt["slope"] > 0)))
        pk = packing_table(P, results)
        p1, ps = pk["1str"], pk["simple"]
        out.append(Claim("10c-effective-dim", "Participation ratio of the states s_j (widest Elman runs) grows with N on "
                         "1STR, not on simple-1STR", "slope >= 0.5 on 1STR, <= 0.3 on simple-1STR",
                         "Prop. 35: the state is a packing of e^(cN) points; simple-1STR needs one token",
                         f"1STR slope {p1['slope']:.2f} (PR " + ", ".join(f"{v:.1f}" for v in p1["pr"]) + f"); simple slope "
                         f"{ps['slope']:.2f} (PR " + ", ".join(f"{v:.1f}" for v in ps["pr"]) + ")",
                         bool(p1["slope"] >= 0.5 and ps["slope"] <= 0.3)))
        out.append(Claim("10c-separation", "Replayed outputs Phi(s_j) in R^(N-1) of different prompts stay apart at the "
                         "scale of the labels: median ||Phi - Phi'|| / sqrt(2(N-1)) at every N",
                         "in [0.6, 1.2] at every N (labels g: 1)", "Prop. 35, event E1: pairwise >= eps_g sqrt(N-1)",
                         ", ".join(f"N={N}: {v:.2f}" for N, v in zip(p1["N"], p1["dist_median"]))
                         + " (labels: " + ", ".join(f"{v:.2f}" for v in p1["g_dist_median"]) + ")",
                         bool(np.all((p1["dist_median"] >= 0.6) & (p1["dist_median"] <= 1.2)))))
    fit = a2_fit(results)
    out.append(Claim("10b-transformer", f"The Transformer's A.2 attention norm alpha*(N) (median off-target mass "
                     f"{P['off_target']}) grows like log N, N from {int(fit['N'][0])} to {int(fit['N'][-1])}",
                     "R^2 >= 0.95 of alpha* against ln N", "Lemma 11: ||W_QK|| <~ (2 d_e q / d) log(N ...)",
                     f"R^2 = {fit['r2']:.3f}, slope {fit['slope']:.2f} per unit of ln N; alpha* from {fit['alpha'][0]:.1f} "
                     f"to {fit['alpha'][-1]:.1f}", bool(fit["r2"] >= 0.95)))
    return out + memoriser_claims(P, results)


def memoriser_claims(P: dict, results: dict) -> list[Claim]:
    """Theorem 9's memoriser: exact on its training set (up to float64 rounding), useless on fresh prompts, its
    ||vec Theta||^2 growing like n^3, and Lemma 37's random direction. The crossover is a table, not a claim."""
    r = results["memoriser"]["result"]
    fit = memoriser_fit(results)
    n = fit["n"]
    tol = np.sqrt(n + r["D"])[:, None]                         # sqrt(K) u R: the rounding of a sum of K = n + D terms
    fwd = np.array(r["forward_gap"], float) / (2.0 ** -53 * np.array(r["term_scale"], float))
    err, test, zero = (np.array(r[k], float) for k in ("train_err", "test_mse", "zero_mse"))
    worst = np.unravel_index(np.argmax(err), err.shape)
    tries, gap = np.array(r["tries"]), np.array(r["gap"], float)
    first = tries == 1
    where = f"1STR (N = {r['N']}, d = {P['d']}), n = {int(n[0])} to {int(n[-1])}, {P['memo_draws']} draws per n"
    return [
        Claim("thm9-memoriser-exact", "Thm 9's memoriser (Lemmas 36-38 as the Elman readout of width m = n, U = 0, "
              f"recurrence 0), evaluated by BiRNN, on n training prompts of {where}", "every training error <= sqrt(n + D) "
              "u R_i, float64 rounding of its sums (R_i: the size of its terms); test MSE >= 0.9 in every draw",
              "Lemma 36 / proof of Thm 9: zero point-wise training loss; a memoriser does not generalise",
              f"max training error {err.max():.1e} (n = {int(n[worst[0]])}), at most {fit['rounding'].max():.2f} of the "
              f"rounding bound; BiRNN.forward at every position (16 prompts per set) equals forward_at to "
              f"{np.nanmax(fwd / tol):.2f} of it; test MSE median "
              f"{np.median(test):.2f}, min {test.min():.2f} (predicting 0: {np.median(zero):.2f})",
              bool((fit["rounding"] <= 1).all() and (fwd <= tol).all() and test.min() >= 0.9)),
        Claim("thm9-memoriser-slope", "||vec Theta||^2 of the memoriser (median over draws) against n, log-log slope",
              "slope in [2.5, 3.5]: its w, b half is (n + ||b'||^2) ||y|| / (sqrt(n + ||z||^2) eps) ~ n / eps, with "
              "eps ~ n^-2", "Lemma 36: ||vec Theta||^2 = O(n^3)",
              f"slope {fit['slope']:.2f}; median {fit['median'][0]:.3g} (n = {int(n[0])}) to {fit['median'][-1]:.3g} "
              f"(n = {int(n[-1])}); the same interpolant at its norm-minimising rescale: slope {fit['balanced_slope']:.2f}",
              bool(2.5 <= fit["slope"] <= 3.5)),
        Claim("thm9-lemma37", "A uniform random unit v projects the n tokens to scalars at least sqrt(pi) / (3 n^2) "
              "apart with ||z||^2 <= 3n", "in at least 1/3 of the draws", "Lemma 37: probability >= 1/3",
              f"{int(first.sum())} of {first.size} first draws ({first.mean():.2f}); the v used met it in "
              f"{int(np.sum(r['event']))} of {first.size}; median gap x n^2 = {np.median(gap * n[:, None] ** 2):.2f} "
              f"(the lemma's sqrt(pi)/3 = {math.sqrt(math.pi) / 3:.2f})", bool(first.mean() >= 1 / 3)),
    ]


# =============================================================================================== figures
TASK_COLORS = {"1str": "#fc8d62", "simple": "#8da0cb"}


def plot_construction(P: dict, results: dict):
    """Left: MSE of the accumulator on simple-qSTR and qSTR against N. Right: state error of the biased transition,
    unrectified and rectified, with the lines N eps sqrt(q) / 2 and sqrt(q) eps."""
    from lib.core.plotting import figure

    c = results["construction"]["result"]
    N = np.array(c["N"], float)
    fig, axes = figure(2, 1, width=4.6, height=3.6)
    ax = axes[0, 0]
    ax.plot(N, c["mse_simple"], "o-", color=TASK_COLORS["simple"], label=f"simple-qSTR (q={P['q']})")
    ax.plot(N, c["mse_full"], "s-", color=TASK_COLORS["1str"], label=f"qSTR, independent indices (q={P['q']})")
    ax.axhline(1, color="gray", ls=":", lw=0.8, label="predicting 0")
    ax.set(xscale="log", xlabel="N (sequence length)", ylabel="test MSE", ylim=(-0.1, max(2.2, max(c["mse_full"]) + 0.2)),
           title=f"accumulator, d_h = q d = {P['q'] * P['d']} per direction")
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    ax.plot(N, c["err_plain"], "o-", color="#e78ac3", label="unrectified: f = Psi + bias")
    ax.plot(N, c["err_rect"], "s-", color="#66c2a5", label="rectified: dead zone of width bias")
    ax.plot(N, N * P["eps"] * math.sqrt(P["q"]) / 2, "k--", lw=0.8, label="N eps sqrt(q) / 2")
    ax.axhline(math.sqrt(P["q"]) * P["eps"], color="k", ls=":", lw=0.8, label="sqrt(q) eps")
    ax.set(xscale="log", yscale="log", xlabel="N", ylabel="max state error ||h - (x_t1, ..., x_tq)||",
           title=f"per-step bias eps/2 per token block, eps = {P['eps']:g}")
    ax.legend(fontsize=7)
    return fig


def plot_phase(P: dict, results: dict):
    """Per architecture: median best test MSE over (N, width) on 1STR and simple-1STR, and d_h*(N)."""
    from matplotlib.ticker import FuncFormatter

    from lib.core.plotting import figure

    table = phase_table(P, results)
    archs = P["archs"]
    fig, axes = figure(3, len(archs), width=3.5, height=3.1)
    W = np.array(P["widths"], float)
    for a, arch in enumerate(archs):
        for k, task in enumerate(TASKS):
            e, ax = table[(arch, task)], axes[a, k]
            im = ax.imshow(e["median"].T, origin="lower", aspect="auto", cmap="viridis_r", vmin=0, vmax=1)
            for i in range(len(e["N"])):
                for j in range(len(W)):
                    ax.text(i, j, f"{e['median'][i, j]:.2f}", ha="center", va="center", fontsize=6,
                            color="w" if e["median"][i, j] > 0.5 else "k",        # the caption: bold reaches it
                            fontweight="bold" if e["median"][i, j] <= P["threshold"] else "normal")
            ax.set(xticks=range(len(e["N"])), xticklabels=e["N"], yticks=range(len(W)), yticklabels=P["widths"],
                   xlabel="N", ylabel="width d_h", title=f"{arch.upper()} on {LABELS[task]}")
            ax.grid(False)
        fig.colorbar(im, ax=axes[a, 1], label="median best test MSE")
        ax = axes[a, 2]
        for task in TASKS:
            e = table[(arch, task)]
            ok = np.isfinite(e["dstar"])
            ax.plot(np.array(e["N"])[ok], e["dstar"][ok], "o-", color=TASK_COLORS[task],
                    label=f"{LABELS[task]}: slope {e['slope']:.2f}")
        Ns = np.array(table[(arch, "1str")]["N"], float)
        ref = table[(arch, "1str")]["dstar"]
        if np.isfinite(ref[0]):
            ax.plot(Ns, ref[0] * Ns / Ns[0], "k:", lw=0.8, label="slope 1")
        ax.set(xscale="log", yscale="log", xlabel="N", ylabel=f"d_h* (MSE <= {P['threshold']})",
               title=f"{arch.upper()}: critical width")
        plain = FuncFormatter(lambda v, _: f"{v:g}")          # widths read 4, 6, 10, not 4 x 10^0
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
        ax.set_xticks(Ns, [f"{v:.0f}" for v in Ns])
        _no_minor_x(ax)
        ax.legend(fontsize=7)
    return fig


def plot_norm(P: dict, results: dict):
    """Left: (L ||U||_op r_h)^2 of the widest Elman runs at the threshold, against N. Right: alpha*(N) of A.2."""
    from lib.core.plotting import COLORS, figure

    fig, axes = figure(2, 1, width=4.6, height=3.6)
    ax = axes[0, 0]
    for task, e in norm_table(P, results).items():
        if not len(e["N"]):
            continue
        ax.plot(e["N"], e["value"], "o", color=TASK_COLORS[task], alpha=0.7, label=f"{LABELS[task]}: slope {e['slope']:.2f}")
        Ns = np.array(sorted(set(e["N"])))
        ax.plot(Ns, [np.exp(np.log(e["value"][e["N"] == N]).mean()) for N in Ns], "-", color=TASK_COLORS[task])
    ax.set(xscale="log", yscale="log", xlabel="N", ylabel="(L ||U||_op r_h)^2",
           title=f"Elman RNN, d_h = {max(P['widths'])}, at test MSE {P['threshold']}")
    _no_minor_x(ax)
    ax.set_xticks(sorted(P["phase_N"]), [str(n) for n in sorted(P["phase_N"])])
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    fit = a2_fit(results)
    ax.plot(fit["N"], fit["alpha"], "^", color=COLORS["transformer"], label="alpha*(N) = ||W_QK||_op of A.2")
    ax.plot(fit["N"], fit["slope"] * np.log(fit["N"]) + fit["intercept"], "-", color=COLORS["transformer"],
            label=f"{fit['slope']:.2f} ln N + {fit['intercept']:.2f}, R^2 = {fit['r2']:.3f}")
    ax.set(xscale="log", xlabel="N (log scale)", ylabel="alpha*", title=f"Transformer, off-target mass {P['off_target']}")
    ax.legend(fontsize=7)
    return fig


def plot_packing(P: dict, results: dict):
    """Left: participation ratio of the states against N, both tasks. Right: pairwise distances of Phi, 1STR."""
    from lib.core.plotting import figure

    pk = packing_table(P, results)
    fig, axes = figure(2, 1, width=4.6, height=3.6)
    ax = axes[0, 0]
    for task, e in pk.items():
        ax.plot(e["N"], e["pr"], "o-", color=TASK_COLORS[task], label=f"{LABELS[task]}: slope {e['slope']:.2f}")
    Ns = np.array(pk["1str"]["N"], float)
    ax.plot(Ns, pk["1str"]["pr"][0] * Ns / Ns[0], "k:", lw=0.8, label="slope 1")
    ax.set(xscale="log", yscale="log", xlabel="N", ylabel="participation ratio of Cov(s_j)",
           title=f"effective dimension, Elman d_h = {max(P['widths'])}")
    ax.set_xticks(Ns, [f"{v:.0f}" for v in Ns])
    _no_minor_x(ax)
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    e = pk["1str"]
    ax.plot(Ns, e["dist_median"], "o-", color=TASK_COLORS["1str"], label="replayed outputs Phi(s_j)")
    ax.plot(Ns, e["g_dist_median"], "s--", color="gray", label="labels g = (<u, x_k>)_(k != j)")
    ax.plot(Ns, np.sqrt(np.clip(1 - e["phi_mse"], 0, None)), ":", color=TASK_COLORS["1str"], label="sqrt(1 - MSE of Phi)")
    ax.set(xscale="log", xlabel="N", ylabel="median ||Phi - Phi'|| / sqrt(2(N-1))", ylim=(0, 1.3),
           title="pairwise separation on 1STR")
    ax.set_xticks(Ns, [f"{v:.0f}" for v in Ns])
    _no_minor_x(ax)
    ax.legend(fontsize=7)
    return fig


def plot_memoriser(P: dict, results: dict):
    """Left: ||vec Theta||^2 of Thm 9's memoriser against n (every draw, medians, the fitted line). Middle: the same
    line near the crossovers, with the norms of the generalising Elman runs at each N (solid: the proof's lower bound
    2 L ||U|| r_h; dashed: their measured ||vec Theta||^2) and the crossovers n*. Right: Lemma 37, the smallest gap
    of the projected tokens against n, with the lemma's bound."""
    from matplotlib import colormaps
    from matplotlib.ticker import FuncFormatter

    from lib.core.plotting import figure

    r, fit = results["memoriser"]["result"], memoriser_fit(results)
    cx, n = crossover_table(P, results, fit), fit["n"]
    line = lambda x: np.exp(fit["intercept"]) * x ** fit["slope"]
    fig, axes = figure(3, 1, width=3.9, height=3.6)
    ax = axes[0, 0]
    ax.plot(np.repeat(n, fit["all"].shape[1]), fit["all"].ravel(), ".", color="gray", alpha=0.4, ms=4, label="each training set")
    ax.plot(n, fit["median"], "o", color="k", ms=5, label="median")
    ax.plot(n, line(n), "k-", lw=1, label=f"fit: slope {fit['slope']:.2f}")
    ax.set(xscale="log", yscale="log", xlabel="n (training prompts)", ylabel="||vec Theta||^2", title="the memoriser")
    ax.legend(fontsize=7)
    ax = axes[0, 1]
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
                    ax.axhline(cx[key][i], color=colors[i], ls=ls, lw=1, label=f"N={N}" if key == "bound" else None)
                    ax.plot(cx[nkey][i], cx[key][i], mk, color=colors[i], mfc="none", ms=8)
        ax.set(xlim=(lo, hi), ylim=(np.nanmin(levels) / 3, np.nanmax(levels) * 3))
    ax.set(xscale="log", yscale="log", xlabel="n", ylabel="||vec Theta||^2",
           title="crossovers n* (solid: bound, dashed: measured)")
    # a narrow log axis: 3, 4, 6, 10 rather than 3 x 10^0 ..., and no crowded labels at 7, 8, 9
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:e}"[0] in "2346" else ""))
    ax.legend(fontsize=7, loc="upper left")
    ax = axes[0, 2]
    gap = np.array(r["gap"], float)
    ax.plot(np.repeat(n, gap.shape[1]), gap.ravel(), ".", color="gray", alpha=0.5, ms=4, label="each training set")
    ax.plot(n, np.median(gap, 1), "o", color="k", ms=5, label="median")
    ax.plot(n, math.sqrt(math.pi) / (3 * n ** 2), "k--", lw=0.8, label="sqrt(pi) / (3 n^2)")
    ax.set(xscale="log", yscale="log", xlabel="n", ylabel="smallest gap min |z_i - z_k|", title="Lemma 37")
    ax.legend(fontsize=7)
    return fig


def _no_minor_x(ax):
    """No minor ticks on a log x axis whose ticks are the N that were run (a log y axis keeps its labelled minor
    ticks: within a decade they are the only labels)."""
    from matplotlib.ticker import NullLocator

    ax.xaxis.set_minor_locator(NullLocator())
