"""A claim row's rule as data: one frozen object that decides the verdict and writes the rule's text, the margin in
units of the statistic's spread, and whose calibration the threshold is. The threshold is typed once, as a field;
the text a reader sees is generated from the same fields, so the words and the decision cannot drift apart.

Every rule has `what` (the statistic, in words), `by` (whose threshold: PAPER, BOOK or EXACT) and `why` (the reason
or the paper's number). `rule.text` is the rule in words; `rule.decide(...)` returns a lib.core.claims.Verdict whose
`measured` is the caller's text of the numbers followed by the margin, where a spread is given.

- AtLeast / AtMost / Within: a value (or every value of an array) against a bound; `spread` names the margin's unit.
- Holds: an identity of the construction, true or false.
- All: several rules at once (their texts joined; the margins of the parts given a spread); FAIL beats censored.
- Needs: a rule decided only where a gate holds (enough points), censored where it does not.
- Replicates: a direction held on a bootstrap: the share of replicates at or above a bar, at least `level`.
- Share: k of n at least (or at most) a share; `binomial` gives the margin in binomial SEs at the bar.

Rules decided by an interval or a test (ShareInterval, Significance, Laws, Near, Beyond, TInterval) are in
lib.core.interval_rules, on the same base.

    >>> AtMost("fitted $p$", 3, why="a low degree", spread="sd over {n} directions").decide(2.1, "p = 2.10", 0.3, 6)
    Verdict(measured='p = 2.10; margin +3.0 sd over 6 directions', passed=True, ...)
"""
from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass
from fractions import Fraction

import numpy as np

from lib.core.claims import Verdict

PAPER, BOOK, EXACT = "paper", "book", "exact"
_BY = {PAPER: "paper", BOOK: "book's calibration", EXACT: "exact"}


def number(x) -> str:
    """A threshold as the rule's text shows it: 1/3 for a Fraction, $10^{-4}$ for a small or large power of ten,
    else the shortest form (0.5, 100, 65,536)."""
    if isinstance(x, Fraction):
        return f"{x.numerator}/{x.denominator}"
    if isinstance(x, (int, np.integer)):
        return f"{x:,}"
    k = math.log10(abs(x)) if x else 0.0
    if x and abs(k) >= 3 and k == round(k):
        return f"$10^{{{int(round(k))}}}$" if x > 0 else f"$-10^{{{int(round(k))}}}$"
    return f"{x:g}"


def shown(value) -> str:
    """A measured value, or every value of an array, where the caller gives no text of its own."""
    return ", ".join(f"{float(v):.4g}" for v in np.atleast_1d(np.asarray(value, float)))


@dataclass(frozen=True)
class Rule:
    """What every rule shares: the statistic's name, whose threshold it is and why, text after the bound (`where`,
    e.g. "at every $T$"), and the margin's unit (`spread`, formatted with n, e.g. "sd over {n} directions")."""
    what: str
    _: KW_ONLY            # after `what`, a subclass's own fields come positionally (AtMost("errors", 0))
    by: str = BOOK
    why: str = ""
    where: str = ""
    spread: str = "sd"

    def __post_init__(self):
        if self.by not in _BY:
            raise ValueError(f"rule {self.what!r}: by must be one of {', '.join(_BY)}, got {self.by!r}")

    @property
    def calibration(self) -> str:
        """Whose threshold, in words: "(paper: why)", "(book's calibration: why)", "(exact)"."""
        return f"({_BY[self.by]}{': ' + self.why if self.why else ''})"

    @property
    def text(self) -> str:
        return f"{self.condition()}{' ' + self.where if self.where else ''} {self.calibration}"

    def condition(self) -> str:
        raise NotImplementedError

    def _margin(self, m: float, n) -> str:
        if "{n}" in self.spread and n is None:
            raise ValueError(f"rule {self.what!r}: its spread {self.spread!r} needs n, the number it is over")
        return f"; margin {m:+.1f} {self.spread.replace('{n}', str(n))}" if np.isfinite(m) else ""


