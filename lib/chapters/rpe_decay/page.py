"""What the rpe_decay page shows from the stored points: readers of the stored fits (`errors`, `heads_needed`,
`train_table`), the claim rows (checks 1-14 of the reading guide) and the tables and summaries of the page text;
the figures are in figures.py beside it. It reads results and computes no stored number, so editing it leaves the
chapter's results current (compute.py holds the computation).

    >>> results = collect(compute.points(P), Store("rpe_decay", "quick"), "cpu"); page.claims(P, results)
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rpe_decay import compute
from lib.chapters.rpe_decay.compute import FAMILIES, Kernel, kernel_name, main_kernels, window_of
from lib.chapters.rpe_decay.exact import TABLE1
from lib.core.claims import Row, Verdict, evaluate
from lib.core.tables import markdown_table
from lib.science.stats import loglog_slope


# --------------------------------------------------------------------------------------- reading results
def point_counts(results: dict) -> str:
    """What the stored points are, for the page's summary line."""
    n_H = sum(len(r["result"]["H"]) for r in results["fit"].values())
    return (f"They are the exact checks, {len(results['fit'])} kernel fits ({n_H} values of H, each from its own "
            f"starts) and {len(results['train'])} training sweeps.")


def errors(results: dict, k: Kernel, family: str, S: float, H_list=None) -> dict[int, dict]:
    """{H: {"l1", "l2", "p", "alpha"}} of one fit point, or {} if it is not in the results."""
    for (name, f, S_, Hs), rec in results["fit"].items():
        if name == kernel_name(k) and f == family and S_ == float(S) and (H_list is None or list(Hs) == list(H_list)):
            r = rec["result"]
            return {H: {"l1": r["l1"][i], "l2": r["l2"][i], "p": r["p"][i], "alpha": r["alpha"][i]}
                    for i, H in enumerate(r["H"])}
    return {}


def heads_needed(errs: dict[int, dict], eps: float, key: str = "l1") -> float:
    """Smallest H of the grid whose error is <= eps; inf if none."""
    ok = [H for H, e in sorted(errs.items()) if e[key] is not None and e[key] <= eps]
    return float(ok[0]) if ok else math.inf


def guaranteed_rate(k: Kernel, family: str) -> int:
    """The rate n that Thm 6.1 guarantees (0: none): log heads on power laws n <= floor(0.99 beta) - 1, lin heads
    on exponentially decaying kernels n <= floor(99 beta) with beta = 1/tau."""
    if k.kind == "power" and family == "log":
        return max(0, math.floor(0.99 * k.beta) - 1)
    if k.kind == "exp" and family == "lin":
        return max(0, math.floor(99 / k.tau))
    return 0


def train_table(results: dict) -> list[dict]:
    """One row per training run: kernel, S, family, H, seed, exact MSE, l1, and the VarPro optimum Var(x) E2^2."""
    rows = []
    for (name, S), rec in results["train"].items():
        r, k = rec["result"], Kernel(**rec["spec"]["kernel"])
        optima = {f: errors(results, k, f, float(S), rec["spec"]["H"]) for f in FAMILIES}   # once per sweep, not per run
        for i, (f, H, seed) in enumerate(r["runs"]):
            opt = optima[f].get(H, {})
            rows.append({"kernel": name, "k": k, "S": S, "family": f, "H": H, "seed": seed, "mse": r["mse_exact"][i],
                         "test_mse": r["test_mse"][i], "l1": r["l1"][i], "p": r["p"][i],
                         "opt": compute.VAR_X * opt["l2"] ** 2 if opt.get("l2") is not None else math.nan,
                         "opt_p": opt.get("p"), "opt_alpha": opt.get("alpha")})
    return rows


TRAIN_FLOOR = 1e-7   # optima below this are invisible to float32 training: claim 14b and the gap line skip them


def furthest_from_floor(rows: list[dict]) -> dict | None:
    """The training run with the largest MSE / optimum among those whose optimum is at least TRAIN_FLOOR."""
    return max((r for r in rows if r["opt"] >= TRAIN_FLOOR), key=lambda r: r["mse"] / r["opt"], default=None)


