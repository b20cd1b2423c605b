"""lib.core.rules: each rule decides on a Measured, writes its text from its own fields, and gives its margin in its
spread's units; a row is decided by its rule, on what its measure returned."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import beta

from lib.core.bootstrap_rules import Replicates
from lib.core.claims import Measured as M
from lib.core.claims import Row, evaluate
from lib.core.interval_rules import Laws, ShareInterval, Significance, clopper_pearson
from lib.core.rules import BOOK, EXACT, PAPER, All, AtLeast, AtMost, Holds, Needs, Share, Within, number


def test_numbers_as_the_rule_shows_them():
    assert [number(x) for x in (Fraction(1, 3), 1e-4, 1e-15, 1e6, 0.5, 100, 65536, 2.5)] == \
        ["1/3", "$10^{-4}$", "$10^{-15}$", "$10^{6}$", "0.5", "100", "65,536", "2.5"]


def test_bounds_decide_at_the_bound_as_their_text_says():
    """≥ includes the bound, > does not; an array passes only if every value does; NaN never passes."""
    third = AtLeast("$t^*$", Fraction(1, 3), by=PAPER, why="the round's threshold", where="at every $T$")
    assert third.text == "$t^*$ ≥ 1/3 at every $T$ (paper: the round's threshold)"
    assert third.decide(M([1 / 3, 0.5])).passed and not third.decide(M([0.3333, 0.5])).passed
    assert not AtLeast("x", 1, strict=True).decide(M(1)).passed and AtLeast("x", 1).decide(M(1)).passed
    low = AtMost("$r$", 1e-4, strict=True, why="far below the corrected radius", where="at every $T$")
    assert low.text == "$r$ < $10^{-4}$ at every $T$ (book's calibration: far below the corrected radius)"
    assert low.decide(M([1e-5, 9.9e-5])).passed and not low.decide(M([1e-5, 1e-4])).passed
    assert not AtMost("p", 3).decide(M(math.nan)).passed and not AtLeast("p", 3).decide(M(math.nan)).passed
    assert AtMost("errors", 0, by=EXACT).text == "errors = 0 (exact)"          # an int 0: a count, none
    assert AtMost("x", 0.0).text == "x ≤ 0 (book's calibration)"
    assert AtLeast("gap", 1, tol=1e-9).decide(M(1 - 1e-10)).passed and not AtLeast("gap", 1, tol=1e-9).decide(M(1 - 1e-8)).passed
    with pytest.raises(TypeError, match="takes a Measured"):
        AtLeast("x", 1).decide(2.0)


def test_margin_is_signed_to_the_passing_side_in_spread_units():
    r = AtMost("fitted $p$", 3, spread="sd over {n} directions")
    assert r.decide(M(2.1, "p = 2.10", spread=0.3, n=6)).measured == "p = 2.10; margin +3.0 sd over 6 directions"
    assert r.decide(M(3.6, "p = 3.60", spread=0.3, n=6)).measured == "p = 3.60; margin -2.0 sd over 6 directions"
    assert AtLeast("share", 0.5, spread="SE").decide(M([0.8, 0.6], "x", spread=0.05)).measured == "x; margin +2.0 SE"
    decades = AtMost("r", 1e-4, strict=True, log=True, spread="sd of log10 r")
    assert decades.decide(M(1e-6, "r", spread=0.5)).measured == "r; margin +4.0 sd of log10 r"
    assert AtMost("p", 3).decide(M(2.0, "p", spread=0.0)).measured == "p"          # no spread, no margin
    with pytest.raises(ValueError, match="needs n"):
        r.decide(M(2.1, "p", spread=0.3))


def test_a_censored_range_decides_only_where_the_bound_does_not_cross_it():
    below = AtMost("exponent", 0.5, strict=True, tol=1e-9)
    assert below.decide(M(0.3, "e", lo=0.2, hi=0.4)).passed
    v = below.decide(M(0.4, "e", lo=0.3, hi=0.7, censored="T = 800"))
    assert not v.passed and v.censored == "T = 800"                           # the measure's words, the rule's call
    assert below.decide(M(0.4, "e", lo=0.3, hi=0.7)).censored == "its censoring-aware range straddles 0.5"
    assert not below.decide(M(0.6, "e", lo=0.55, hi=0.7, censored="T = 800")).censored   # both ends fail: FAIL
    assert not below.decide(M(0.5, "e", lo=0.5, hi=0.5)).passed               # 0.5 is not below 0.5
    assert not AtMost("x", 1).decide(M(0.5, censored="words alone decide nothing")).censored


def test_unsure_cells_censor_only_a_failure_on_them_alone_and_the_text_says_so():
    r = Within("separation", 0.6, 1.2, unsure="at $N$ where no run learned")
    assert r.text == "separation in [0.6, 1.2]; censored where it fails only at $N$ where no run learned (book's calibration)"
    assert r.decide(M([0.8, 0.1], unsure=[False, True])).censored == "fails only at $N$ where no run learned"
    assert not r.decide(M([0.1, 0.1], unsure=[False, True])).censored           # a learned cell fails: FAIL
    assert r.decide(M([0.8, 0.9], unsure=[False, True])).passed                 # an unsure cell that passes counts
    assert not Within("s", 0.6, 1.2).decide(M([0.8, 0.1], unsure=[False, True])).censored   # no words: no censoring


def test_within_and_holds_and_all():
    w = Within("slope of $R_{\\min}$ on $\\ln T$", 0.9, 1.1, by=BOOK)
    assert w.text == "slope of $R_{\\min}$ on $\\ln T$ in [0.9, 1.1] (book's calibration)"
    assert w.decide(M(1.1)).passed and not Within("s", -0.6, -0.4, open=True).decide(M(-0.4)).passed
    assert w.decide(M(1.05, "s", spread=0.025)).measured == "s; margin +2.0 sd"
    both = All((AtMost("mismatches", 0, by=EXACT), Holds("outputs bit-equal")))
    assert both.text == "mismatches = 0; outputs bit-equal (exact)"
    assert both.decide(M((M(0), M(True)), "m")).passed and not both.decide(M((M(1), M(True)), "m")).passed
    assert not both.decide(M((M(0), M(False)), "m")).passed
    with pytest.raises(ValueError, match="tuple of 2 Measured"):
        both.decide(M((0, True), "m"))
    assert All((AtMost("mismatches", 0, by=EXACT), Holds("bit-equal", why="as proved"))).text == \
        "mismatches = 0; bit-equal (exact: as proved)"
    mixed = All((AtLeast("gap", 1, by=PAPER, why="integer scores"), AtMost("spread", 1e-9, strict=True)))
    assert mixed.text == "gap ≥ 1 (paper: integer scores); spread < $10^{-9}$ (book's calibration)"


def test_needs_censors_where_its_gate_fails_and_all_lets_a_failure_win():
    """7-collapse's shape: a part that fails decides FAIL whatever the gate; too few points leave the rest censored."""
    gate = AtLeast("measured radii", 5, why="few points fit any line")
    rule = Needs(gate, All((AtMost("slope", 0.0, strict=True, by=PAPER), AtLeast("$R^2$", 0.9, strict=True))))
    assert rule.text.endswith("censored with fewer than 5 measured radii (book's calibration: few points fit any line)")
    assert rule.decide(M((M(-0.3), M(0.99)), "m", gate=5)).passed
    v = rule.decide(M((M(-0.3), M(0.99)), "m", gate=3))
    assert not v.passed and v.censored == "3 measured radii, fewer than 5"
    assert rule.decide(M((M(-0.3), M(0.99)), "m", gate=3, censored="T = 64 unknown")).censored == "T = 64 unknown"
    assert not rule.decide(M((M(0.3), M(0.99)), "m", gate=6)).passed and not rule.decide(M((M(0.3), M(0.99)), gate=6)).censored
    inner = All((Holds("ordered"), Needs(gate, AtMost("slope", 0.0, strict=True))))
    assert not inner.decide(M((M(False), M(-0.3, gate=3)), "m")).censored      # the failed part wins over the gate
    assert inner.decide(M((M(True), M(-0.3, gate=3)), "m")).censored == "3 measured radii, fewer than 5"
    lenient = Needs(AtMost("unknown $N$", 0, by=EXACT), AtLeast("slope", 1), on_fail=True)
    assert "censored, where it fails, with any unknown $N$" in lenient.text
    assert lenient.decide(M(1.5, gate=2)).passed and lenient.decide(M(0.5, gate=2)).censored
    assert not lenient.decide(M(0.5, gate=0)).passed and not lenient.decide(M(0.5, gate=0)).censored


