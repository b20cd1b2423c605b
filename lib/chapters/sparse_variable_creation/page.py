"""Sparse variable creation: the tables the page shows from the stored points. The readers of the points are in
read.py, the claim rows in rows.py and the figures in figures.py beside it (their names are re-exported here, so the
page imports one module). No computation imports these modules, so editing them leaves stored results current.

    >>> rows = claims(P, results)
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.sparse_variable_creation.read import (  # noqa: F401  (the page's names, re-exported)
    ANCHOR_T,
    BOOTSTRAPS,
    EXACT_TOL,
    NORMS,
    PAPER,
    and_table,
    attention_on_planted,
    bounds,
    censored_T,
    critical_m,
    critical_with_se,
    criticals,
    exponent_se,
    fits,
    floor_bits,
    minimal_R_fit,
    mstar_text,
    norm_table,
    slope_range,
    transition,
)
from lib.chapters.sparse_variable_creation.rows import ROWS, claims, evaluate  # noqa: F401
from lib.core.claims import unsettled
from lib.core.tables import markdown_table


def paper_omissions(P: dict) -> str:
    """What this profile's planted AND and parity runs leave out of, or change in, the paper's (PAPER), one line each
    ("none" where nothing)."""
    out = []
    for k, v in PAPER.items():
        mine = P.get(k)
        if isinstance(v, list):
            missing, extra = [x for x in v if x not in mine], [x for x in mine if x not in v]
            if missing or extra:
                out.append(f"`{k}`: {mine}" + (f"; omits the paper's {missing}" if missing else "")
                           + (f"; adds {extra}" if extra else ""))
        elif mine != v:
            out.append(f"`{k}` = {mine} (the paper: {v})")
    if not P.get("parity"):
        out.append("no sparse-parity runs")
    return "\n".join(f"- {line}" for line in out) if out else "none: this profile runs the paper's grid and settings."


def and_summary(results: dict) -> str:
    rows, crit = [], criticals(results)          # the bootstraps once, not once per T
    for T, t in and_table(results).items():
        mstar, se = crit[T]
        r = results["and"][T]["result"]
        pa, s = np.array(r["planted_attention"]), np.array(r["success"], bool)
        rows.append([T, " · ".join(f"{f:.2f}" for f in t["success"].mean(1)),
                     "none" if not np.isfinite(mstar) else f"{mstar:.0f} ± {se:.1f}", f"{floor_bits(T):.1f}",
                     f"{pa[s].mean():.2f}" if s.any() else "–", f"{3 / (T + 1):.2f}"])
    ms = next(iter(and_table(results).values()))["m"]
    return markdown_table(["$T$", f"success fraction at $m$ = {', '.join(map(str, ms))}", "$m^*$ ± bootstrap SE",
                           r"$\log_2\binom{T}{3}$", "[CLS] attention on $\\mathcal I$ (successes)", "uniform $3/(T+1)$"], rows)


def norm_summary(results: dict) -> str:
    nt = norm_table(results)
    if not nt:
        return "These stored points predate the weight norms: recompute with `--force`."
    f = lambda v: "–" if not np.isfinite(v) else f"{v:.3g}"
    rows = [[T, *(f"{f(v[k][0])} / {f(v[k][1])}" for k in NORMS)] for T, v in nt.items() if T != "slope"]
    rows.append(["log-log slope in $T$ (successes)", *(f"{nt['slope'][k]:.2f}" for k in NORMS)])
    return markdown_table(["$T$", "capacity factor of Cor. 4.4 (success / failure)", r"$\max_h B_{QK}^{\infty}$",
                           r"$\max_h \lVert W_V^h\rVert_2$", r"$B_P = \lVert P^\top\rVert_{2,\infty}$"], rows)


def b2_table(results: dict) -> str:
    e = results["exact"]["result"]
    return markdown_table(["$T$", "$s$", "max error (every count pattern)", "max error (2,000 random $b$)",
                           r"$\lVert W_Q\rVert_F$", r"$\log 8T$", r"$\lVert W_K\rVert_F$", r"$\lVert W_V\rVert_F$",
                           r"$\lVert W_C\rVert_F$"],
                          [[r["T"], r["s"], f"{r['err']:.4f}", f"{r['err_random']:.4f}", f"{r['Wq']:.3f}", f"{r['R']:.3f}",
                            f"{r['Wk']:.3f}", f"{r['Wv']:.3f}", f"{r['Wc']:.3f}"] for r in e["b2"]])


def _interval(k: int, n: int) -> str:
    """The 95% Clopper-Pearson interval of a success probability seen k times in n trials."""
    from scipy.stats import binomtest
    ci = binomtest(k, n).proportion_ci(0.95)
    return f"[{ci.low:.2f}, {ci.high:.2f}]"


def _censored_finding(P, results, T, anchor_failed):
    t = and_table(results)[T]
    k, n = int(t["success"][-1].sum()), t["success"].shape[1]
    top = ", ".join(f"{int(s.sum())}/{n} at m = {m}" for m, s in zip(t["m"][-3:], t["success"][-3:]))
    dropout = (" The paper's model also drops out the embeddings, which this profile does not (the list of omissions "
               "above); in this low-data regime a regulariser may move $m^*$."
               if PAPER["embd_dropout"] and P.get("embd_dropout") is False else "")
    return (f"`A11a`{' and `A12`' if anchor_failed and T == ANCHOR_T else ''}: at $T$ = {T} no $m$ of the grid has a "
            f"success fraction above one half ({top}). With {n} trials per $m$ the success probability at "
            f"m = {t['m'][-1]} lies in {_interval(k, n)} (95%, Clopper-Pearson): this run can neither place "
            f"$m^*({T})$ in the grid, as the paper's Figure 4 does with 50 trials, nor rule it out." + dropout)


def _growth_finding(P, results, bad, f):
    b = bounds(results)
    T = np.array(list(b), float)
    lo = np.array([v[0] for v in b.values()])
    known = np.isfinite([v[1] for v in b.values()])
    text = f"`A11b`{' and `A11c`' if 'A11c' in bad else ''}: $m^*$ = {mstar_text(b)} at $T$ = {', '.join(map(str, b))}."
    if 2 <= known.sum() < len(T):            # where the log line through the resolved T puts the first censored one
        slope, icpt = np.polyfit(np.log(T[known]), lo[known], 1)
        at = T[~known][0]
        text += (f" The line $a + b\\ln T$ through the resolved $T$ predicts $m^*({at:.0f})$ ≈ "
                 f"{slope * np.log(at) + icpt:.0f}; this run finds no $m$ up to {P['and_m'][-1]} that succeeds in most "
                 "trials there.")
    if f["exp_min"] >= 0.5 - 1e-9:
        se = f["exp_se"]
        margin = (f["exp_min"] - 0.5) / se if se > 0 else math.inf
        text += ((f" Every value the censoring allows gives a power-law exponent of at least {f['exp_min']:.2f} "
                  if f["censored"] else f" The power-law exponent of $m^*$ in $T$ is {f['exponent']:.2f} ")
                 + (f"(bootstrap SE {se:.2f}, so {margin:.1f} SE above the 0.5 the row allows)" if se > 0 else
                    "(bootstrap SE 0: every resampling of the trials gives the same $m^*$)")
                 + f": over $T$ = {T[0]:.0f} to {T[-1]:.0f}, with {P['and_trials']} trials per $(T, m)$, this run "
                 "does not show the sublinear growth of the paper's Figure 4"
                 + ("; a margin under 2 SE is weak evidence against it, and more trials at the largest $T$ (the paper: "
                    "50) decide it." if margin < 2 else "."))
    else:
        text += (f" The exponents the censoring allows run from {f['exp_min']:.2f} to {f['exp_max']:.2f}, on both "
                 "sides of 0.5: a grid of $m$ reaching further at the censored $T$ decides the rows.")
    if bad.get("A11c", {}).get("censored"):
        text += (f" `A11c` reads censored: its two fits put the censored $T$ at the bound (residual sums of squares: "
                 f"log {f['log']['rss']:.1f}, linear {f['linear']['rss']:.1f}), and an $m^*$ above it moves both.")
    return text


def _attention_finding(P, att):
    top = np.mean([x for _, _, hits in att.values() for x in hits])
    over = [T for T, (v, _, _) in att.items() if v >= 0.5]
    return (f"`A16`: the successful trials' [CLS] attention, averaged over the {P['heads']} heads, puts "
            f"{', '.join(f'{v:.2f}' for v, _, _ in att.values())} of its mass on the planted bits at $T$ = "
            f"{', '.join(map(str, att))} ({', '.join(f'{v * (T + 1) / 3:.0f}' for T, (v, _, _) in att.items())} times "
            f"the uniform share $3/(T+1)$), and the three positions it weighs most are the planted ones in {top:.0%} "
            "of them. The heads find $\\mathcal I$, but the share of the average falls with $T$, and the book's "
            "hypothesis of half the mass holds " + (f"only at $T$ = {over}" if over else "at no $T$") + ". "
            "Proposition 4.7 needs a head that singles out $\\mathcal I$, which the ranking shows; the hypothesis's "
            "share of the average over heads is the book's reading, and this run refutes it.")


def _parity_finding(P, parity):
    share = P["parity_iters"] * P["parity_batch"] / (PAPER["parity_iters"] * PAPER["parity_batch"])
    said = []
    for T, r in parity.items():
        when = [f"{x:.0f}" for x in transition(r) if np.isfinite(x)]
        said.append(f"{sum(a >= 0.99 for a in r['test_acc'])} of {len(r['test_acc'])} at $T$ = {T}"
                    + (f" (at iteration {', '.join(when)})" if when else ""))
    return (f"`A14a` and `A14b`: seeds that reach test accuracy 0.99 within {P['parity_iters']:,} iterations of "
            f"{P['parity_batch']:,} samples: {'; '.join(said)}. The paper ran {PAPER['parity_iters']:,} iterations of "
            f"{PAPER['parity_batch']:,} with {PAPER['parity_trials']} seeds. "
            + (f"This run's budget is {share:.0%} of the paper's samples, and a seed still on the plateau at its end "
               "may leave it later: these rows test the budget as much as Figure 3." if share < 1 else
               f"At the paper's budget, with {P['parity_trials']} seeds, a seed still on the plateau at the end is one "
               "that Figure 3's transition did not reach in the paper's time."))


def findings_markdown(P: dict, results: dict, rows: list[dict]) -> str:
    """One bullet per claim row whose badge is FAIL or censored (lib.core.claims.unsettled), saying from the stored
    points what it found and what that means for the paper's claim; an empty string when there is none. A failure
    below its scale is left to its note in the claim table, which names the scale it needs."""
    bad = unsettled(rows)
    out = [_censored_finding(P, results, T, "A12" in bad) for T in censored_T(results)] if {"A11a", "A12"} & set(bad) else []
    f = fits(results) if {"A11b", "A11c"} & set(bad) else None      # each statistic computed once, where needed
    if f:
        out.append(_growth_finding(P, results, bad, f))
    att = attention_on_planted(results) if "A16" in bad else None
    if att:
        out.append(_attention_finding(P, att))
    parity = {T: r["result"] for T, r in sorted(results.get("parity", {}).items()) if T <= 50}
    if {"A14a", "A14b"} & set(bad) and parity:
        out.append(_parity_finding(P, parity))
    return "\n".join(f"- {b}" for b in out)
