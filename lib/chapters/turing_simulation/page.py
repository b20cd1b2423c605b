"""What the turing_simulation page shows: the exact-simulation and size tables, the robustness, softmax and bound
readers and the claim check (`ROWS`), all read from the points of lib.chapters.turing_simulation.compute; the
figures are in figures.py beside it. Nothing here changes a stored number, so no computation imports it and
editing it leaves the chapter's stored results current.

    >>> rows = page.claims(P, results); page.exact_table(results)
"""
from __future__ import annotations

import math

import numpy as np

from lib.core.claims import Row, Verdict, evaluate
from lib.core.tables import markdown_table
from lib.science import turing as tu
from lib.science.stats import loglog_slope


# ------------------------------------------------------------------------------------------------- summaries
def exact_rows(results: dict) -> list[dict]:
    """One row per (machine or random set, T) with the sums over its runs."""
    rows = []
    for (name, T), rec in sorted(results["exact"].items(), key=lambda kv: (kv[0][1], kv[0][0])):
        rows.append({"name": name, "T": T, "runs": 1, **_agg(rec["result"]["machines"].values())})
    for T, rec in sorted(results["random"].items()):
        rows.append({"name": "random", "T": T, "runs": len(rec["result"]["machines"]),
                     **_agg(rec["result"]["machines"].values())})
    return rows


def _agg(ms) -> dict:
    ms = list(ms)
    s = lambda k: sum(m[k] for m in ms)
    return {"inputs": s("B"), "steps": sum(m["B"] * (m["T"] + 1) for m in ms), "tf_mismatch": s("tf_mismatch"),
            "tf_bit_exact": all(m["tf_bit_exact"] for m in ms), "ro_runs": sum(m["B"] for m in ms if m["rollout"]),
            "ro_mismatch": s("ro_mismatch"), "ro_bit_exact": all(m["ro_bit_exact"] for m in ms),
            "nonbinary": s("nonbinary"), "lookup_bad": s("lookup_bad"), "halted": s("halted"), "cls_bad": s("cls_bad"),
            "tape_bad": s("tape_bad"), "gap": min(m["gap"] if m["gap"] is not None else math.inf for m in ms),
            "tie_spread": max(m["tie_spread"] for m in ms), "max_overwrites": max(m["max_overwrites"] for m in ms),
            "d": max(m["d"] for m in ms), "w": max(m["w"] for m in ms)}


def exact_table(results: dict) -> str:
    rows = []
    for r in exact_rows(results):
        ro = f"{r['ro_runs']}, {r['ro_mismatch']}" if r["ro_runs"] else "not run"
        rows.append([r["name"], r["T"], f"{r['runs']} x {r['inputs'] // r['runs']}", r["steps"], r["d"], r["tf_mismatch"], ro,
                     r["nonbinary"], r["lookup_bad"], f"{r['halted']}, {r['cls_bad']}"])
    return markdown_table(["machine", "T", "runs x inputs", "steps checked", "d", "teacher-forced mismatches",
                           "rollout (inputs, mismatches)", "non-binary activations", "lookup errors",
                           r"halted, $\theta_{cls}$ errors"], rows)


def size_rows(results: dict, correction: bool = True) -> list[dict]:
    return [r for r in results["sizes"]["result"]["rows"] if r["correction"] == correction]


def size_table(results: dict) -> str:
    return markdown_table(["$T$", "$P$", "depth $d$", "width $w$", "FF hidden", "parameters $p$", r"$\lVert\theta\rVert_1$",
                           r"$\lVert\theta\rVert_\infty$"],
                          [[f"$2^{{{int(round(math.log2(r['T'])))}}}$", r["P"], r["d"], r["w"], r["H"], f"{r['p']:,}",
                            f"{r['l1']:,.0f}", f"{r['linf']:.0f}"] for r in size_rows(results)])


