"""Sparse variable creation: what the notebook calls, in one place, so that it reads one module beside figures.py:
the tables of the stored points (`b2_table`, `and_summary`, `norm_summary`, `minimal_R_fit`: results.py), the claim
rows and their power (`claims`, `HEADLINES`: claims/; `power`: each row's rule in its worlds, claims/power.py), the
findings under the claim table (`findings`: each unsettled row's own explanation, with its faithful rates; what larger
grids decide, `grids_say`), what a
profile leaves out of the paper's runs (`paper_omissions`) and the rows' rule objects that the prose quotes
(`ROWS_BY_ID`). Page-side: no computation imports these modules, so editing them leaves stored results current.

    >>> from lib.chapters import stored; P, results = stored("sparse_variable_creation")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (21, [('A1', True), ('A2', True)])
    >>> findings(P, results, rows).splitlines()[0][:34], paper_omissions(P).splitlines()[0][:22]
    ('- `A11a`: with 12 trials per $(T, ', '- `and_T`: 100, 200, 4')
"""
from __future__ import annotations

from lib.chapters.sparse_variable_creation.claims import HEADLINES, ROWS, UPPER_Z, claims
from lib.chapters.sparse_variable_creation.claims.power import GRID_WORLDS, GRIDS, WORLDS
from lib.chapters.sparse_variable_creation.results import (
    PAPER,
    and_summary,
    attention_on_planted,
    b2_table,
    minimal_R_fit,
    norm_summary,
)
from lib.core import gate
from lib.core.claims import explained
from lib.core.power import power_table
from lib.core.tables import listing

__all__ = ["HEADLINES", "PAPER", "ROWS_BY_ID", "UPPER_Z", "and_summary", "attention_on_planted", "b2_table", "claims",
           "findings", "grid_says", "grids_say", "minimal_R_fit", "norm_summary", "paper_omissions", "power"]

ROWS_BY_ID = {r.id: r for r in ROWS}    # the rows' rule objects, for the prose that quotes a threshold


def share(x: float) -> str:
    """A share as the power table writes it: 99.5% is not 100%."""
    return f"{x:.0%}" if round(x, 2) == x else f"{x:.1%}"


def power(P: dict, results: dict, draws: int) -> list[dict]:
    """The power table: every row that declares worlds (claims/power.py) and that this run measures (A12 needs T =
    400), its own rule run on `draws` result sets drawn from each world (lib.core.power.power_table)."""
    measured = {r.id for r in ROWS if r.id in WORLDS and r.measure(P, results) is not None}
    return power_table(ROWS, {i: w for i, w in WORLDS.items() if i in measured}, P, results, draws)


def findings(P: dict, results: dict, rows: list[dict], power: list | None = None) -> str:
    """One bullet per claim row that FAILs, reads censored or is left undecided by its power (its own explanation,
    lib.core.claims.explained), each with its faithful world's rates where the power table has them; A11c's with what
    the larger grids drawn from the fitted laws decide (`grids_say`)."""
    shown = [t for t in power or [] if t.get("seeds_times", 1) == 1]
    faithful = {t["row"]: t for t in reversed(shown) if t.get("role") == "faithful"}     # each row's first such world
    rate = lambda t: (f" On the stored runs resampled ({t['draws']} draws) the rule passes {share(t['pass'])}, FAILs "
                      f"{share(t['fail'])} and is censored {share(t['censored'])}.")
    out = []
    for rid, text in explained(ROWS, rows, P, results).items():
        grids = grids_say(shown) if rid == "A11c" else ""
        out.append(f"`{rid}`: {text}" + (rate(faithful[rid]) if rid in faithful else "") + (f" {grids}" if grids else ""))
    return "\n".join(f"- {b}" for b in out)


def grids_say(power: list) -> str:
    """What each larger grid of A11c's power (claims/power.GRIDS) decides, drawn from the log and the sqrt T laws
    fitted to this run's cells, in plain words ("" where the table has none of them)."""
    rate = {t["world"]: t for t in power if t["row"] == "A11c" and t.get("seeds_times", 1) == 1}
    said = []
    for words in GRIDS:
        log, sqrt = (rate.get(GRID_WORLDS[(words, name)].name) for name in ("log", "power"))
        if log and sqrt:
            could = log["pass"] >= gate.WITH and sqrt["pass"] <= gate.WITHOUT     # the gate's bounds
            said.append(f"on {words}, in {share(log['pass'])} of {log['draws']} draws from the log law and "
                        f"{share(sqrt['pass'])} from the √T law ({'it decides' if could else 'it does not decide'})")
    return f"Drawn from the two laws fitted to this run's cells, A11c's rule favours log T {'; '.join(said)}." if said else ""


def grid_says(P: dict, rows: list[dict], power: list | None = None) -> str:
    """The first screen's sentence on what this run's grid decides about the growth of the samples needed, m* (A13b,
    A11b), and what it cannot (A11c), with what larger grids drawn from the laws fitted to this run's cells decide."""
    r = {x["id"]: x for x in rows}
    if not {"A11b", "A11c", "A13b"} <= set(r):
        return ""
    def said(i, claim):
        open_ = r[i].get("censored") or r[i].get("undecided")
        return (f"leave open whether {claim}" if open_ else f"decide that {claim}" if r[i]["passed"]
                else f"find against \"{claim}\"") + f" ({i})"
    law = ("cannot tell log T from √T" if r["A11c"].get("censored") or r["A11c"].get("undecided") else
           "favour log T" if r["A11c"]["passed"] else "favour a law other than log T")
    grows, linear = said("A13b", "m∗ grows with T"), said("A11b", "m∗ grows slower than T")
    both = linear.replace("decide that", "that", 1) if grows.startswith("decide") else linear
    text = (f"On this run's grid (T = {listing(P['and_T'])}, {P['and_trials']} trials per (T, m)) the success "
            f"counts {grows} and {both}; they {law} (A11c).")
    grids = grids_say(power or [])
    return text + (f" {grids}" if grids else "")


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
