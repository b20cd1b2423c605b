"""rpe_decay's stored points read into numbers: the readers every topic shares, one module per topic beside them.

- here: the best H-head errors of a fit point (`errors`), the heads a kernel needs (`heads_needed`), Thm 6.1's
  guaranteed rates, and the names and number formats of the page's text, tables and figures;
- `results.fit`: the kernel fits' tables and summaries (Parts A and B);
- `results.train`: one row per Part C training run with its optimum, and the training floor;
- `results.apph`: one row per Appendix H run of each current-token convention, with its optimum and the
  copy-the-current-token baseline.

It reads results and computes no stored number (the computation is compute.py and experiments/); the claim rows that
judge these numbers are in claims/, the figures in figures.py. This module imports none of its submodules (they
import it).

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> print(f'{errors(results, Kernel("power", beta=1.2), "log", 1e12)[8]["l1"]:.2e}')   # 8 log heads' best L1 error
    2.46e-06
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rpe_decay.experiments.fit import FLOOR, Kernel, kernel_name

IDLE = 1e-9      # a fit whose l1 error is within this of 1 (the zero kernel's) is the do-nothing fit


# --------------------------------------------------------------------------------------- reading results
def point_counts(results: dict) -> str:
    """What the stored points are, for the page's summary line."""
    n_H = sum(len(r["result"]["H"]) for r in results["fit"].values())
    conv = results.get("converged", {})
    seeds = sum(len(recs) for recs in conv.values())
    each = seeds // len(conv) if conv and seeds % len(conv) == 0 else 0
    each = f"{each} seed{'s' if each > 1 else ''}" if each else "several seeds"
    return (f"They are the exact checks, {len(results['fit'])} kernel fits ({n_H} values of H, each from its own "
            f"starts), the {len(conv)} fits the claims read, converged in their starts at {each} of the fitter each "
            f"({seeds} in all), {len(results['train'])} training sweeps and the Appendix H runs.")


def errors(results: dict, k: Kernel, family: str, S: float, H_list=None, part: str = "fit") -> dict[int, dict]:
    """{H: {"l1", "l2", "p", "alpha", "starts", "half", "converged"}} of one fit point, or {} if it is not in the
    results: the best fit, the starts it took, the best of the first half of them and whether the two agree
    (experiments.fit.fit_converged; None for the 4-start fits); `part`: "fit", or "converged" (the fits converged
    in their starts that claims 7-12 read: every fitter seed's, read by `across_seeds`)."""
    for (name, f, S_, Hs), rec in results.get(part, {}).items():
        if name == kernel_name(k) and f == family and S_ == float(S) and (H_list is None or list(Hs) == list(H_list)):
            if part == "converged":
                return across_seeds([one_fit(r["result"]) for r in rec.values()])
            return one_fit(rec["result"])
    return {}


def one_fit(r: dict) -> dict[int, dict]:
    """{H: the fit} of one stored fit point's result."""
    get = lambda key, i: r[key][i] if key in r else None
    return {H: {"l1": r["l1"][i], "l2": r["l2"][i], "p": r["p"][i], "alpha": r["alpha"][i],
                "starts": get("restarts", i), "half": get("l1_half", i), "converged": get("converged", i)}
            for i, H in enumerate(r["H"])}


def across_seeds(seeds: list[dict[int, dict]]) -> dict[int, dict]:
    """One fit per H from the converged fits of several seeds of the fitter: the best seed's fit, with `seeds` (every
    seed's best l1), `spread` (their max over min; 1 where all are at the float64 floor FLOOR), `idle` (the best is
    no better than the do-nothing fit, the zero kernel, whose l1 error is 1) and `converged` (every seed converged
    in its starts)."""
    out = {}
    for H in seeds[0]:
        fits = [s[H] for s in seeds]
        l1 = [f["l1"] for f in fits]
        best = min(fits, key=lambda f: f["l1"])
        out[H] = {**best, "seeds": l1, "starts": sum(f["starts"] for f in fits), "idle": best["l1"] >= 1 - IDLE,
                  "spread": 1.0 if max(l1) <= FLOOR else max(l1) / max(min(l1), 1e-300),
                  "converged": all(f["converged"] for f in fits), "half": min(f["half"] for f in fits)}
    return out


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


def label(k: Kernel) -> str:
    """A kernel's name for the page's text, tables and figures, in MyST (and matplotlib) math."""
    return {"power": lambda: rf"power law $\beta$ = {k.beta:g}", "exp": lambda: rf"exp. cutoff $\tau$ = {k.tau:g}",
            "bump": lambda: f"bump $T$ = {k.T}, $w$ = {k.w:g}", "delta": lambda: f"delta $T$ = {k.T}",
            "spow": lambda: f"$t^{{-{k.beta:g}}}$", "sexp": lambda: f"$e^{{-{k.beta:g}t}}$"}[k.kind]()


def times(x: float) -> str:
    """A ratio for the page: two digits, in scientific notation below 0.01 or from 1000 up (0.047×, 2.0e-04×)."""
    return f"{x:.1e}" if x < 0.01 or x >= 1000 else f"{x:.2g}"


def fmt(x: float) -> str:
    return "inf" if x is None or not np.isfinite(x) else f"{x:.1e}"