def label(k: Kernel) -> str:
    """A kernel's name for the page's text, tables and figures, in MyST (and matplotlib) math."""
    return {"power": lambda: rf"power law $\beta$ = {k.beta:g}", "exp": lambda: rf"exp. cutoff $\tau$ = {k.tau:g}",
            "bump": lambda: f"bump $T$ = {k.T}, $w$ = {k.w:g}", "delta": lambda: f"delta $T$ = {k.T}"}[k.kind]()


def fmt(x: float) -> str:
    return "inf" if x is None or not np.isfinite(x) else f"{x:.1e}"


# ------------------------------------------------------------------------------------------------ claims
def _at(errs: dict, H: int) -> tuple[int, float]:
    """(H', error) at the largest grid H' <= H (the quick profile stops at 16)."""
    Hs = [h for h in errs if h <= H]
    if not Hs:
        return H, math.nan
    h = max(Hs)
    return h, errs[h]["l1"]


# Checks 1-14 of the reading guide (section 8). 1-6 are exact; 7-12 compare this run's fits with the guide's
# acceptance rules (calibrated on independent fits, about 10x margins); 13 guards the fitter; 14 is a hypothesis
# about training. Each measure takes (P, results); a row is left out when the page's parameters do not contain
# its kernel.
def _t5(P, results):
    ex = results["exact"]["result"]
    return Verdict(f"{' '.join(map(str, ex['t5']))}; 15 from $n$ = {ex['t5_saturation']}",
                   ex["t5"] == TABLE1 and ex["t5_saturation"] == 91, paper="Table 1: " + " ".join(map(str, TABLE1)))


def _allocation(P, results):
    alloc = results["exact"]["result"]["allocation"]
    rel = max(a["rel"] for a in alloc)
    return Verdict(f"max relative error {rel:.1e}", bool(rel < 1e-6), paper="proof of Thm 4.1",
                   where=f"{len(alloc)} random cases")


def _crossover(P, results):
    ex = results["exact"]["result"]
    (lo, hi), (Tlo, Thi) = ex["crossover"], ex["lin_smaller_T"]
    return Verdict(f"$T$ = {lo:.4f} and {hi:.2f}; lin smaller for {Tlo} ≤ $T$ ≤ {Thi}",
                   bool(abs(lo - 1.0101) < 1e-4 and abs(hi - 654.94) < 5e-3 and (Tlo, Thi) == (2, 654)),
                   paper="none (derived here from Thm 4.1's bound factors)")


def _prop_b1(P, results):
    ex = results["exact"]["result"]
    return Verdict(f"max {ex['b1_log_ratio']:.4f} and {ex['b1_lin']:.4f}",
                   bool(ex["b1_log_ratio"] <= 1 + 1e-12 and ex["b1_lin"] <= 0.5 + 1e-12), paper="Prop. B.1")


def _prop_52b(P, results):
    lp = results["exact"]["result"]["lp"]
    return Verdict(f"LP {lp['lp_opt']:.4f}; $\\ell^2$-optimal ({', '.join(f'{v:.3f}' for v in lp['l2_v'])}), "
                   f"sup {lp['l2_sup']:.4f}",
                   bool(abs(lp["lp_opt"] - 1) < 1e-9 and abs(lp["l2_sup"] - 4 / 3) < 1e-9
                        and np.allclose(lp["l2_v"], [0.5, 1 / 3, 1 / 3, -1 / 3])), paper="Prop. 5.2(B): ≥ 2/3")


def _folding(P, results):
    fo = results["exact"]["result"]["folding"]
    return Verdict(f"lin {fo['lin']:.1e}, log {fo['log']:.1e}", bool(max(fo["lin"], fo["log"]) <= 1e-12),
                   paper="proofs of Thms 4.1, 6.1")


def _power(results, P, beta, family, S=None):
    return errors(results, Kernel("power", beta=beta), family, float(P["window"]) if S is None else S)


def _heavy_tail(P, results):
    lin, log = _power(results, P, 1.2, "lin"), _power(results, P, 1.2, "log")
    if not (lin and log and 8 in lin and 8 in log):
        return None
    return lin[8]["l1"], log[8]["l1"]


def _heavy_tail_log(P, results):
    e = _heavy_tail(P, results)
    return e and Verdict(f"$E_{{\\log}}(8)$ {fmt(e[1])}", bool(e[1] <= 1e-4), paper="Thm 6.1(B): log heads, $O(H^{-n})$",
                         where=f"window $S$ = {float(P['window']):.0e}")


