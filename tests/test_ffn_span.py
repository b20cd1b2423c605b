"""lib.chapters.ffn_span: the span projection, the visible fraction's closed form, the oracle, the rotation of prompts, GD's
exact off-span decay and rotation equivariance, samples-to-threshold, the specs, and one tiny collect through the
store."""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import torch

from lib.chapters.ffn_span import claims as fc
from lib.chapters.ffn_span import compute as fs
from lib.chapters.ffn_span import results as fr
from lib.chapters.ffn_span.experiments import ffn as fx
from lib.chapters.ffn_span.experiments import readout
from lib.chapters.rnn_norm_growth.results import critical_width
from lib.core import params
from lib.core.claims import Measured
from lib.core.store import Store, key_of, spec_dict
from lib.core.sweep import collect
from lib.science import models, span
from lib.science.qstr import QSTR
from lib.science.stats import BELOW_GRID, log_crossing, zscore


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


# ------------------------------------------------------------------------------------------ span projection
def test_span_projector_is_the_projector_onto_the_first_n_inputs():
    R, n_max, k = 3, 5, 8
    x = torch.randn(R, n_max, k, generator=gen())
    n = torch.tensor([2, 5, 3])
    P = span.span_projector(x, n)
    for r in range(R):
        m = int(n[r])
        torch.testing.assert_close(P[r], P[r].T)
        torch.testing.assert_close(P[r] @ P[r], P[r])
        assert round(float(torch.trace(P[r]))) == m                              # rank n
        torch.testing.assert_close(x[r, :m].double() @ P[r], x[r, :m].double())  # the inputs are in the span
        if m < n_max:                                                             # the padding is not
            assert (x[r, m:].double() @ P[r] - x[r, m:].double()).norm() > 1e-3


def test_span_projector_batched_path_matches_per_run():
    x = torch.randn(4, 3, 6, generator=gen(1))
    P = span.span_projector(x, torch.full((4,), 3))
    for r in range(4):
        torch.testing.assert_close(P[r], span.span_projector(x[r:r + 1], torch.tensor([3, 2]))[0])


def test_off_span_energy():
    x = torch.randn(1, 3, 7, generator=gen(2))
    P = span.span_projector(x, torch.tensor([3]))
    inside = torch.randn(1, 4, 3, generator=gen(3)) @ x          # rows are combinations of the inputs
    outside = torch.randn(1, 4, 7, generator=gen(4)).double()
    outside = outside - outside @ P[0]                             # rows orthogonal to the span
    assert float(span.off_span_energy(inside, P)) < 1e-10 * float(inside.pow(2).sum())
    torch.testing.assert_close(span.off_span_energy(outside, P), outside.pow(2).sum().reshape(1))


def test_x_columns_pick_the_tokens_of_the_flattened_prompt():
    task = QSTR(N=4, d=3, simple=True)
    U = span.unit_vectors(2, 3, gen())
    z, _, x, _ = fx.simple_1str(task, U, 5, gen(1))
    cols = span.x_columns(4, task.D, 3)
    torch.testing.assert_close(z.flatten(-2)[..., cols], x)


# ---------------------------------------------------------------------------------- the visible fraction
@pytest.mark.parametrize("N, d, n", [(2, 3, 1), (3, 2, 4), (4, 3, 7), (2, 2, 4)])
def test_visible_fraction_averaged_over_u_is_n_over_Nd(N, d, n):
    """E_u uu^T = I/d, so averaging nu over +-e_1, ..., +-e_d is the average over u on the sphere: n/(Nd) exactly."""
    x = torch.randn(1, n, N * d, generator=gen(n))
    P = span.span_projector(x, torch.tensor([n]))
    basis = torch.eye(d)
    nu = torch.stack([span.visible_fraction(P, basis[i:i + 1], N) for i in range(d)]).mean()
    assert float(nu) == pytest.approx(min(n, N * d) / (N * d), abs=1e-12)


def test_visible_fraction_by_hand():
    N, d = 3, 2
    x = torch.randn(1, 2, N * d, generator=gen(5))
    P = span.span_projector(x, torch.tensor([2]))
    u = span.unit_vectors(1, d, gen(6))
    by_hand = 0.0
    for t in range(N):
        e = torch.zeros(N * d, dtype=torch.float64)
        e[t * d:(t + 1) * d] = u[0].double()
        by_hand += float(e @ P[0] @ e) / N                          # ||V P_t u||^2 = (P_t u)^T V^T V (P_t u)
    assert float(span.visible_fraction(P, u, N)) == pytest.approx(by_hand, abs=1e-12)
    I = torch.eye(N * d, dtype=torch.float64).expand(1, -1, -1)
    assert float(fx._visible(P, u, N, I)) == pytest.approx(by_hand, abs=1e-12)


