"""The power of rpe_decay's restated rules (issue 37): rows 14a, 14b and H4a-log to H4b-log run on simulated results
drawn like the stored paper results (lib.chapters.rpe_decay.claims.power says how), from a world with each row's mechanism
and one without it; prints each row's shares of pass / FAIL (/ below scale).

    python benchmarks/rpe_decay_power.py              # 200 simulations per world, about a minute on one core
    python benchmarks/rpe_decay_power.py --sims 50
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))    # run as a script from anywhere, as the docstring says

from lib.chapters.rpe_decay import compute  # noqa: E402
from lib.chapters.rpe_decay.claims import power  # noqa: E402
from lib.chapters.rpe_decay.results.training import train_table, training_floor  # noqa: E402
from lib.core import params  # noqa: E402
from lib.core.store import Store  # noqa: E402
from lib.core.sweep import collect  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=200)
    sims = ap.parse_args().sims
    P = params.resolve("rpe_decay", "paper")
    results = collect(compute.points(P), Store("rpe_decay", "paper"), "cpu", log=lambda s: None)
    fmt = lambda r: "  ".join(f"{k} {v:5.3f}" for k, v in r.items())

    rows = train_table(results)
    groups, floor = power.stored_groups(rows), training_floor(rows)[0]
    print(f"Part C at S = {max(P['train_S'])}, {P['train_seeds']} seeds, {sims} simulations per world (floor {floor:.1e}):")
    worlds = {"14a-train-order": (("the stored runs redrawn", groups),
                                  ("matched RPE a decade lower at every H", power.matched_better(groups)),
                                  ("null: both RPEs drawn like lin", power.unordered(groups))),
              "14b-train-floor": (("the stored runs redrawn", groups),
                                  ("every run at 2x max(optimum, floor)", power.at_reach(groups, floor)),
                                  ("null: log heads collapsed to one", power.collapsed(groups)))}
    for row, ws in worlds.items():
        for name, g in ws:
            shares = power.part_c_shares(power.part_c_world(g, P["train_seeds"]), row, P, sims)
            print(f"  {row:16s} {name:38s} {fmt(shares)}")

    stored = power.stored_apph(results)
    # the effect at the paper's size (H4a-log: a decade under the paper's bound)
    paper = {"H4a-log": ("none", "spow", "log", 1, np.log10(1e-6)),
             "H4a-lin": ("none", "spow", "lin", 64, np.log10(0.19)),
             "H4b-lin": ("none", "sexp", "lin", 1, np.log10(1e-8)), "H4b-log": ("free", "sexp", "log", 64, np.log10(5.3e-4))}
    null = {"H4a-log": ("lin", 1), "H4a-lin": ("log", 1), "H4b-lin": ("log", 64), "H4b-log": ("lin", 1)}
    print(f"Appendix H, {P['apph_seeds']} seeds, {sims} simulations per world (spread: the stored group's, at least "
          f"{power.MIN_SD} decades):")
    for row, (arm, kind, fam, H, centre) in paper.items():
        sd = stored[(arm, kind, fam, H)][1]
        worlds = {"stored runs redrawn": {(arm, kind, fam, H): stored[(arm, kind, fam, H)]},
                  "the paper's number (or a decade under its bound)": {(arm, kind, fam, H): (centre, sd)},
                  f"null: like {null[row][0]} H={null[row][1]} ({arm} arm)": {
                      (arm, kind, fam, H): stored.get((arm, kind, *null[row]), (0.0, sd))}}
        if row == "H4b-log":
            worlds["the copy baseline as the centre"] = {(arm, kind, fam, H): (np.log10(power.COPY_4B), sd)}
        for name, g in worlds.items():
            g = {**g, ("free", "sexp", "lin", 1): stored.get(("free", "sexp", "lin", 1), (-8.0, 0.5))}
            shares = power.apph_shares(power.apph_world(g, P["apph_seeds"]), row, P, sims)
            print(f"  {row:8s} {name:48s} {fmt(shares)}")


if __name__ == "__main__":
    main()