def _heavy_tail_lin(P, results):
    e = _heavy_tail(P, results)
    return e and Verdict(f"best $E_{{\\rm lin}}(8)$ found {fmt(e[0])}, {e[0] / max(e[1], 1e-300):.0f}× $E_{{\\log}}(8)$",
                         bool(e[0] >= 1e-2 and e[0] >= 100 * e[1]), paper="none: the paper proves upper bounds only",
                         where=f"window $S$ = {float(P['window']):.0e}")


def _context_errors(P, results):
    if 1.2 not in P["context_betas"]:
        return None
    H0, Ss = P["context_H"], sorted(P["context_windows"])
    El = [_power(results, P, 1.2, "lin", S).get(H0, {}).get("l1", math.nan) for S in Ss]
    Eg = [_power(results, P, 1.2, "log", S).get(H0, {}).get("l1", math.nan) for S in Ss]
    return H0, Ss, El, Eg


def _context_log(P, results):
    c = _context_errors(P, results)
    if c is None:
        return None
    H0, Ss, _, Eg = c
    return Verdict(r"$E_{\log}$ " + ", ".join(map(fmt, Eg)), bool(max(Eg) <= 1e-5),
                   paper="Thm 6.1(B): the log rate does not depend on $S$",
                   where=f"$H$ = {H0}, $S$ = " + ", ".join(f"{S:g}" for S in Ss))


def _context_lin(P, results):
    c = _context_errors(P, results)
    if c is None or not {512.0, 1e6} <= set(c[1]):
        return None
    H0, Ss, El, _ = c
    mono = all(b > a for a, b in zip(El, El[1:]))
    growth = El[Ss.index(1e6)] / El[Ss.index(512.0)]
    return Verdict(r"best $E_{\rm lin}$ found " + ", ".join(map(fmt, El)) + f" (×{growth:.0f} from 512 to 1e6)",
                   bool(mono and growth >= 100), paper="none: the paper proves upper bounds only",
                   where=f"$H$ = {H0}, $S$ = " + ", ".join(f"{S:g}" for S in Ss))


def _exp(results, P):
    return [errors(results, Kernel("exp", tau=10.0), f, float(P["window"])) for f in FAMILIES]


def _exp_kernel_lin(P, results):
    ex_lin, _ = _exp(results, P)
    if not (8 in ex_lin and 16 in ex_lin):       # the rule is stated at H = 8 and 16: no other H stands in
        return None
    l8, l16 = ex_lin[8]["l1"], ex_lin[16]["l1"]
    return Verdict(f"$E_{{\\rm lin}}(8)$ {fmt(l8)}, $E_{{\\rm lin}}(16)$ {fmt(l16)}", bool(l8 <= 1e-4 and l16 <= 1e-5),
                   paper=r"Thm 6.1(A): lin, $O(H^{-n})$, $n \le 9$")


def _exp_kernel_log(P, results):
    ex_lin, ex_log = _exp(results, P)
    if not (16 in ex_lin and 16 in ex_log):
        return None
    l16, g16 = ex_lin[16]["l1"], ex_log[16]["l1"]
    return Verdict(f"best $E_{{\\log}}(16)$ found {fmt(g16)}, ×{g16 / max(l16, 1e-300):.0e} $E_{{\\rm lin}}(16)$",
                   bool(g16 >= 100 * l16), paper="none: the paper proves upper bounds only")


def _slope_power(P, results):
    b3 = _power(results, P, 3.0, "log")
    if not b3:
        return None
    Hs = [H for H in sorted(b3) if H <= 8]
    slope = -loglog_slope(Hs, [b3[H]["l1"] for H in Hs])
    return Verdict(f"slope {slope:.2f}", bool(slope >= 1), paper=r"Thm 6.1(B): $n \le \lfloor 0.99\beta\rfloor - 1 = 1$",
                   where=f"$H$ in {Hs}")


