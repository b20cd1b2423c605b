"""The rnn_norm_growth page's words on its claims: the phase table (`phase_markdown`, which writes each d_h* as the
claim rows do) and one bullet per claim row that did not pass (`findings_markdown`), saying from the tables of
results.py what it found and what that means for the theorem. Every number comes from the stored points or the rows'
own rules; page-side, no computation imports this module (claims/__init__ does not either: it imports claims).

    >>> from lib.chapters import stored; P, results = stored("rnn_norm_growth")   # the committed paper results
    >>> from lib.chapters.rnn_norm_growth.claims import claims
    >>> print(phase_markdown(P, results).splitlines()[0][:43])
    | architecture | task | $d_h^*$ ($N$ = 4) |
    >>> print(findings_markdown(P, results, claims(P, results))[:40])
    - `10a-contrast-gru` (bidirectional GRU)
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.rnn_norm_growth.claims import (
    CONTRAST_Z,
    RULE_EFFECTIVE_DIM,
    RULE_NORM,
    RULE_NORM_LOWER,
    _dstar_text,
    _norm,
    _norm_lower,
    _signed,
    contrast_numbers,
)
from lib.chapters.rnn_norm_growth.results import LABELS, norm_table, norm_unknown, packing_table, phase_table
from lib.core.claims import unsettled
from lib.core.tables import markdown_table, named_grid


def phase_markdown(P: dict, results: dict) -> str:
    """The critical width d_h*(N) of every architecture and task ("≤" at the floor or below an undecided width,
    ">" where no width reaches), the runs censored at the cap, the fitted slope and its censoring-aware range."""
    table = phase_table(P, results)
    Ns = table[(P["archs"][0], "1str")]["N"]
    fmt = lambda v: "∞" if v == math.inf else ("−∞" if v == -math.inf else f"{v:.2f}")
    return markdown_table(["architecture", "task", *(f"$d_h^*$ ($N$ = {N})" for N in Ns), "runs censored", "slope",
                           "slope range (censoring)"],
                          [[arch, LABELS[task], *_dstar_text(e).split(", "), e["censored"], f"{e['slope']:.2f}",
                            _interval(e, fmt)] for (arch, task), e in table.items()])


def findings_markdown(P: dict, results: dict, rows: list[dict]) -> str:
    """One bullet per claim row of this run that did not pass, saying from the tables what it found and what that
    means for the theorem (an empty string when every claim passed)."""
    bad, table = unsettled(rows), phase_table(P, results)
    out = [b for arch in P["archs"] for b in _width_findings(P, results, table, arch, bad)]
    out += _norm_findings(P, results, bad) + _packing_findings(packing_table(P, results), bad)
    return "\n".join(f"- {b}" for b in out)


def _width_findings(P: dict, results: dict, table: dict, arch: str, bad: dict) -> list[str]:
    """Claim 10a of one architecture: widths never reached (censored), and a contrast that failed or was left open."""
    one, out = table[(arch, "1str")], []
    unreached = [N for N, hi in zip(one["N"], one["hi"]) if not np.isfinite(hi)]
    if f"10a-width-1str-{arch}" in bad and unreached:
        out.append(f"`10a-width-1str-{arch}` ({LABELS[arch]}), censored: at {named_grid('N', unreached)} no width up to "
                   f"{max(P['widths'])} reached the threshold within the cap of {P['max_samples']:,} samples "
                   f"({one['censored']} runs cut off there), so this architecture's 1STR diagram stops at "
                   f"$N$ = {max([N for N in one['N'] if N < min(unreached)], default='none')}. Growth faster than the "
                   "bound would look like this, and so would a training budget too small for $N$; only a larger cap "
                   "decides which.")
    if f"10a-contrast-{arch}" in bad:
        out.append(_contrast_finding(contrast_numbers(P, results, arch), arch))
    return out


def _interval(e: dict, fmt=_signed) -> str:
    """A slope's censoring-aware range, "[+0.98, +∞]"; the one value where nothing is censored."""
    lo, hi = fmt(e["slope_min"]), fmt(e["slope_max"])
    return lo if lo == hi else f"[{lo}, {hi}]"


