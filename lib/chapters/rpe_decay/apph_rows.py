"""The claim rows of Appendix H's experiments 4a and 4b (NeurIPS version of Wang & E): the four numbers its text
states, each against this run's training arm (`apph.run_apph`), with the fitter's optimum for the same family, window
and H and the copy-the-current-token baseline beside it, and each rule's margin in units of the spread over seeds.

The arm is run in two conventions (`apph.AppHPoint.current`): "none", the paper's model as its eq. (3)-(4) and the
proof of Thm 6.1 write it (RPE heads only, no separate current-token term), and "free", this book's earlier one (the
current token through a residual with a trainable coefficient w0). Each row says which arm decides it (`ARM`): the
paper's model, except H4b-log, which on that model cannot fail (a log head never sees t = 0, eq. (4), so its MSE is
at least rho(0)^2 = 1 whatever training does) and is decided where a log head's job is the tail t >= 1.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> [(row.id, row.measure(P, results).passed) for row in ROWS]
    [('H4a-log', True), ('H4a-lin', False), ('H4b-lin', True), ('H4b-log', False)]
"""
from __future__ import annotations

import re

import numpy as np

from lib.chapters.rpe_decay.compute import Kernel, kernel_name, kernel_values
from lib.chapters.rpe_decay.read import fmt, times
from lib.core.claims import Row
from lib.core.rules import PAPER as BY_PAPER
from lib.core.rules import AtLeast, AtMost

SOURCE = "Appendix H, {} (NeurIPS version)"
PAPER_SCALE = {"apph_S": 1000, "apph_steps": 10000, "H": 64}     # the paper's setup (Appendix H.2.7-H.2.8)
PAPER = {"H4a-log": 1e-5, "H4a-lin": 0.19, "H4b-lin": 1e-7, "H4b-log": 5.3e-4}   # the numbers its text states


def num(x: float) -> str:
    """A paper's number as the text writes it: 1e-5, 0.19, 5.3e-4 (not Python's 1e-05)."""
    return f"{x:g}" if x >= 1e-2 else re.sub(r"\.0e", "e", re.sub(r"e-0*", "e-", f"{x:.1e}"))


ARM = {"H4a-log": "none", "H4a-lin": "none", "H4b-lin": "none", "H4b-log": "free"}
STAYS_HIGH = 0.1          # H4a-lin: the median stays at least this fraction of the paper's 0.19 (this book's band)
COPY_FACTOR = 1.0         # H4b-log: the log heads' median is at least this many copy baselines (the paper's: 11.7)
IDENTICAL = 1e-3          # seeds whose log10 MSE spread is below this many decades are reported identical
# The rules, one object per row (lib.core.rules): each threshold typed once (the paper's number, or this book's band
# around it), its text generated from it.
RULES = {
    "H4a-log": AtMost("absolute MSE", PAPER["H4a-log"], strict=True, where="in every seed", by=BY_PAPER,
                      why="Table 8, one head"),
    "H4a-lin": AtLeast("median MSE over seeds", STAYS_HIGH * PAPER["H4a-lin"],
                       why=f"{STAYS_HIGH:g} × the paper's {num(PAPER['H4a-lin'])}"),
    "H4b-lin": AtMost("absolute MSE", PAPER["H4b-lin"], strict=True, where="in every seed", by=BY_PAPER,
                      why="Table 9, one head"),
    "H4b-log": AtLeast("median MSE over seeds over the copy-the-current-token baseline", COPY_FACTOR, by=BY_PAPER,
                       why=f"the paper's {num(PAPER['H4b-log'])} restated: above that baseline"),
}


def targets_of(spec: dict) -> tuple[list[Kernel], list[np.ndarray]]:
    """The point's kernels and their targets rho(t), t = 0..S-1, with apph.targets' convention (rho(0) where finite,
    else 0): recomputed here so the page needs no training import."""
    kernels = [Kernel(**k) for k in spec["kernels"]]
    t = np.arange(spec["S"], dtype=float)
    out = []
    for k in kernels:
        with np.errstate(divide="ignore"):
            rho = kernel_values(k, t)
        rho[0] = rho[0] if np.isfinite(rho[0]) else 0.0
        out.append(rho)
    return kernels, out