def _slope_exp(P, results):
    ex_lin = _exp(results, P)[0]
    if not (ex_lin and 2 in ex_lin and 16 in ex_lin):
        return None
    drop = ex_lin[2]["l1"] / ex_lin[16]["l1"]
    return Verdict(f"{fmt(ex_lin[2]['l1'])} → {fmt(ex_lin[16]['l1'])} (×{drop:.0e})", bool(drop >= 1e3),
                   paper=r"Thm 6.1(A): $O(H^{-n})$, $n \le 9$")


def _relative_bump(P, results):
    H = P["rel_bump_H"]
    rb = {T: [errors(results, Kernel("bump", T=T, w=T * P["rel_bump_frac"]), f, window_of(P, Kernel("bump", T=T)))
              for f in FAMILIES] for T in P["rel_bump_T"]}
    if len(rb) < 2 or not all(H in el and H in eg for el, eg in rb.values()):   # stated at H = rel_bump_H only
        return None
    lins, logs = [el[H]["l1"] for el, _ in rb.values()], [eg[H]["l1"] for _, eg in rb.values()]
    spread = max(lins) / min(lins)
    return Verdict(r"$E_{\rm lin}$ " + ", ".join(map(fmt, lins)) + f" (spread {spread:.2f}×); best " + r"$E_{\log}$ found "
                   + ", ".join(map(fmt, logs)),
                   bool(max(lins) <= 5e-2 and spread < 2 and all(g > l for g, l in zip(logs, lins))),
                   paper="none; the guide's calibration fits: lin about 2e-2 at every $T$, log 0.19–0.64",
                   where=f"width $T$/{1 / P['rel_bump_frac']:g}, $T$ in {P['rel_bump_T']}, $H$ = {H}")


def _deltas(P, results):
    return {T: {f: errors(results, Kernel("delta", T=T), f, window_of(P, Kernel("delta", T=T))) for f in FAMILIES}
            for T in P["delta_T"]}


def _sharp_memory_near(P, results):
    d = _deltas(P, results)
    if 2 not in d or 4 not in d[2]["lin"] or 2 not in d[2]["log"]:
        return None
    l4, g2 = d[2]["lin"][4]["l1"], d[2]["log"][2]["l1"]
    return Verdict(f"lin(4) {fmt(l4)}, log(2) {fmt(g2)}", bool(l4 <= 1e-3 and g2 <= 1e-3),
                   paper=r"Thm 4.1: $O(H^{-n})$ with an $e^{0.01T}$ or $T^{1.01}$ factor", where="delta at $T = 2$")


def _sharp_memory_far(P, results):
    d = _deltas(P, results)
    if 8 not in d:
        return None
    best = {f: min((e["l1"], H) for H, e in d[8][f].items() if H <= 16) for f in FAMILIES}
    b8 = min(v[0] for v in best.values())
    return Verdict(", ".join(f"best {f} found {v[0]:.2f} (H = {v[1]})" for f, v in best.items()), bool(b8 >= 0.5),
                   paper="none: the paper proves upper bounds only", where="delta at $T = 8$, $H \\le 16$")


def _monotone(P, results):
    """The error cannot grow with H (H heads contain every H' < H): a guard on the fitter, after its refits."""
    worst, where, refitted = 1.0, "", 0
    for (name, f, S, Hs), rec in results["fit"].items():
        e = np.array(rec["result"]["l1"], float)
        refitted += sum(n > rec["spec"]["restarts"] for n in rec["result"].get("restarts", []))
        for i in range(1, len(e)):
            ratio = compute.grows_with_H(np.min(e[:i]), e[i])
            if ratio > worst:
                worst, where = ratio, f"{name}, {f}, S={S:g}, H={Hs[i]}"
    return Verdict(f"largest ratio {worst:.2f}" + (f" ({where})" if where else "") + f"; {refitted} fit(s) refitted",
                   bool(worst <= compute.GROWTH), paper="none (a guard on this book's fitter)",
                   where=f"{len(results['fit'])} kernel × family × window points")


