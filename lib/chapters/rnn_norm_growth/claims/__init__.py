"""The claim rows of the rnn_norm_growth page (`ROWS`, `claims`, `HEADLINES`): Prop. 8 and 35 on trained networks
here, the checks on hand-built networks (Theorem 7's construction, the Transformer's A.2 scale, Theorem 9's
memoriser) in claims/checks.py. Each row is measured from the stored points (results.py), decided by its rule object
(RULE_*), which writes its text, and explained by its `explain` where it fails or is censored; their power in
claims/power.py. Page-side: no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (16, [('9-exact', True), ('9-drift', True)])
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from lib.chapters.rnn_norm_growth.claims.checks import CONSTRUCTION_ROWS, MEMORISER_ROWS, TRANSFORMER_ROWS
from lib.chapters.rnn_norm_growth.results import (
    BOOT_DRAWS,
    LABELS,
    boot_se,
    contrast_numbers,
    dstar_text,
    norm_table,
    norm_unknown,
    packing_table,
    phase_table,
    signed,
    slope_bootstrap,
    slope_interval,
    unreached_cells,
)
from lib.core.claims import Headline, Measured, Row, evaluate
from lib.core.interval_rules import Beyond, TInterval
from lib.core.rules import EXACT, All, AtLeast, AtMost, Needs, number
from lib.core.tables import named_grid

ARCHS = ("gru", "elman")
BOOT_SE = f"bootstrap SE ({BOOT_DRAWS:,} seed resamples)"   # the margin's unit of the width rows

# The rules, one per row: each threshold typed once, its text generated from it, whose number it is and why beside it.
# Each measure(P, results) below returns what it measured (a Measured), or None where this run has nothing to measure
# it on; the row's rule decides the verdict.
RULE_WIDTH = AtLeast("log-log slope of $d_h^*$ against $N$", 0.5, where="for every $d_h^*$ its censoring allows", ranged=True,
                     spread=BOOT_SE, why=r"Prop. 8's local slope $1 - 1/\log(1+\kappa)$ once $\kappa \gtrsim 6$")
# the contrast's tol: two equal slopes fitted to different points differ by float rounding, not by a contrast
RULE_CONTRAST = Beyond("the log-log slope of $d_h^*$ on 1STR minus simple-1STR's", z=1.645, tol=1e-12,
                       spread="bootstrap SE", why="one-sided 95% normal quantile: beyond the seeds' noise")
# the norm rows' slope runs over every N of the profile: an N whose value at the threshold is unknown lets it take any
# value, so the row is decided only where there is none
NORM_GATE = AtMost("$N$ whose value at the threshold is unknown", 0, by=EXACT,
                   why="no widest run reached it there, or some were cut off by the cap: the slope could take any value")
RULE_NORM_LOWER = Needs(NORM_GATE, TInterval("log-log slope", value=1, side=1, level=0.95,
                                             where="over every $N$ of the profile",
                                             why="Prop. 8's $N$ at a fixed width: growth at least like $N$"))
RULE_NORM = Needs(NORM_GATE, TInterval("log-log slope", value=1, side=0, level=0.95, where="over every $N$ of the profile",
                                       why="the bound's own slope at a fixed width"))
# The chapter's one rule for unlearned N (results.unlearned), which every row that reads the widest runs applies: at
# an N where none of them reached the threshold their numbers are not those of networks that learned, so a value
# there is unknown (any value), a slope through it too, and a row that needs it is censored unless it fails elsewhere.
UNLEARNED = "an $N$ at which no widest run reached the threshold"
RULE_EFFECTIVE_DIM = All((
    AtLeast("slope of the participation ratio on 1STR", 0.5, ranged=True, where=f"(a range: any value with {UNLEARNED})",
            why="half the packing's linear growth, the width rows' bar"),
    AtMost("on simple-1STR", 0.3, ranged=True, where="(its range likewise)",
           why="above what a flat ratio's slope reaches from the seeds' noise alone: the power table's world with "
           "simple-1STR's ratio fixed stays below it")))
# Prop. 35's event E_1 is one-sided (pairwise at least a constant times sqrt(N - 1)), and so is the rule
RULE_SEPARATION = AtLeast(r"median $\lVert\Phi-\Phi'\rVert/\sqrt{2(N-1)}$", 0.6, where="at every $N$",
                          why="a constant, as the proof's; it separates the faithful runs from distances shrinking like "
                          "$N^{-1/2}$", unsure=f"at {UNLEARNED}, its value there unknown")


def _runs(n: int) -> str:
    return f"{n} run" + ("" if n == 1 else "s")


def _larger_grid(P: dict, results: dict, arch: str = "elman") -> str:
    """What decides a row censored by an N at which a diagram stops: no resample supplies a value that no run
    reached, so not more seeds but a larger grid (the cell decided with a larger cap, and the next N)."""
    at = "".join(f"the {LABELS[arch].split(',')[0]}'s {LABELS[c['task']]} diagram decided at $N$ = {c['N']} (about "
                 f"twice the cap, {2 * P['max_samples']:,} samples) and " for c in unreached_cells(P, results)
                 if c["arch"] == arch)
    return (f"more seeds cannot decide it: it needs {at}$N$ = {2 * max(P['phase_N'])} on both tasks with widths up "
            f"to {2 * max(P['widths'])}")


def _trained(arch: str, measure, *args, **kw):
    """`measure(P, results, *args, **kw)` where this run trained `arch`; None (the row left out) where it did not."""
    return lambda P, results: measure(P, results, *args, **kw) if arch in P["archs"] else None


def _needs(arch: str) -> str:
    """A trained row's reason where this run has nothing for it to read (its `needs`)."""
    return f"the {LABELS[arch].split(',')[0]} trained (`archs` listing {arch})"