def copy_baseline(rho: np.ndarray) -> float:
    """The MSE of copying the current token with the target's own weight rho(0) and nothing else:
    sum_{t >= 1} rho(t)^2 (4b: 4.5e-5, the whole tail beyond the current token)."""
    return float(np.sum(rho[1:] ** 2))


def arms(results: dict) -> list[str]:
    return sorted(results.get("apph", {}))


def apph_table(P: dict, results: dict, current: str) -> list[dict]:
    """One row per run of one arm: kernel, family, H, seed, exact absolute MSE, learned exponents, the copy
    baseline, and the fitter's optimum for the same family, window and H. The fits are on t >= 1 with t = 0 free
    (kernel normalised to l1 norm 1 on t >= 1), so on the free arm the optimum is (||rho||_1 E_2(H))^2 (`free_opt`).
    Heads only, a log head adds rho(0)^2 (it never reaches t = 0); a lin head's optimum is bracketed, `opt` <= it <=
    `opt_hi`: at least the free one at H, at most the free one at the largest H' < H of the grid (a lin head at the
    largest exponent, p = e^6, is the current token alone, so H heads do what H' heads and a free w0 do; with no H'
    the kernel 0, ||rho||^2)."""
    from lib.chapters.rpe_decay.read import errors
    rec = results.get("apph", {}).get(current)
    if rec is None:
        return []
    spec, r = rec["spec"], rec["result"]
    kernels, rhos = targets_of(spec)
    norms = [float(np.abs(rho[1:]).sum()) for rho in rhos]
    fits = {(j, f): errors(results, k, f, float(spec["S"]), spec["H"]) for j, k in enumerate(kernels) for f in ("lin", "log")}

    def free_opt(j, f, H):
        o = fits[(j, f)].get(H, {})
        return (norms[j] * o["l2"]) ** 2 if o.get("l2") is not None else np.nan
    rows = []
    for i, (seed, j, f, H) in enumerate(r["runs"]):
        opt = free_opt(j, f, H)
        below = [h for h in fits[(j, f)] if h < H]
        hi = opt
        if current == "none" and f == "log":
            opt = hi = opt + rhos[j][0] ** 2
        elif current == "none":
            hi = free_opt(j, f, max(below)) if below else float(np.sum(rhos[j] ** 2))
        rows.append({"k": kernels[j], "kernel": kernel_name(kernels[j]), "family": f, "H": H, "seed": seed,
                     "mse": float(r["mse_exact"][i]), "p": r["p"][i], "opt": opt, "opt_hi": hi,
                     "free_opt": free_opt(j, f, H), "copy": copy_baseline(rhos[j]), "current": current})
    return rows


def spread(values) -> tuple[float, str]:
    """(sd of log10 over seeds, its words): "seeds identical" where the sd is below IDENTICAL decades (a z-score
    with a zero sd says nothing), "one seed" with one value."""
    lv = np.log10(np.maximum(np.asarray(values, float), 1e-300))
    if len(lv) < 2:
        return 0.0, "one seed"
    sd = float(lv.std(ddof=1))
    return sd, (f"seeds identical (sd < {IDENTICAL:g} decades)" if sd < IDENTICAL else f"sd {sd:.2f} decades")


def margin(values, threshold: float, below: bool, stat: str = "worst") -> str:
    """The rule's margin in decades (log10 of threshold / value, signed so that > 0 is on the passing side; `stat`:
    the worst seed or the median) and in units of the spread over seeds."""
    lv = np.log10(np.maximum(np.asarray(values, float), 1e-300))
    d = (np.log10(threshold) - lv) if below else (lv - np.log10(threshold))
    m = float(d.min()) if stat == "worst" else float(np.median(d))
    sd, words = spread(values)
    z = f" = {m / sd:+.1f} sd over {len(lv)} seeds ({words})" if sd >= IDENTICAL else f"; {words}"
    return f"margin {m:+.1f} decades" + z