def _train_order(P, results):
    rows = train_table(results)
    if not rows:
        return None
    Hc = 8 if 8 in P["train_H"] else max(P["train_H"])
    need = math.ceil(2 * P["train_seeds"] / 3)
    verdicts, unseen = [], []
    for name in sorted({r["kernel"] for r in rows}):
        good = "log" if next(r["k"] for r in rows if r["kernel"] == name).kind == "power" else "lin"
        S = max(r["S"] for r in rows if r["kernel"] == name)
        sel = [r for r in rows if r["kernel"] == name and r["S"] == S and r["H"] == Hc]
        m = {f: {r["seed"]: r["mse"] for r in sel if r["family"] == f} for f in FAMILIES}
        wins = sum(m[good][s] < m["lin" if good == "log" else "log"][s] for s in m[good])
        verdicts.append((label(sel[0]["k"]), good, wins))
        if wins < need and max(r["opt"] for r in sel) < TRAIN_FLOOR:   # both optima below what float32 training sees
            unseen.append(f"{label(sel[0]['k'])} at $S$ = {S}")
    scale = (f"at {', '.join(unseen)} both RPEs' optima at $H$ = {Hc} are below float32 training's floor "
             f"({TRAIN_FLOOR:g}), so the ordering measures the optimiser, not the RPE; the hypothesis is stated at "
             "$S$ = 4096 (the paper profile trains at 1024 and 4096)") if unseen else ""
    return Verdict("; ".join(f"{n}: {g} better in {w}/{P['train_seeds']}" for n, g, w in verdicts),
                   all(w >= need for _, _, w in verdicts), paper="none (designed here)", scale=scale,
                   where=f"$H$ = {Hc}", expected=f"in ≥ {need} of {P['train_seeds']} seeds for every kernel (hypothesis)")


def _train_floor(P, results):
    rows = train_table(results)
    ratio = np.array([r["mse"] / r["opt"] for r in rows if r["opt"] >= TRAIN_FLOOR])
    if not len(ratio):
        return None
    w = furthest_from_floor(rows)
    return Verdict(f"median ratio {np.median(ratio):.1f}, max {ratio.max():.1f} ({w['kernel']}, {w['family']}, H={w['H']}); "
                   f"{int((ratio <= 10).sum())} of {len(ratio)} within 10x", bool(ratio.max() <= 10),
                   paper="none (designed here)")