def _contrast(P, results, arch):
    c = contrast_numbers(P, results, arch)
    a, b, se = c["1str"], c["simple"], c["se"]
    fmt = lambda e: f"{e['slope']:.2f}" + (f" (range {slope_interval(e)})" if "[" in slope_interval(e) else "")
    in_se = (f": {signed(c['lo'] / se)} to {signed(c['hi'] / se)} SE" if se > 0 else "")
    spread = (f"bootstrap SE {se:.2f} ({BOOT_DRAWS:,} seed resamples){in_se}" if np.isfinite(se) else
              f"no bootstrap SE (most of {BOOT_DRAWS:,} seed resamples lack a $d_h^*$ at some $N$)")
    text = (f"1STR {fmt(a)}, simple-1STR {fmt(b)}; difference from {signed(c['lo'])} to {signed(c['hi'])} "
            f"over the slopes the censoring allows, {spread}")
    return Measured(text=text, lo=c["lo"], hi=c["hi"], spread=se, where=named_grid("N", a["N"]), censored=(
        f"the allowed differences straddle {number(RULE_CONTRAST.z)} SE ({_runs(a['censored'] + b['censored'])} "
        "censored at the cap, or a $d_h^*$ at an end of the grid)" + (f"; {_larger_grid(P, results, arch)}" if any(
            c["arch"] == arch for c in unreached_cells(P, results)) else "")))


# Prop. 8's bounds in the "paper" column: two formulas, not one, because a table column on paper breaks a line only
# between them (MathJax does not wrap a formula; the one-formula version ran past its column in the PDF).
KAPPA = r"$\kappa = \mathfrak L^2\lVert U\rVert_{op}^2$"
KAPPA_BOUND = r"Prop. 8: $d_h \gtrsim N/\log(1+\kappa)$, " + KAPPA


def _width_1str(P, results, arch):
    e = phase_table(P, results)[(arch, "1str")]
    low = (f"slope at least {e['slope_min']:.2f}" if np.isfinite(e["slope_min"]) else
           "slope unbounded below (a length without $d_h^*$ allows any)")
    bound = lambda x: f"{x:.2f}" if np.isfinite(x) else "unbounded"      # a censoring-aware slope bound, as read
    # failing only through its censored widths (the largest slope they allow would pass): the range straddles
    return Measured(e["slope_min"], f"{low} (censoring-aware; {e['slope']:.2f} through the estimates); "
                    f"$d_h^*$ = {dstar_text(e)}; {_runs(e['censored'])} censored at the cap",
                    spread=boot_se(slope_bootstrap(P, results, arch, "1str", seed=1)),
                    lo=e["slope_min"], hi=e["slope_max"], paper=KAPPA_BOUND + " (a lower bound)",
                    where=f"threshold {P['threshold']}; {named_grid('N', e['N'])}",
                    censored=f"the censoring-aware range [{bound(e['slope_min'])}, {bound(e['slope_max'])}] "
                             f"straddles {number(RULE_WIDTH.bound)}; {_larger_grid(P, results, arch)}")