def _scale(P: dict, H: int, which: str) -> str:
    short = [f"{k} = {P[k]}" for k in ("apph_S", "apph_steps") if P[k] < PAPER_SCALE[k]]
    if which == "max" and H < PAPER_SCALE["H"]:      # the "one head" rows are at the paper's H whatever the grid
        short.append(f"H up to {H}")
    if which == "min" and H > 1:
        short.append(f"no run with one head (the fewest: {H})")
    return ("the paper's setup is S = 1000, 10,000 AdamW steps, H up to 64 (the paper profile); this run has "
            + ", ".join(short)) if short else ""


def select(P, results, kind, family, which, current):
    """(H, MSEs by seed, a row of that H) of one arm at its fewest ("min") or most ("max") heads; None if absent."""
    rows = [r for r in apph_table(P, results, current) if r["k"].kind == kind and r["family"] == family]
    if not rows:
        return None
    H = min(r["H"] for r in rows) if which == "min" else max(r["H"] for r in rows)
    sel = sorted((r for r in rows if r["H"] == H), key=lambda r: r["seed"])
    return H, [r["mse"] for r in sel], sel[0]


def opt_text(row: dict) -> str:
    """The optimum, or its bracket where the arm has no exact one (heads-only lin heads)."""
    return fmt(row["opt"]) if not row["opt_hi"] > row["opt"] * (1 + 1e-9) else f"{fmt(row['opt'])} – {fmt(row['opt_hi'])}"


ARM_WORDS = {"none": "heads only (the paper's model)", "free": "with w0 (the current token's own coefficient)"}


def _where(P, H, current):
    return f"$H$ = {H}, $S$ = {P['apph_S']}, {P['apph_steps']} steps, {ARM_WORDS[current]}"


def _below_rule(P, results, rid, kind, family):
    got = select(P, results, kind, family, "min", ARM[rid])
    if got is None:
        return None
    H, mse, row = got
    other = select(P, results, kind, family, "min", "free" if ARM[rid] == "none" else "none")
    beside = (f"; with w0: {', '.join(fmt(m) for m in other[1])}" if other and ARM[rid] == "none" else "")
    base = f"; copy-the-current-token baseline {fmt(row['copy'])}" if kind == "sexp" else ""
    measured = (f"MSE {', '.join(fmt(m) for m in mse)} (seeds); fitter's optimum {opt_text(row)}{base}; "
                + margin(mse, RULES[rid].bound, True) + beside)
    ok = RULES[rid].holds(mse)
    return RULES[rid].decide(mse, measured, paper=f"< {num(PAPER[rid])} (one head)", where=_where(P, H, ARM[rid]),
                             scale="" if ok else _scale(P, H, "min"))


def _4a_log(P, results):
    return _below_rule(P, results, "H4a-log", "spow", "log")


def _4b_lin(P, results):
    return _below_rule(P, results, "H4b-lin", "sexp", "lin")


def two_head_reading(P, results, current: str) -> dict | None:
    """Where the paper's 0.19 sits among lin heads on 4a: the H whose fitter optimum (t = 0 free) is nearest it in
    log10, that optimum, and the trained medians at that H in this arm and in the arm with w0 (None where the grid
    lacks the runs)."""
    rows = [r for r in apph_table(P, results, current) if r["k"].kind == "spow" and r["family"] == "lin"]
    if not rows:
        return None
    by_H = {H: [r for r in rows if r["H"] == H] for H in sorted({r["H"] for r in rows})}
    H = min(by_H, key=lambda h: abs(np.log10(by_H[h][0]["free_opt"]) - np.log10(PAPER["H4a-lin"])))
    free = [r for r in apph_table(P, results, "free") if r["k"].kind == "spow" and r["family"] == "lin" and r["H"] == H]
    return {"H": H, "opt": by_H[H][0]["free_opt"], "trained": float(np.median([r["mse"] for r in by_H[H]])),
            "trained_free": float(np.median([r["mse"] for r in free])) if free else np.nan}


