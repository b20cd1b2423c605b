"""Appendix H's stored runs (experiments 4a and 4b of the NeurIPS version of Wang & E) read into numbers: one row per
run of each current-token convention ("none": heads only, as the paper's eqs. (3)-(4) write the model; "free": with
the trainable w0) beside the fitter's optimum for the same family, window and H and the copy-the-current-token
baseline (`apph_table`), the runs of one (kernel, family, H) (`select`), and the page's table of every run
(`apph_summary`). The rows H4a-log to H4b-log (claims/apph.py) judge them.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> arms(results), len(apph_table(P, results, "none")) == len(results["apph"]["none"]["result"]["runs"])
    (['free', 'none'], True)
"""
from __future__ import annotations

import numpy as np

from lib.chapters.rpe_decay.experiments.fit import Kernel, kernel_name, kernel_values
from lib.chapters.rpe_decay.results import errors, fmt, label
from lib.core.tables import markdown_table

PAPER_SCALE = {"apph_S": 1000, "apph_steps": 10000, "H": 64}     # the paper's setup (Appendix H.2.7-H.2.8)


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


def apph_summary(P: dict, results: dict) -> str:
    """Every (kernel, RPE, H): the trained absolute MSE (median and range over seeds) of each convention, the
    fitter's optimum for the same family, window and H, and the copy-the-current-token baseline."""
    tables = {c: apph_table(P, results, c) for c in arms(results)}
    if not any(tables.values()):
        return ""
    keys = sorted({(r["kernel"], r["family"], r["H"]) for rows in tables.values() for r in rows})
    lines = []
    for key in keys:
        cells, first = [], None
        for c in ("none", "free"):
            sel = [r for r in tables.get(c, []) if (r["kernel"], r["family"], r["H"]) == key]
            first = first or (sel[0] if sel else None)
            m = [r["mse"] for r in sel]
            cells += [f"{fmt(float(np.median(m)))} ({fmt(min(m))} – {fmt(max(m))})" if m else "not run",
                      opt_text(sel[0]) if sel else ""]
        lines.append([label(first["k"]), key[1], key[2], *cells, fmt(first["copy"])])
    return markdown_table(["kernel", "RPE", "$H$", "heads only: trained MSE, median (range)", "heads only: optimum",
                           "with w0: trained MSE, median (range)", "with w0: optimum", "copy baseline"], lines)


def exponents(P: dict, results: dict, kind: str, family: str, H: int, current: str) -> list[list[float]]:
    """The learned exponents p of the runs of one (kernel kind, family, H) in one arm, seed by seed."""
    return [r["p"] for r in sorted(apph_table(P, results, current), key=lambda r: r["seed"])
            if r["k"].kind == kind and r["family"] == family and r["H"] == H]


def scale_note(P: dict, H: int, which: str) -> str:
    words = {"apph_S": "$S$ = {:,}", "apph_steps": "{:,} steps"}       # the quantities, not the parameters' names
    short = [words[k].format(P[k]) for k in ("apph_S", "apph_steps") if P[k] < PAPER_SCALE[k]]
    if which == "max" and H < PAPER_SCALE["H"]:      # the "one head" rows are at the paper's H whatever the grid
        short.append(f"H up to {H}")
    if which == "min" and H > 1:
        short.append(f"no run with one head (the fewest: {H})")
    return ("the paper's setup is S = 1000, 10,000 AdamW steps, H up to 64 (the paper profile); this run has "
            + ", ".join(short)) if short else ""


def two_head_reading(P, results, current: str, paper: float) -> dict | None:
    """Where the paper's number for 4a's lin heads (`paper`: 0.19) sits among lin heads on 4a: the H whose fitter optimum (t = 0 free) is nearest it, that
    optimum, and the trained medians at that H in this arm and with w0 (None where the grid lacks the runs)."""
    lin_4a = lambda c: [r for r in apph_table(P, results, c) if r["k"].kind == "spow" and r["family"] == "lin"]
    rows = lin_4a(current)
    if not rows:
        return None
    by_H = {H: [r for r in rows if r["H"] == H] for H in sorted({r["H"] for r in rows})}
    H = min(by_H, key=lambda h: abs(np.log10(by_H[h][0]["free_opt"]) - np.log10(paper)))
    free = [r for r in lin_4a("free") if r["H"] == H]
    return {"H": H, "opt": by_H[H][0]["free_opt"], "trained": float(np.median([r["mse"] for r in by_H[H]])),
            "trained_free": float(np.median([r["mse"] for r in free])) if free else np.nan}