def _norm(P, results, paper: str, at_threshold: bool) -> Measured | None:
    """Rows 10b-norm*: the slope of (Lip rad)^2 with its SE and dof, and as the gate the number of N whose value at
    the threshold is unknown (norm_unknown)."""
    nt = norm_table(P, results)["1str"]
    if "lipr" not in nt:
        return None
    slope, se, dof = nt["lipr_slope"], nt["lipr_se"], len(nt["lipr"]) - 2
    unknown = norm_unknown(P, results)
    text = (f"slope {slope:.2f}" + (f" ± {se:.2f} (SE)" if np.isfinite(se) else "")
            + f" over {len(nt['lipr'])} runs at {named_grid('N', sorted(set(nt['N'].astype(int).tolist())))}"
            + "; for comparison "
            f"$(\\mathfrak L\\lVert U\\rVert_{{op}} r_h)^2$: slope {nt['slope']:.2f}, and the samples these runs took to "
            f"reach the threshold: slope {nt['samples_slope']:.2f}")
    parts = ([f"at {named_grid('N', unknown['none'])} no widest run reached the threshold within the cap"]
             if unknown["none"] else []) + ([f"at {named_grid('N', unknown['cut'])} some widest runs were cut off by the "
                                             "cap"] if unknown["cut"] else [])
    censored = ("; ".join(parts) + f": the value there is unknown, so the slope over {named_grid('N', sorted(P['phase_N']))} "
                f"could take any value; {_larger_grid(P, results)}" if parts else "")
    return Measured(slope, text, spread=se, n=dof, gate=len(unknown["none"]) + len(unknown["cut"]), censored=censored,
                    paper=paper, where=f"width {max(P['widths'])}" + (f", threshold {P['threshold']}" if at_threshold else ""))


def _effective_dim(P, results):
    pk = packing_table(P, results)
    pr = lambda e: ", ".join(f"{v:.1f}" for v in e["pr"])
    # UNLEARNED: a slope through an N whose widest runs did not learn could take any value
    part = lambda e: Measured(e["slope"], lo=-math.inf if e["unlearned"] else e["slope"],
                              hi=math.inf if e["unlearned"] else e["slope"],
                              censored=f"{e['task']} reads {named_grid('N', e['unlearned'])}, unlearned; "
                                       + _larger_grid(P, results))
    p1, ps = ({**pk[t], "task": LABELS[t]} for t in ("1str", "simple"))
    return Measured((part(p1), part(ps)), f"1STR slope {p1['slope']:.2f} (PR {pr(p1)}); simple slope "
                    f"{ps['slope']:.2f} (PR {pr(ps)})" + _unlearned_text(pk),
                    paper="Prop. 35: the state is a packing of $e^{cN}$ points; simple-1STR needs one token")


def _unlearned_text(pk, tasks=("1str", "simple")) -> str:
    parts = [f"{LABELS[task]} {named_grid('N', pk[task]['unlearned'])}" for task in tasks if pk[task]["unlearned"]]
    return f"; no widest run reached the threshold at {' and '.join(parts)}" if parts else ""


