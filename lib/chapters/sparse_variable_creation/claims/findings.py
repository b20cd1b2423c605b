"""What the sparse_variable_creation page says in words beyond the claim table: what a profile leaves out of the
paper's runs (`paper_omissions`), and one bullet per claim row that fails or reads censored (`findings_markdown`),
each from the stored points (results.py) and the rows' own rules (this package). Page-side: no computation imports
this module.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> from lib.chapters.sparse_variable_creation.claims import claims
    >>> findings_markdown(P, results, claims(P, results)).splitlines()[0][:40], paper_omissions(P).splitlines()[0][:22]
    ('- `A11a` and `A12`: with 12 trials per $', '- `and_T`: 100, 200, 4')
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.sparse_variable_creation.claims import (
    PARITY_ACC,
    RULE_A11B,
    RULE_A16,
    count_text,
    grid_sides,
)
from lib.chapters.sparse_variable_creation.claims.power import FAITHFUL, LINEAR
from lib.chapters.sparse_variable_creation.results import (
    ANCHOR_T,
    CONFIDENCE,
    PAPER,
    and_table,
    attention_on_planted,
    bounds,
    cells,
    compare_laws,
    fits,
    interval,
    mstar_text,
    shift_test,
    side_of_half,
    transition,
)
from lib.core.claims import unsettled
from lib.core.rules import number
from lib.core.tables import listing


def paper_omissions(P: dict) -> str:
    """What this profile's planted AND and parity runs leave out of, or change in, the paper's (PAPER), one line each
    ("none" where nothing)."""
    out = []
    for k, v in PAPER.items():
        mine = P.get(k)
        if isinstance(v, list):
            missing, extra = [x for x in v if x not in mine], [x for x in mine if x not in v]
            if missing or extra:
                out.append(f"`{k}`: {listing(mine)}" + (f"; omits the paper's {listing(missing)}" if missing else "")
                           + (f"; adds {listing(extra)}" if extra else ""))
        elif mine != v:
            out.append(f"`{k}` = {mine} (the paper: {v})")
    if not P.get("parity"):
        out.append("no sparse-parity runs")
    return "\n".join(f"- {line}" for line in out) if out else "none: this profile runs the paper's grid and settings."


def _decides_at(n: int) -> tuple[int, int]:
    """With n trials: the largest count whose interval (CONFIDENCE) lies below 1/2 and the smallest whose lies
    above."""
    side = side_of_half(np.arange(n + 1), np.full(n + 1, n))
    below, above = np.flatnonzero(side == -1), np.flatnonzero(side == 1)
    return (int(below[-1]) if len(below) else -1), (int(above[0]) if len(above) else n + 1)


def _share(power: list, row: str, world) -> dict | None:
    """The power table's entry (lib.core.power.rates) of one row in one world (None: the table has none)."""
    return next((t for t in power if t["row"] == row and t["world"] == world.name), None)


def _grid_finding(P, results, bad, power) -> str:
    g = grid_sides(results)
    n = P["and_trials"]
    lo, hi = _decides_at(n)
    named = " and ".join(f"`{i}`" for i in ("A11a", "A12") if i in bad)
    text = f"{named}: with {n} trials per $(T, m)$ " + (
        f"no success count decides against 1/2: even {n} of {n} has the {CONFIDENCE:.0%} Clopper-Pearson interval "
        f"[{float(interval(n, n)[0]):.2f}, 1.00], which contains it" if lo < 0 and hi > n else
        f"a success count decides against 1/2 (its {CONFIDENCE:.0%} Clopper-Pearson interval on one side) only at "
        f"{lo} or fewer, "
        f"or at {hi} or more")
    text += ". The deciding counts: " + "; ".join(f"T = {T}: {count_text(k, n_, m)}" for T, (_, m, k, n_) in g.items())
    if "A12" in bad and ANCHOR_T in g:
        t = and_table(results)[ANCHOR_T]
        cell = {m: int(s_.sum()) for m, s_ in zip(t["m"], t["success"])}
        text += f"; at T = {ANCHOR_T}, {count_text(cell[100], n, 100)} and {count_text(cell[200], n, 200)}"
    r = {i: _share(power, i, FAITHFUL) for i in ("A11a", "A12")}
    said = [f"`{i}` decides in {1 - t['censored']:.0%}" for i, t in r.items() if t]
    text += (f". In {next(t for t in r.values() if t)['draws']} resamplings of these trials within their cells (the "
             f"power table), {' and '.join(said)}." if said else ".")
    return text + (" The paper's model also drops out the embeddings, which this profile does not (the list of "
                   "omissions above); in this low-data regime a regulariser may move $m^*$."
                   if PAPER["embd_dropout"] and P.get("embd_dropout") is False else "")


