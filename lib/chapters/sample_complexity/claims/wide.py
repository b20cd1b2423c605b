"""The claim `1-tr-logN` (Theorem 1's polylogarithmic growth beyond Figure 1): on the wide sweep, one power of ln N,
a + b ln N, fits the Transformer's mean sample counts better than a pure power and a line (results/wide.py fits the
laws and bootstraps them). Theorem 4 bounds the count up to polylogarithmic factors, so a growth like (ln N)^2 is as
much the theorem's as a + b ln N; the row tests the form the data can tell from a power, and the page's power table
runs its rule in a (ln N)^2 world beside the pure laws.

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> ROW.decide(P, records).passed
    True
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sample_complexity.results import summary, wide
from lib.chapters.sample_complexity.results.bootstrap import LEVEL
from lib.chapters.sample_complexity.results.scale import protocol_scale
from lib.core.bootstrap_rules import Replicates
from lib.core.claims import Measured, Row, Scope
from lib.core.rules import EXACT, AtMost, Needs
from lib.core.tables import named_grid

MIN_DECADES = 1.5           # a law comparison needs N over at least this many decades (the paper profile: 1.5)
SCOPE = Scope("N", lo=wide.FROM_N)      # the lengths wide.series reads
# The log law fits best of the three (its ΔAIC lead over the better other law at least 0; a tie goes to the log law)
# in at least LEVEL of the replicates; censored where a mean of the sweep counts runs censored at the cap.
RULE_LOGN = Needs(AtMost("means of the wide sweep that count runs censored at the cap", 0, by=EXACT),
                  Replicates("the log law's ΔAIC lead over the better of the power and the linear law", bar=0.0,
                             level=LEVEL))


def _logn(P: dict, results: dict) -> Measured | None:
    """The log law's lead over the power and the linear law per bootstrap replicate (the task's test set), gated by
    the sweep's means that count censored runs; below MIN_DECADES of N the row says the scale it needs."""
    w = wide.series(summary(P, results), P, "task")
    if w is None or len(w["N"]) < 4:
        return None
    c = wide.compare(w, (P["seed"], "task"))
    a, b = c["fits"]["log"]["params"]
    p = c["fits"]["power"]["params"][1]
    decades = float(np.log10(max(w["N"]) / min(w["N"])))
    cens = [f"N={n} ({k})" for n, k in zip(w["N"], w["censored"]) if k]
    scale = "; ".join(x for x in (
        "" if decades >= MIN_DECADES else f"$N$ over {MIN_DECADES} decades or more (the paper profile: $N$ = 4 to 128; "
        f"this run: {min(w['N'])} to {max(w['N'])}, {decades:.1f}), where a logarithm and a power of $N$ part",
        protocol_scale(P)) if x)
    measured = (f"log law best in {c['log_best']:.1%} of replicates; ΔAIC against the power law "
                f"{c['d_aic']['power']:+.1f} (5% bound {c['d_aic_lower']['power']:+.1f}), against the linear law "
                f"{c['d_aic']['linear']:+.1f} (bound {c['d_aic_lower']['linear']:+.1f}); fits: n = {a:,.0f} + "
                f"{b:,.0f} ln N, power p = {p:.2f}")
    return Measured(c["lead_reps"], measured, paper="no experiment in the paper (Figure 1 spans $N$ = 4 to 12)",
                    where=named_grid("N", w["N"]), scale=scale, gate=len(cens), censored=", ".join(cens))


def _explained(P: dict, results: dict, row: dict) -> str:
    """1-tr-logN failed or is censored: which law fits best, and the local log-log slopes over the wide sweep (a
    power of N keeps them level, a logarithm lets them fall)."""
    w = wide.series(summary(P, results), P, "task")
    c = wide.compare(w, (P["seed"], "task"))
    return (f"on $N$ = {min(w['N'])} to {max(w['N'])} the law that fits the Transformer's means best is "
            f"{wide.LAW_TEXT[c['best']]} (the log law best in {c['log_best']:.1%} of replicates); the log-log slopes "
            f"between consecutive lengths are {', '.join(f'{s:.2f}' for s in wide.local_slopes(w)[1])}.")


ROW = Row("1-tr-logN", "claim", "hypothesis (this book), from Theorem 4's bound, polylogarithmic in $N$ for its learning "
          "rule; beyond the figure", "1STR, the task's own test set, the wide sweep ({scope}, to the largest `N_wide`): "
          "the Transformer's samples grow like one power of $\\ln N$: $a + b\\ln N$ fits better than a pure power "
          "$cN^p$ or a line $a + bN$ (two parameters each). A growth like $(\\ln N)^2$, which the theorem also allows, "
          "is not tested: on this grid it cannot be told from a power with an offset", RULE_LOGN, _logn, SCOPE,
          _explained)