def _separation(P, results):
    p1 = packing_table(P, results)["1str"]
    unsure = np.isin(p1["N"], p1["unlearned"])
    bad = [N for N, v in zip(p1["N"], p1["dist_median"]) if not RULE_SEPARATION.holds(v)]
    # UNLEARNED: the value at such an N is unknown (NaN), whatever the unlearned networks gave
    return Measured(np.where(unsure, np.nan, p1["dist_median"]),
                    ", ".join(f"$N$ = {N}: {v:.2f}" for N, v in zip(p1["N"], p1["dist_median"]))
                    + " (labels: " + ", ".join(f"{v:.2f}" for v in p1["g_dist_median"]) + ")"
                    + _unlearned_text({"1str": p1}, ("1str",)), unsure=unsure,
                    censored=f"{named_grid('N', p1['unlearned'])} unlearned" + (
                        f"; below the bar only there ({named_grid('N', bad)})" if bad else "") + "; "
                    + _larger_grid(P, results),
                    paper=r"Prop. 35, event $E_1$: pairwise ≥ $\varepsilon_g\sqrt{N-1}$")


# ------------------------------------------------------------------- explain: each row's finding where it does not pass
def _explain_width(P, results, row, arch):
    one = phase_table(P, results)[(arch, "1str")]
    unreached = [N for N, hi in zip(one["N"], one["hi"]) if not np.isfinite(hi)]
    if not unreached:
        return row.get("censored", "")
    return (f"at {named_grid('N', unreached)} no width up to {max(P['widths'])} reached the threshold within the "
            f"cap of {P['max_samples']:,} samples ({_runs(one['censored'])} cut off there), so the 1STR diagram "
            f"stops at $N$ = {max([N for N in one['N'] if N < min(unreached)], default='none')}. Growth faster "
            "than the bound would look like this, and so would a training budget too small for $N$; only a "
            "larger cap decides which.")


def _explain_contrast(P, results, row, arch):
    c = contrast_numbers(P, results, arch)
    one, simple = c["1str"], c["simple"]
    w0 = min(P["widths"])                                   # the floor of the grid
    floor = [f"{LABELS[t]} reaches the threshold at the floor $d_h$ = {w0} at {named_grid('N', Ns)}, so its $d_h^*$ "
             "there is only a bound" for t, e in (("1str", one), ("simple", simple))
             if (Ns := [N for N, lo, h in zip(e["N"], e["lo"], e["hi"]) if lo == 0 and np.isfinite(h)])]
    open_ = [N for N, h in zip(one["N"], one["hi"]) if not np.isfinite(h)]
    why = "; ".join(([f"1STR at {named_grid('N', open_)} has no $d_h^*$ (no width reached the threshold within "
                      "the cap)"] if open_ else []) + floor)
    if row.get("censored"):
        return (f"censored: the slope differences the censoring allows run from {signed(c['lo'])} to "
                f"{signed(c['hi'])} (1STR {slope_interval(one)}, simple-1STR {slope_interval(simple)}): {why}.")
    both = [a / b for a, b, lo in zip(one["dstar"], simple["dstar"], simple["lo"]) if lo > 0 and np.isfinite(a)]
    return (f"on simple-1STR the critical width grows as it does on 1STR, $d_h^*$ = {dstar_text(simple)} against "
            f"{dstar_text(one)} at {named_grid('N', one['N'])} (slopes {simple['slope']:.2f} and "
            f"{one['slope']:.2f}). The largest difference any censored value allows is {signed(c['hi'])}, "
            f"{c['hi'] / c['se']:+.1f} bootstrap SE: short of the {RULE_CONTRAST.z} SE the seeds' noise alone "
            "gives." + (f" {why[0].upper() + why[1:]}." if why else "") + (
                " With the smallest allowed difference at −∞ the row cannot pass on this grid, whatever the "
                "runs' noise: the rule tests the contrast only at $N$ where simple-1STR's $d_h^*$ leaves the "
                f"floor, so a pass needs a grid whose smallest $N$ puts it above width {w0}. A FAIL that stands needs "
                "more seeds per cell (the row's note says whether they would do) or more lengths: with $N$ = "
                f"{2 * max(P['phase_N'])} on both tasks and widths up to {2 * max(P['widths'])}, each slope rests on "
                f"{len(P['phase_N']) + 1} lengths."
                if c["lo"] == -math.inf else "") + (
                " The tasks differ in level instead: where both are estimated, $d_h^*$ on 1STR is "
                + " to ".join(dict.fromkeys(f"{x:.1f}" for x in (min(both), max(both)))) + " times simple-1STR's."
                if both else ""))