@dataclass(frozen=True)
class _Bound(Rule):
    """A value against one bound; `strict` for < or >; `tol` forgives float noise at the bound; `log` takes the
    margin in decades (log10 of value and bound)."""
    bound: float = 0.0
    strict: bool = False
    tol: float = 0.0
    log: bool = False
    sign = 1            # +1: at least; -1: at most

    def condition(self) -> str:
        if self.sign < 0 and not self.strict and type(self.bound) is int and self.bound == 0:
            return f"{self.what} = 0"            # a count at most 0 (an int bound): none
        op = {(1, False): "≥", (1, True): ">", (-1, False): "≤", (-1, True): "<"}[(self.sign, self.strict)]
        return f"{self.what} {op} {number(self.bound)}" + (f" (to {number(self.tol)})" if self.tol else "")

    def holds(self, v) -> bool:
        """Whether the value, or every value of an array, is on the passing side (NaN never is)."""
        b, v = float(self.bound), np.asarray(v, float)
        if self.sign > 0:
            return bool(np.all(v > b + self.tol) if self.strict else np.all(v >= b - self.tol))
        return bool(np.all(v < b - self.tol) if self.strict else np.all(v <= b + self.tol))

    def margin(self, v, spread: float) -> float:
        """The worst value's distance from the bound on the passing side, in units of `spread` (NaN without one)."""
        v = np.asarray(v, float)
        worst = float(np.min(v) if self.sign > 0 else np.max(v))
        b = float(self.bound)
        if self.log:
            worst, b = math.log10(worst), math.log10(b)
        return self.sign * (worst - b) / spread if spread and np.isfinite(spread) and spread > 0 else math.nan

    def decide(self, value, measured: str = "", spread: float | None = None, n=None, lo=None, hi=None,
               censored: str = "", **verdict) -> Verdict:
        """The verdict on `value` (an array: every value). Where censoring leaves the value known only within
        [lo, hi], the worst end decides, and a range across the bound is `censored` (the caller's why)."""
        text = (measured or shown(value)) + (self._margin(self.margin(value, spread), n) if spread is not None else "")
        if lo is not None:
            worst, best = (lo, hi) if self.sign > 0 else (hi, lo)
            if censored and self.holds(best) and not self.holds(worst):
                return Verdict(text, False, censored=censored, **verdict)
            return Verdict(text, self.holds(worst), **verdict)
        return Verdict(text, self.holds(value), **verdict)


@dataclass(frozen=True)
class AtLeast(_Bound):
    """value ≥ bound (> where strict).

    >>> AtLeast("$t^*$", Fraction(1, 3), by=PAPER, where="at every $T$").decide([0.37, 0.4]).passed
    True
    """
    sign = 1


@dataclass(frozen=True)
class AtMost(_Bound):
    """value ≤ bound (< where strict).

    >>> AtMost("errors", 0, by=EXACT).text   # an int 0: a count
    'errors = 0 (exact)'
    """
    sign = -1


@dataclass(frozen=True)
class Within(Rule):
    """lo ≤ value ≤ hi (open: lo < value < hi); the margin is the distance to the nearer end.

    >>> Within("slope", lo=0.9, hi=1.1).decide(1.03, spread=0.02).passed
    True
    """
    lo: float = 0.0
    hi: float = 0.0
    open: bool = False

    def condition(self) -> str:
        a, b = ("(", ")") if self.open else ("[", "]")
        return f"{self.what} in {a}{number(self.lo)}, {number(self.hi)}{b}"

    def holds(self, v) -> bool:
        v, lo, hi = np.asarray(v, float), float(self.lo), float(self.hi)
        return bool(np.all((lo < v) & (v < hi)) if self.open else np.all((lo <= v) & (v <= hi)))

    def decide(self, value, measured: str = "", spread: float | None = None, n=None, **verdict) -> Verdict:
        v = np.asarray(value, float)
        m = float(np.min(np.minimum(v - float(self.lo), float(self.hi) - v))) / spread if spread else math.nan
        return Verdict((measured or shown(value)) + self._margin(m, n), self.holds(value), **verdict)


@dataclass(frozen=True)
class Holds(Rule):
    """An identity: true or false, no threshold.

    >>> Holds("formula exact", by=EXACT).decide(True).passed
    True
    """
    by: str = EXACT

    def condition(self) -> str:
        return self.what

    def decide(self, ok: bool, measured: str = "", **verdict) -> Verdict:
        return Verdict(measured or str(bool(ok)), bool(ok), **verdict)


@dataclass(frozen=True)
class All:
    """Several rules, all to pass: a part that fails decides FAIL, else a censored part leaves the row censored.
    Consecutive parts with the same calibration share one note.

    >>> All((AtMost("errors", 0, by=EXACT), Holds("bit-equal"))).decide((0, True), "0; True").passed
    True
    """
    parts: tuple

    @property
    def text(self) -> str:
        groups: list[list] = []       # consecutive parts of one `by` with at most one reason share a note
        for p in self.parts:
            g = groups[-1] if groups else []
            if g and g[0].by == p.by and len({q.why for q in g + [p]} - {""}) <= 1:
                g.append(p)
            else:
                groups.append([p])
        return "; ".join("; ".join(_bare(p) for p in g) + " " + max((p.calibration for p in g), key=len) for g in groups)

    def decide(self, values: tuple, measured: str, spread: tuple | None = None, n=None, **verdict) -> Verdict:
        """`values` one per part (a tuple for a part whose decide takes several); `spread` one per part (None where
        a part has none): the margins of those that have one are appended."""
        spread = spread or (None,) * len(self.parts)
        vs = [p.decide(*v) if isinstance(v, tuple) else p.decide(v) for p, v in zip(self.parts, values)]
        margins = "".join(p.margin_text(*v) if hasattr(p, "margin_text") else p._margin(p.margin(v, s), n)
                          for p, v, s in zip(self.parts, values, spread)
                          if hasattr(p, "margin_text") or (s is not None and hasattr(p, "margin")))
        if any(not v.passed and not v.censored for v in vs) or all(v.passed for v in vs):
            return Verdict(measured + margins, all(v.passed for v in vs), **verdict)
        return Verdict(measured + margins, False, censored="; ".join(v.censored for v in vs if v.censored), **verdict)