def test_replicates_share_and_margin():
    r = Replicates("TR's lead", bar=0.0, level=0.95, strict=True)
    assert r.text == "TR's lead > 0 in ≥ 95% of bootstrap replicates (book's calibration)"
    reps = np.r_[np.ones(95), -np.ones(5)]
    assert r.decide(M(reps)).passed and not r.decide(M(np.r_[np.ones(94), -np.ones(6)])).passed
    assert not r.decide(M(np.r_[np.ones(95), np.zeros(5)] - 1)).passed            # 0 is not > 0
    assert Replicates("x", level=0.95).decide(M(np.r_[np.ones(95), np.zeros(5)] - 1)).passed   # at the bar counts for ≥
    assert r.decide(M(reps)).measured == f"95.0% of 100 replicates; margin {0.9 / reps.std():+.1f} sd of the replicates"


def test_share_with_its_binomial_margin():
    fit = Share("runs that fit", at_least=0.95, binomial=True)
    assert fit.text == "runs that fit ≥ 95% (book's calibration)"
    assert fit.decide(M(19, n=20)).passed and not fit.decide(M(18, n=20)).passed
    se = math.sqrt(0.95 * 0.05 / 20)
    assert fit.decide(M(20, "all", n=20)).measured == f"all; margin {0.05 / se:+.1f} SE (binomial, at the bar)"
    both = All((Share("runs at 100%", at_least=0.95), fit))
    assert both.decide(M((M(20, n=20), M(19, n=20)), "m")).measured == "m; margin +0.0 SE (binomial, at the bar)"
    assert not both.decide(M((M(18, n=20), M(19, n=20)), "m")).passed
    none = Share("seed reaches 0.99", at_most=0)
    assert none.text == "no seed reaches 0.99 (book's calibration)"
    assert none.decide(M([0, 0], n=[5, 5])).passed and not none.decide(M([0, 1], n=[5, 5])).passed
    half = Share("seeds", at_least=0.5)
    assert half.decide(M([3, 2], n=[4, 4])).passed and not half.decide(M([3, 1], n=[4, 4])).passed


