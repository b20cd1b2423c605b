"""A claim row's rule as data: one frozen object that decides the verdict and writes the rule's text, the margin in
units of the statistic's spread, and whose calibration the threshold is. The threshold is typed once, as a field;
the text a reader sees is generated from the same fields, so the words and the decision cannot drift apart.

Every rule has `what` (the statistic, in words), `by` (whose threshold: PAPER, BOOK or EXACT) and `why` (the reason
or the paper's number). `rule.text` is the rule in words; every rule kind has one method that decides,
`rule.decide(m)`, on what a row's measure found (a lib.core.claims.Measured), and returns a Verdict whose `measured`
is the measure's text of the numbers followed by the margin, where a spread is given. A rule kind says how it
decides in `outcome(m)` (True, False, or why it is censored) and its margin in `margin_text(m)`.

- AtLeast / AtMost / Within: a value (or every value of an array) against a bound; `spread` names the margin's unit.
- Holds: an identity of the construction, true or false.
- All: several rules at once (their texts joined; the margins of the parts given a spread); FAIL beats censored.
- Needs: a rule decided only where a gate holds (enough points), censored where it does not.
- Share: k of n at least (or at most) a share; `binomial` gives the margin in binomial SEs at the bar.

Rules decided by an interval or a test (ShareInterval, Significance, Laws, Near, Beyond, TInterval) are in
lib.core.interval_rules, those held on bootstrap replicates (Replicates, Quantile, Each) in lib.core.bootstrap_rules,
on the same base.

    >>> AtMost("fitted $p$", 3, why="a low degree", spread="sd over {n} directions").decide(
    ...     Measured(2.1, "p = 2.10", spread=0.3, n=6))
    Verdict(measured='p = 2.10; margin +3.0 sd over 6 directions', passed=True, ...)
"""
from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass
from fractions import Fraction

import numpy as np

from lib.core.claims import Measured, Verdict, verdict

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


class Decides:
    """How every rule kind decides, `decide(m)`: the verdict of `outcome(m)`, its text the measure's (or `shown(m)`)
    and `margin_text(m)`, with `expected(m)`; a kind overrides the parts it has."""

    def outcome(self, m: Measured) -> bool | str:
        """True (pass), False (FAIL) or, where the rule leaves the row undecided, why (censored)."""
        raise NotImplementedError

    def shown(self, m: Measured) -> str:
        """The numbers in words where the measure gives none."""
        return shown(m.value)

    def margin_text(self, m: Measured) -> str:
        """"; margin +x UNIT" where the measure gives a spread and the margin is finite, else ""."""
        return ""

    def expected(self, m: Measured) -> str:
        """The rule with this run's numbers in it, where it quotes one ("": the rule's text)."""
        return ""

    def decide(self, m: Measured) -> Verdict:
        """The verdict on what the measure found (see outcome, margin_text)."""
        if not isinstance(m, Measured):
            raise TypeError(f"rule {self.text!r}: decide takes a Measured, got {type(m).__name__}")
        return verdict(m, (m.text or self.shown(m)) + self.margin_text(m), self.outcome(m), self.expected(m))


@dataclass(frozen=True)
class Rule(Decides):
    """What every rule shares: the statistic's name, whose threshold it is and why, text after the bound (`where`,
    e.g. "at every $T$"), and the margin's unit (`spread`, formatted with n, e.g. "sd over {n} directions").
    `unsure`: where a value is marked unsure (Measured.unsure), the words that say why ("where no run learned");
    the rule's text then says that a failure on those values alone leaves the row censored."""
    what: str
    _: KW_ONLY            # after `what`, a subclass's own fields come positionally (AtMost("errors", 0))
    by: str = BOOK
    why: str = ""
    where: str = ""
    spread: str = "sd"
    unsure: str = ""

    def __post_init__(self):
        if self.by not in _BY:
            raise ValueError(f"rule {self.what!r}: by must be one of {', '.join(_BY)}, got {self.by!r}")

    @property
    def calibration(self) -> str:
        """Whose threshold, in words: "(paper: why)", "(book's calibration: why)", "(exact)"."""
        return f"({_BY[self.by]}{': ' + self.why if self.why else ''})"

    @property
    def text(self) -> str:
        unsure = f"; censored where it fails only {self.unsure}" if self.unsure else ""
        return f"{self.condition()}{' ' + self.where if self.where else ''}{self.censors()}{unsure} {self.calibration}"

    def condition(self) -> str:
        raise NotImplementedError

    def censors(self) -> str:
        """When the rule leaves a row censored, in words, where its condition does not say it ("")."""
        return ""

    def _margin(self, m: float, n) -> str:
        if "{n}" in self.spread and n is None:
            raise ValueError(f"rule {self.what!r}: its spread {self.spread!r} needs n, the number it is over")
        return f"; margin {m:+.1f} {self.spread.replace('{n}', str(n))}" if np.isfinite(m) else ""

    def _cells(self, m: Measured, ok) -> bool | str:
        """The outcome from every cell's pass (`ok`, an array): where the failing cells are all unsure, censored."""
        ok = np.atleast_1d(np.asarray(ok, bool))
        if ok.all():
            return True
        if m.unsure is None or not self.unsure:
            return False
        unsure = np.broadcast_to(np.asarray(m.unsure, bool), ok.shape)
        return f"fails only {self.unsure}" if unsure[~ok].all() else False


