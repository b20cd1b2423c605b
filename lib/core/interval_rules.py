"""Three more rules of lib.core.rules (kept apart: rules.py is at its 400 lines), each a frozen object that decides a
row's verdict and writes the rule's text from the same fields:

- Near: a value equal to a target a proof or a table fixes, to within a tolerance.
- Beyond: a difference known only within [lo, hi] (censoring) above z times its SE: pass, FAIL or censored.
- TInterval: a fitted value against a reference within its Student-t margin (one- or two-sided).

    >>> TInterval("slope", value=1, side=1, where="over every $N$").quoted(4)
    "slope ≥ 1 − 2.13 SE (95% one-sided $t$, 4 dof) over every $N$ (book's calibration)"
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import t as student_t

from lib.core.claims import Verdict
from lib.core.rules import Rule, number, shown


@dataclass(frozen=True)
class Near(Rule):
    """A value (every value of an array) equal to `target` to within `tol`: |value - target| < tol (≤ where not
    `strict`), for a number a proof or a table fixes.

    >>> Near("root", 1.0101, tol=1e-4).decide(1.01008).passed
    True
    """
    target: float = 0.0
    tol: float = 0.0
    strict: bool = True

    def condition(self) -> str:
        return f"{self.what} = {number(self.target)} (to {'<' if self.strict else '≤'} {number(self.tol)})"

    def holds(self, v) -> bool:
        d = np.abs(np.asarray(v, float) - float(self.target))
        return bool(np.all(d < self.tol) if self.strict else np.all(d <= self.tol))

    def decide(self, value, measured: str = "", **verdict) -> Verdict:
        return Verdict(measured or shown(value), self.holds(value), **verdict)


@dataclass(frozen=True)
class Beyond(Rule):
    """A difference beyond noise, where censoring leaves it known only within [lo, hi]: above `z` times its spread
    (the SE of the difference) for every value in [lo, hi] passes; not even hi above it fails (with no finite
    spread nothing passes, and only hi ≤ 0 fails); else censored. `tol` forgives float rounding (in the difference's
    units). The margin is lo / SE - z, where finite.

    >>> Beyond("slope difference", z=1.645).decide(0.5, 0.9, 0.2).passed
    True
    """
    z: float = 1.645
    tol: float = 0.0
    spread: str = "SE"

    def condition(self) -> str:
        return (f"{self.what} > {number(self.z)} {self.spread} for every value its censoring allows; FAIL where "
                "none gets there; censored between")

    def side(self, lo: float, hi: float, se: float) -> str:
        """"pass", "fail" or "censored" (the decision alone, for callers that simulate it)."""
        noise = self.z * se if np.isfinite(se) else math.nan
        if np.isfinite(noise) and lo > noise + self.tol:
            return "pass"
        if hi <= (noise if np.isfinite(noise) else 0.0) + self.tol:
            return "fail"
        return "censored"

    def decide(self, lo: float, hi: float, se: float, measured: str = "", censored: str = "", **verdict) -> Verdict:
        s = self.side(lo, hi, se)
        m = lo / se - self.z if np.isfinite(se) and se > 0 else math.nan
        text = (measured or f"{lo:.3g} to {hi:.3g}") + self._margin(m, None)
        if s == "censored":
            return Verdict(text, False, censored=censored or f"the allowed values straddle {number(self.z)} {self.spread}",
                           **verdict)
        return Verdict(text, s == "pass", **verdict)


@dataclass(frozen=True)
class TInterval(Rule):
    """A fitted value (with its SE and degrees of freedom) against `value` within its Student-t margin at `level`:
    side +1, at least value - t SE (one-sided); side -1, at most value + t SE (one-sided); side 0, within
    value ± t SE (two-sided). A value or SE that is not finite fails. `quoted` is the rule with this fit's t in it.
    The measured text gives the distance from `value` in SE and the margin, the distance past the bar in SE.

    >>> TInterval("slope", value=1, side=1).decide(0.8, 0.1, 4).passed
    True
    """
    value: float = 0.0
    side: int = 0
    level: float = 0.95
    spread: str = "SE"

    def condition(self) -> str:
        if self.side == 0:
            return f"{self.what} = {number(self.value)} within its {self.level:.0%} $t$ interval"
        return (f"{self.what} {'≥' if self.side > 0 else '≤'} {number(self.value)} within its {self.level:.0%} "
                "one-sided $t$ margin")

    def t(self, dof: int) -> float:
        q = self.level if self.side else (1 + self.level) / 2
        return float(student_t.ppf(q, dof)) if dof > 0 else math.inf

    def quoted(self, dof: int) -> str:
        """The rule with the t quantile of `dof` degrees of freedom in it."""
        t, v = self.t(dof), number(self.value)
        bar = (f"{self.what} in {v} ± {t:.2f} {self.spread}" if self.side == 0 else
               f"{self.what} {'≥' if self.side > 0 else '≤'} {v} {'−' if self.side > 0 else '+'} {t:.2f} {self.spread}")
        kind = "$t$ interval" if self.side == 0 else "one-sided $t$"
        return (f"{bar} ({self.level:.0%} {kind}, {max(dof, 0)} dof){' ' + self.where if self.where else ''} "
                f"{self.calibration}")

    def decide(self, x: float, se: float, dof: int, measured: str = "", censored: str = "", **verdict) -> Verdict:
        t, ok = self.t(dof), bool(np.isfinite(x) and np.isfinite(se))
        z = (x - float(self.value)) / se if ok and se > 0 else math.nan
        if self.side == 0:
            ok = ok and abs(x - float(self.value)) <= t * se      # as written: the verdicts stored stay
            words, m = f"{abs(z):.1f} {self.spread} from {number(self.value)}", t - abs(z)
        else:
            ok = ok and (x >= float(self.value) - t * se if self.side > 0 else x <= float(self.value) + t * se)
            words, m = f"{z:+.1f} {self.spread} from {number(self.value)}", self.side * z + t
        text = (measured or f"{x:.3g} ± {se:.2g}") + (f"; {words}{self._margin(m, None)}" if np.isfinite(z) else "")
        verdict.setdefault("expected", self.quoted(dof))
        if censored:
            return Verdict(text, False, censored=censored, **verdict)
        return Verdict(text, ok, **verdict)