def test_oracle_is_exact_with_a_full_span_and_has_risk_1_minus_nu():
    N, d, M = 3, 2, 20000
    task = QSTR(N=N, d=d, simple=True)
    U = span.unit_vectors(1, d, gen(7))
    _, y, x, t = fx.simple_1str(task, U, M, gen(8))
    full = span.span_projector(torch.randn(1, N * d, N * d, generator=gen(9)), torch.tensor([N * d]))
    torch.testing.assert_close(span.oracle_predict(full, U, x, t, N), y[:, :, 0].double(), atol=1e-5, rtol=0)
    P = span.span_projector(torch.randn(1, 2, N * d, generator=gen(10)), torch.tensor([2]))
    risk = float((span.oracle_predict(P, U, x, t, N) - y[:, :, 0].double()).pow(2).mean())
    assert risk == pytest.approx(1 - float(span.visible_fraction(P, U, N)), abs=0.04)   # Monte Carlo, 20k prompts


# ------------------------------------------------------------------------------------ rotation of prompts
def test_haar_orthogonal():
    Q = span.haar_orthogonal(3, 5, gen())
    torch.testing.assert_close(Q @ Q.transpose(1, 2), torch.eye(5).expand(3, 5, 5), atol=1e-5, rtol=0)
    assert not torch.allclose(Q[0], Q[1])


def test_simple_1str_labels_and_rotated_tokens():
    N, d, B = 4, 3, 6
    task = QSTR(N=N, d=d, simple=True)
    U = span.unit_vectors(2, d, gen())
    Q = span.haar_orthogonal(2, N * d, gen(1))
    z, y, x, t = fx.simple_1str(task, U, B, gen(2))
    zq, yq, xq, tq = fx.simple_1str(task, U, B, gen(2), Q)          # the same draws, tokens rotated
    X = x.view(2, B, N, d)
    for r in range(2):
        for b in range(B):
            assert torch.allclose(y[r, b], (X[r, b, t[r, b]] @ U[r]).expand(N))  # <u, x_t> at every position
    torch.testing.assert_close(yq, y)                                 # labels are those of the original x
    torch.testing.assert_close(xq, x)
    torch.testing.assert_close(zq[..., :d].reshape(2, B, N * d), x @ Q.transpose(1, 2))
    torch.testing.assert_close(zq[..., d:], z[..., d:])                # position codes untouched


def test_gd_on_rotated_prompts_is_gd_on_the_original_from_a_rotated_init():
    """The mechanism of the rotation test: started from W_0 Q^T on the token columns, GD on prompts Qx makes the
    same predictions as GD on x from W_0 (the FFN sees Qx only through W Qx)."""
    N, d, n = 3, 2, 10
    task = QSTR(N=N, d=d, simple=True)
    model = models.FFN(N, task.D, (N * d, 8))
    U = span.unit_vectors(2, d, gen())
    Q = torch.linalg.qr(torch.randn(2, N * d, N * d, generator=gen(1), dtype=torch.float64)).Q  # orthogonal to 1e-16
    z, y, _, _ = fx.simple_1str(task, U, n, gen(2))
    z, y = z.double(), y.double()
    zq = z.clone()
    zq[..., :d] = (z[..., :d].reshape(2, n, N * d) @ Q.transpose(1, 2)).view(2, n, N, d)
    p = {k: v.double() for k, v in span.ffn_init(model, 2, gen(3)).items()}
    cols = span.x_columns(N, task.D, d)
    pq = {k: v.clone() for k, v in p.items()}
    pq["l0.w"][:, :, cols] = p["l0.w"][:, :, cols] @ Q.transpose(1, 2)
    ns = torch.full((2,), n)
    a, _, _ = span.train_full_batch(model.forward, p, z, y, ns, 30, "gd", 0.1, 0.05)
    b, _, _ = span.train_full_batch(model.forward, pq, zq, y, ns, 30, "gd", 0.1, 0.05)
    with torch.no_grad():
        torch.testing.assert_close(model.forward(b, zq), model.forward(a, z), atol=1e-10, rtol=0)