def _4a_lin(P, results):
    rid = "H4a-lin"
    got = select(P, results, "spow", "lin", "max", ARM[rid])
    if got is None:
        return None
    H, mse, row = got
    rule = RULES[rid]
    ok = rule.holds(float(np.median(mse)))
    two = two_head_reading(P, results, ARM[rid])
    reading = (f"; the paper's {num(PAPER[rid])} is nearest the optimum of {two['H']} lin head(s), {fmt(two['opt'])} "
               f"(trained here: {fmt(two['trained'])}; with w0: {fmt(two['trained_free'])})") if two else ""
    measured = (f"MSE {', '.join(fmt(m) for m in mse)} (seeds), median {times(float(np.median(mse)) / PAPER[rid])}× the "
                f"paper's {num(PAPER[rid])}; fitter's optimum {opt_text(row)}; " + margin(mse, rule.bound, False, "median")
                + reading)
    return rule.decide(float(np.median(mse)), measured, paper=f"{num(PAPER[rid])} (up to 64 heads)",
                       where=_where(P, H, ARM[rid]), scale="" if ok else _scale(P, H, "max"))


def _4b_log(P, results):
    rid = "H4b-log"
    got = select(P, results, "sexp", "log", "max", ARM[rid])
    if got is None:
        return None
    H, mse, row = got
    copy, med = row["copy"], float(np.median(mse))
    rule = RULES[rid]                     # the log heads add nothing to the current token
    ok = rule.holds(med / copy)
    lin = select(P, results, "sexp", "lin", "min", ARM[rid])
    lin_med = float(np.median(lin[1])) if lin else np.nan
    vs_lin = f", {times(med / lin_med)}× the lin head's median ({fmt(lin_med)}, $H$ = {lin[0]})" if lin else ""
    other = select(P, results, "sexp", "log", "max", "none")
    beside = (f"; heads only: {', '.join(fmt(m) for m in other[1])} (≥ $\\rho(0)^2$ = 1: a log head never sees $t = 0$)"
              if other else "")
    measured = (f"MSE {', '.join(fmt(m) for m in mse)} (seeds); median {times(med / copy)}× the copy-the-current-token "
                f"baseline {fmt(copy)}{vs_lin}; fitter's optimum {opt_text(row)}; "
                + margin(mse, rule.bound * copy, False, "median") + beside)
    paper_ratio = PAPER[rid] / copy
    return rule.decide(med / copy, measured, where=_where(P, H, ARM[rid]), scale="" if ok else _scale(P, H, "max"),
                       paper=f"{num(PAPER[rid])} (64 heads) = {paper_ratio:.1f}× the copy baseline, > "
                             f"{PAPER[rid] / PAPER['H4b-lin']:.0f}× the lin head's < {num(PAPER['H4b-lin'])}",
                       expected=f"{rule.text}: {fmt(copy)} here, and the paper's {num(PAPER[rid])} is "
                                f"{paper_ratio:.1f}× it")


ROWS = [
    Row("H4a-log", "claim", SOURCE.format("H.2.7, Table 8"), r"Experiment 4a, $\rho(t) = t^{-0.5}$: trained log-type "
        "RPE with one head (the smallest $H$ of the run)", RULES["H4a-log"], _4a_log),
    Row("H4a-lin", "claim", SOURCE.format("H.2.7, Table 8"), r"Experiment 4a, $\rho(t) = t^{-0.5}$: trained lin-type "
        "RPE with the most heads stays far from the target", RULES["H4a-lin"], _4a_lin),
    Row("H4b-lin", "claim", SOURCE.format("H.2.8, Table 9"), r"Experiment 4b, $\rho(t) = e^{-5t}$: trained lin-type "
        "RPE with one head", RULES["H4b-lin"], _4b_lin),
    Row("H4b-log", "claim", SOURCE.format("H.2.8, Table 9"), r"Experiment 4b, $\rho(t) = e^{-5t}$: trained log-type "
        "RPE with the most heads does no better than copying the current token (the paper's 5.3e-4 is above that "
        "baseline)", RULES["H4b-log"], _4b_log),
]