def _bare(rule) -> str:
    """A rule's text without its calibration note."""
    return rule.text[: -len(rule.calibration) - 1] if rule.text.endswith(rule.calibration) else rule.text


@dataclass(frozen=True)
class Needs:
    """A rule that a run can decide only where `gate` holds (enough measured points, say): where it does not, the
    row is censored, not failed.

    >>> Needs(AtLeast("measured radii", 5), AtMost("slope", 0.0, strict=True)).decide(3, -0.4).censored
    '3 measured radii, fewer than 5'
    """
    gate: _Bound
    rule: Rule

    @property
    def calibration(self) -> str:
        return self.rule.calibration

    @property
    def text(self) -> str:
        g = self.gate
        return (f"{self.rule.text}; censored with {'fewer' if g.sign > 0 else 'more'} than {number(g.bound)} {g.what} "
                f"{g.calibration}")

    def decide(self, gate_value, *args, **kw) -> Verdict:
        if self.gate.holds(gate_value):
            return self.rule.decide(*args, **kw)
        g = self.gate
        kw.pop("censored", None)
        v = self.rule.decide(*args, **kw)
        return Verdict(v.measured, False, paper=v.paper, where=v.where, expected=v.expected, scale=v.scale,
                       censored=f"{shown(gate_value)} {g.what}, {'fewer' if g.sign > 0 else 'more'} than {number(g.bound)}")


@dataclass(frozen=True)
class Replicates(Rule):
    """A direction on a bootstrap: the share of replicates of the statistic at or above `bar` (above, `strict`) is
    at least `level`; the margin is (mean - bar) / sd of the replicates.

    >>> Replicates("TR's lead", bar=0.0, level=0.95, strict=True).decide(np.r_[np.ones(99), -1.0]).passed
    True
    """
    bar: float = 0.0
    level: float = 0.95
    strict: bool = False
    spread: str = "sd of the replicates"

    def condition(self) -> str:
        return f"{self.what} {'>' if self.strict else '≥'} {number(self.bar)} in ≥ {self.level:.0%} of bootstrap replicates"

    def decide(self, replicates, measured: str = "", **verdict) -> Verdict:
        v = np.asarray(replicates, float)
        share = float(np.mean(v > self.bar if self.strict else v >= self.bar))
        sd = float(v.std())
        z = (float(v.mean()) - self.bar) / sd if sd > 0 else math.inf * np.sign(v.mean() - self.bar)
        text = measured or f"{share:.1%} of {len(v)} replicates"
        return Verdict(text + (f"; margin {z:+.1f} {self.spread}" if np.isfinite(z) else ""), share >= self.level,
                       **verdict)


@dataclass(frozen=True)
class Share(Rule):
    """k of n at least `at_least` (or at most `at_most`), every element where k and n are arrays. `binomial`:
    the margin in binomial SEs at the bar, sqrt(bar (1 - bar) / n), of the worst element.

    >>> Share("runs that fit", at_least=0.95, binomial=True).decide(19, 20).measured
    '19/20; margin +0.0 SE (binomial, at the bar)'
    """
    at_least: float | None = None
    at_most: float | None = None
    binomial: bool = False
    spread: str = "SE (binomial, at the bar)"

    def condition(self) -> str:
        if self.at_most == 0:
            return f"no {self.what}"
        op, bar = ("≥", self.at_least) if self.at_least is not None else ("≤", self.at_most)
        return f"{self.what} {op} {bar:.0%}"

    def decide(self, k, n, measured: str = "", **verdict) -> Verdict:
        f = np.asarray(k, float) / np.asarray(n, float)
        ok = bool(np.all(f >= self.at_least)) if self.at_least is not None else bool(np.all(f <= self.at_most))
        text = measured or ", ".join(f"{int(a)}/{int(b)}" for a, b in np.broadcast(k, n))
        return Verdict(text + self.margin_text(k, n), ok, **verdict)

    def margin_text(self, k, n) -> str:
        """With `binomial`, the worst element's distance from the bar in binomial SEs at the bar; else ""."""
        bar = self.at_least if self.at_least is not None else self.at_most
        if not self.binomial or bar in (0, 1):
            return ""
        f = np.asarray(k, float) / np.asarray(n, float)
        se = np.sqrt(bar * (1 - bar) / np.asarray(n, float))
        return self._margin(float(np.min((f - bar) / se if self.at_least is not None else (bar - f) / se)), None)
