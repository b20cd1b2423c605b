"""The power of 5-reach-fraction's rule at its bar (half of the H >= q runs) beside the bars of a third and two
thirds, in the worlds claims/power.py declares for it: which bar separates the resampled runs from runs that reach by
luck (the page's stored power table gives the row's own bar alone).

    PYTHONPATH=. .venv/bin/python benchmarks/hlb_power.py --draws 200      # reads the committed paper results
"""
from __future__ import annotations

import argparse
import dataclasses
from fractions import Fraction

from lib.chapters import stored
from lib.chapters.head_lower_bound.claims import ROWS
from lib.chapters.head_lower_bound.claims.power import WORLDS
from lib.core.power import power_table, to_markdown

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=200)
    a = ap.parse_args()
    P, results = stored("head_lower_bound")
    row = next(r for r in ROWS if r.id == "5-reach-fraction")
    bars = [dataclasses.replace(row, id=f"5-reach-fraction (bar {b})", rule=dataclasses.replace(row.rule, bound=b))
            for b in (Fraction(1, 3), Fraction(1, 2), Fraction(2, 3))]
    print(to_markdown(power_table(bars, {r.id: WORLDS[row.id] for r in bars}, P, results, a.draws, more_seeds=False)))