# ------------------------------------------------------------------------------------- the decay law of GD
def test_gd_off_span_energy_decays_exactly_and_adamw_does_not():
    N, d, n, lr, l2, steps = 3, 2, 3, 0.1, 0.05, 40
    task = QSTR(N=N, d=d, simple=True)
    model = models.FFN(N, task.D, (N * d, 8))
    U = span.unit_vectors(2, d, gen())
    z, y, x, _ = fx.simple_1str(task, U, n, gen(1))
    p = {k: v.double() for k, v in span.ffn_init(model, 2, gen(2)).items()}
    ns = torch.full((2,), n)
    P = span.span_projector(x, ns)
    cols = span.x_columns(N, task.D, d)
    watch = lambda q: span.off_span_energy(q["l0.w"][:, :, cols], P)[:, None]
    _, steps_gd, off = span.train_full_batch(model.forward, p, z.double(), y.double(), ns, steps, "gd", lr, l2, watch, 10)
    law = off[0, :, 0] * (1 - lr * l2) ** (2 * torch.tensor(steps_gd, dtype=torch.float64))[:, None]
    torch.testing.assert_close(off[:, :, 0], law, rtol=1e-9, atol=0)
    _, _, off_adam = span.train_full_batch(model.forward, p, z.double(), y.double(), ns, steps, "adamw", 1e-2, l2, watch, 10)
    assert (off_adam[-1, :, 0] / law[-1] - 1).abs().min() > 1e-3


# --------------------------------------------------------------------------------------------- bookkeeping
def test_n_values_and_bands():
    assert fs.n_values(4, 2, [0.25, 0.5, 1.0, 2.0]) == [2, 4, 8, 16]
    assert fs.n_values(2, 1, [0.1]) == [1]
    assert fx.bands([4, 8, 100, 150, 300, 1000], small=16) == [[4, 8], [100, 150], [300], [1000]]
    assert fx.bands([2, 40, 60], small=64) == [[2, 40, 60]]


def test_standard_error_of_all_values_and_along_an_axis():
    from lib.science.stats import standard_error
    x = np.array([[1.0, 3.0, 5.0], [2.0, 2.0, 2.0]])
    assert standard_error(x[0]) == pytest.approx(2.0 / math.sqrt(3))
    assert standard_error(torch.tensor(x[0])) == standard_error(x[0])
    np.testing.assert_allclose(standard_error(x, 1), [2.0 / math.sqrt(3), 0.0])
    np.testing.assert_allclose(standard_error(x, 0), np.abs(x[0] - x[1]) / 2)   # two values: |a - b| / 2


def test_zscore_handles_identical_runs():
    assert zscore(0.0, 0.0) == 0 and zscore(1.0, 0.0) == np.inf and zscore(-2.0, 1.0) == -2


def test_samples_to_threshold():
    n = [10, 20, 40, 80]
    assert fr.samples_to_threshold(n, [1.0, 0.9, 0.6, 0.3], 0.75) == pytest.approx(math.sqrt(20 * 40))
    # below the grid: the crossing is at or before n[0], a bound (it used to read as n[0] itself)
    assert fr.samples_to_threshold(n, [0.5, 0.4, 0.3, 0.2], 0.75) == BELOW_GRID == -math.inf
    assert math.isnan(fr.samples_to_threshold(n, [1.0, 0.9, 0.9, 0.8], 0.75))


def test_rnn_critical_width_keeps_its_reading_of_a_crossing_below_the_grid():
    """log_crossing's other caller: the critical width is still the smallest width when that one reaches already."""
    assert critical_width([2, 4, 8], [0.2, 0.1, 0.1], 0.3) == 2
    assert log_crossing([2, 4, 8], [0.2, 0.1, 0.1], 0.3) == BELOW_GRID


def _floor_results(ffn_curve, readout_curve=(0.9, 0.8, 0.4, 0.2)):
    """Results at one N = 2 (d = 2, Nd = 4) over n = 1, 2, 4, 8: the GD FFN's mean test-MSE curve `ffn_curve` and the
    read-out's `readout_curve`, each over two runs (draws) a little apart, so that every point has an SE."""
    runs = lambda curve: [[v - 0.01, v + 0.01] for v in curve]
    ffn = {"result": {"n": [1, 2, 4, 8], "test_mse": runs(ffn_curve), "oracle_mse": [[0.5, 0.5]] * 4}}
    return {"ffn": {(2, False): ffn}, "readout": {2: {"result": {"n": [1, 2, 4, 8], "readout_mse": runs(readout_curve)}}}}


def _floor(P, results, rule=None):
    """8c-floor's verdict: its rule (RULE_FLOOR unless given) on what its measure found."""
    return (rule or fc.RULE_FLOOR).decide(fc._floor(P, results))