def _contrast_finding(c: dict, arch: str) -> str:
    """Claim 10a's contrast: where it failed, the two tasks' widths side by side (their levels differ, their growth
    does not, beyond noise); where censoring left it open, which d* are censored and why."""
    one, simple = c["1str"], c["simple"]
    if c["decision"] == "fail":
        both = [(a, b) for a, b, lo in zip(one["dstar"], simple["dstar"], simple["lo"]) if lo > 0 and np.isfinite(a)]
        level = (f" The tasks differ in level instead: where both are estimated, $d_h^*$ on 1STR is "
                 f"{min(a / b for a, b in both):.1f} to {max(a / b for a, b in both):.1f} times simple-1STR's." if both else "")
        return (f"`10a-contrast-{arch}` ({LABELS[arch]}): on simple-1STR the critical width grows as it does on 1STR, "
                f"$d_h^*$ = {_dstar_text(simple)} against {_dstar_text(one)} at {named_grid('N', one['N'])} (slopes "
                f"{simple['slope']:.2f} and {one['slope']:.2f}). The censoring allows simple-1STR's slope only in "
                f"{_interval(simple)} and 1STR's in {_interval(one)}, so the largest difference any censored value "
                f"allows is {_signed(c['hi'])}, {c['hi'] / c['se']:+.1f} bootstrap SE: short of the {CONTRAST_Z} SE "
                "that the seeds' noise alone gives. A $d_h^*$ at the floor of the grid is a bound that no grid can "
                "refine ($d_h$ = 1 is the narrowest recurrent network); at this scale the trained network's width "
                "grows with $N$ on both tasks alike." + level)
    why = [f"1STR at {named_grid('N', [N for N, h in zip(one['N'], one['hi']) if not np.isfinite(h)])} has no $d_h^*$ "
           "(no width reached the threshold within the cap)"] if not np.all(np.isfinite(one["hi"])) else []
    for name, e in (("1STR", one), ("simple-1STR", simple)):
        floor = [N for N, lo, h in zip(e["N"], e["lo"], e["hi"]) if lo == 0 and np.isfinite(h)]
        if floor:
            why.append(f"{name} at {named_grid('N', floor)} reaches the threshold at the floor $d_h$ = 1, below which there is "
                       "no recurrent network, so its $d_h^*$ there is only a bound")
    return (f"`10a-contrast-{arch}` ({LABELS[arch]}), censored: the slope differences the censoring allows run from "
            f"{_signed(c['lo'])} to {_signed(c['hi'])} (1STR {_interval(one)}, simple-1STR {_interval(simple)}): "
            + "; ".join(why) + ".")


def _norm_findings(P: dict, results: dict, bad: dict) -> list[str]:
    """Claim 10b: the slope of (Lip * rad)^2 at the widest width against the bound's; where N without a value at the
    threshold leave it censored, what the same rules read over the N that have one."""
    ids = [k for k in ("10b-norm-lower", "10b-norm") if k in bad]
    if not ids:
        return []
    nt, unknown = norm_table(P, results)["1str"], norm_unknown(P, results)
    known = sorted(set(nt["N"].astype(int).tolist()))
    slope = f"{nt.get('lipr_slope', float('nan')):.2f}"
    if any(bad[k].get("censored") for k in ids):
        cut = [N for N in P["phase_N"] if N in unknown["none"] + unknown["cut"]]
        over = ""
        if len(known) >= 2:
            sub = {**P, "phase_N": known}
            reads = ", ".join(f"`{k}` {_read(rule.decide(f(sub, results)))}"
                              for k, f, rule in (("10b-norm-lower", _norm_lower, RULE_NORM_LOWER),
                                                 ("10b-norm", _norm, RULE_NORM)))
            over = (f" Over {named_grid('N', known)} alone the slope is {slope} ± {nt['lipr_se']:.2f} (SE), and the same rules "
                    f"read {reads}: the profile's rows decide only with a value at {named_grid('N', cut)}.")
        return [f"{' and '.join(f'`{k}`' for k in ids)}, censored: at {named_grid('N', cut)} the widest runs (width "
                f"{max(P['widths'])}) have no $(\\mathrm{{Lip}}\\cdot\\mathrm{{rad}})^2$ at the threshold (none reached "
                "it within the cap, or some were cut off by it), so the slope over the profile's $N$ could take any "
                "value." + over]
    return [f"{' and '.join(f'`{k}`' for k in ids)}: at width {max(P['widths'])} the runs' "
            r"$(\mathrm{Lip}\cdot\mathrm{rad})^2$ grows with slope "
            f"{slope} over {named_grid('N', known)}, slower than the bound at equality. The proposition bounds the product only "
            r"below an unknown constant and $\log(1+d_h)$, so this refutes the book's reading of it as a slope at the "
            "threshold at this width, not the proposition; its width rows are the direct test."]


def _read(v) -> str:
    return "pass" if v.passed else "censored" if v.censored else "FAIL"


def _packing_findings(pk: dict, bad: dict) -> list[str]:
    """Claim 10c: the participation ratios that do not separate the tasks, and widest runs that never learnt."""
    out = []
    if "10c-effective-dim" in bad:
        pr = lambda task: (f"from {pk[task]['pr'][0]:.1f} to {pk[task]['pr'][-1]:.1f} (slope {pk[task]['slope']:.2f}) "
                           f"over {named_grid('N', pk[task]['N'])}")
        grows, flat = RULE_EFFECTIVE_DIM.parts          # the row's own rule says which part failed
        parts = ([f"on simple-1STR, where one token suffices, it grows {pr('simple')}"] if not flat.holds(pk["simple"]["slope"])
                 else []) + ([f"on 1STR it grows only {pr('1str')}"] if not grows.holds(pk["1str"]["slope"]) else [])
        out.append("`10c-effective-dim`: the participation ratio of the trained states does not separate the tasks "
                   "as this book's hypothesis said: " + "; ".join(parts) + ". The hypothesis reads Proposition 35's "
                   "packing as a dimension, which the proposition does not state.")
    if "10c-separation" in bad and pk["1str"]["unlearned"]:
        out.append(f"`10c-separation`, censored: at {named_grid('N', pk['1str']['unlearned'])} the widest runs never reached "
                   "the threshold, so their replayed outputs are those of networks that did not learn 1STR; the "
                   "proof's event is about networks that did.")
    return out
