"""lib.core.interval_rules: Near, Beyond and TInterval decide as their text says and give their margins in SE."""
from __future__ import annotations

import math
from fractions import Fraction

from scipy.stats import t as student_t

from lib.core.claims import Measured as M
from lib.core.interval_rules import Beyond, Near, TInterval
from lib.core.rules import EXACT, PAPER


def test_near_a_target_to_its_tolerance():
    root = Near("lower crossing", 1.0101, tol=1e-4, by=EXACT)
    assert root.text == "lower crossing = 1.0101 (to < $10^{-4}$) (exact)"
    assert root.decide(M(1.01005)).passed and not root.decide(M(1.0103)).passed and not root.decide(M(math.nan)).passed
    assert Near("sup", Fraction(4, 3), tol=1e-9, by=PAPER).decide(M([4 / 3])).passed
    assert Near("sup", Fraction(4, 3), tol=1e-9).text.startswith("sup = 4/3")
    assert Near("x", 1, tol=0.5, strict=False).decide(M(1.5)).passed and not Near("x", 1, tol=0.5).decide(M(1.5)).passed


def test_beyond_passes_fails_or_censors_over_the_censored_range():
    """Pass where even the smallest allowed difference is beyond z SE; FAIL where not even the largest is; with no
    spread nothing passes and only a largest difference at or below 0 fails; else censored."""
    r = Beyond("slope difference", z=1.645, tol=1e-12, spread="bootstrap SE", why="one-sided 95%")
    assert r.text == ("slope difference > 1.645 bootstrap SE for every value its censoring allows; FAIL where none "
                      "gets there; censored between (book's calibration: one-sided 95%)")
    assert [r.side(*a) for a in ((0.2, 0.5, 0.1), (-math.inf, 0.1645, 0.1), (-math.inf, 0.17, 0.1),
                                 (-math.inf, 0.5, math.nan), (-math.inf, -0.1, math.nan))] == \
        ["pass", "fail", "censored", "censored", "fail"]
    v = r.decide(M(text="d", lo=-math.inf, hi=0.17, spread=0.1, censored="two runs cut off"))
    assert not v.passed and v.censored == "two runs cut off"
    assert r.decide(M(text="d", lo=0.2, hi=0.5, spread=0.1)).measured == "d; margin +0.4 bootstrap SE"   # 0.2/0.1 - z
    assert r.decide(M(text="d", lo=-math.inf, hi=0.1, spread=0.1)).measured == "d"       # an unbounded end: no margin


def test_t_interval_one_and_two_sided_with_the_fits_t():
    lower = TInterval("log-log slope", value=1, side=1, where="over every $N$")
    t95 = float(student_t.ppf(0.95, 4))
    assert lower.text == "log-log slope ≥ 1 within its 95% one-sided $t$ margin over every $N$ (book's calibration)"
    assert lower.quoted(4) == f"log-log slope ≥ 1 − {t95:.2f} SE (95% one-sided $t$, 4 dof) over every $N$ (book's calibration)"
    assert lower.decide(M(1 - t95 * 0.1, spread=0.1, n=4)).passed
    assert not lower.decide(M(1 - t95 * 0.1 - 1e-6, spread=0.1, n=4)).passed
    v = lower.decide(M(0.55, "slope 0.55", spread=0.16, n=4))
    assert v.measured == f"slope 0.55; -2.8 SE from 1; margin {-0.45 / 0.16 + t95:+.1f} SE" and not v.passed
    assert v.expected == lower.quoted(4)
    assert not lower.decide(M(math.nan, spread=0.1, n=4)).passed and not lower.decide(M(1.2, spread=math.nan, n=4)).passed
    assert not lower.decide(M(1.5, spread=0.1, n=4, censored="N = 16 unknown")).censored   # words decide nothing
    both = TInterval("log-log slope", value=1, side=0)
    t975 = float(student_t.ppf(0.975, 4))
    assert both.text == "log-log slope = 1 within its 95% $t$ interval (book's calibration)"
    assert both.decide(M(1 + t975 * 0.1, spread=0.1, n=4)).passed
    assert not both.decide(M(1 - t975 * 0.1 - 1e-6, spread=0.1, n=4)).passed
    assert both.decide(M(0.55, "s", spread=0.16, n=4)).measured == f"s; 2.8 SE from 1; margin {t975 - 0.45 / 0.16:+.1f} SE"
    assert both.quoted(4).startswith(f"log-log slope in 1 ± {t975:.2f} SE (95% $t$ interval, 4 dof)")
