"""The claim `1-tr-logN` (Theorem 1's log N beyond Figure 1): on the wide sweep, the log law fits the Transformer's
mean sample counts better than a power and a line (results/wide.py fits the three laws and bootstraps them).

    >>> from lib.chapters import stored; P, records = stored("sample_complexity")   # the committed paper results
    >>> from lib.chapters.sample_complexity.results import summarize
    >>> ROW.decide(summarize(P, records), P).passed
    True
"""
from __future__ import annotations

import numpy as np

from lib.chapters.sample_complexity.claims.scale import protocol_scale
from lib.chapters.sample_complexity.results import wide
from lib.chapters.sample_complexity.results.bootstrap import LEVEL
from lib.core.bootstrap_rules import Replicates
from lib.core.claims import Measured, Row
from lib.core.rules import EXACT, AtMost, Needs
from lib.core.tables import named_grid

MIN_DECADES = 1.5           # a law comparison needs N over at least this many decades (the paper profile: 1.5)
# 1-tr-logN's rule: the log law fits best of the three (its ΔAIC lead over the better other law at least 0; a tie goes
# to the log law) in at least LEVEL of the replicates
# in at least LEVEL of the replicates; censored where a mean of the sweep counts runs censored at the cap (a lower bound)
RULE_LOGN = Replicates("the log law's ΔAIC lead over the better of the power and the linear law", bar=0.0, level=LEVEL)
RULE_LOGN_CAPPED = Needs(AtMost("means of the wide sweep that count runs censored at the cap", 0, by=EXACT), RULE_LOGN)


def logn_measure(table: dict, P: dict) -> Measured | None:
    """Claim 1-tr-logN: on the task's own test set, the log law fits the Transformer's wide sweep better than the power
    law and the linear law in at least LEVEL of the bootstrap replicates (the replicates of its lead), with the sweep's
    means that count censored runs (the gate). Below MIN_DECADES of N the row says the scale it needs."""
    w = wide.series(table, P, "task")
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


ROW = Row("1-tr-logN", "claim", "Theorem 1 (Theorem 4: $N$ enters only through $\\log N$); beyond the figure",
          "1STR, the task's own test set, the wide sweep ($N \\ge 4$ to the largest `N_wide`): the Transformer's samples "
          "follow $a + b\\ln N$ better than a power $cN^p$ or a line $a + bN$ (two parameters each)",
          RULE_LOGN_CAPPED, logn_measure)