def _explain_norm(P, results, row):
    """Beyond the row's note: what its rule reads over the N that have a value, or what a failure refutes."""
    nt = norm_table(P, results)["1str"]
    known, grid = sorted(set(nt["N"].astype(int).tolist())), named_grid("N", sorted(P["phase_N"]))
    if not row.get("censored"):
        return (rf"at width {max(P['widths'])} the runs' $(\mathrm{{Lip}}\cdot\mathrm{{rad}})^2$ grows with slope "
                f"{nt['lipr_slope']:.2f} over {grid}, outside the rule. The proposition bounds the product only below "
                r"an unknown constant and $\log(1+d_h)$, so this refutes the book's reading of it as a slope at the "
                "threshold at this width, not the proposition.")
    same = {r.id: r for r in TRAINED_ROWS}[row["id"]]        # the row itself, its measure and rule on the known N
    v = same.decide({**P, "phase_N": known}, results) if len(known) >= 2 else None
    return (f"over {named_grid('N', known)} alone, where the widest runs have a value, the slope is "
            f"{nt['lipr_slope']:.2f} ± {nt['lipr_se']:.2f} (SE) and the same rule reads "
            f"{'pass' if v.passed else 'censored' if v.censored else 'FAIL'}; the row decides only with a value at "
            f"each of {grid}." if v else "fewer than two $N$ have a value at the threshold.")


def _explain_effective_dim(P, results, row):
    pk = packing_table(P, results)
    said = [f"on {LABELS[t]} it grows from {pk[t]['pr'][0]:.1f} to {pk[t]['pr'][-1]:.1f} (slope {pk[t]['slope']:.2f})"
            + (f", but no widest run learned at {named_grid('N', pk[t]['unlearned'])}, so that slope is undecided"
               if pk[t]["unlearned"] else "" if part.holds(pk[t]["slope"]) else ", against the rule")
            for t, part in zip(("simple", "1str"), RULE_EFFECTIVE_DIM.parts[::-1])]
    return (f"over {named_grid('N', pk['1str']['N'])}, the participation ratio of the trained states does not "
            "separate the tasks as this book's hypothesis said: " + "; ".join(said) + ". The hypothesis reads "
            "Proposition 35's packing as a dimension, which the proposition does not state.")


def _explain_separation(P, results, row):
    p1 = packing_table(P, results)["1str"]
    if not p1["unlearned"]:
        low = [N for N, v in zip(p1["N"], p1["dist_median"]) if not RULE_SEPARATION.holds(v)]
        return (f"the replayed outputs come closer than the bar at {named_grid('N', low)}: the trained states do not "
                "keep the answers apart as the proof's event needs.")
    return (f"the widest runs at {named_grid('N', p1['unlearned'])} never reached the threshold, so their replayed "
            "outputs are those of networks that did not learn 1STR; the proof's event is about networks that did.")


# Theorem 7's width qd is the state of its 4-layer ReLU transition (Prop. 26), not of a one-layer tanh or GRU cell,
# and the book has no construction in those cells: no row holds trained widths to qd; the contrast reads Theorem 7's
# fixed width as this book's hypothesis for them.
CONTRAST_SOURCE = ("hypothesis (this book): Prop. 8's growth on 1STR against Theorem 7's width fixed in $N$ on "
                   "simple-1STR, read for trained tanh and GRU cells")
HYP_BOUND = ("hypothesis (this book): Prop. 8's lower bound read as a slope (the bound holds only below an unknown "
             "constant)")