BOOK = "hypothesis (this book)"
# The paper proves upper bounds only; a row about how large an error stays is about the best fit this page's fitter
# found (a better fitter could lower it), so it is this book's hypothesis, never the theorem's.
BEST = "hypothesis (this book): best fit found"
ROWS = [
    Row("1-t5-buckets", "check", "Table 1 (paper), App. F.1",
        r"T5 bucket function with $\mathcal B = 8$, $\mathcal D = 128$: $-r(n)$ for $n = 0,\dots,30$, and its saturation",
        r"equal to Table 1; saturates at $2\mathcal B - 1 = 15$ from $n = 91$", _t5),
    Row("2-allocation", "check", "Theorem 4.1 (proof)", r"Thm 4.1's head allocation: "
        r"$\min_{\sum_k H_k = H}\sum_k a_k^{n+1}H_k^{-n}$ with $a_k = e^{0.01T_k}$ or $T_k^{1.01}$, by a numerical optimiser",
        r"equals $(\sum_k a_k)^{n+1}H^{-n}$ ($H_k \propto a_k$), relative error $< 10^{-6}$", _allocation),
    Row("3-crossover", "check", "Theorem 4.1", r"$e^{0.01T} = T^{1.01}$: the bound factors of Thm 4.1 cross",
        r"$T$ = 1.0101 and 654.94; lin factor smaller for integers $2 \le T \le 654$", _crossover),
    Row("4-prop-B1", "check", "Prop. B.1", r"Prop. B.1 on 200,001 points $z \in [1, 12]$",
        r"$\lvert\log[e^z] - z\rvert \cdot 2\min(e^z, [e^z]) \le 1$ and $\lvert [z] - z\rvert \le 1/2$", _prop_b1),
    Row("5-prop-5.2B", "check", "Prop. 5.2(B)", "Minimax error of any affine-in-tokens predictor (any DP-free "
        "one-layer Attn, any $H$, any RPE) on the toy $y = x_{t-g(x_t)}$, 27 configurations",
        r"LP optimum 1.000 (≥ the paper's 2/3); the $\ell^2$-optimal predictor (0.5, 1/3, 1/3, -1/3) has sup error 4/3",
        _prop_52b),
    Row("6-folding", "check", "Theorems 4.1, 6.1 (proofs)", r"Softmax heads with $W_V = \alpha\,\times$ (the head's "
        r"normaliser) compute the kernel $\sum_h\alpha_h e^{-p_h s}$ (lin) or $\sum_h\alpha_h s^{-p_h}$ (log, $s = 0$ "
        "masked), window 4096, float64", r"relative error $\le 10^{-12}$", _folding),
    Row("7a-heavy-tail-log", "claim", "Theorem 6.1(B)", r"Power law $\beta = 1.2$, $H = 8$: log heads approximate it",
        r"$E_{\log} \le 10^{-4}$", _heavy_tail_log),
    Row("7b-heavy-tail-lin", "claim", BEST, r"Power law $\beta = 1.2$, $H = 8$: the best lin fit found stays far above "
        "the log fit", r"$E_{\rm lin} \ge 10^{-2}$ and $\ge 100\,E_{\log}$", _heavy_tail_lin),
    Row("8a-context-log", "claim", "Theorem 6.1(B)", r"Power law $\beta = 1.2$: log heads' error against the window $S$",
        r"$E_{\log} \le 10^{-5}$ at every $S$", _context_log),
    Row("8b-context-lin", "claim", BEST, r"Power law $\beta = 1.2$: the best lin fit found against the window $S$",
        r"$E_{\rm lin}$ increases with $S$, ≥ 100× from 512 to $10^6$", _context_lin),
    Row("9a-exp-kernel-lin", "claim", "Theorem 6.1(A)", r"Exponential with cutoff, $\tau = 10$: lin heads converge fast",
        r"$E_{\rm lin}(8) \le 10^{-4}$, $E_{\rm lin}(16) \le 10^{-5}$", _exp_kernel_lin),
    Row("9b-exp-kernel-log", "claim", BEST, r"Exponential with cutoff, $\tau = 10$: the best log fit found at $H = 16$",
        r"$E_{\log}(16) \ge 100\,E_{\rm lin}(16)$", _exp_kernel_log),
    Row("10a-slope-power", "claim", "Theorem 6.1(B)", r"Power law $\beta = 3$, log heads: log-log slope of the error "
        "over $H$", "slope ≥ the guaranteed $n = 1$", _slope_power),
    Row("10b-slope-exp", "claim", "Theorem 6.1(A)",
        r"Exponential with cutoff $\tau = 10$, lin heads: error from $H = 2$ to $H = 16$", "falls by ≥ $10^3$",
        _slope_exp),
    Row("11-relative-bump", "claim", BEST, "Bump of width proportional to $T$, window $6T$: lin heads are "
        "scale-covariant (the same error at every $T$), log heads are not",
        r"$E_{\rm lin} \le$ 5e-2 and within 2× across $T$; the best $E_{\log}$ found $> E_{\rm lin}$ at every $T$",
        _relative_bump),
    Row("12a-sharp-memory-near", "claim", "Theorem 4.1", "Delta at $T = 2$ (Task I's kernel): both families reach it",
        r"lin ≤ $10^{-3}$ at $H = 4$, log ≤ $10^{-3}$ at $H = 2$", _sharp_memory_near),
    Row("12b-sharp-memory-far", "claim", BEST, "Delta at $T = 8$: no fit found with $H \\le 16$ gets close",
        "the best fit of each family found stays ≥ 0.5 (the guide's calibration fits)", _sharp_memory_far),
    Row("13-monotone-in-H", "check", "the fitter ($H$ heads contain every $H' < H$)", "Every fit: the error at $H$ is no "
        "larger than the best at smaller $H$ (fits at each $H$ are independent; a fit that grows is refitted with "
        f"{compute.REFIT}×, then {compute.REFIT ** 2}× the starts)",
        f"error($H$) ≤ {compute.GROWTH:g} × min over $H' < H$, where that min is above {compute.FLOOR:g}", _monotone),
    Row("14a-train-order", "claim", BOOK, "Trained one-layer DP-free models, linear target, largest $S$: the matched "
        "RPE (log on power laws, lin on exponentials) has the lower test MSE",
        "in ≥ 2/3 of the seeds (rounded up) for every kernel (hypothesis)", _train_order),
    Row("14b-train-floor", "claim", BOOK, r"Trained test MSE against the optimum $\mathrm{Var}(x)\,E_2(H)^2$ of the "
        f"fitter (variable projection) for the same family, window and $H$, where the optimum is ≥ {TRAIN_FLOOR:g} "
        "(float32 training cannot see less)", "within 10× in every run (hypothesis)", _train_floor),
]


