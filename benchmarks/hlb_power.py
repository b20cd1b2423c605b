"""The power of 5-reach-fraction's rule until 2026-11-26 (a share of at least half) beside today's (a third), in the
worlds claims/power.py declares for it: the page's stored power table gives today's rule alone.

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
    half = dataclasses.replace(row, id="5-reach-fraction (half)", rule=dataclasses.replace(row.rule, bound=Fraction(1, 2)))
    worlds = {row.id: WORLDS[row.id], half.id: WORLDS[row.id]}
    print(to_markdown(power_table([row, half], worlds, P, results, a.draws)))
