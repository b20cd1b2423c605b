"""What the rpe_decay notebook calls, in one place: the tables and summaries of the stored points (results/), the
claim rows, the findings in words and the power of the rules (claims/), and the thresholds its prose quotes from
the rows' own rules. The figures are figures.py's. Page-side: it reads results and computes no stored number, so
editing it, or anything it imports from results/ or claims/, leaves the chapter's results current (compute.py and
experiments/ compute them).

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (24, [('1-t5-buckets', True), ('2-allocation', True)])
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lib.chapters.rpe_decay.claims import HEADLINES, ROWS, claims
from lib.chapters.rpe_decay.claims import apph as apph_claims
from lib.chapters.rpe_decay.claims import fit as fit_claims
from lib.chapters.rpe_decay.claims import train as train_claims
from lib.chapters.rpe_decay.claims.apph import ARM, EXPLAIN, NUMBERS, PAPER, num, reproduces
from lib.chapters.rpe_decay.claims.power import WORLDS
from lib.chapters.rpe_decay.claims.train import BAND, matched, order_wins
from lib.chapters.rpe_decay.experiments.fit import CONVERGED, MOST_STARTS, Kernel
from lib.chapters.rpe_decay.experiments.train import FAMILIES
from lib.chapters.rpe_decay.results import fmt, label, point_counts, times
from lib.chapters.rpe_decay.results.apph import apph_summary, arms, copy_baseline, select, targets_of
from lib.chapters.rpe_decay.results.fit import (
    bump_summary,
    context_summary,
    error_summary,
    error_table,
    main_summary,
    memory_summary,
    slope_table,
    t5_table,
)
from lib.chapters.rpe_decay.results.train import (
    beyond_band,
    distinct_exponents,
    effective_runs,
    gap_summary,
    reachable,
    train_table,
    training_floor,
    training_summary,
)
from lib.core.claims import explanations
from lib.core.params import ROOT
from lib.core.power import power_table
from lib.core.tables import markdown_table

__all__ = ["HEADLINES", "ROWS", "apph_findings", "apph_numbers", "apph_summary", "bump_summary", "claims", "context_summary",
           "error_summary", "error_table", "findings_markdown", "gap_summary", "main_summary", "memory_summary", "partc_findings",
           "partc_recipes", "point_counts", "power", "quoted_thresholds", "slope_table", "t5_table", "training_summary"]


def power(P: dict, results: dict, draws: int) -> list[dict]:
    """The power table of the rows that declare worlds (claims/power.py): each row's own measure and rule on `draws`
    result sets per world, from the stored runs resampled and relabelled (lib.core.power)."""
    return power_table(ROWS, WORLDS, P, results, draws)


def quoted_thresholds(P: dict) -> dict:
    """The thresholds the page's prose quotes, from the rows' own rules, the fitter and P (the notebook glues them):
    the fitter's convergence and most starts, the fitter seeds of this run, check 13's growth bound, 14b's band, 14a's
    at-the-floor factor and H4a-lin's bound."""
    return {"converged_pct": f"{CONVERGED:.0%}", "most_starts": MOST_STARTS, "fitter_seeds": P["fitter_seeds"],
            "growth": fit_claims.RULE_MONOTONE.bound,
            "train_band": train_claims.RULE_TRAIN_FLOOR.bound, "at_floor": train_claims.AT_FLOOR,
            "h4a_lin_bound": apph_claims.RULES["H4a-lin"].bound}


def findings_markdown(P: dict, results: dict, rows: list[dict]) -> str:
    """One bullet per claim that FAILs or is censored, its row's own `explain`; "" where every claim settles."""
    return "\n".join(f"- {line}" for line in explanations(ROWS, rows, P, results))


