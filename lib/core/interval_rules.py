"""The rules of lib.core.rules that an interval or a test decides, each a frozen object that decides a row's verdict
and writes the rule's text from the same fields:

- ShareInterval: k of n with its Clopper-Pearson interval against p: above passes, below fails, else censored.
- Significance: a one-sided test at `level` in the direction of its effect; the other direction fails, else censored.
- Laws: fitted laws compared by likelihood ratio (or AIC): the favoured law by `factor` passes; else fails or censored.
- Near: a value equal to a target a proof or a table fixes, to within a tolerance.
- Beyond: a difference known only within [lo, hi] (censoring) above z times its SE: pass, FAIL or censored.
- TInterval: a fitted value against a reference within its Student-t margin (one- or two-sided).

    >>> TInterval("slope", value=1, side=1, where="over every $N$").quoted(4)
    "slope ≥ 1 − 2.13 SE (95% one-sided $t$, 4 dof) over every $N$ (book's calibration)"
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.stats import beta, norm
from scipy.stats import t as student_t

from lib.core.claims import Measured
from lib.core.rules import Rule, number


@dataclass(frozen=True)
class Near(Rule):
    """A value (every value of an array) equal to `target` to within `tol`: |value - target| < tol (≤ where not
    `strict`), for a number a proof or a table fixes.

    >>> Near("root", 1.0101, tol=1e-4).decide(Measured(1.01008)).passed
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

    def outcome(self, m: Measured) -> bool | str:
        return self.holds(m.value)


@dataclass(frozen=True)
class Beyond(Rule):
    """A difference beyond noise, where censoring leaves it known only within [lo, hi] (Measured.lo, .hi): above
    `z` times its spread (Measured.spread, the SE of the difference) for every value in [lo, hi] passes; not even hi
    above it fails (with no finite spread nothing passes, and only hi ≤ 0 fails); else censored. `tol` forgives
    float rounding (in the difference's units). The margin is lo / SE - z, where finite.

    >>> Beyond("slope difference", z=1.645).decide(Measured(lo=0.5, hi=0.9, spread=0.2)).passed
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

    def shown(self, m: Measured) -> str:
        return f"{m.lo:.3g} to {m.hi:.3g}"

    def margin_text(self, m: Measured) -> str:
        se = m.spread
        return self._margin(m.lo / se - self.z if np.isfinite(se) and se > 0 else math.nan, None)

    def outcome(self, m: Measured) -> bool | str:
        s = self.side(m.lo, m.hi, m.spread)
        return f"the allowed values straddle {number(self.z)} {self.spread}" if s == "censored" else s == "pass"


@dataclass(frozen=True)
class TInterval(Rule):
    """A fitted value (Measured.value, with its SE in .spread and its degrees of freedom in .n) against `value`
    within its Student-t margin at `level`:
    side +1, at least value - t SE (one-sided); side -1, at most value + t SE (one-sided); side 0, within
    value ± t SE (two-sided). A value or SE that is not finite fails. `quoted` is the rule with this fit's t in it.
    The measured text gives the distance from `value` in SE and the margin, the distance past the bar in SE.

    >>> TInterval("slope", value=1, side=1).decide(Measured(0.8, spread=0.1, n=4)).passed
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

    def _z(self, m: Measured) -> float:
        x, se = m.value, m.spread
        return (x - float(self.value)) / se if np.isfinite(x) and np.isfinite(se) and se > 0 else math.nan

    def shown(self, m: Measured) -> str:
        return f"{m.value:.3g} ± {m.spread:.2g}"

    def margin_text(self, m: Measured) -> str:
        z, t = self._z(m), self.t(m.n)
        if not np.isfinite(z):
            return ""
        if self.side == 0:
            return f"; {abs(z):.1f} {self.spread} from {number(self.value)}{self._margin(t - abs(z), None)}"
        return f"; {z:+.1f} {self.spread} from {number(self.value)}{self._margin(self.side * z + t, None)}"

    def expected(self, m: Measured) -> str:
        return self.quoted(m.n)

    def outcome(self, m: Measured) -> bool | str:
        x, se, t = m.value, m.spread, self.t(m.n)
        if not (np.isfinite(x) and np.isfinite(se)):
            return False
        if self.side == 0:
            return bool(abs(x - float(self.value)) <= t * se)
        return bool(x >= float(self.value) - t * se if self.side > 0 else x <= float(self.value) + t * se)


