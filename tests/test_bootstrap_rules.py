"""lib.core.bootstrap_rules: a bound on a replicate quantile and a rule held in each cell, deciding as their text says,
with margins in units of the replicates' spread."""
from __future__ import annotations

import math

import numpy as np

from lib.core.bootstrap_rules import Each, Quantile, Replicates, z
from lib.core.claims import Measured as M
from lib.core.rules import All


def test_z_is_the_signed_distance_in_replicate_sds():
    v = np.array([1.0, 3.0])
    assert z(v, 0.0) == 2.0 and z(v, 4.0, sign=-1) == 2.0
    assert math.isclose(z(np.array([2.0, 8.0]), 2.0, log=True), 1.0)       # ln 4 +- ln 2, ln 2 above ln 2
    assert z(np.ones(5), 0.0) == math.inf and z(np.ones(5), 2.0) == -math.inf


def test_a_quantile_bound_decides_at_the_quantile_its_text_names():
    reps = np.arange(1.0, 101.0)
    lo, hi = np.quantile(reps, 1 - 0.95), np.quantile(reps, 0.95)     # about 5.95 and 95.05
    assert Quantile("FFN/TR", bar=5.95).text == "lower 95% bootstrap bound of FFN/TR ≥ 5.95 (book's calibration)"
    assert Quantile("FFN/TR", bar=lo).bound(reps) == lo and Quantile("FFN/TR", bar=lo).decide(M(reps)).passed
    assert not Quantile("FFN/TR", bar=lo, strict=True).decide(M(reps)).passed
    assert not Quantile("FFN/TR", bar=lo + 1e-9).decide(M(reps)).passed
    high = Quantile("TR's ratio", bar=95.05, below=True, strict=True)
    assert high.text.startswith("upper 95% bootstrap bound of TR's ratio < 95.05")
    assert not Quantile("TR's ratio", bar=hi, below=True, strict=True).decide(M(reps)).passed
    assert Quantile("TR's ratio", bar=hi, below=True).decide(M(reps)).passed
    assert not Quantile("x", bar=1.0).decide(M(np.full(10, np.nan))).passed


def test_a_quantile_margin_is_z_on_its_scale_and_side():
    reps = 6.0 * np.exp(np.linspace(-0.1, 0.1, 101))
    r = Quantile("FFN/TR", bar=2.0, log=True)
    assert r.margin(reps) == z(np.log(reps), math.log(2.0))
    assert r.decide(M(reps, "6.0×")).measured == f"6.0×; margin {z(np.log(reps), math.log(2.0)):+.1f} sd of the replicates"
    below = Quantile("TR", bar=1.2, below=True, log=True, spread="sd (TR)")
    assert below.margin(reps) == z(-np.log(reps), -math.log(1.2)) < 0
    both = All((Quantile("FFN", bar=2.0, log=True, spread="sd (FFN)"), below))     # each part's margin, named
    v = both.decide(M((M(reps), M(reps)), "m"))
    assert not v.passed and v.measured.startswith("m; margin +") and v.measured.endswith(" sd (TR)")


def test_each_cell_must_pass_and_the_weakest_gives_the_margin():
    lead = Replicates("TR's lead", bar=0.0, level=0.95, strict=True, where="at each $N$")
    strong, weak = np.linspace(1, 2, 100), np.r_[np.ones(96), -np.ones(4)]
    rule = Each(lead)
    assert rule.text == lead.text and rule.calibration == lead.calibration
    v = rule.decide(M({"N=4": strong, "N=6": weak}, "TR lowest"))
    assert v.passed and v.measured == f"TR lowest; margin {z(weak):+.1f} sd of the replicates (N=6, the weakest)"
    assert not rule.decide(M({"N=4": strong, "N=6": np.r_[np.ones(94), -np.ones(6)]})).passed
    ties = {"N=4": np.linspace(2, 3, 50), "N=6": np.linspace(1, 3, 50)}          # every share 1: the lowest z
    assert "(N=6, the weakest)" in rule.decide(M(ties)).measured
    every = Each(lead, each=True).decide(M(ties, "m")).measured
    assert every == f"m; margins {z(ties['N=4']):+.1f} (N=4), {z(ties['N=6']):+.1f} (N=6) sd of the replicates"
    one = Each(lead, each=True).decide(M({"N=12": ties["N=4"]}, "m")).measured
    assert one == f"m; margin {z(ties['N=4']):+.1f} sd of the replicates (N=12)"
    assert Each(Quantile("ratio", bar=2.0)).decide(M({"a": np.full(9, 3.0), "b": np.full(9, 1.0)})).passed is False