@dataclass(frozen=True)
class _Bound(Rule):
    """A value against one bound; `strict` for < or >; `tol` forgives float noise at the bound; `log` takes the
    margin in decades (log10 of value and bound). Where censoring leaves the value known only within
    [Measured.lo, Measured.hi], the worst end decides and a range across the bound is censored."""
    bound: float = 0.0
    strict: bool = False
    tol: float = 0.0
    log: bool = False
    ranged: bool = False   # the value may come as a censoring-aware range [lo, hi]: the text says how it decides
    sign = 1            # +1: at least; -1: at most

    def condition(self) -> str:
        if self.sign < 0 and not self.strict and type(self.bound) is int and self.bound == 0:
            return f"{self.what} = 0"            # a count at most 0 (an int bound): none
        op = {(1, False): "≥", (1, True): ">", (-1, False): "≤", (-1, True): "<"}[(self.sign, self.strict)]
        return f"{self.what} {op} {number(self.bound)}" + (f" (to {number(self.tol)})" if self.tol else "")

    def censors(self) -> str:
        return "; censored where that range lies across the bound" if self.ranged else ""

    def passes(self, v) -> np.ndarray:
        """Per value: whether it is on the passing side (NaN never is)."""
        b, v = float(self.bound), np.asarray(v, float)
        if self.sign > 0:
            return v > b + self.tol if self.strict else v >= b - self.tol
        return v < b - self.tol if self.strict else v <= b + self.tol

    def holds(self, v) -> bool:
        """Whether the value, or every value of an array, is on the passing side (NaN never is)."""
        return bool(np.all(self.passes(v)))

    def margin(self, v, spread: float) -> float:
        """The worst value's distance from the bound on the passing side, in units of `spread` (NaN without one)."""
        v = np.asarray(v, float)
        worst = float(np.min(v) if self.sign > 0 else np.max(v))
        b = float(self.bound)
        if self.log:
            worst, b = math.log10(worst), math.log10(b)
        return self.sign * (worst - b) / spread if spread and np.isfinite(spread) and spread > 0 else math.nan

    def margin_text(self, m: Measured) -> str:
        return self._margin(self.margin(m.value, m.spread), m.n) if m.spread is not None else ""

    def outcome(self, m: Measured) -> bool | str:
        if m.lo is None:
            return self._cells(m, self.passes(m.value))
        worst, best = (m.lo, m.hi) if self.sign > 0 else (m.hi, m.lo)
        if self.holds(best) and not self.holds(worst):
            return f"its censoring-aware range straddles {number(self.bound)}"
        return self.holds(worst)


@dataclass(frozen=True)
class AtLeast(_Bound):
    """value ≥ bound (> where strict).

    >>> AtLeast("$t^*$", Fraction(1, 3), by=PAPER, where="at every $T$").decide(Measured([0.37, 0.4])).passed
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

    >>> Within("slope", lo=0.9, hi=1.1).decide(Measured(1.03, spread=0.02)).passed
    True
    """
    lo: float = 0.0
    hi: float = 0.0
    open: bool = False

    def condition(self) -> str:
        a, b = ("(", ")") if self.open else ("[", "]")
        return f"{self.what} in {a}{number(self.lo)}, {number(self.hi)}{b}"

    def passes(self, v) -> np.ndarray:
        v, lo, hi = np.asarray(v, float), float(self.lo), float(self.hi)
        return ((lo < v) & (v < hi)) if self.open else ((lo <= v) & (v <= hi))

    def holds(self, v) -> bool:
        return bool(np.all(self.passes(v)))

    def margin_text(self, m: Measured) -> str:
        if not m.spread:
            return ""
        v = np.asarray(m.value, float)
        return self._margin(float(np.min(np.minimum(v - float(self.lo), float(self.hi) - v))) / m.spread, m.n)

    def outcome(self, m: Measured) -> bool | str:
        return self._cells(m, self.passes(m.value))


@dataclass(frozen=True)
class Holds(Rule):
    """An identity: true or false, no threshold.

    >>> Holds("formula exact", by=EXACT).decide(Measured(True)).passed
    True
    """
    by: str = EXACT

    def condition(self) -> str:
        return self.what

    def shown(self, m: Measured) -> str:
        return str(bool(m.value))

    def outcome(self, m: Measured) -> bool | str:
        return bool(m.value)