def partc_findings(P: dict, results: dict) -> str:
    """Part C in words, every number from the stored runs (the chapter's test checks them): per kernel and H, how
    many exponents the log heads end at, how far the matched RPE's median is from what its heads can reach and how
    many of the seeds differ; then claim 14b's floor and the groups beyond its band; last, what other training recipes
    reached on the hardest cells (`partc_recipes`, from benchmarks/rpe_decay_partc_recipes.json)."""
    rows = train_table(results)
    if not rows:
        return ""
    floor, n = training_floor(rows)
    out = []
    for name in sorted({r["kernel"] for r in rows}):
        S = max(r["S"] for r in rows if r["kernel"] == name)
        sel = sorted((r for r in rows if r["kernel"] == name and r["S"] == S), key=lambda r: r["seed"])
        k, good, Hs = sel[0]["k"], matched(sel[0]["k"]), sorted({r["H"] for r in sel})
        cell = {(f, H): [r for r in sel if r["family"] == f and r["H"] == H] for f in FAMILIES for H in Hs}
        logs = ", ".join(f"{'/'.join(str(distinct_exponents(r['p'])) for r in cell['log', H])} distinct exponents of "
                         f"$H$ = {H}" for H in Hs)
        far = ", ".join(f"{np.median([r['mse'] / reachable(r, floor) for r in cell['log', H]]):.1f}× at $H$ = {H}"
                        for H in Hs if H > 2)
        m = {f: {r["seed"]: r["mse"] for r in cell[f, Hs[-1]]} for f in FAMILIES}
        same = sum(effective_runs([(r["mse"],) for r in v]) == 1 for v in cell.values())
        out.append(f"**{label(k)}, $S$ = {S}.** The log heads end at {logs} (per seed); their median is {far} what "
                   f"those heads can reach (max(optimum, floor)). At $H$ = {Hs[-1]} the medians are "
                   f"{fmt(float(np.median(list(m['lin'].values()))))} (lin) and "
                   f"{fmt(float(np.median(list(m['log'].values()))))} (log): {good}, the matched RPE, is lower in "
                   f"{order_wins(m, good)} of {len(m[good])} seeds. In {same} of its {len(cell)} (family, $H$) groups "
                   "the seeds end on one value (agreeing to three digits): every run starts its heads at the fitter's "
                   f"first start and the seeds differ only in their data, so there the {len(m[good])} seeds are one "
                   "effective run.")
    beyond = beyond_band(results, BAND)
    out.append(f"**Claim 14b.** The training floor is {fmt(floor)} (the median of {n} precision-limited lin runs). "
               + (f"Beyond {BAND}× of max(optimum, floor) (medians over seeds): " + "; ".join(beyond) + "."
                  if beyond else f"Every group's median is within {BAND}× of max(optimum, floor)."))
    return "\n\n".join(out + [t for t in [partc_recipes()] if t])


RECIPES_JSON = ROOT / "benchmarks" / "rpe_decay_partc_recipes.json"


def _recipe(r: dict) -> str:
    """A recipe of the JSON in words: its start, learning rates and steps."""
    start = {"geometric": f"the fitter's start jittered {r['jitter']:g}", "random": "random starts",
             "optimum": "the optimum's exponents"}[r["init"]]
    return f"{start}, lr {r['lr']:g}, {r['steps']} steps"


