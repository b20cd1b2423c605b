"""The rules and measures of rpe_decay's training hypotheses 14a and 14b (their rows are in claims/__init__.py), on
Part C's runs as results/train.py reads them: 14a, the matched RPE trains to the lower test MSE, where the runs
can tell (an RPE above the training floor); 14b, every run's trained MSE within a band of what its heads can reach,
max(optimum, floor), none dropped. Page-side: no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> BAND, [matched(k) for k in (Kernel("power", beta=1.2), Kernel("exp", tau=10.0))]
    (10, ['log', 'lin'])
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from lib.chapters.rpe_decay.experiments.fit import Kernel
from lib.chapters.rpe_decay.experiments.train import FAMILIES
from lib.chapters.rpe_decay.results import fmt, label
from lib.chapters.rpe_decay.results.train import (
    PRECISION_MARGIN,
    beyond_band,
    effective_runs,
    floor_groups,
    margin,
    train_table,
    training_floor,
)
from lib.core.claims import Measured, Scope
from lib.core.rules import AtLeast, AtMost, Needs
from lib.core.tables import named_grid

AT_FLOOR = 10             # 14a: a cell whose two medians are within this factor of the training floor is at the floor
ORDER_H = Scope("H", 2, 4)     # 14a: the H where the runs can tell (at H = 8 both RPEs sit at the floor)
RULE_TRAIN_ORDER = Needs(
    AtMost(f"(kernel, $H$) cells where both RPEs' medians are within {AT_FLOOR}× the training floor", 0),
    AtLeast("share of seeds in which the matched RPE has the lower test MSE", Fraction(2, 3),
            where="for every kernel and $H$", why="a majority of the seeds"), on_fail=True)
RULE_TRAIN_FLOOR = AtMost("median over seeds of the trained MSE over max(optimum, floor)", 10,
                          where="for every kernel, family and $H$, every run counted", why="this book's hypothesis")
BAND = RULE_TRAIN_FLOOR.bound     # 14b: the median over seeds within this factor of max(optimum, floor)


def matched(k: Kernel) -> str:
    """The RPE matched to a kernel's decay: log on power laws, lin on exponentials."""
    return "log" if k.kind == "power" else "lin"


def order_wins(m: dict, good: str) -> int:
    """14a's count: the seeds in which the matched family's MSE is below the other's ({family: {seed: MSE}})."""
    other = "lin" if good == "log" else "log"
    return sum(m[good][s] < m[other][s] for s in m[good] if s in m[other])


def cells(P, results, Hs):
    """Part C's (kernel, H) cells at each kernel's largest S, (kernel, S, H, {family: {seed: MSE}}), and the training
    floor; None where there are no runs."""
    rows = train_table(results)
    if not rows:
        return None
    out = []
    for name in sorted({r["kernel"] for r in rows}):
        S = max(r["S"] for r in rows if r["kernel"] == name)
        for H in Hs:
            sel = [r for r in rows if r["kernel"] == name and r["S"] == S and r["H"] == H]
            if not sel:
                continue
            out.append((sel[0]["k"], S, H, {f: {r["seed"]: r["mse"] for r in sel if r["family"] == f}
                                            for f in FAMILIES}))
    return out, training_floor(rows)[0]


def _train_order(P, results):
    got = cells(P, results, ORDER_H(P["train_H"]))
    if got is None or not got[0]:
        return None
    (cs, floor), shares, words, at_floor, n = got, [], [], 0, []
    for k, _, H, m in cs:
        good, med = matched(k), {f: float(np.median(list(m[f].values()))) for f in FAMILIES}
        shares.append(order_wins(m, good) / len(m[good]))             # of the seeds the hypothesis is stated over
        n.append(effective_runs([(m["lin"][s], m["log"][s]) for s in sorted(m["lin"])]))
        floor_cell = max(med.values()) <= AT_FLOOR * floor
        at_floor += floor_cell
        words.append(f"{label(k)}, $H$ = {H}: {good} lower in {order_wins(m, good)}/{len(m[good])} ({n[-1]} "
                     f"effective) (medians lin {fmt(med['lin'])}, log {fmt(med['log'])})"
                     + (f", both within {AT_FLOOR}× the training floor {fmt(floor)}" if floor_cell else ""))
    return Measured(np.array(shares), "; ".join(words), n=np.array(n), gate=at_floor,
                    paper="App. H 4a/4b: the matched RPE trains lower",
                    where=f"$S$ = {cs[0][1]}; {named_grid('H', ORDER_H(P['train_H']))}")


def _train_floor(P, results):
    got = floor_groups(results)
    if got is None:
        return None
    _, floor, n, groups = got
    med = {k: float(np.median(v)) for k, v in groups.items()}
    w = max(med, key=med.get)
    ratio = np.concatenate(list(groups.values()))
    one = sum(effective_runs(v) == 1 for v in groups.values())
    return Measured(med[w], f"floor {fmt(floor)} (median of the {n} lin runs ≥ {PRECISION_MARGIN}× above "
                    f"their optimum); the worst median ratio {med[w]:.1f} ({w[0]}, {w[2]}, H={w[3]}); "
                    f"{sum(v <= BAND for v in med.values())} of {len(med)} groups and "
                    f"{int((ratio <= BAND).sum())} of {len(ratio)} runs within {BAND}×; {one} of {len(med)} groups' "
                    f"seeds one effective run (identical); {margin(groups[w], BAND, True, 'median')}",
                    paper="none (designed here)", n=effective_runs(groups[w]))


def explain_floor(P: dict, results: dict, row: dict) -> str:
    """Why 14b comes out as it does: the groups beyond its band, numbers from the runs."""
    return "groups beyond the band: " + "; ".join(beyond_band(results, BAND))


def explain_order(P: dict, results: dict, row: dict) -> str:
    """Why 14a fails or is censored: its cells, as measured."""
    return row["measured"] + (f" ({row['censored']}: there the order measures the optimiser's precision, not the RPE)"
                              if row.get("censored") else "")