def robust_arrays(results: dict, corr: bool) -> dict:
    recs = [results["robust"][k]["result"] for k in sorted(results["robust"]) if k[1] == corr]
    # None is how JSON stores inf: a direction that nothing up to the largest scale corrupts (smallest_failing).
    # Read as NaN, the nan-aggregates below would skip exactly the robust directions.
    f = lambda x: np.array([math.inf if v is None else v for v in np.atleast_1d(x)], float)
    return {"T": np.array([r["T"] for r in recs]), "t": np.concatenate([f(r["t_struct"]) for r in recs]),
            "l2": np.concatenate([f(r["struct_l2"]) for r in recs]),
            "r": np.stack([f(r["r_random"]) for r in recs]), "alpha": np.array([r["alpha"] for r in recs]),
            "p": np.array([r["p"] for r in recs]), "w": np.array([r["w"] for r in recs])}


def bound(results: dict) -> dict:
    """n_hat(T) = alpha^2 log p / gamma_hat^2 with gamma_hat the smallest corrupting l2 perturbation found (with
    correction): an upper bound on the margin, so n_hat is a lower estimate of the bound; beside VC ~ w T."""
    a = robust_arrays(results, True)
    gamma = np.fmin(a["l2"], np.nanmin(a["r"], axis=1))
    return {"T": a["T"], "gamma": gamma, "alpha": a["alpha"], "p": a["p"],
            "n_hat": a["alpha"] ** 2 * np.log(a["p"]) / gamma ** 2, "vc": a["w"] * a["T"]}


def softmax_arrays(results: dict, corr: bool) -> tuple[np.ndarray, np.ndarray]:
    ks = sorted(k for k in results["softmax"] if k[1] == corr)
    b = [results["softmax"][k]["result"]["beta_star"] for k in ks]
    return np.array([k[0] for k in ks]), np.array([math.inf if v is None else v for v in b], float)


# --------------------------------------------------------------------------------------------------- claims
# The reading guide's claims (section 5), every number from this run's points. Each measure(P, results) returns
# the row's Verdict; `rows` (exact_rows) are the exact-simulation rows every exact row reads.
def _fit(x, y):
    c = np.polyfit(x, y, 1)
    pred = np.polyval(c, x)
    ss = float(((y - y.mean()) ** 2).sum())
    return c, (1 - float(((y - pred) ** 2).sum()) / ss) if ss > 0 else 1.0


