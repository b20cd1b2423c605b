"""Rules held on bootstrap replicates, beside lib.core.rules' Replicates (a direction's share of replicates): a bound
held on a replicate quantile (`Quantile`: "the lower 95% bound of FFN/TR ≥ 2"), and a rule held in each of several
cells at once (`Each`: at each N, for each ratio), whose margin is the weakest cell's or every cell's. A margin is in
units of the replicates' own spread: (mean - bar) / sd of the replicates, signed to the passing side.

    >>> reps = {"N=4": np.r_[np.ones(19), -1.0], "N=6": np.linspace(2, 3, 20)}
    >>> Each(Replicates("TR's lead", strict=True, where="at each $N$")).decide(reps, "TR lowest")
    Verdict(measured='TR lowest; margin +2.1 sd of the replicates (N=4, the weakest)', passed=True, ...)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lib.core.claims import Verdict
from lib.core.rules import Replicates, Rule, number


def z(replicates, at: float = 0.0, sign: int = 1, log: bool = False) -> float:
    """(mean - at) / sd of the replicates (sd over them, ddof 0), signed to the passing side (`sign` -1: below `at`);
    on the log scale with `log`; ±inf where the replicates do not spread."""
    v = np.asarray(replicates, float)
    if log:
        v, at = np.log(v), math.log(at)
    d, sd = sign * (float(v.mean()) - at), float(v.std())
    return d / sd if sd > 0 else math.inf * float(np.sign(d))


@dataclass(frozen=True)
class Quantile(Rule):
    """A bound held on bootstrap replicates: their lower `level` bound (the 1 - level quantile) at least `bar`, or with
    `below` their upper `level` bound at most `bar` (`strict`: > or <). The margin is `z` of the replicates against
    `bar`, on the log scale with `log` (for a ratio).

    >>> Quantile("FFN/TR", bar=2.0, log=True).decide(6.0 * np.exp(np.linspace(-0.1, 0.1, 101))).measured
    'bound 5.484; margin +18.8 sd of the replicates'"""
    bar: float = 0.0
    level: float = 0.95
    below: bool = False
    strict: bool = False
    log: bool = False
    spread: str = "sd of the replicates"

    def condition(self) -> str:
        op = {(False, False): "≥", (False, True): ">", (True, False): "≤", (True, True): "<"}[(self.below, self.strict)]
        return f"{'upper' if self.below else 'lower'} {self.level:.0%} bootstrap bound of {self.what} {op} {number(self.bar)}"

    def bound(self, replicates) -> float:
        """The replicates' lower `level` bound, or with `below` their upper one."""
        return float(np.quantile(np.asarray(replicates, float), self.level if self.below else 1 - self.level))

    def holds(self, replicates) -> bool:
        b, bar = self.bound(replicates), float(self.bar)
        if self.below:
            return b < bar if self.strict else b <= bar
        return b > bar if self.strict else b >= bar

    def margin(self, replicates, spread=None) -> float:
        """`z` against the bar (the rule's spread is the replicates' own: `spread` is not used)."""
        return z(replicates, float(self.bar), -1 if self.below else 1, self.log)

    def margin_text(self, replicates) -> str:
        """"; margin +z sd of the replicates" (lib.core.rules.All appends it for a part given as `(replicates,)`)."""
        return self._margin(self.margin(replicates), None)

    def decide(self, replicates, measured: str = "", **verdict) -> Verdict:
        text = measured or f"bound {self.bound(replicates):.4g}"
        return Verdict(text + self.margin_text(replicates), self.holds(replicates), **verdict)


@dataclass(frozen=True)
class Each:
    """A bootstrap rule (Replicates or Quantile) held in every cell of {label: replicates} (each N, each ratio): it
    passes where every cell does. The margin is the weakest cell's, named (for Replicates the lowest share, then the
    lowest margin; for a Quantile the lowest margin), or with `each` every cell's.

    >>> Each(Replicates("TR's lead", strict=True)).decide({"N=4": np.ones(10), "N=6": np.r_[np.ones(9), -1.0]}).passed
    False"""
    rule: Rule
    each: bool = False

    @property
    def calibration(self) -> str:
        return self.rule.calibration

    @property
    def text(self) -> str:
        return self.rule.text

    def cell(self, replicates) -> tuple[bool, float, float]:
        """(passes, share of replicates on the passing side, margin) of one cell (share 0 for a Quantile)."""
        r = self.rule
        if isinstance(r, Replicates):
            v = np.asarray(replicates, float)
            share = float(np.mean(v > r.bar if r.strict else v >= r.bar))
            return share >= r.level, share, z(v, float(r.bar))
        return r.holds(replicates), 0.0, r.margin(replicates)

    def decide(self, cells: dict, measured: str = "", **verdict) -> Verdict:
        got = {k: self.cell(v) for k, v in cells.items()}
        if self.each and len(got) > 1:
            m = ", ".join(f"{g[2]:+.1f} ({k})" for k, g in got.items() if np.isfinite(g[2]))
            m = f"; margins {m} {self.rule.spread}" if m else ""
        else:
            k = min(got, key=lambda c: got[c][1:])
            m = (f"; margin {got[k][2]:+.1f} {self.rule.spread} ({k}{', the weakest' if len(got) > 1 else ''})"
                 if np.isfinite(got[k][2]) else "")
        text = measured or ", ".join(f"{k}: {g[1]:.1%}" for k, g in got.items())
        return Verdict(text + m, all(g[0] for g in got.values()), **verdict)
