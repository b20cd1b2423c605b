"""lib.core.power: one harness runs a row's own measure and rule in the worlds it declares; the faithful world resamples
each stored point's seeds within that point, so each cell keeps its own spread."""
from __future__ import annotations

import numpy as np
import pytest

from lib.core.claims import Measured, Row
from lib.core.power import World, faithful, power_table, rates, resample_seeds, to_markdown
from lib.core.rules import AtLeast


def _results():
    return {"cell": {4: {"spec": {"N": 4, "n_seeds": 3}, "result": {"x": [1.0, 1.0, 1.0], "grid": [10, 20],
                                                                      "y": [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]}},
                     8: {"spec": {"N": 8, "n_seeds": 3}, "result": {"x": [5.0, 6.0, 7.0], "grid": [10, 20],
                                                                      "y": [[0.0, 0.0, 0.0], [9.0, 9.0, 9.0]]}}}}


def test_resampling_draws_each_points_seeds_from_that_point_alone_and_keeps_a_seeds_numbers_together():
    rng, res = np.random.default_rng(0), _results()
    for _ in range(20):
        sim = resample_seeds({}, res, rng)
        a, b = sim["cell"][4]["result"], sim["cell"][8]["result"]
        assert a["x"] == [1.0, 1.0, 1.0] and set(b["x"]) <= {5.0, 6.0, 7.0}      # no spread pooled across cells
        assert a["grid"] == [10, 20]                                            # no seed axis: as it was
        seeds = [int(v) for v in a["y"][0]]                                     # seed s has y = (s, s + 3)
        assert [int(v) - 3 for v in a["y"][1]] == seeds
    assert res["cell"][8]["result"]["x"] == [5.0, 6.0, 7.0]                     # the stored results are untouched


def _row():
    return Row("big", "claim", "s", "x is large", AtLeast("mean x at N = 8", 5.5),
               lambda P, r: Measured(float(np.mean(r["cell"][8]["result"]["x"]))))


def test_rates_are_the_rows_own_verdicts_with_their_monte_carlo_error():
    low = World("x lowered by 2", False, lambda P, r, rng: {"cell": {8: {"spec": {}, "result": {"x": [3.0]}}}})
    t = rates(_row(), low, {}, _results(), draws=40)
    assert (t["pass"], t["fail"], t["censored"], t["se"], t["mechanism"]) == (0.0, 1.0, 0.0, 0.0, False)
    f = rates(_row(), faithful(), {}, _results(), draws=400, seed=1)
    assert 0.5 < f["pass"] < 0.9 and f["se"] == pytest.approx(np.sqrt(f["pass"] * (1 - f["pass"]) / 400), abs=1e-4)
    assert f == rates(_row(), faithful(), {}, _results(), draws=400, seed=1)     # the same seed, the same table


def test_a_row_needs_a_world_with_and_one_without_its_mechanism():
    with pytest.raises(ValueError, match="one with the theorem's mechanism and one without"):
        power_table([_row()], {"big": (faithful(),)}, {}, _results(), draws=5)
    with pytest.raises(ValueError, match="rows that do not exist"):
        power_table([_row()], {"other": (faithful(),)}, {}, _results(), draws=5)
    low = World("x lowered", False, lambda P, r, rng: {"cell": {8: {"spec": {}, "result": {"x": [3.0]}}}})
    table = power_table([_row()], {"big": (faithful(), low)}, {}, _results(), draws=20)
    md = to_markdown(table)
    assert [t["world"] for t in table] == [faithful().name, "x lowered"]
    assert md.splitlines()[0].startswith("| row | world | mechanism | pass | FAIL | censored |")
    assert "| `big` | x lowered | no | 0% ± 0% | 100% | 0% |" in md


def test_a_point_whose_runs_have_no_axis_of_their_count_is_refused_not_left_alone():
    flat = {"p": {"spec": {"trials": 12}, "result": {"success": [1.0] * 84}}}     # 7 m x 12 trials, flattened
    with pytest.raises(ValueError, match="no stored number has an axis of 12"):
        resample_seeds({}, flat, np.random.default_rng(0), fields=("trials",))