def _exact(P, results):
    rows = exact_rows(results)
    n_runs = sum(r["runs"] * r["inputs"] // max(r["runs"], 1) for r in rows)
    tf, ro = sum(r["tf_mismatch"] for r in rows), sum(r["ro_mismatch"] for r in rows)
    n_rand = max((r["runs"] for r in rows if r["name"] == "random"), default=0)
    Ts = sorted({r["T"] for r in rows})
    bit = all(r["tf_bit_exact"] and r["ro_bit_exact"] for r in rows)
    return Verdict(f"{tf} teacher-forced and {ro} rollout mismatches over {sum(r['steps'] for r in rows):,} steps of "
                   f"{n_runs} runs; bit-equal: {bit}", tf == 0 and ro == 0 and bit, paper=f"0 ({CAL})",
                   where=f"{len(P['machines'])} catalogue machines and {n_rand} random machines, $T$ = {Ts[0]} to {Ts[-1]}")


def _lookup(P, results):
    rows = exact_rows(results)
    lk, ow = sum(r["lookup_bad"] for r in rows), max(r["max_overwrites"] for r in rows)
    return Verdict(f"{lk} errors; most overwritten cell: {ow} writes", lk == 0 and ow >= 10, paper="exact (Claims C.4-C.5)")


def _binary(P, results):
    nb = sum(r["nonbinary"] for r in exact_rows(results))
    return Verdict(f"{nb} non-binary values", nb == 0, paper="all in {0, 1}")


def _gap(P, results):
    rows = exact_rows(results)
    gap, spread = min(r["gap"] for r in rows), max(r["tie_spread"] for r in rows)
    return Verdict(f"min gap {gap:.6g}, max spread {spread:.1e}", gap >= 1 - 1e-9 and spread < 1e-9,
                   paper="gap 1 (integer scores)")


def _cls(P, results):
    rows = exact_rows(results)
    halted, cb = sum(r["halted"] for r in rows), sum(r["cls_bad"] for r in rows)
    return Verdict(f"{cb} errors over {halted} halting runs", cb == 0 and halted > 0, paper="±1 on accept/reject")


def _busy_beaver(P, results):
    bb = {}
    for (name, T), rec in results["exact"].items():
        if name in tu.BB_KNOWN and T > tu.BB_KNOWN[name][0]:
            m = rec["result"]["machines"][name]
            bb[name] = (m["steps_interp"][0], m["ones_interp"][0], m["steps_tf"][0], m["ones_tf"][0])
    ok = bool(bb) and all(v[:2] == tu.BB_KNOWN[n] and v[2:] == tu.BB_KNOWN[n] for n, v in bb.items())
    return Verdict("; ".join(f"{n}: {v[0]}/{v[1]} and {v[2]}/{v[3]}" for n, v in sorted(bb.items()))
                   or "no T above the halting step", ok,
                   paper=", ".join(f"{n}: {s}/{o}" for n, (s, o) in tu.BB_KNOWN.items()))


def _depth_width(P, results):
    sr = size_rows(results)
    k, A = results["sizes"]["result"]["k"], results["sizes"]["result"]["A"]
    ok = all(r["d"] == r["P"] + 4 and r["w"] == (k + 1) + 4 * A + 4 * r["P"] + 5 for r in sr)
    return Verdict(f"$d$ {sr[0]['d']} → {sr[-1]['d']}, $w$ {sr[0]['w']} → {sr[-1]['w']}; formulas hold: {ok}", ok,
                   paper=r"$d \sim \log T$, $w \gtrsim k\lvert A\rvert + \log T$",
                   where=f"{P['size_machine']}, $T = 2^{{{int(math.log2(sr[0]['T']))}}}$ to "
                         f"$2^{{{int(math.log2(sr[-1]['T']))}}}$")


def _params(P, results):
    sr = size_rows(results)
    ratio = sr[-1]["p"] / sr[0]["p"]
    return Verdict(f"$p$ {sr[0]['p']:,} → {sr[-1]['p']:,} (×{ratio:.1f})", ratio < 100,
                   paper=f"$p = O(dw^2)$; about 20× ({CAL})",
                   expected=r"$p(T_{max})/p(T_{min}) \ll T_{max}/T_{min}$" + f" = {sr[-1]['T'] // sr[0]['T']:,} (below 100)")


def _norms(P, results):
    sr = size_rows(results)
    Pb, l1 = np.array([r["P"] for r in sr], float), np.array([r["l1"] for r in sr])
    c2 = np.polyfit(Pb, l1, 2)
    r2 = 1 - float(((l1 - np.polyval(c2, Pb)) ** 2).sum()) / float(((l1 - l1.mean()) ** 2).sum())
    linf_ok = all(r["linf"] == 2 * r["P"] - 1 for r in sr)
    return Verdict(f"$\\lVert\\theta\\rVert_1$ = {c2[0]:.1f} $P^2$ + {c2[1]:.0f} $P$ + {c2[2]:.0f} ($R^2$ = {r2:.4f}); "
                   f"$\\lVert\\theta\\rVert_\\infty = 2P - 1$: {linf_ok}", r2 > 0.99 and c2[0] >= 0 and linf_ok,
                   paper=r"$\alpha = O(k\lvert A\rvert + \log T\,(k + \lvert A\rvert + \log T))$")


def _flat_structured(P, results):
    a = robust_arrays(results, True)
    return Verdict(", ".join(f"$T$ = {T}: {t:.3f}" for T, t in zip(a["T"], a["t"])), bool(np.all(a["t"] >= 1 / 3)),
                   paper=f"about 0.37 ({CAL})")


def _polylog_random(P, results):
    """Theorem 4.1 bounds the margin below by 1/poly(k, |A|, log T): fit r = c (ln T)^-p to the median radii. An
    exponential collapse in T (as without correction) gives p far above any low degree over this range of T."""
    a = robust_arrays(results, True)
    med = np.nanmedian(a["r"], axis=1)
    if len(med) < 2 or not np.all(np.isfinite(med) & (med > 0)):
        return None
    p = -np.polyfit(np.log(np.log(a["T"])), np.log(med), 1)[0]
    return Verdict(f"{', '.join(f'{m:.3g}' for m in med)} (max/min {float(med.max() / med.min()):.2f}); fitted $p$ = {p:.2f}",
                   bool(p <= POLYLOG_DEGREE), paper=f"1.7 to 2.5 at every $T$ ({CAL})", where=f"{P['n_directions']} directions")


POLYLOG_DEGREE = 3    # a low power of log T; e^{-cT} with c = 0.1 over T = 16..128 would fit p of about 20


def _collapse(P, results):
    a = robust_arrays(results, False)
    ok = np.isfinite(a["t"]) & (a["t"] > 1e-15)                  # above the float64 floor
    slope, r2 = float("nan"), float("nan")
    if ok.sum() >= 2:
        (slope, _), r2 = _fit(a["T"][ok].astype(float), np.log(a["t"][ok]))
    return Verdict(", ".join(f"$T$ = {T}: {t:.1e}" for T, t in zip(a["T"], a["t"])) + f"; slope {slope:.3f}, $R^2$ {r2:.3f}",
                   bool(slope < 0 and r2 > 0.9), paper=f"slope about -0.35 per step ({CAL})")


def _random_nocorr(P, results):
    a = robust_arrays(results, False)
    r0 = np.nanmax(a["r"], axis=1)
    return Verdict(", ".join(f"$T$ = {T}: {r:.1e}" for T, r in zip(a["T"], r0)), bool(np.all(r0 < 1e-4)),
                   paper=f"$< 10^{{-4}}$ ({CAL})")


def _beta(P, results):
    T, b = softmax_arrays(results, True)
    fin = np.isfinite(b)
    slope = np.polyfit(np.log(T[fin]), b[fin], 1)[0] if fin.sum() >= 2 else float("nan")
    return Verdict(", ".join(f"$T$ = {t}: {v:.2f}" for t, v in zip(T, b)) + f"; slope {slope:.2f}",
                   bool(np.all(b <= np.log(3 * (T + 1)))) and 0.5 <= slope <= 1.5,
                   paper=r"$\beta^* \approx \ln T - 0.7$" + f" ({CAL})")


def _beta_nocorr(P, results):
    (_, bc), (Tn, bn) = softmax_arrays(results, True), softmax_arrays(results, False)
    return Verdict(", ".join(f"$T$ = {T}: {'none' if not np.isfinite(b) else f'{b:.1f}'}" for T, b in zip(Tn, bn)),
                   bool(np.all(bn > bc)), paper=f"15, 26, 39 at $T$ = 32, 64, 128; none ≤ 60 from 256 ({CAL})")


def _low_precision(P, results):
    runs = results["precision"]["result"]["runs"]
    bad = [k for k, v in runs.items() if not (v["bit_exact"] and v["mismatch"] == 0)]
    return Verdict(f"{len(runs) - len(bad)} of {len(runs)} runs bit-exact", not bad,
                   paper=f"exact ({CAL}: float16 at $T$ = 512)", where=f"$T$ = {P['precision_T']}")


def _scalar_codes(P, results):
    bf = results["precision"]["result"]["collisions"]["bfloat16"]
    first = lambda key: next((r["T"] for r in bf if r[key] < r["T"]), None)
    t_iT, t_inv = first("i/T"), first("1/i")
    return Verdict(f"$i/T$: first collision at $T$ = {t_iT}; $1/i$: at $T$ = {t_inv}", t_iT is not None and t_iT <= 1024,
                   paper=f"384 of 512 distinct at $T$ = 512 ({CAL})")


def _toy(P, results):
    return {k: np.array(results["toy"]["result"][k], float) for k in ("depths", "numeric", "formula", "rounded")}


def _toy_product(P, results):
    t = _toy(P, results)
    err = float(np.max(np.abs(t["numeric"] / t["formula"] - 1)))
    big = t["depths"] >= 4
    slope = loglog_slope(t["depths"][big], t["numeric"][big])
    return Verdict(f"max relative error {err:.1e}; slope {slope:.3f} ($d$ ≥ 4)", err < 0.01 and -0.6 < slope < -0.4,
                   paper=r"$\rho \le 3/\sqrt d$ (paper)")


def _toy_rounded(P, results):
    t = _toy(P, results)
    rnd = t["rounded"]
    return Verdict(f"$\\rho(1)$ = {rnd[0]:.4f}, min over $d$ {rnd.min():.4f}, $\\rho({int(t['depths'][-1])})$ = {rnd[-1]:.4f}",
                   bool(np.all(rnd >= 1 / 3) and rnd[-1] >= rnd[0] - 0.1), paper=r"$\rho \ge 1/3$ (paper)")


def _bound(P, results):
    b = bound(results)
    slope = loglog_slope(np.log2(b["T"]), b["n_hat"])   # over the finite n_hat; NaN with fewer than two
    vc = loglog_slope(b["T"], b["vc"])
    return Verdict(f"$\\hat n$ {b['n_hat'][0]:.2e} → {b['n_hat'][-1]:.2e}, slope {slope:.2f} in $\\log\\log T$; "
                   f"VC slope {vc:.2f} in $\\log T$", bool(slope <= 6) and vc > 0.8,
                   paper=r"$\mathrm{poly}(k, \lvert A\rvert, \log T)$")


CAL = "calibration, this book"        # values of an independent implementation made for this book, not the paper's
ROWS = [
    Row("1-exact", "check", "Theorem 4.1", "decoded $(z, a, l)$ equals the interpreter's at every step",
        "0 mismatches (teacher-forced and rollout), outputs bit-equal to the invariant (C.2)", _exact),
    Row("2-lookup", "check", "Claims C.4-C.5", r"after the search, `scr3` $= \mathrm{Bin}(i')$ (last write to the new head "
        r"cell), `f1` $= \mathbb 1(i' \text{ exists})$, `f2` $= \mathbb 1(\text{cell in the input})$, against the "
        "interpreter's last-write table", "0 errors, with cells overwritten ≥ 10 times", _lookup),
    Row("3-binary", "check", "Theorem 4.1 (App. C)", "every activation of every layer at every step is exactly 0 or 1",
        "0 non-binary values", _binary),
    Row("3-gap", "check", "Claims C.4-C.6", "hard-max attention: max score minus the best non-tied score, over all "
        "attention calls; tied maximisers carry identical values", "gap ≥ 1, value spread over ties 0 ($< 10^{-9}$)",
        _gap),
    Row("1-cls", "check", "Theorem 4.1", r"$\theta_{cls} \cdot o_T = 2G(x) - 1$ on every run that halts within $T$",
        "0 errors", _cls),
    Row("6-busy-beaver", "check", "Theorem 4.1", "busy beavers: steps and ones from the interpreter and read back from "
        "the transformer (halting step of the decoded state; the tape rebuilt from its writes)", "known values",
        _busy_beaver),
    Row("4-depth-width", "check", "Theorem 4.1", "depth and width of the construction",
        r"$d = P + 4$ and $w = K + 4\lvert A\rvert + 4P + 5$ exactly ($P$ bits per position)", _depth_width),
    Row("4-params", "check", "Theorem 4.1", "dense parameter count $p$ grows polylogarithmically in $T$",
        r"$p(T_{max})/p(T_{min}) \ll T_{max}/T_{min}$ (below 100)", _params),
    Row("5-norms", "check", "Theorem 4.1", r"$\lVert\theta\rVert_1$ is quadratic in $P = \log T$; "
        r"$\lVert\theta\rVert_\infty = 2P - 1$ (the fetch null key)",
        r"quadratic fit $R^2 > 0.99$ with leading coefficient ≥ 0; $\lVert\theta\rVert_\infty = 2P - 1$ at every $T$",
        _norms),
    Row("7-flat-structured", "check", "Theorem D.6", "with correction: the smallest corrupting scale $t^*$ of the "
        "transition layer's output, at every $T$", r"$t^* \ge 1/3$ at every $T$ (round restores any value above 2/3)",
        _flat_structured),
    Row("7-polylog-random", "claim", "Theorem 4.1 (margin at least $1/\\mathrm{poly}(k, \\lvert A\\rvert, \\log T)$)",
        r"with correction: the smallest corrupting $\lVert\delta\rVert_2$ along random unit directions (median) "
        r"falls at most like a low power of $\log T$", r"$r \propto (\ln T)^{-p}$ with $p \le 3$ (no collapse in $T$)",
        _polylog_random),
    Row("7-collapse", "claim", "Claim 3.5", r"without correction: $\ln t^*$ against $T$ (points above the float64 floor "
        "$10^{-15}$)", "linear with negative slope ($R^2 > 0.9$): exponential collapse", _collapse),
    Row("7-random-nocorr", "claim", "Claim 3.5", r"without correction: the smallest corrupting $\lVert\delta\rVert_2$ "
        "along random directions", "$< 10^{-4}$ at every $T$, far below the corrected radius", _random_nocorr),
    Row("8-beta", "claim", "hypothesis (this book)", r"softmax with correction: the smallest inverse temperature "
        r"$\beta^*$ with exact traces",
        r"$\beta^* \le \ln(3(T+1))$ at every $T$; slope of $\beta^*$ against $\ln T$ in [0.5, 1.5]", _beta),
    Row("8-beta-nocorr", "claim", "hypothesis (this book)", r"softmax without correction: $\beta^*$ is larger at every "
        "$T$ (inf: none ≤ `beta_max` works)", r"$\beta^*$(no correction) > $\beta^*$(correction) at every $T$",
        _beta_nocorr),
    Row("9-low-precision", "check", "Theorem 4.1 (precision)", "hard-max construction in float16 and bfloat16, real "
        "rollout", "bit-exact outputs on every run", _low_precision),
    Row("9-scalar-codes", "check", "Theorem 4.1 (precision)", "scalar position codes $i/T$ and $1/i$ in bfloat16: the "
        r"first $T$ with two positions sharing a code ($\mathrm{Bin}(i)$ never collides)", r"$i/T$ collides for "
        r"$T \gtrsim 2^8$", _scalar_codes),
    Row("10-toy-product", "check", "Claim 3.5", r"Claim 3.5 without rounding: numerical $\rho$ of $(\prod_i W_i)x - 1/2$ "
        r"against $\sqrt d\,(1 - 2^{-1/d})$", "within 1% at every depth; log-log slope about -1/2", _toy_product),
    Row("10-toy-rounded", "check", "Claim 3.5", "Claim 3.5 with rounding (exact dynamic programme over layers)",
        r"$\rho \ge 1/3$ at every depth, and no decay: $\rho(d_{max}) \ge \rho(1) - 0.1$", _toy_rounded),
    Row("12-bound", "claim", "Lemma 2.4", r"$\hat n = \alpha^2\log p/\hat\gamma^2$ against $\log T$ (a bound's value, not "
        "a measured sample complexity), beside the VC proxy $wT$",
        r"$\log\hat n$ against $\log\log T$ has slope ≤ 6; VC proxy slope ≈ 1 in $T$", _bound),
]


def claims(P: dict, results: dict) -> list[dict]:
    return evaluate(ROWS, P, results)


def precision_runs(results: dict) -> str:
    """One line: every low-precision rollout, its mismatches and whether it is bit-exact."""
    runs = results["precision"]["result"]["runs"]
    return ("Low-precision rollouts (hard-max, exact comparison of scores): "
            + "; ".join(f"`{k}`: {v['mismatch']} mismatches, bit-exact {v['bit_exact']}" for k, v in runs.items()) + ".")


def robust_note(results: dict, rows: list[dict]) -> str:
    """A note where the random-direction radius with correction falls with T by more than a fifth, else ""."""
    a = robust_arrays(results, True)
    med = np.nanmedian(a["r"], axis=1)
    if not (len(med) > 1 and med[-1] < 0.8 * med[0]):
        return ""
    bits = ", ".join(f"$P$ = {results['robust'][(T, True)]['result']['d'] - 4} at $T$ = {T}" for T in a["T"])
    return ("```{note}\nThe random-direction radius with correction falls with $T$ in this run "
            f"({bits}), as Theorem 4.1 allows: it bounds the margin by $1/\\mathrm{{poly}}(k, \\lvert A\\rvert, \\log T)$, "
            "independent of the unrolled depth, not of $\\log T$; row `7-polylog-random` tests that the fall is no "
            "faster than a low power of $\\log T$. One likely cause is the null keys, whose entries grow "
            "like $2P - 1$, so a perturbed query moves the null score by an amount that grows with $P$. This chapter has "
            "not isolated the cause. The contrast that the theorem is about is the exponential collapse without "
            "correction (rows `7-collapse`, `7-random-nocorr`).\n```")