@dataclass(frozen=True)
class All(Decides):
    """Several rules, all to pass, each decided on its own Measured (`m.value`, one per part): a part that fails
    decides FAIL, else a censored part leaves the row censored. The text is `m.text` and the parts' margins.
    Consecutive parts with the same calibration share one note.

    >>> both = All((AtMost("errors", 0, by=EXACT), Holds("bit-equal")))
    >>> both.decide(Measured((Measured(0), Measured(True)), "0; True")).passed
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

    def _parts(self, m: Measured) -> list[Measured]:
        if not (isinstance(m.value, tuple) and len(m.value) == len(self.parts)
                and all(isinstance(x, Measured) for x in m.value)):
            raise ValueError(f"rule {self.text!r}: its Measured's value must be a tuple of {len(self.parts)} Measured")
        return list(m.value)

    def outcome(self, m: Measured) -> bool | str:
        vs = [p.outcome(x) for p, x in zip(self.parts, self._parts(m))]
        if any(v is False for v in vs) or all(v is True for v in vs):
            return all(v is True for v in vs)
        return "; ".join(x.censored or v for v, x in zip(vs, m.value) if isinstance(v, str))

    def margin_text(self, m: Measured) -> str:
        return "".join(p.margin_text(x) for p, x in zip(self.parts, self._parts(m)))

    def shown(self, m: Measured) -> str:
        return ""


def _bare(rule) -> str:
    """A rule's text without its calibration note."""
    return rule.text[: -len(rule.calibration) - 1] if rule.text.endswith(rule.calibration) else rule.text


@dataclass(frozen=True)
class Needs(Decides):
    """A rule that a run can decide only where `gate` holds on `Measured.gate` (enough measured points, say):
    where it does not, the row is censored, not failed (with `on_fail`, only where the rule would fail: a pass
    stands).

    >>> rule = Needs(AtLeast("measured radii", 5), AtMost("slope", 0.0, strict=True))
    >>> rule.decide(Measured(-0.4, gate=3)).censored
    '3 measured radii, fewer than 5'
    """
    gate: _Bound
    rule: Rule
    on_fail: bool = False

    @property
    def calibration(self) -> str:
        return self.rule.calibration

    @property
    def what(self) -> str:
        return self.rule.what

    @property
    def clause(self) -> str:
        """When the gate censors, in words."""
        g = self.gate
        count = (f"any {g.what}" if g.sign < 0 and g.bound == 0 else
                 f"{'fewer' if g.sign > 0 else 'more'} than {number(g.bound)} {g.what}")
        return f"; censored{', where it fails,' if self.on_fail else ''} with {count} {g.calibration}"

    @property
    def text(self) -> str:
        return self.rule.text + self.clause

    def expected(self, m: Measured) -> str:
        """The rule with this run's numbers (where it quotes them: TInterval's t), and the gate's clause."""
        quoted = self.rule.expected(m)
        return quoted + self.clause if quoted else ""

    def outcome(self, m: Measured) -> bool | str:
        inner = self.rule.outcome(m)
        if self.gate.holds(m.gate) or (self.on_fail and inner is True):
            return inner
        g = self.gate
        return f"{shown(m.gate)} {g.what}, {'fewer' if g.sign > 0 else 'more'} than {number(g.bound)}"

    def shown(self, m: Measured) -> str:
        return self.rule.shown(m)

    def margin_text(self, m: Measured) -> str:
        return self.rule.margin_text(m)


@dataclass(frozen=True)
class Share(Rule):
    """k (`value`) of n (`n`) at least `at_least` (or at most `at_most`), every element where k and n are arrays.
    `binomial`: the margin in binomial SEs at the bar, sqrt(bar (1 - bar) / n), of the worst element.

    >>> Share("runs that fit", at_least=0.95, binomial=True).decide(Measured(19, n=20)).measured
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

    def shown(self, m: Measured) -> str:
        return ", ".join(f"{int(a)}/{int(b)}" for a, b in np.broadcast(m.value, m.n))

    def outcome(self, m: Measured) -> bool | str:
        f = np.asarray(m.value, float) / np.asarray(m.n, float)
        return bool(np.all(f >= self.at_least)) if self.at_least is not None else bool(np.all(f <= self.at_most))

    def margin_text(self, m: Measured) -> str:
        """With `binomial`, the worst element's distance from the bar in binomial SEs at the bar; else ""."""
        bar = self.at_least if self.at_least is not None else self.at_most
        if not self.binomial or bar in (0, 1):
            return ""
        f = np.asarray(m.value, float) / np.asarray(m.n, float)
        se = np.sqrt(bar * (1 - bar) / np.asarray(m.n, float))
        return self._margin(float(np.min((f - bar) / se if self.at_least is not None else (bar - f) / se)), None)