def _growth_finding(P, results, f) -> str:
    b = bounds(results)
    T = np.array(list(b), float)
    lo = np.array([v[0] for v in b.values()])
    known = np.isfinite([v[1] for v in b.values()])
    text = f"`A11b`: $m^*$ = {mstar_text(b)} at $T$ = {', '.join(map(str, b))}."
    if 2 <= known.sum() < len(T):            # where the log line through the resolved T puts the first censored one
        slope, icpt = np.polyfit(np.log(T[known]), lo[known], 1)
        at = T[~known][0]
        text += (f" The line $a + b\\ln T$ through the resolved $T$ predicts $m^*({at:.0f})$ ≈ "
                 f"{slope * np.log(at) + icpt:.0f}; this run finds no $m$ up to {P['and_m'][-1]} that succeeds in most "
                 "trials there.")
    bar = RULE_A11B.bound                    # the row's own rule: below 0.5, to its tolerance
    if f["exp_min"] >= bar - RULE_A11B.tol:
        se = f["exp_se"]
        margin = (f["exp_min"] - bar) / se if se > 0 else math.inf
        text += ((f" Every value the censoring allows gives a power-law exponent of at least {f['exp_min']:.2f} "
                  if f["censored"] else f" The power-law exponent of $m^*$ in $T$ is {f['exponent']:.2f} ")
                 + (f"(bootstrap SE {se:.2f}, so {margin:.1f} SE above the {number(bar)} the row allows)" if se > 0 else
                    "(bootstrap SE 0: every resampling of the trials gives the same $m^*$)")
                 + f": over $T$ = {T[0]:.0f} to {T[-1]:.0f}, with {P['and_trials']} trials per $(T, m)$, this run "
                 "does not show the sublinear growth of the paper's Figure 4"
                 + ("; a margin under 2 SE is weak evidence against it, and more trials at the largest $T$ (the paper: "
                    "50) decide it." if margin < 2 else "."))
    else:
        text += (f" The exponents the censoring allows run from {f['exp_min']:.2f} to {f['exp_max']:.2f}, on both "
                 f"sides of {number(bar)}: a grid of $m$ reaching further at the censored $T$ decides the rows.")
    return text


def _laws_finding(P, results, power) -> str:
    cmp = compare_laws(cells(and_table(results)))
    text = (f"`A11c`: over every $(T, m)$ cell the log law's likelihood is {cmp['ratio']:.2f} times the best other's "
            f"(relative likelihoods: " + ", ".join(f"{law} {w:.2f}" for law, w in cmp["weights"].items()) + ")")
    same, lin = _share(power, "A11c", FAITHFUL), _share(power, "A11c", LINEAR)
    if not (same and lin):
        return text + "."
    return (text + f". In {same['draws']} resamplings of these trials within their cells, the rule decides for the log "
            f"law in {same['pass']:.0%}; from the same trials relabelled so that $m^*$ grows in proportion to $T$, it "
            f"decides against the log law in {lin['fail']:.0%} and for it in {lin['pass']:.0%} (the power table above)"
            + (": this grid cannot tell the laws apart." if same["pass"] < 0.8 else "."))


def _shift_finding(P, results, row) -> str:
    st = shift_test(cells(and_table(results)))
    return (f"`A13b`: the log law's $T$ term against one curve for every $T$: $\\chi^2_1$ = {st['stat']:.1f}, one-sided "
            f"p = {st['p']:.2g}, b = {st['b']:.1f}: "
            + ("the grid cannot tell a shift from none." if row.get("censored") else "the curves move left as $T$ grows."))


def _attention_finding(P, att):
    H = P["heads"]
    top = np.mean([x for _, _, hits in att.values() for x in hits])
    low = [T for T, (v, _, _) in att.items() if H * v < max(RULE_A16.parts[0].bound, H * 3 / (T + 1))]
    return (f"`A16`: the successful trials' [CLS] attention, summed over the {H} heads, puts "
            f"{', '.join(f'{H * v:.2f}' for v, _, _ in att.values())} on the planted bits at $T$ = "
            f"{', '.join(map(str, att))} (the heads' uniform share: "
            f"{', '.join(f'{3 * H / (T + 1):.2f}' for T in att)}), and the three positions it weighs most are the "
            f"planted ones in {top:.0%} of them" + (f"; the sum falls short at $T$ = {low}." if low else "."))


def _parity_finding(P, parity):
    share = P["parity_iters"] * P["parity_batch"] / (PAPER["parity_iters"] * PAPER["parity_batch"])
    said = []
    for T, r in parity.items():
        when = [f"{x:.0f}" for x in transition(r) if np.isfinite(x)]
        said.append(f"{sum(a >= PARITY_ACC for a in r['test_acc'])} of {len(r['test_acc'])} at $T$ = {T}"
                    + (f" (at iteration {', '.join(when)})" if when else ""))
    return (f"`A14a` and `A14b`: seeds that reach test accuracy {PARITY_ACC} within {P['parity_iters']:,} iterations of "
            f"{P['parity_batch']:,} samples: {'; '.join(said)}. The paper ran {PAPER['parity_iters']:,} iterations of "
            f"{PAPER['parity_batch']:,} with {PAPER['parity_trials']} seeds. "
            + (f"This run's budget is {share:.0%} of the paper's samples, and a seed still on the plateau at its end "
               "may leave it later: these rows test the budget as much as Figure 3." if share < 1 else
               f"At the paper's budget, with {P['parity_trials']} seeds, a seed still on the plateau at the end is one "
               "that Figure 3's transition did not reach in the paper's time."))


def findings_markdown(P: dict, results: dict, rows: list[dict], power: list | None = None) -> str:
    """One bullet per claim row whose badge is FAIL or censored (lib.core.claims.unsettled), saying from the stored
    points what it found and what that means for the paper's claim, with the rule's power where `power` (the page's
    power table, ClaimCheck.power) has it; an empty string when there is none. A failure below its scale is left to
    its note in the claim table, which names the scale it needs."""
    bad, power = unsettled(rows), power or []
    out = [_grid_finding(P, results, bad, power)] if {"A11a", "A12"} & set(bad) else []
    if "A11b" in bad:
        out.append(_growth_finding(P, results, fits(results)))
    if "A11c" in bad:
        out.append(_laws_finding(P, results, power))
    if "A13b" in bad:
        out.append(_shift_finding(P, results, bad["A13b"]))
    att = attention_on_planted(results) if "A16" in bad else None
    if att:
        out.append(_attention_finding(P, att))
    parity = {T: r["result"] for T, r in sorted(results.get("parity", {}).items()) if T <= 50}
    if {"A14a", "A14b"} & set(bad) and parity:
        out.append(_parity_finding(P, parity))
    return "\n".join(f"- {b}" for b in out)