def test_share_interval_is_clopper_pearson_three_ways():
    lo, hi = clopper_pearson(3, 10)
    assert float(lo) == pytest.approx(beta.ppf(0.025, 3, 8)) and float(hi) == pytest.approx(beta.ppf(0.975, 4, 7))
    r = ShareInterval("success count", p=0.5, want=0)
    assert list(r.sides([0, 5, 10], [10, 10, 10])) == [-1, 0, 1]
    assert r.decide(M([1, 9], n=[10, 10], want=[-1, 1])).passed
    v = r.decide(M([1, 6], n=[10, 10], want=[-1, 1]))
    assert not v.passed and v.censored
    assert not r.decide(M([9, 6], n=[10, 10], want=[-1, 1])).censored              # a cell on the wrong side fails
    above = ShareInterval("success count", p=0.5)
    assert above.text == ("success count: 95% interval (Clopper-Pearson) above 1/2; FAIL where one lies on the other "
                          "side; censored where one contains it (book's calibration)")
    assert above.decide(M([9, 10], n=[10, 10])).passed                             # the rule's own side: above
    with pytest.raises(ValueError, match="needs its side"):
        r.decide(M([1, 9], n=[10, 10]))


def test_significance_and_laws():
    s = Significance("the $T$ term", level=0.05)
    assert s.decide(M(2.0, p=0.01)).passed and not s.decide(M(-2.0, p=0.01)).passed
    assert not s.decide(M(-2.0, p=0.01)).censored
    assert s.decide(M(2.0, p=0.2)).censored and s.decide(M(math.nan, p=0.01)).censored
    assert s.decide(M(1.0, "t", p=0.05 / 2)).measured == f"t; margin {1.959964 - 1.644854:+.1f} SE"
    law = Laws("the log law", favoured="log", factor=8, by=BOOK, why="Royall's fairly strong evidence")
    assert law.text == ("likelihood ratio of the log law to the best other ≥ 8; FAIL at ≤ 1/8; censored between "
                        "(book's calibration: Royall's fairly strong evidence)")
    ln8 = math.log(8)
    assert law.decide(M({"log": 0.0, "power": -ln8, "linear": -5.0})).passed
    assert law.decide(M({"log": 0.0, "power": -ln8 + 0.01})).censored
    assert law.decide(M({"log": math.nan, "power": 0.0})).censored                # a failed fit decides nothing
    assert not law.decide(M({"log": -ln8, "power": 0.0})).passed and not law.decide(M({"log": -ln8, "power": 0.0})).censored
    assert law.decide(M({"log": 0.0, "power": -3.0})).measured == \
        f"ln likelihood ratio +3.00; margin {3 - ln8:+.2f} in ln likelihood ratio"
    aic = Laws("$\\ln N$", favoured="log", factor=2, criterion="aic")
    assert aic.text == "lowest AIC for $\\ln N$, by ≥ 2 (book's calibration)"
    assert aic.decide(M({"log": 10.0, "power": 12.0})).passed and not aic.decide(M({"log": 10.0, "power": 11.9})).passed


def test_a_row_is_decided_by_its_rule_on_what_its_measure_returns():
    """A row's `expected` is its rule's text, and evaluate's output has the same keys for every row."""
    rule = AtMost("fitted $p$", 3, why="a low degree")
    row = Row("p", "claim", "Theorem 1", "r falls slowly", rule, lambda d: M(d, f"p = {d}"))
    assert row.rule is rule and row.expected == "fitted $p$ ≤ 3 (book's calibration: a low degree)"
    [out] = evaluate([row], 2.0)
    assert out["expected"] == row.expected and out["passed"] and set(out) == {
        "id", "kind", "source", "statement", "expected", "paper", "measured", "passed", "scale"}
    assert not evaluate([row], 4.0)[0]["passed"]                                  # the rule, not the measure, decides
    with pytest.raises(ValueError, match="rule must be a rule object"):
        Row("q", "check", "s", "t", "in words", lambda d: M(1))
    with pytest.raises(TypeError, match="returns a Measured"):
        evaluate([Row("q", "check", "s", "t", rule, lambda d: 1.0)], None)
    with pytest.raises(ValueError, match="by must be one of"):
        AtMost("x", 1, by="mine")
