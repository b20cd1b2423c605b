"""Rules held on bootstrap replicates: a direction (`Replicates`: the share of replicates at or above a bar, at least
`level`), a bound held on a replicate quantile (`Quantile`: "the lower 95% bound of FFN/TR ≥ 2"), and a rule held in
each of several cells at once (`Each`: at each N, for each ratio), whose margin is the weakest cell's or every
cell's. A margin is in units of the replicates' own spread: (mean - bar) / sd of the replicates, signed to the passing side.

    >>> reps = {"N=4": np.r_[np.ones(19), -1.0], "N=6": np.linspace(2, 3, 20)}
    >>> Each(Replicates("TR's lead", strict=True, where="at each $N$")).decide(Measured(reps, "TR lowest"))
    Verdict(measured='TR lowest; margin +2.1 sd of the replicates (N=4, the weakest)', passed=True, ...)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lib.core.claims import Measured
from lib.core.rules import Decides, Rule, number


def z(replicates, at: float = 0.0, sign: int = 1, log: bool = False) -> float:
    """(mean - at) / sd of the replicates (sd over them, ddof 0), signed to the passing side (`sign` -1: below `at`);
    on the log scale with `log`; ±inf where the replicates do not spread."""
    v = np.asarray(replicates, float)
    if log:
        v, at = np.log(v), math.log(at)
    d, sd = sign * (float(v.mean()) - at), float(v.std())
    return d / sd if sd > 0 else math.inf * float(np.sign(d))


@dataclass(frozen=True)
class Replicates(Rule):
    """A direction on a bootstrap: the share of replicates (`value`) of the statistic at or above `bar` (above,
    `strict`) is at least `level`; the margin is (mean - bar) / sd of the replicates.

    >>> Replicates("TR's lead", bar=0.0, level=0.95, strict=True).decide(Measured(np.r_[np.ones(99), -1.0])).passed
    True
    """
    bar: float = 0.0
    level: float = 0.95
    strict: bool = False
    spread: str = "sd of the replicates"

    def condition(self) -> str:
        return f"{self.what} {'>' if self.strict else '≥'} {number(self.bar)} in ≥ {self.level:.0%} of bootstrap replicates"

    def share(self, replicates) -> float:
        v = np.asarray(replicates, float)
        return float(np.mean(v > self.bar if self.strict else v >= self.bar))

    def shown(self, m: Measured) -> str:
        return f"{self.share(m.value):.1%} of {len(np.asarray(m.value))} replicates"

    def margin_text(self, m: Measured) -> str:
        margin = z(m.value, float(self.bar))
        return f"; margin {margin:+.1f} {self.spread}" if np.isfinite(margin) else ""

    def outcome(self, m: Measured) -> bool | str:
        return self.share(m.value) >= self.level


@dataclass(frozen=True)
class Quantile(Rule):
    """A bound held on bootstrap replicates (Measured.value): their lower `level` bound (the 1 - level quantile) at
    least `bar`, or with `below` their upper `level` bound at most `bar` (`strict`: > or <). The margin is `z` of the
    replicates against `bar`, on the log scale with `log` (for a ratio).

    >>> Quantile("FFN/TR", bar=2.0, log=True).decide(Measured(6.0 * np.exp(np.linspace(-0.1, 0.1, 101)))).measured
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

    def margin_text(self, m: Measured) -> str:
        """"; margin +z sd of the replicates"."""
        return self._margin(self.margin(m.value), None)

    def shown(self, m: Measured) -> str:
        return f"bound {self.bound(m.value):.4g}"

    def outcome(self, m: Measured) -> bool | str:
        return self.holds(m.value)


@dataclass(frozen=True)
class Each(Decides):
    """A bootstrap rule (Replicates or Quantile) held in every cell of {label: replicates} (Measured.value: each N,
    each ratio): it
    passes where every cell does. The margin is the weakest cell's, named (for Replicates the lowest share, then the
    lowest margin; for a Quantile the lowest margin), or with `each` every cell's.

    >>> Each(Replicates("TR's lead", strict=True)).decide(Measured({"N=4": np.ones(10), "N=6": np.r_[np.ones(9), -1.0]})).passed
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
            share = r.share(replicates)
            return share >= r.level, share, z(replicates, float(r.bar))
        return r.holds(replicates), 0.0, r.margin(replicates)

    def shown(self, m: Measured) -> str:
        return ", ".join(f"{k}: {self.cell(v)[1]:.1%}" for k, v in m.value.items())

    def margin_text(self, m: Measured) -> str:
        got = {k: self.cell(v) for k, v in m.value.items()}
        if self.each and len(got) > 1:
            t = ", ".join(f"{g[2]:+.1f} ({k})" for k, g in got.items() if np.isfinite(g[2]))
            return f"; margins {t} {self.rule.spread}" if t else ""
        k = min(got, key=lambda c: got[c][1:])
        return (f"; margin {got[k][2]:+.1f} {self.rule.spread} ({k}{', the weakest' if len(got) > 1 else ''})"
                if np.isfinite(got[k][2]) else "")

    def outcome(self, m: Measured) -> bool | str:
        return all(self.cell(v)[0] for v in m.value.values())