def clopper_pearson(k, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The Clopper-Pearson interval of a success probability seen k times in n trials (elementwise)."""
    k, n = np.asarray(k, float), np.asarray(n, float)
    a = (1 - confidence) / 2
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, beta.ppf(a, k, n - k + 1), 0.0)
        hi = np.where(k < n, beta.ppf(1 - a, k + 1, n - k), 1.0)
    return lo, hi


@dataclass(frozen=True)
class ShareInterval(Rule):
    """Cells of k (Measured.value) of n (.n), each wanted above p (want +1) or below (-1; with `want` 0, each
    cell's side is Measured.want): each cell's Clopper-Pearson interval decides
    its side (0 where it contains p). A cell on the wrong side fails the rule; every cell on its side passes it;
    otherwise it is censored.

    >>> ShareInterval("success", p=0.5, want=0).decide(Measured([9, 1], n=[10, 10], want=[1, -1])).passed
    True
    """
    p: float = 0.5
    want: int = 1          # +1: above p; -1: below; 0: each cell on the side `decide` is given
    confidence: float = 0.95

    def condition(self) -> str:
        p = number(Fraction(self.p).limit_denominator(100))
        side = {1: "above", -1: "below", 0: "on its side of"}[self.want]
        return (f"{self.what}: {self.confidence:.0%} interval (Clopper-Pearson) {side} {p}; "
                "FAIL where one lies on the other side; censored where one contains it")

    def sides(self, k, n) -> np.ndarray:
        lo, hi = clopper_pearson(k, n, self.confidence)
        return np.where(lo > self.p, 1, np.where(hi < self.p, -1, 0))

    def shown(self, m: Measured) -> str:
        return ", ".join(f"{int(a)}/{int(b)}" for a, b in np.broadcast(m.value, m.n))

    def outcome(self, m: Measured) -> bool | str:
        want = self.want if self.want else m.want
        if want is None or not np.all(np.abs(want) == 1):
            raise ValueError(f"rule {self.what!r}: each cell needs its side, +1 (above) or -1 (below)")
        s = self.sides(m.value, m.n)
        want = np.broadcast_to(np.asarray(want), np.shape(s))
        if np.any(s == -want) or np.all(s == want):
            return bool(np.all(s == want))
        return f"a {self.confidence:.0%} interval contains {self.p:g}"


@dataclass(frozen=True)
class Significance(Rule):
    """A one-sided test (its p value Measured.p) at `level` in the direction of its effect (Measured.value):
    significant with the effect positive passes, significant and negative fails, else (or no finite effect)
    censored. The margin is z - z_crit (z = isf(p), signed by the effect).

    >>> Significance("the $T$ term", level=0.05).decide(Measured(2.0, p=0.001)).passed
    True
    """
    level: float = 0.05
    spread: str = "SE"

    def condition(self) -> str:
        return (f"{self.what} one-sided at {self.level:g} with a positive effect; FAIL with a negative one; "
                "censored where neither is significant")

    def shown(self, m: Measured) -> str:
        return f"one-sided p = {m.p:.1e}"

    def margin_text(self, m: Measured) -> str:
        z = math.copysign(float(norm.isf(m.p)), m.value) if np.isfinite(m.value) else math.nan
        return self._margin(z - float(norm.isf(self.level)), None)

    def outcome(self, m: Measured) -> bool | str:
        if not np.isfinite(m.value) or m.p >= self.level:
            return f"not significant at {self.level:g}"
        return bool(m.value > 0)


@dataclass(frozen=True)
class Laws(Rule):
    """Fitted laws compared ({law: score} in Measured.value): `criterion` "likelihood" (scores are log-likelihoods;
    the favoured law's likelihood ratio to the best other at least `factor` passes, at most 1/factor fails, between
    censored) or "aic" (scores are AICs; the favoured law lowest by at least `factor` passes, else fails).

    >>> Laws("the log law", favoured="log", factor=8).decide(Measured({"log": -10.0, "linear": -13.0})).passed
    True
    """
    favoured: str = ""
    factor: float = 8.0
    criterion: str = "likelihood"

    def condition(self) -> str:
        if self.criterion == "aic":
            return f"lowest AIC for {self.what}, by ≥ {number(self.factor)}"
        return (f"likelihood ratio of {self.what} to the best other ≥ {number(self.factor)}; FAIL at "
                f"≤ 1/{number(self.factor)}; censored between")

    def lead(self, scores: dict) -> float:
        """AIC: the best other's AIC minus the favoured law's; likelihood: the ln likelihood ratio to the best other."""
        others = [v for k, v in scores.items() if k != self.favoured]
        return min(others) - scores[self.favoured] if self.criterion == "aic" else scores[self.favoured] - max(others)

    def shown(self, m: Measured) -> str:
        lead = self.lead(m.value)
        return f"AIC lead {lead:.1f}" if self.criterion == "aic" else f"ln likelihood ratio {lead:+.2f}"

    def margin_text(self, m: Measured) -> str:
        lead = self.lead(m.value)
        if self.criterion == "aic":
            return f"; margin {lead - self.factor:+.1f} in AIC"
        return f"; margin {lead - math.log(self.factor):+.2f} in ln likelihood ratio"

    def outcome(self, m: Measured) -> bool | str:
        lead = self.lead(m.value)
        if self.criterion == "aic":
            return bool(lead >= self.factor)
        cut = math.log(self.factor)
        if not (lead >= cut or lead <= -cut):          # between the bounds, or NaN: undecided
            return f"the likelihoods lie within a factor {self.factor:g}"
        return bool(lead >= cut)