def claims(P: dict, results: dict) -> list[dict]:
    """The rows of ROWS this run can measure, evaluated on its points."""
    return evaluate(ROWS, P, results)


# ------------------------------------------------------------------------------------------ page text
def t5_table(results: dict) -> str:
    t5 = results["exact"]["result"]["t5"]
    n = list(range(len(t5)))
    return markdown_table(["$t - s$", *n], [["$-r$ (this page)", *t5], ["$-r$ (Table 1)", *TABLE1]])


def error_table(P: dict, results: dict) -> str:
    """l1 errors of the best H-head kernel, every main kernel, both families."""
    Hs = sorted(set(P["H_grid"]) | {P["rel_bump_H"]})      # the relative bumps are also fitted at rel_bump_H
    rows = []
    for k in main_kernels(P):
        S = window_of(P, k)
        for f in FAMILIES:
            e = errors(results, k, f, S)
            rows.append([label(k), f"{S:.0e}" if S > 1e4 else f"{S:g}", f] + [fmt(e[H]["l1"]) if H in e else ""
                                                                                   for H in Hs])
    return markdown_table(["kernel", "window $S$", "RPE"] + [f"$H$ = {H}" for H in Hs], rows)


def main_summary(P: dict, results: dict) -> str:
    W = float(P["window"])
    out = []
    for b in P["betas"]:
        el, eg = (errors(results, Kernel("power", beta=float(b)), f, W) for f in FAMILIES)
        if 8 in el and 8 in eg:
            out.append(f"$\\beta$ = {b:g}: {fmt(el[8]['l1'])} (lin) against {fmt(eg[8]['l1'])} (log)")
    txt = (f"At $H = 8$ heads on the power laws (window $S$ = {W:.0e}) the best kernels have $\\ell^1$ errors "
           + "; ".join(out) + ". ")
    for t in P["taus"]:
        el, eg = (errors(results, Kernel("exp", tau=float(t)), f, W) for f in FAMILIES)
        if 8 in el:
            txt += (f"On the exponential kernel with $\\tau$ = {t:g} the order is reversed: {fmt(el[8]['l1'])} (lin) "
                    f"against {fmt(eg[8]['l1'])} (log). ")
    return txt


def context_summary(P: dict, results: dict) -> str:
    H0, Ss = P["context_H"], sorted(P["context_windows"])
    parts = []
    for b in P["context_betas"]:
        el = [errors(results, Kernel("power", beta=float(b)), "lin", S).get(H0, {}).get("l1", math.nan) for S in Ss]
        eg = [errors(results, Kernel("power", beta=float(b)), "log", S).get(H0, {}).get("l1", math.nan) for S in Ss]
        parts.append(f"for $\\beta$ = {b:g} the lin error goes from {fmt(el[0])} at $S$ = {Ss[0]:g} to {fmt(el[-1])} at "
                     f"$S$ = {Ss[-1]:.0e} (×{el[-1] / el[0]:.0f}), while the log error stays between {fmt(min(eg))} and "
                     f"{fmt(max(eg))}")
    return f"With $H$ = {H0} heads, " + "; ".join(parts) + "."


def memory_summary(P: dict, results: dict) -> str:
    Hmax, eps = max(P["H_grid"]), P["eps_memory"]
    parts = []
    for T in P["delta_T"]:
        k = Kernel("delta", T=T)
        h = [heads_needed(errors(results, k, f, window_of(P, k)), eps) for f in FAMILIES]
        parts.append(f"$T$ = {T}: " + " / ".join(f"{v:.0f}" if np.isfinite(v) else f"> {Hmax}" for v in h))
    return (f"Heads needed for an $\\ell^1$ error ≤ {eps:g} on a delta at distance $T$ (lin / log): " + "; ".join(parts)
            + ".")