TRAINED_ROWS = [row for arch in ARCHS for row in (
    Row(f"10a-width-1str-{arch}", "claim", HYP_BOUND, f"{LABELS[arch]}: the critical width $d_h^*(N)$, "
        "the narrowest width whose median best test MSE, trained until it reaches the threshold or plateaus, reaches "
        "the threshold on 1STR, grows at least as fast as the bound", RULE_WIDTH, _trained(arch, _width_1str, arch),
        explain=partial(_explain_width, arch=arch), needs=_needs(arch)),
    Row(f"10a-contrast-{arch}", "claim", CONTRAST_SOURCE,
        f"{LABELS[arch]}: the critical width grows faster in $N$ on 1STR than on simple-1STR", RULE_CONTRAST,
        _trained(arch, _contrast, arch), explain=partial(_explain_contrast, arch=arch), needs=_needs(arch)))] + [
    Row("10b-norm-lower", "claim", HYP_BOUND, r"Elman RNN of the widest width, at the test-MSE threshold on 1STR: "
        r"$(\mathrm{Lip}\cdot\mathrm{rad})^2$, the readout's Lipschitz constant on the states it sees times their "
        r"radius (Prop. 8's $\mathfrak L\lVert U\rVert_{op} r_h$ measured on the states, unchanged by trading scale "
        "between the states and $U$), grows at least like $N$", RULE_NORM_LOWER, _trained(
            "elman", _norm, r"Prop. 8: $\kappa r_h^2 \gtrsim N/\log(1+d_h)$, " + KAPPA + ", below an unknown constant",
            at_threshold=True), explain=_explain_norm, needs=_needs("elman")),
    Row("10b-norm", "claim", "hypothesis (this book): Prop. 8 at equality, which the paper does not state (it gives "
        "only the lower bound)",
        r"The same $(\mathrm{Lip}\cdot\mathrm{rad})^2$ grows like the bound, $N/\log(1+d_h)$: trained runs at the "
        "threshold sit near it", RULE_NORM, _trained("elman", _norm, r"Prop. 8 at equality: $N/\log(1+d_h)$, slope 1 "
                                                      "at a fixed width", at_threshold=False), explain=_explain_norm,
        needs=_needs("elman")),
    Row("10c-effective-dim", "claim", "hypothesis (this book): Prop. 35's packing read as a dimension, which the "
        "proposition does not state",
        "Participation ratio of the states $s_j$ (widest Elman runs) grows with $N$ on 1STR, not on simple-1STR",
        RULE_EFFECTIVE_DIM, _trained("elman", _effective_dim), explain=_explain_effective_dim, needs=_needs("elman")),
    Row("10c-separation", "claim", "Prop. 35 (event $E_1$ of its proof: pairwise at least "
        r"$\varepsilon_g\sqrt{N-1}$, a constant $\varepsilon_g$)",
        r"Replayed outputs $\Phi(s_j)\in\mathbb R^{N-1}$ of different prompts stay apart on the scale of the labels "
        r"(widest Elman runs): the median $\lVert\Phi-\Phi'\rVert/\sqrt{2(N-1)}$ stays above a constant at every $N$",
        RULE_SEPARATION, _trained("elman", _separation),
        explain=_explain_separation, needs=_needs("elman")),
]
ROWS = CONSTRUCTION_ROWS + TRAINED_ROWS + TRANSFORMER_ROWS + MEMORISER_ROWS
# The paper's headline claims and the rows that test them, every claim row in one; this book's own readings apart.
HEADLINES = (
    Headline("Theorem 7: a fixed-width RNN built by hand answers simple-qSTR exactly",
             tuple(r.id for r in CONSTRUCTION_ROWS)),
    Headline("Prop. 8: the width a trained RNN needs on 1STR grows at least like the prompt length",
             tuple(f"10a-width-1str-{arch}" for arch in ARCHS)),
    Headline("Prop. 8: at a fixed width, the readout's norm on the states grows at least like the prompt length",
             ("10b-norm-lower",)),
    Headline("Prop. 35: a trained RNN's states keep different prompts' answers apart", ("10c-separation",)),
    Headline("This book's reading of Prop. 8 and Theorem 7: the width grows faster on 1STR than on simple-1STR",
             tuple(f"10a-contrast-{arch}" for arch in ARCHS)),
    Headline("This book's readings: the readout's norm sits at Prop. 8's bound; the states' dimension grows on 1STR "
             "only", ("10b-norm", "10c-effective-dim")),
    Headline("Theorem 9: a memorising network's squared norm grows like the cube of its training set's size",
             tuple(r.id for r in MEMORISER_ROWS)),
)


def claims(P: dict, results: dict) -> list[dict]:
    return evaluate(ROWS, P, results)