def test_floor_reads_the_grid_below_it_for_both_learners():
    """8c-floor holds each learner's mean test MSE at every grid n below (1 - eps) N d to eps: a learner already
    under eps there breaks the floor; one that reaches eps only past the floor, or never, passes."""
    P = {"N_grid": [2], "d": 2, "threshold": 0.5}                      # floor (1 - 0.5) * 4 = 2: only n = 1 is below
    assert _floor(P, _floor_results([1.0, 0.9, 0.8, 0.7])).passed                       # FFN never, read-out past it
    assert not _floor(P, _floor_results([0.3, 0.9, 0.8, 0.7])).passed                   # the FFN under eps at n = 1
    assert not _floor(P, _floor_results([1.0, 0.9, 0.8, 0.7], (0.4, 0.3, 0.2, 0.1))).passed   # the read-out
    m = fc._floor(P, _floor_results([1.0, 0.9, 0.8, 0.7]))
    assert isinstance(m, Measured) and "first below $\\varepsilon$ at $n$ = 4 (floor 2)" in m.text
    row = next(r for r in fc.ROWS if r.id == "8c-floor")
    assert row.rule is fc.RULE_FLOOR and row.decide(P, _floor_results([1.0, 0.9, 0.8, 0.7])) == fc.RULE_FLOOR.decide(m)
    assert fc._floor({**P, "threshold": 0.9}, _floor_results([1.0, 0.9, 0.8, 0.7])) is None   # floor 0.4: no n below


def test_min_norm_readout_learns_u_and_sits_on_the_line():
    """beta = u once the training tokens span R^d; with n < d it is u's projection (min norm), and the learner's risk
    is 1 - n/(Nd) within Monte-Carlo error (the oracle's)."""
    N, d = 3, 2
    x = torch.randn(1, 4, N * d, generator=gen(11))
    t = torch.tensor([[0, 2, 1, 2]])
    U = span.unit_vectors(1, d, gen(12))
    y = torch.einsum("nd,d->n", x.view(4, N, d)[torch.arange(4), t[0]], U[0])[None]
    torch.testing.assert_close(readout.min_norm_readout(x, t, y, N), U.double())
    beta1 = readout.min_norm_readout(x[:, :1], t[:, :1], y[:, :1], N)               # n = 1 < d: min norm
    f = x.view(4, N, d)[0, t[0, 0]].double()
    torch.testing.assert_close(beta1[0], f * float(y[0, 0]) / float(f @ f))
    out = readout.run_readout(readout.ReadoutPoint(N=3, d=2, n=(2, 4), draws=400, n_test=200, seed=0), "cpu")
    mse = out["readout_mse"]
    for i, n in enumerate(out["n"]):
        assert abs(mse[i].mean() - (1 - n / 6)) <= 4 * mse[i].std() / math.sqrt(mse.shape[1])


SMOKE = params.resolve("ffn_span", "smoke")     # every arm at its smallest (parameters/ffn_span/smoke.yaml)


def key(spec) -> str:
    return key_of(spec_dict(spec))


