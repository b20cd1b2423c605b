"""What the turing_simulation page shows: the exact-simulation summary (its full table folded), the size table, the
low-precision line, the robustness note and the findings of the claim rows that did not pass, read from the points of
lib.chapters.turing_simulation.compute through results.py. The claim rows are in claims/ (the worlds of their power in
claims/power.py), the figures in figures.py; page.claims and page.ROWS are claims', page.power their power table.
Nothing here changes a stored number, so no computation imports it.

    >>> from lib.chapters import stored; P, results = stored("turing_simulation")   # the committed paper results
    >>> rows = claims(P, results); len(rows), [(row['id'], row['passed']) for row in rows][:2]
    (20, [('1-exact', True), ('2-lookup', True)])
    >>> print(exact_table(results).splitlines()[0][:60])
    | machine | T | runs x inputs | steps checked | d | teacher-
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.turing_simulation.claims import FLOOR, ROWS, claims
from lib.chapters.turing_simulation.claims.power import WORLDS
from lib.chapters.turing_simulation.results import exact_rows, robust_arrays, size_rows
from lib.core.claims import explanations
from lib.core.power import power_table
from lib.core.tables import markdown_table, nothing_found

__all__ = ["ROWS", "claims", "exact_summary", "exact_table", "findings", "floor_T", "power", "precision_runs",
           "robust_note", "size_table"]


def exact_summary(results: dict) -> str:
    """The exact simulation in one line per machine (its horizons summed), the full table per machine and horizon
    folded beneath it (56 rows at the paper's scale)."""
    rows = exact_rows(results)
    out = []
    for name in dict.fromkeys(r["name"] for r in rows):
        rs = [r for r in rows if r["name"] == name]
        s = lambda k, rs=rs: sum(r[k] for r in rs)
        Ts = [r["T"] for r in rs]
        out.append([name, f"{min(Ts)} to {max(Ts)}", f"{s('inputs'):,}", f"{s('steps'):,}",
                    s("tf_mismatch") + s("ro_mismatch"), s("nonbinary"), s("lookup_bad"),
                    f"{s('halted'):,}, {s('cls_bad')}"])
    table = markdown_table(["machine", "$T$", "runs", "steps checked", "mismatches (teacher-forced and rollout)",
                            "non-binary activations",
                            "lookup errors", r"halted, $\theta_{cls}$ errors"], out)
    return (f"{table}\n\n:::{{dropdown}} Per machine and horizon ({len(rows)} rows; rollout: inputs rolled out, "
            f"mismatches)\n{exact_table(results)}\n:::")


def exact_table(results: dict) -> str:
    rows = []
    for r in exact_rows(results):
        ro = f"{r['ro_runs']}, {r['ro_mismatch']}" if r["ro_runs"] else "not run"
        rows.append([r["name"], r["T"], f"{r['runs']} x {r['inputs'] // r['runs']}", r["steps"], r["d"], r["tf_mismatch"], ro,
                     r["nonbinary"], r["lookup_bad"], f"{r['halted']}, {r['cls_bad']}"])
    return markdown_table(["machine", "T", "runs x inputs", "steps checked", "d", "teacher-forced mismatches",
                           "rollout (inputs, mismatches)", "non-binary activations", "lookup errors",
                           r"halted, $\theta_{cls}$ errors"], rows)


def size_table(results: dict) -> str:
    return markdown_table(["$T$", "$P$", "depth $d$", "width $w$", "FF hidden", "parameters $p$", r"$\lVert\theta\rVert_1$",
                           r"$\lVert\theta\rVert_\infty$"],
                          [[f"$2^{{{int(round(math.log2(r['T'])))}}}$", r["P"], r["d"], r["w"], r["H"], f"{r['p']:,}",
                            f"{r['l1']:,.0f}", f"{r['linf']:.0f}"] for r in size_rows(results)])


def precision_runs(results: dict) -> str:
    """One line: every low-precision rollout, its mismatches and whether it is bit-exact."""
    runs = results["precision"]["result"]["runs"]
    return ("Low-precision rollouts (hard-max, exact comparison of scores): "
            + "; ".join(f"`{k}`: {v['mismatch']} mismatches, bit-exact {v['bit_exact']}" for k, v in runs.items()) + ".")


def robust_note(results: dict, rows: list[dict]) -> str:
    """A note where the random-direction radius with correction falls with T by more than a fifth, else ""."""
    a = robust_arrays(results, True)
    med = np.nanmedian(a["r"], axis=1)
    if not (len(med) > 1 and med[-1] < 0.8 * med[0]):
        return ""
    bits = ", ".join(f"$P$ = {results['robust'][(T, True)]['result']['d'] - 4} at $T$ = {T}" for T in a["T"])
    return ("```{note}\nThe random-direction radius with correction falls with $T$ in this run "
            f"({bits}), as Theorem 4.1 allows: it bounds the margin by $1/\\mathrm{{poly}}(k, \\lvert A\\rvert, \\log T)$, "
            "independent of the unrolled depth, not of $\\log T$; row `7-polylog-random` tests that the fall is no "
            "faster than a low power of $\\log T$. One likely cause is the null keys, whose entries grow "
            "like $2P - 1$, so a perturbed query moves the null score by an amount that grows with $P$. This chapter has "
            "not isolated the cause. The contrast the correction is for is the exponential collapse without it (rows "
            "`7-collapse`, `7-random-nocorr`: this book's hypothesis, motivated by Claim 3.5).\n```")


def floor_T(results: dict) -> str:
    """The first T at which the uncorrected structured radius t* is at or below the float64 floor (censored), in
    words: "80", or "beyond this run's largest" where it never is."""
    a = robust_arrays(results, False)
    low = a["T"][a["t"] <= FLOOR]
    return str(int(low.min())) if len(low) else "beyond this run's largest"


def findings(P: dict, results: dict, rows: list[dict]) -> str:
    """The finding of each claim row that failed or is censored (its row's own `explain`), as a list; else what the
    claim rows did, in a sentence."""
    found = explanations(ROWS, rows, P, results)
    return "\n".join(f"- {f}" for f in found) if found else nothing_found(rows)


def power(P: dict, results: dict, draws: int) -> list[dict]:
    """The power table of the robustness claims: each row's own rule in the worlds of claims/power.py, `draws`
    simulated results per world."""
    return power_table(ROWS, WORLDS, P, results, draws)
