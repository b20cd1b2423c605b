"""Sparse variable creation: the tables the page shows from the stored points. The readers of the points are in
read.py, the claim rows in rows.py and the figures in figures.py beside it (their names are re-exported here, so the
page imports one module). No computation imports these modules, so editing them leaves stored results current.

    >>> rows = claims(P, results)
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sparse_variable_creation.read import (  # noqa: F401  (the page's names, re-exported)
    BOOTSTRAPS,
    EXACT_TOL,
    NORMS,
    PAPER,
    and_table,
    bounds,
    censored_T,
    critical_m,
    critical_with_se,
    criticals,
    exponent_se,
    fits,
    floor_bits,
    minimal_R_fit,
    norm_table,
    slope_range,
    transition,
)
from lib.chapters.sparse_variable_creation.rows import ROWS, claims, evaluate  # noqa: F401
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