def test_specs_hold_what_their_runs_read():
    """A point's store key changes with a parameter its run reads and with no other."""
    keys = lambda P: {p.label: key_of(spec_dict(p.spec)) for p in fs.points(P)}
    base = keys(SMOKE)
    assert list(base) == [("span",), ("visibility", 2), ("visibility", 3), ("readout", 2), ("readout", 3),
                          ("ffn", (2, False)), ("ffn", (3, False)), ("ffn", (3, True)), ("transformer",)]
    differs = lambda **kw: {label for label, k in keys({**SMOKE, **kw}).items() if k != base[label]}
    assert differs(tr_lr=0.5) == {("transformer",)}
    assert differs(adamw_lr=0.5) == {("span",)}
    assert differs(n_draws=7) == {("visibility", 2), ("visibility", 3), ("readout", 2), ("readout", 3)}
    assert differs(threshold=0.5) == differs(device="cuda") == set()        # page-only and run-time parameters
    assert fs.visibility_spec({**SMOKE, "n_test": 5000}, 2).n_test == 1000   # capped: the draws dominate the error


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """One tiny collect into a temporary results root, shared by the tests below, then the same collect again."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BOOK_RESULTS", str(tmp_path_factory.mktemp("results")))
        store = Store("ffn_span", "smoke", stored_only=False)
        lines, again = [], []
        results = collect(fs.points(SMOKE), store, "cpu", log=lines.append)
        rerun = collect(fs.points(SMOKE), store, "cpu", log=again.append)
        ref = fr.adamw_reference("smoke")     # no stored sample_complexity run of that profile: said, not raised
    return {"lines": lines, "again": again, "results": results, "rerun": rerun, "ref": ref}


def test_compute_stores_every_point_and_reruns_load(tiny):
    first, second = tiny["results"], tiny["rerun"]
    assert len([line for line in tiny["lines"] if " computed in " in line]) == 9     # span, 2+2 Monte Carlo, 3 ffn, TR
    assert not [line for line in tiny["again"] if " computed in " in line] and "9 of 9 points loaded" in tiny["again"][-1]
    ref = tiny["ref"]
    assert not ref["available"] and "sample_complexity" in ref["why"]
    assert second["ffn"][(3, True)]["result"] == first["ffn"][(3, True)]["result"]
    rows = fc.claims(SMOKE, second)
    assert {c["id"] for c in rows} >= {"8a-decay-law", "8-oracle", "8b-ffn-above-line", "8b-readout-on-line",
                                       "8b-adamw-line", "rotation-ffn"}       # no n below the floor: no 8c-floor
    assert all(isinstance(c["passed"], bool) and c["kind"] in ("check", "claim") and c["source"] for c in rows)
    shape = (len(SMOKE["n_over_Nd"]), SMOKE["n_seeds"])
    assert np.array(second["ffn"][(2, False)]["result"]["test_mse"], dtype=float).shape == shape


def test_claim_fails_when_the_ffn_beats_the_line(tiny):
    """Claims are computed, so they can fail: an FFN below 1 - n/(Nd) fails row 8b."""
    results = copy.deepcopy(tiny["results"])
    for rec in results["ffn"].values():
        rec["result"]["test_mse"] = (np.array(rec["result"]["test_mse"], dtype=float) * 0 + 0.01).tolist()
    verdict = {c["id"]: c["passed"] for c in fc.claims(SMOKE, results)}
    assert verdict["8b-ffn-above-line"] is False


def test_adamw_line_claim_fails_when_adamw_beats_the_line_and_is_censored_when_it_does_not_fit(tiny):
    """8b-adamw-line can fail: an AdamW FFN far below 1 - n/(Nd) on the fixed n fails it; one that ends worse than
    predicting zero leaves it censored (it learned nothing to compare with the line)."""
    results = copy.deepcopy(tiny["results"])
    results["span"]["result"]["adamw"]["test_mse"] = [0.01, 0.02]
    verdict = {c["id"]: c for c in fc.claims(SMOKE, results)}
    assert verdict["8b-adamw-line"]["passed"] is False and not verdict["8b-adamw-line"].get("censored")
    results["span"]["result"]["adamw"]["test_mse"] = [1.10, 1.15]
    row = {c["id"]: c for c in fc.claims(SMOKE, results)}["8b-adamw-line"]
    assert not row["passed"] and "predicting zero" in row["censored"]


def test_every_row_decides_and_words_its_rule_from_one_object():
    """Each row holds a rule object (lib.core.rules) whose fields both decide the verdict and write the rule's text:
    raising 8c-floor's bar from -4 to +60 SE fails a read-out 0.4 above eps (0.01 SE), and its words say 60."""
    import dataclasses

    assert all(r.rule is not None and r.expected == r.rule.text for r in fc.ROWS)
    assert all(any(w in r.expected for w in ("(book's calibration", "(paper", "(exact")) for r in fc.ROWS)
    P = {"N_grid": [2], "d": 2, "threshold": 0.5}
    results = _floor_results([1.0, 0.9, 0.8, 0.7])
    assert _floor(P, results).passed and "≥ -4 at every grid" in fc.RULE_FLOOR.text
    strict = dataclasses.replace(fc.RULE_FLOOR, bound=60)
    assert not _floor(P, results, strict).passed and "≥ 60 at every grid" in strict.text


def test_every_row_has_a_faithful_world_and_one_without_the_mechanism_and_twins_resample_together():
    """claims/power.py declares worlds for every row; its faithful world draws the rotation test's plain and rotated
    runs by one index, so each rotated run stays the twin of its plain run."""
    from lib.chapters import stored
    from lib.chapters.ffn_span.claims.power import WORLDS, resampled

    assert set(WORLDS) == {r.id for r in fc.ROWS}
    assert all(any(w.mechanism for w in ws) and not all(w.mechanism for w in ws) for ws in WORLDS.values())
    P, results = stored("ffn_span")
    sim = resampled(P, results, np.random.default_rng(3))
    mse = lambda r, rot: np.array(r["ffn"][(P["N_rotation"], rot)]["result"]["test_mse"])
    gaps = lambda r: {tuple(c) for c in np.round((mse(r, True) - mse(r, False)).T, 9)}   # one per run
    assert gaps(sim) <= gaps(results)