def training_summary(P: dict, results: dict) -> str:
    rows = train_table(results)
    if not rows:
        return ""
    lines = []
    for key in sorted({(r["kernel"], r["S"], r["family"], r["H"]) for r in rows}):
        sel = [r for r in rows if (r["kernel"], r["S"], r["family"], r["H"]) == key]
        m, t, o = np.median([r["mse"] for r in sel]), np.median([r["test_mse"] for r in sel]), sel[0]["opt"]
        ratio = f"{m / o:.1e}" if o >= TRAIN_FLOOR else f"(optimum below {TRAIN_FLOOR:g}: not compared)"
        lines.append([label(sel[0]["k"]), *key[1:], fmt(m), fmt(t), fmt(o), ratio])
    return markdown_table(["kernel", "$S$", "RPE", "$H$", "trained MSE (median over seeds)", "engine's test MSE (median)",
                           r"optimum $\mathrm{Var}(x)\,E_2^2$", "ratio"], lines)


def gap_summary(results: dict) -> str:
    """Where training is furthest from its floor (`furthest_from_floor`, as claim 14b): that run's learned rates next
    to the optimum's rates and values, which says whether the optimum is a combination gradient descent must find."""
    rows = train_table(results)
    w = furthest_from_floor(rows)
    if w is None:
        return ""
    seeds = [r for r in rows if all(r[k] == w[k] for k in ("kernel", "S", "family", "H"))]
    alpha = np.asarray(w["opt_alpha"], float)
    rates = lambda p: "(" + ", ".join(f"{x:.3f}" for x in sorted(p)) + ")"
    cancels = alpha.min() < 0 < alpha.max() and abs(alpha.sum()) < 0.5 * np.abs(alpha).max()
    cancel = (f" Its values have opposite signs and nearly cancel (sum {alpha.sum():.2f} from magnitudes up to "
              f"{np.abs(alpha).max():.2f})." if cancels else "")
    return (f"The largest gap to the floor is {label(w['k'])}, {w['family']} RPE, $H$ = {w['H']}, $S$ = {w['S']}: trained MSE "
            f"{fmt(w['mse'])} against the optimum's {fmt(w['opt'])} ({w['mse'] / w['opt']:.0f}x). The trained rates p are "
            + "; ".join(rates(r["p"]) for r in seeds) + f" (one seed each); the optimum's are {rates(w['opt_p'])} with values "
            + "(" + ", ".join(f"{a:.3f}" for a in alpha[np.argsort(w["opt_p"])]) + ")." + cancel)


def slope_table(P: dict, results: dict) -> str:
    """Fitted log-log slopes of the matched pairs over H <= 8 (and over the whole grid), against Thm 6.1's rate."""
    W = float(P["window"])
    rows = []
    for k in [k for k in main_kernels(P) if k.kind in ("power", "exp")]:
        for f in FAMILIES:
            e = errors(results, k, f, W)
            if not e:
                continue
            Hs = sorted(e)
            small = [H for H in Hs if H <= 8]
            n = guaranteed_rate(k, f)
            rows.append([label(k), f, n if n else "none", f"{-loglog_slope(small, [e[H]['l1'] for H in small]):.2f}",
                         f"{-loglog_slope(Hs, [max(e[H]['l1'], 1e-16) for H in Hs]):.2f}",
                         f"{fmt(e[Hs[-1]]['l1'])} ($H$ = {Hs[-1]})"])
    return markdown_table(["kernel", "RPE", "guaranteed $n$ (Thm 6.1)", "slope over $H \\le 8$", "slope over the grid",
                           "error at the largest $H$"], rows)


def bump_summary(P: dict, results: dict) -> str:
    parts = []
    for T in P["rel_bump_T"]:
        k = Kernel("bump", T=T, w=T * P["rel_bump_frac"])
        e = [_at(errors(results, k, f, window_of(P, k)), 24) for f in FAMILIES]
        parts.append(f"$T$ = {T}: {fmt(e[0][1])} / {fmt(e[1][1])}")
    T0 = P["rel_bump_T"][0]
    h = _at(errors(results, Kernel("bump", T=T0, w=T0 * P["rel_bump_frac"]), "lin", window_of(P, Kernel("bump", T=T0))),
            24)[0]
    return (f"Bumps of width $T$/{1 / P['rel_bump_frac']:g}, $\\ell^1$ error at $H$ = {h} (lin / log): " + "; ".join(parts)
            + ".")