def partc_recipes(path: Path = RECIPES_JSON) -> str:
    """What other training recipes reached on Part C's hardest log cells, every number from the JSON that
    benchmarks/rpe_decay_partc_recipes.py writes (3 seeds per recipe, outside the stored points): per cell the range of
    the recipes' medians over what the heads can reach, the best recipe, the effective runs and distinct exponents;
    then the recipes within the target factor, and for the cells none reaches why (the optimum's values, in float32).
    "" without the JSON."""
    if not path.exists():
        return ""
    d = json.loads(path.read_text())
    within, cells = d["within"], d["cells"]
    lines, hits = [], []
    for c in cells:
        rs = sorted(c["recipes"], key=lambda r: r["median_ratio"])
        best, worst = rs[0], rs[-1]
        eff = sorted({r["effective_runs"] for r in rs})
        dis = [n for r in rs for n in r["distinct"]]
        hits += [(c, r) for r in rs if r["within"]]
        lines.append(f"{label(Kernel(**c['k']))}, $H$ = {c['H']}: {len(rs)} recipes end between {times(best['median_ratio'])}× "
                     f"({_recipe(best)}; {min(best['distinct'])}–{max(best['distinct'])} distinct exponents) and "
                     f"{times(worst['median_ratio'])}× ({_recipe(worst)}) of what the heads can reach (the paper "
                     f"profile's recipe: {times(next(r['median_ratio'] for r in rs if r['recipe'] == 'current'))}×), "
                     f"their seeds {' to '.join(map(str, (eff[0], eff[-1])))} effective runs of {len(best['mse'])} and "
                     f"{min(dis)} to {max(dis)} distinct exponents")
    head = (f"**Other recipes** (`benchmarks/rpe_decay_partc_recipes.py`, $S$ = {cells[0]['S']}, a start jittered "
            "wider, random starts, higher learning rates, longer training, a start at the optimum's exponents). "
            + "; ".join(lines) + ". ")
    out = head
    if hits:
        out += (f"Within {within:g}× of what the heads can reach: " + "; ".join(
            f"at {label(Kernel(**c['k']))}, $H$ = {c['H']}, {_recipe(r)} (median {times(r['median_ratio'])}×, seeds "
            f"{times(min(r['ratio']))}× to {times(max(r['ratio']))}×, {r['effective_runs']} effective runs of "
            f"{len(r['mse'])})" for c, r in hits)
            + f". The paper profile's Part C above still uses the original recipe; it is to be recomputed with a recipe "
            f"within {within:g}×. ")
    missed = [c for c in cells if not any(r["within"] for r in c["recipes"])]
    if not missed:
        return out.rstrip()
    trained = max(r["max_abs_c"] for c in missed for r in c["recipes"])
    dis = [n for c in missed for r in c["recipes"] for n in r["distinct"]]
    where = " and ".join(f"{label(Kernel(**c['k']))}, $H$ = {c['H']}" for c in missed)
    start = [f"{times(r['median_ratio'])}×" for c in missed for r in c["recipes"] if r["recipe"] == "at_optimum"]
    return out + (f"No recipe gets within {within:g}× at {where}, "
                  + (f"not even started at the optimum's exponents ({' and '.join(start)}): " if start else ": ")
                  + ("its optimum is a cancellation whose head values reach " if len(missed) == 1 else
                     "their optima are cancellations whose head values reach ")
                  + " and ".join(f"{c['optimum_max_abs_c']:.0e}" for c in missed)
                  + f" (the trained runs' at most {trained:.1f}), and evaluated in float32 "
                  + ("it gives an MSE " if len(missed) == 1 else "they give MSEs ")
                  + " and ".join(f"{times(c['optimum_mse_float32'] / c['reachable'])}×" for c in missed)
                  + " what the heads can reach, so float32 AdamW can neither reach nor hold it: its trained heads keep "
                  f"small values on {min(dis)} to {max(dis)} distinct exponents.")


def _cell(got, rid) -> str:
    if got is None:
        return "not run"
    H, mse, _ = got
    return (f"{fmt(float(np.median(mse)))} ({fmt(min(mse))} – {fmt(max(mse))}), $H$ = {H}: "
            + ("reproduced" if reproduces(rid, mse) else "not reproduced"))


def apph_numbers(P: dict, results: dict) -> str:
    """The paper's four numbers, each beside this run's median (range over seeds) in the heads-only arm and in the
    arm with w0, whether each reproduces it, and the copy-the-current-token baseline of its kernel."""
    if not arms(results):
        return ""
    spec = next(iter(results["apph"].values()))["spec"]
    kernels, rhos = targets_of(spec)
    copy = {k.kind: copy_baseline(rho) for k, rho in zip(kernels, rhos)}
    lines = []
    for rid, (kind, family, which, how) in NUMBERS.items():
        if kind not in copy:
            continue
        paper = (("< " if how == "below" else "") + num(PAPER[rid])
                 + (" (one head)" if which == "min" else " (64 heads)"))
        lines.append([rid, paper] + [_cell(select(P, results, kind, family, which, c), rid) for c in ("none", "free")]
                     + [fmt(copy[kind]), {"none": "heads only", "free": "with w0"}[ARM[rid]]])
    return markdown_table(["row", "paper", "heads only: median (range)", "with w0: median (range)",
                           "copy-the-current-token baseline", "row decided on"], lines)


def apph_findings(P: dict, results: dict) -> str:
    """The Appendix H findings in words, every number from the stored runs (the chapter's test checks them)."""
    heads = {"H4a-log": "4a, log, one head", "H4a-lin": "4a, lin, the most heads", "H4b-lin": "4b, lin, one head",
             "H4b-log": "4b, log, the most heads"}
    return "\n\n".join(f"**{heads[i]}** (row {i}): {text}." for i, f in EXPLAIN.items()
                       if (text := f(P, results)))
