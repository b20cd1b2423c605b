"""lib.science.rnn_constructions, models.BiRNN and lib.chapters.rnn_norm_growth: the accumulator's exactness and its
recurrence, the gadget and the dead-zone rectifier, the drift of the biased transition, the width mask (a masked run
is a narrower network), the replay of Phi, the critical width, the participation ratio, Thm 9's memoriser (Lemmas
37-38, through BiRNN) and its claims, the specs, and one tiny sweep through the store."""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from lib.chapters.rnn_norm_growth import claims as ch_claims
from lib.chapters.rnn_norm_growth import compute as rg
from lib.chapters.rnn_norm_growth import page
from lib.chapters.rnn_norm_growth import results as ch_results
from lib.chapters.rnn_norm_growth.experiments import construction, memoriser, phase
from lib.core import params
from lib.core.claims import evaluate
from lib.core.power import seeds_times
from lib.core.store import Store, key_of, spec_dict
from lib.core.sweep import collect
from lib.science import rnn_constructions as rc
from lib.science.models import BiRNN


def gen(seed=0):
    return torch.Generator().manual_seed(seed)



# --------------------------------------------------------------------------------------------- gadgets
def test_dead_zone_is_exactly_zero_inside_and_shifted_outside():
    x = torch.tensor([-3.0, -0.5, -0.25, 0.0, 0.1, 0.5, 2.0])
    torch.testing.assert_close(rc.dead_zone(x, 0.5), torch.tensor([-2.5, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5]))


def test_gate_multiplies_by_the_indicator_exactly():
    x = torch.randn(1000, generator=gen()) * 2                                 # |x| <= 12 = B here
    assert torch.equal(rc.gate(x, torch.zeros(1000), 12.0), x)                 # off = 0: x exactly
    for off in (1.0, 1.5, 7.0):
        assert torch.equal(rc.gate(x, torch.full((1000,), off), 12.0), torch.zeros(1000))


def test_transition_is_x_times_the_match_indicator():
    task = rc.construction_task(N=12, d=3, q=2, simple=False, task_seed=1)
    X, T = task.draw(1, 50, gen(1))
    z = task.encode(X, T)[0]
    psi = rc.transition(z, 2, 3, task.d_e, 12.0).view(50, 12, 2, 3)
    for b in range(5):
        for i in range(12):
            for l in range(2):
                want = X[0, b, i] if int(T[0, b, i, l]) == i else torch.zeros(3)
                assert torch.equal(psi[b, i, l], want)


def test_distinct_codes():
    E = rc.distinct_codes(16, 4, gen(2))                                         # all 16 corners: must be a permutation
    assert len(torch.unique(E, dim=0)) == 16
    with pytest.raises(ValueError):
        rc.distinct_codes(17, 4, gen(2))


# ---------------------------------------------------------------------------------------- accumulator
def test_accumulate_is_the_recurrence():
    psi = torch.randn(3, 9, 4, generator=gen(3)).double()
    for bias, rect in ((0.0, None), (0.01, None), (0.01, 0.01)):
        for a, b in zip(rc.accumulate(psi, bias, rect), rc.recurrent_accumulate(psi, bias, rect)):
            torch.testing.assert_close(a, b)


@pytest.mark.parametrize("N", [10, 1000, 10000])
def test_accumulator_is_exact_on_simple_qstr(N):
    q, d = 2, 3
    task = rc.construction_task(N=N, d=d, q=q, simple=True, task_seed=0)
    X, T = task.draw(1, 4, gen(N))
    z, y = task.encode(X, T)[0], task.labels(X, T)[0]
    fwd, bwd, own = rc.accumulate(rc.transition(z, q, d, task.d_e, 12.0))
    state = fwd + bwd + own
    want = X[0][torch.arange(4)[:, None], T[0, :, 0]].flatten(-2)             # (x_t1, x_t2) of each prompt
    assert torch.equal(state, want[:, None].expand_as(state))
    assert float((rc.readout(state, task.u, q) - y).abs().max()) < 1e-5


def test_biased_transition_drifts_linearly_and_the_rectifier_stops_it():
    spec = construction.ConstructionPoint(N=(10, 100, 1000), q=2, d=3, B=12.0, eps=1e-2, prompts=4, seed=0, task_seed=0)
    out = construction.run_construction(spec, "cpu")
    beta = spec.eps / (2 * math.sqrt(3))
    # the bias is summed over all N positions of both directions: N beta on every coordinate of the q d
    np.testing.assert_allclose(out["err_plain"], np.array(spec.N) * beta * math.sqrt(6), rtol=1e-6)
    assert max(out["err_rect"]) <= math.sqrt(2) * spec.eps
    assert max(out["mse_simple"]) < 1e-10 and min(out["mse_full"]) > 0.9


# ----------------------------------------------------------------------------------------------- BiRNN
def test_gru_states_match_torch_gru():
    m = BiRNN(D=4, hidden=3, cell="gru")
    p = m.init(1, gen(6))
    g = torch.nn.GRU(4, 3, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for name, k in (("weight_ih", "w_ih"), ("weight_hh", "w_hh"), ("bias_ih", "b_ih"), ("bias_hh", "b_hh")):
            getattr(g, f"{name}_l0").copy_(p[f"rnn.{k}"][0, 0])
            getattr(g, f"{name}_l0_reverse").copy_(p[f"rnn.{k}"][0, 1])
    z = torch.randn(1, 2, 5, 4, generator=gen(7))
    hs = BiRNN.states(p, z)
    out = g(z[0])[0]
    torch.testing.assert_close(torch.cat([hs[0, 0], hs[0, 1]], -1), out)


@pytest.mark.parametrize("cell", ["gru", "elman"])
def test_masked_run_is_the_narrower_network(cell):
    """A width-2 run inside a width-5 batch gives the same outputs as the width-2 network (the sliced weights)."""
    wide = BiRNN(D=6, hidden=5, cell=cell, m=8)
    p = wide.init(2, gen(8), widths=[2, 5])
    G = 3 if cell == "gru" else 1
    rows = torch.cat([torch.arange(g * 5, g * 5 + 2) for g in range(G)])
    narrow = {"rnn.w_ih": p["rnn.w_ih"][:1, :, rows], "rnn.w_hh": p["rnn.w_hh"][:1, :, rows][..., :2],
              "rnn.b_ih": p["rnn.b_ih"][:1, :, rows], "rnn.b_hh": p["rnn.b_hh"][:1, :, rows],
              "buf.mask": torch.ones(1, 2)}
    cols = torch.tensor([0, 1, 5, 6])
    if cell == "gru":
        narrow |= {"out.w": p["out.w"][:1, :, cols], "out.b": p["out.b"][:1]}
    else:
        narrow |= {"rd.U": p["rd.U"][:1, :, cols], **{k: p[k][:1] for k in ("rd.Wy", "rd.b", "rd.w2", "rd.b2")}}
    z = torch.randn(2, 3, 5, 6, generator=gen(9))
    torch.testing.assert_close(BiRNN.forward(p, z)[:1], BiRNN.forward(narrow, z[:1]))
    # and the masked units get no gradient
    q = {k: v.clone().requires_grad_(not k.startswith("buf.")) for k, v in p.items()}
    BiRNN.forward(q, z)[0].sum().backward()
    assert float(q["rnn.w_hh"].grad[0, :, :, 2:].abs().max()) == 0.0


def test_elman_pre_states_do_not_see_position_j():
    m = BiRNN(D=5, hidden=4, cell="elman", m=8)
    p = m.init(1, gen(10))
    z = torch.randn(1, 2, 6, 5, generator=gen(11))
    z2 = z.clone()
    z2[:, :, 3] = torch.randn(1, 2, 5, generator=gen(12))
    torch.testing.assert_close(BiRNN.pre_states(p, z)[:, :, 3], BiRNN.pre_states(p, z2)[:, :, 3])
    assert torch.equal(BiRNN.pre_states(p, z)[:, :, 0, :4], torch.zeros(1, 2, 4))   # nothing before position 0


def test_replay_phi_is_the_network_with_t_j_replaced():
    from lib.science.qstr import QSTR

    task = QSTR(N=6, d=3, task_seed=3)
    m = BiRNN(D=task.D, hidden=4, cell="elman", m=8)
    p = m.init(2, gen(13))
    X, T = task.draw(2, 5, gen(14))
    z = task.encode(X, T)
    j = 2
    s = BiRNN.pre_states(p, z)[:, :, j]
    phi = phase.replay_phi(p, task, s, z[:, :, j], j)
    for col, k in enumerate([k for k in range(6) if k != j]):
        T2 = T.clone()
        T2[:, :, j] = k
        torch.testing.assert_close(phi[..., col], BiRNN.forward(p, task.encode(X, T2))[:, :, j])


def test_lipschitz_terms_bound_the_state_sensitivity():
    m = BiRNN(D=5, hidden=4, cell="elman", m=8)
    p = m.init(1, gen(15), widths=[3])
    s = torch.randn(1, 50, 8, generator=gen(16)) * torch.cat([p["buf.mask"], p["buf.mask"]], 1)[:, None]
    lt = phase.lipschitz_terms(p, s)
    assert float(lt["r_h"]) == pytest.approx(float(s.norm(dim=-1).max()), rel=1e-6)
    z = torch.randn(1, 50, 5, generator=gen(17))
    s2 = s + 1e-3 * torch.randn(1, 50, 8, generator=gen(18)) * torch.cat([p["buf.mask"]] * 2, 1)[:, None]
    dy = (BiRNN.read(p, s, z) - BiRNN.read(p, s2, z)).abs()
    assert bool((dy <= float(lt["L"] * lt["U_op"]) * (s - s2).norm(dim=-1) + 1e-6).all())


# ------------------------------------------------------------------------------ Thm 9: the memoriser
def test_forward_at_is_forward_at_one_position_per_prompt():
    for cell in ("gru", "elman"):
        m = BiRNN(D=5, hidden=4, cell=cell, m=8)
        p = m.init(2, gen(20))
        z = torch.randn(2, 7, 6, 5, generator=gen(21))
        j = torch.randint(0, 6, (7,), generator=gen(22))
        torch.testing.assert_close(BiRNN.forward_at(p, z, j), BiRNN.forward(p, z)[:, torch.arange(7), j])


@pytest.mark.parametrize("n", [1, 2, 50])
def test_lemma38_interpolant_is_exact_with_the_lemmas_norm(n):
    z, y = torch.randn(n, generator=gen(23)).double() * 2, torch.randn(n, generator=gen(24)).double()
    net = rc.relu_interpolant(z, y)
    torch.testing.assert_close(rc.interpolant(net, z), y, rtol=0, atol=1e-9)
    assert net["norm_sq"] == pytest.approx(float(net["a"].square().sum() + net["w"].square().sum() + net["b"].square().sum()))
    # rescaling by alpha changes the norm, never the function
    unscaled = {"a": net["a"] / net["alpha"], "w": net["w"] * net["alpha"], "b": net["b"] * net["alpha"]}
    t = torch.linspace(-6, 6, 101, dtype=torch.float64)
    torch.testing.assert_close(rc.interpolant(unscaled, t), rc.interpolant(net, t))
    # (C.16) with the constants of the proof: ||a'||^2 <= 19 ||y||^2 / eps^2 and n + ||b'||^2 <= 3 (n + ||z||^2)
    bound = 22 * float(y.norm() * (n + z.square().sum()).sqrt()) / net["eps"]
    assert net["norm_sq_balanced"] <= net["norm_sq"] <= bound


def test_lemma37_direction_meets_the_event():
    x = torch.randn(200, 4, generator=gen(25)).double()
    v, z, gap, tries, event = rc.lemma37_direction(x, gen(26))
    assert event and float(v.norm()) == pytest.approx(1.0)
    assert gap >= math.sqrt(math.pi) / (3 * 200 ** 2) and float(z.square().sum()) <= 3 * 200
    torch.testing.assert_close(z, x @ v)
    x[1] = x[0]                                                               # two equal tokens: no v separates them
    assert rc.lemma37_direction(x, gen(26), tries=3)[3:] == (3, False)


def test_memoriser_through_birnn_reproduces_its_labels():
    from lib.science.qstr import QSTR

    task = QSTR(N=6, d=3, task_seed=5)
    X, T = task.draw(1, 30, gen(27))
    j = torch.randint(0, 6, (30,), generator=gen(28))
    b = torch.arange(30)
    x, y = X[0, b, j].double(), task.labels(X, T)[0, b, j].double()
    v, z, *_ = rc.lemma37_direction(x, gen(29))
    net = rc.relu_interpolant(z, y)
    p = rc.memoriser_params(v, net, task.D)
    out = BiRNN.forward(p, task.encode(X, T).double())[0]                  # every position of every prompt
    torch.testing.assert_close(out[b, j], y, rtol=0, atol=1e-9)
    assert float(phase.param_norm_sq(p)) == pytest.approx(net["norm_sq"], rel=1e-12)
    X2 = X.clone()
    X2[..., 0, :] += 1.0                                                      # the memoriser reads x_j alone
    torch.testing.assert_close(BiRNN.forward(p, task.encode(X2, T).double())[0, :, 1:], out[:, 1:])


def test_memoriser_claims_pass_on_the_construction_and_fail_on_bad_input():
    spec = memoriser.MemoriserPoint(n=(4, 8, 16, 32), draws=3, d=3, N=5, n_test=200, seed=0, task_seed=1)
    r = memoriser.run_memoriser(spec, "cpu")
    assert max(map(max, r["train_err"])) < 1e-9 and min(map(min, r["test_mse"])) > 0.9
    P = {"d": 3, "memo_draws": 3}
    n = np.array(spec.n, float)[:, None]
    check = lambda **kw: {c["id"]: c["passed"]
                          for c in evaluate(ch_claims.MEMORISER_ROWS, P, {"memoriser": {"result": {**r, **kw}}})}
    assert check(theta_sq=(n ** 3 * [1, 2, 3]).tolist())["thm9-memoriser-slope"]
    assert not check(theta_sq=(n ** 2 * [1, 2, 3]).tolist())["thm9-memoriser-slope"]
    assert check()["thm9-memoriser-exact"]
    assert not check(rounding_ratio=(np.array(r["rounding_ratio"]) + 1e3).tolist())["thm9-memoriser-exact"]
    assert not check(test_mse=(np.array(r["test_mse"]) * 0 + 0.5).tolist())["thm9-memoriser-exact"]
    assert check(tries=(n * 0 + [1, 1, 2]).astype(int).tolist())["thm9-lemma37"]
    assert not check(tries=(n * 0 + [2, 2, 3]).astype(int).tolist())["thm9-lemma37"]


# ------------------------------------------------------------------------------------------ summaries
def test_critical_width():
    w = [2, 4, 8, 16]
    assert ch_results.critical_width(w, [0.9, 0.5, 0.1, 0.05], 0.3) == pytest.approx(math.exp(math.log(4) + 0.5 * math.log(2)))
    assert ch_results.critical_width(w, [0.2, 0.1, 0.1, 0.1], 0.3) == 2
    assert math.isnan(ch_results.critical_width(w, [0.9, 0.8, 0.7, 0.6], 0.3))


def test_participation_ratio():
    s = torch.randn(1, 4000, 6, generator=gen(19)) * torch.tensor([1.0, 1, 1, 0, 0, 0])
    assert float(phase.participation_ratio(s)) == pytest.approx(3, rel=0.1)


def test_check_params():
    P = {"phase_N": [4], "widths": [4, 2], "q": 2, "construction_N": [3, 10], "memo_n": [8, 8]}
    keys = [k for k, _ in rg.check_params(P)]
    assert keys == ["phase_N", "widths", "construction_N", "memo_n"]
    assert [k for k, _ in rg.check_params({**P, "min_samples": 10, "max_samples": 5})][-2] == "min_samples"


SMOKE = params.resolve("rnn_norm_growth", "smoke")     # every arm at its smallest (parameters/rnn_norm_growth/smoke.yaml)


def test_points_nest_as_the_page_reads_them():
    points = rg.points(params.resolve("rnn_norm_growth", "quick"))
    labels = {p.label for p in points}
    assert {("construction",), ("a2",), ("memoriser",), ("phase", ("elman", "1str", 8))} <= labels
    assert all(p.threads == 1 for p in points)
    # the most expensive training points are scheduled first
    trained = sorted((p for p in points if p.label[0] == "phase"), key=lambda p: -p.cost)
    assert trained[0].label == ("phase", ("gru", "1str", 8))


def test_specs_hold_what_their_runs_read():
    """A parameter a point reads changes its store key; one it does not read leaves it."""
    def keys(P):
        specs = {"construction": rg.construction_spec(P), "memoriser": rg.memoriser_spec(P),
                 "phase": rg.phase_spec(P, "elman", "1str", 4), "a2": rg.a2_spec(P)}
        return {k: key_of(spec_dict(v)) for k, v in specs.items()}

    base = keys(SMOKE)
    changed = {"eps": 1e-2, "phase_N": [3, 5], "packing_prompts": 11, "off_target": 0.02, "task_seed": 1,
               "memo_draws": 3, "archs": ["elman"]}
    expected = {"eps": {"construction"}, "phase_N": {"memoriser"}, "packing_prompts": {"phase"}, "off_target": {"a2"},
                "task_seed": {"construction", "memoriser", "phase", "a2"}, "memo_draws": {"memoriser"}, "archs": set()}
    for param, value in changed.items():
        now = keys({**SMOKE, param: value})
        assert {k for k in base if base[k] != now[k]} == expected[param], param
    assert dataclasses.asdict(rg.phase_spec(SMOKE, "gru", "simple", 3))["widths"] == tuple(SMOKE["widths"])


def test_sweep_stores_and_reloads(tmp_path):
    store = Store("rnn_norm_growth", "smoke", root=tmp_path)
    res = collect(rg.points(SMOKE), store, "cpu", log=None)
    again = Store("rnn_norm_growth", "smoke", root=tmp_path)
    lines = []
    res2 = collect(rg.points(SMOKE), again, "cpu", log=lines.append)
    assert not [line for line in lines if "computed" in line]
    c1, c2 = ch_claims.claims(SMOKE, res), ch_claims.claims(SMOKE, res2)
    assert c1 == c2 and all(c["kind"] in ("check", "claim") and c["source"] for c in c1)
    assert {c["id"] for c in c1} >= {"9-exact", "9-drift", "10a-width-1str-gru", "10b-norm", "10c-separation",
                                     "thm9-memoriser-exact", "thm9-memoriser-slope", "thm9-lemma37"}
    cx = ch_results.crossover_table(SMOKE, res)
    assert len(cx["N"]) == 2 and cx["n_bound"].shape == (2,)


# ------------------------------------------------------------------ decided runs, censoring, honest rules
def test_training_runs_until_decided_not_until_a_budget():
    """Run 0 learns (reaches), run 1 cannot (a frozen output: plateau); with a cap below min_samples, the same runs
    still above the threshold are censored (undecided), not failures. The old loop (engine.train_to_threshold)
    had only reached / not reached by the cap."""
    from lib.science import engine

    def forward(p, z):
        return z[..., 0] * p["w"][:, None, None] * p["buf.live"][:, None, None]

    def sample(n, b, g):
        z = torch.randn(n, b, 3, 1, generator=g)
        return z, z[..., 0]

    p = {"w": torch.zeros(3), "buf.live": torch.tensor([1.0, 0.0, 1.0])}
    test = sample(3, 500, gen(1))
    cfg = engine.TrainConfig(lr=0.05, weight_decay=0.0, batch_size=16, check_every=5, max_samples=16 * 400)
    short = engine.TrainConfig(**{**cfg.__dict__, "lr": 0.01, "max_samples": 16 * 20})
    r = phase.train_to_decision(forward, p, sample, test, 0.3, cfg, min_samples=16 * 50, factor=10, gen=gen(2))
    assert r["status"].tolist()[:2] == [0, 1] and np.isfinite(r["samples"][0]) and np.isnan(r["samples"][1])
    r = phase.train_to_decision(forward, p, sample, test, 0.3, short, min_samples=16 * 50, factor=10, gen=gen(2))
    assert r["status"].tolist() == [2, 2, 2] and np.isnan(r["samples"]).all()      # undecided at the cap
    # while no run of the batch has reached the threshold, none is judged: a flat start is not a plateau
    frozen = {"w": torch.zeros(2), "buf.live": torch.tensor([0.0, 0.0])}
    r = phase.train_to_decision(forward, frozen, sample, sample(2, 200, gen(3)), 0.3, cfg, min_samples=16, factor=10, gen=gen(4))
    assert r["status"].tolist() == [2, 2] and r["check_samples"][-1] == cfg.max_samples


def test_width_bounds_and_censoring_aware_slope():
    w = [1, 2, 4, 8]
    no = np.array([True, True, False, False])
    est, lo, hi = ch_results.width_bounds(w, [0.9, 0.5, 0.2, 0.1], no, 0.3)
    assert lo == hi == est and 2 < est < 4                       # width 2 plateaued above: the estimate stands
    est, lo, hi = ch_results.width_bounds(w, [0.9, 0.5, 0.2, 0.1], np.array([True, False, False, False]), 0.3)
    assert lo == 1 and hi == est                                 # width 2 undecided: d* may be below 2
    assert ch_results.width_bounds(w, [0.2, 0.1, 0.1, 0.1], no, 0.3)[1:] == (0.0, 1.0)            # floor: at most 1
    assert ch_results.width_bounds(w, [0.9, 0.8, 0.7, 0.6], np.ones(4, bool), 0.3)[1:] == (8.0, math.inf)
    # floor-censored at the smallest N tilts the fit *down*: the censoring-aware minimum is the floor value there
    smin, smax = ch_results.slope_range([4, 6, 8], [0, 3, 4], [2, 3, 4])
    assert smin == pytest.approx(np.polyfit(np.log([4, 6, 8]), np.log([2, 3, 4]), 1)[0]) and smax == math.inf
    assert ch_results.slope_range([4, 8], [0, 2], [2, 2])[0] == pytest.approx(0.0)
    assert ch_results.slope_range([4, 8], [1, 0], [1, 1])[0] == -math.inf                     # cannot tell growth


def _phase_results(P, med_1str, med_simple, status=1):
    """Fake phase records: per N, every run of width k has best MSE med[N][k] (reached where <= threshold)."""
    res = {}
    S = P["n_seeds"]
    for arch in P["archs"]:
        for task, med in (("1str", med_1str), ("simple", med_simple)):
            for N, m in zip(P["phase_N"], med):
                best = np.repeat(m, S)
                res[(arch, task, N)] = {"result": {"best_mse": best.tolist(),
                                                   "samples": np.where(best <= P["threshold"], 1.0, np.nan).tolist(),
                                                   "status": np.where(best <= P["threshold"], 0, status).tolist()}}
    return {"phase": res}


def test_width_claims_test_a_lower_bound_and_a_fixed_width():
    P = {"archs": ["gru"], "phase_N": [4, 8, 16], "widths": [1, 2, 4, 8, 16, 32], "n_seeds": 2, "threshold": 0.3, "d": 4,
         "max_samples": 10 ** 6}
    rows = {r.id: r for r in ch_claims.ROWS}
    ok = lambda rid, res: rows[rid].decide(P, res).passed
    flat = [[0.1] * 6] * 3
    steep = [[.9, .2, .1, .1, .1, .1], [.9, .9, .9, .2, .1, .1], [.9, .9, .9, .9, .9, .2]]      # d* ~ N^2: slope 2
    assert ok("10a-width-1str-gru", _phase_results(P, steep, flat))          # the old band [0.6, 1.2] failed it
    assert not ok("10a-width-1str-gru", _phase_results(P, flat, flat))       # flat: no growth
    assert "10a-width-simple-gru" not in rows                                # Thm 7's qd is no trained cell's width
    b = ch_results.budget_summary({**P, "max_samples": 10}, _phase_results(P, steep, flat))
    assert b["runs"] == 2 * 3 * 6 * 2 and b["censored"] == 0 and b["reached"] + b["plateau"] == b["runs"]
    for profile in ("quick", "paper"):                                      # the grid reaches down to d_h = 1
        assert params.resolve("rnn_norm_growth", profile)["widths"][0] == 1


def test_a_width_of_mixed_outcomes_is_decided_and_the_cap_leaves_a_verdict_open():
    """Paper profile, simple-1STR at N = 16: width 4's runs reached, plateaued, plateaued (median above the
    threshold) is decided, so d* ~ 7.9 stands; a width cut off by the cap leaves an interval below it; a cell where
    every run was cut off leaves the 1STR width row censored."""
    P = {"archs": ["elman"], "phase_N": [4, 8, 16], "widths": [1, 2, 4, 8, 16, 32], "n_seeds": 3, "threshold": 0.3,
         "max_samples": 10 ** 6, "d": 4}
    rows = {r.id: r for r in ch_claims.ROWS}
    flat = [[0.1] * 6] * 3
    late = [[0.1] * 6, [0.1] * 6, [.9, .9, .8, .2, .2, .2]]
    res = _phase_results(P, flat, late)
    res["phase"][("elman", "simple", 16)]["result"]["status"][6:9] = [0, 1, 1]    # width 4: one run reached
    e = ch_results.phase_table(P, res)[("elman", "simple")]
    assert e["lo"][-1] == e["hi"][-1] == e["dstar"][-1] > 4                       # decided: d* between 4 and 8
    res["phase"][("elman", "simple", 16)]["result"]["status"][6:9] = [0, 1, 2]    # one run cut off by the cap
    e = ch_results.phase_table(P, res)[("elman", "simple")]
    assert e["lo"][-1] == 2 and e["hi"][-1] == e["dstar"][-1]                      # d* may lie down to width 2
    never = _phase_results(P, [[0.1] * 6, [0.1] * 6, [0.9] * 6], flat, status=2)  # N = 16: every run censored
    v = rows["10a-width-1str-elman"].decide(P, never)
    assert not v.passed and "straddles" in v.censored


def test_norm_rows_test_the_predicted_slope_on_the_states():
    """The rows read (Lip rad)^2 measured on the states, not the product of separate norms (slope 3.9 here, as
    training time inflated it at quick): the old rows failed 10b-norm and passed 10b-norm-lower on that product."""
    P = {"archs": ["elman"], "phase_N": [4, 6, 8], "widths": [2, 32], "n_seeds": 2, "threshold": 0.3,
         "max_samples": 10 ** 6}
    rows = {r.id: r for r in ch_claims.ROWS}

    def res(power, product_power=3.9):
        out = {}
        for N in P["phase_N"]:
            v = [1.0, 1.0, N ** product_power * 1.1, N ** product_power * 0.9]
            lipr = [N ** power * 1.1, N ** power * 0.9]
            out[("elman", "1str", N)] = {"result": {"product_sq": v, "samples": [np.nan, np.nan, 1.0, 1.0],
                                                    "status": [1, 1, 0, 0], "best_mse": [0.5, 0.5, 0.2, 0.2],
                                                    "pack_lipr_sq": lipr}}
            out[("elman", "simple", N)] = {"result": {"product_sq": v, "samples": [np.nan] * 4, "status": [1] * 4,
                                                      "best_mse": [0.5] * 4}}
        return {"phase": out}
    assert not rows["10b-norm"].decide(P, res(3.9)).passed
    assert rows["10b-norm-lower"].decide(P, res(3.9)).passed
    assert rows["10b-norm"].decide(P, res(1.0)).passed                       # the product's 3.9 no longer decides
    assert not rows["10b-norm-lower"].decide(P, res(0.2)).passed
    assert "hypothesis" in rows["10b-norm-lower"].source and "hypothesis" in rows["10a-width-1str-gru"].source
    old = {"phase": {k: {"result": {x: y for x, y in v["result"].items() if x != "pack_lipr_sq"}}
                     for k, v in res(1.0)["phase"].items()}}
    assert rows["10b-norm"].measure(P, old) is None                          # points from before the measurement
    unreached = res(1.0)
    unreached["phase"][("elman", "1str", 8)]["result"] |= {"samples": [np.nan] * 4, "status": [1, 1, 2, 2],
                                                           "best_mse": [0.5] * 4}
    for rid in ("10b-norm", "10b-norm-lower"):                        # no value at N = 8: the slope over 4, 6, 8 is open
        v = rows[rid].decide(P, unreached)
        assert not v.passed and "$N$ = 8" in v.censored
        assert "censored with any $N$ whose value at the threshold is unknown" in rows[rid].expected
        shown = rows[rid].decide(P, res(1.0)).expected                          # the rule with its t, and its gate
        assert "4 dof)" in shown and shown.endswith(rows[rid].expected.split("(book's calibration:")[1])


def test_packing_rows_follow_the_one_rule_for_unlearned_N():
    """10c-separation and 10c-effective-dim measure networks that learned the task: by the chapter's one rule
    (results.unlearned, claims.UNLEARNED) a value at an N where no widest run reached the threshold is unknown, so a
    row that needs it is censored, whether it would pass or fail there; a failure at a learned N fails."""
    P = {"archs": ["elman"], "phase_N": [4, 8, 16], "widths": [32], "n_seeds": 2, "threshold": 0.3,
         "max_samples": 10 ** 6}
    rows = {r.id: r for r in ch_claims.ROWS}

    def res(dist, pr_1str, pr_simple, unlearned=()):
        out = {}
        for N, d, a, b in zip(P["phase_N"], dist, pr_1str, pr_simple):
            samples = [np.nan] * 2 if N in unlearned else [1.0] * 2
            out[("elman", "1str", N)] = {"result": {"best_mse": [0.2] * 2, "samples": samples, "pack_pr": [a] * 2,
                                                    "status": [2 if N in unlearned else 0] * 2,
                                                    "pack_dist_median": [d] * 2, "pack_g_dist_median": [1.0] * 2,
                                                    "pack_phi_mse": [0.1] * 2}}
            out[("elman", "simple", N)] = {"result": {"best_mse": [0.2] * 2, "samples": [1.0] * 2, "pack_pr": [b] * 2,
                                                      "status": [0] * 2}}
        return {"phase": out}
    grows, flat = [2.0, 4.0, 8.0], [3.0, 3.0, 3.0]
    sep, dim = rows["10c-separation"], rows["10c-effective-dim"]
    assert ch_claims.UNLEARNED in sep.expected and ch_claims.UNLEARNED in dim.expected
    assert sep.decide(P, res([0.8, 0.8, 0.8], grows, flat)).passed
    for at_16 in (0.3, 0.8):                                                    # below the bar or above it: unknown
        v = sep.decide(P, res([0.8, 0.8, at_16], grows, flat, unlearned=(16,)))
        assert not v.passed and v.censored.startswith("$N$ = 16 unlearned")
    v = sep.decide(P, res([0.3, 0.8, 0.3], grows, flat, unlearned=(16,)))      # below the bar at a learned N too
    assert not v.passed and not v.censored
    assert sep.decide(P, res([2.0, 3.0, 5.0], grows, flat)).passed             # one-sided, as Prop. 35's event is
    assert dim.decide(P, res([0.8] * 3, grows, flat)).passed
    for pr_1str in (grows, flat):                       # 1STR's half passes or fails through an unlearned N: unknown
        v = dim.decide(P, res([0.8] * 3, pr_1str, flat, unlearned=(16,)))
        assert not v.passed and "$N$ = 16, unlearned" in v.censored
    v = dim.decide(P, res([0.8] * 3, grows, grows, unlearned=(16,)))           # simple's half fails; simple learned
    assert not v.passed and not v.censored


def test_lipschitz_on_states_is_the_largest_ratio_and_scale_free():
    gen = torch.Generator().manual_seed(0)
    s = torch.randn(2, 30, 5, generator=gen, dtype=torch.float64)
    A = torch.randn(5, 7, generator=gen, dtype=torch.float64)
    phi = torch.relu(s @ A)
    out = phase.lipschitz_on_states(phi, s)
    i, j = torch.triu_indices(30, 30, 1)
    ratio = ((phi[0, i] - phi[0, j]).norm(dim=-1) / (s[0, i] - s[0, j]).norm(dim=-1)).max()
    assert out["lip"][0] == pytest.approx(float(ratio)) and out["lip"][0] <= float(torch.linalg.matrix_norm(A, 2)) + 1e-9
    big = phase.lipschitz_on_states(phi, 10 * s)                        # states x10 against the same outputs
    assert big["lipr_sq"] == pytest.approx(out["lipr_sq"])


def test_the_contrast_row_compares_the_two_slopes():
    P = {"archs": ["gru"], "phase_N": [4, 8, 16], "widths": [1, 2, 4, 8, 16, 32], "n_seeds": 2, "threshold": 0.3, "d": 4,
         "max_samples": 10 ** 6}
    row = {r.id: r for r in ch_claims.ROWS}["10a-contrast-gru"]
    flat = [[.9, .2, .1, .1, .1, .1]] * 3                                  # d* between 1 and 2 at every N
    steep = [[.9, .2, .1, .1, .1, .1], [.9, .9, .9, .2, .1, .1], [.9, .9, .9, .9, .9, .2]]
    assert row.decide(P, _phase_results(P, steep, flat)).passed
    both = row.decide(P, _phase_results(P, steep, steep))                 # simple-1STR doubling as 1STR does
    assert not both.passed and not both.censored
    floor = [[0.1] * 6] * 3                                                # simple at the floor: d* <= 1, slope unknown
    cen = row.decide(P, _phase_results(P, steep, floor))
    assert cen.censored and not cen.passed
    # the stored GRU: simple-1STR at the floor at N = 4, then doubling as 1STR does. The floor can only
    # raise simple-1STR's slope, so no censored value gives the contrast: FAIL, not censored
    late = [[.2, .1, .1, .1, .1, .1], [.9, .3, .1, .1, .1, .1], [.9, .9, .3, .1, .1, .1]]       # <= 1, 2, 4
    double = [[.9, .9, .3, .1, .1, .1], [.9, .9, .9, .3, .1, .1], [.9, .9, .9, .9, .3, .1]]     # 4, 8, 16
    c = ch_results.contrast_numbers(P, _phase_results(P, double, late), "gru")
    assert c["hi"] == pytest.approx(0.0) and c["lo"] == -math.inf
    assert ch_claims.RULE_CONTRAST.side(c["lo"], c["hi"], c["se"]) == "fail"
    v = row.decide(P, _phase_results(P, double, late))
    assert not v.passed and not v.censored and "SE" in v.measured


def test_contrast_decision_reads_fail_where_no_allowed_value_passes_beyond_noise():
    rule = ch_claims.RULE_CONTRAST
    z = rule.z
    assert rule.side(z * 0.1 + 0.01, math.inf, 0.1) == "pass"
    assert rule.side(-math.inf, z * 0.1, 0.1) == "fail"              # at most the noise: FAIL
    assert rule.side(-math.inf, z * 0.1 + 0.01, 0.1) == "censored"
    assert rule.side(-math.inf, 0.5, math.nan) == "censored"        # no spread: nothing passes
    assert rule.side(-math.inf, -0.1, math.nan) == "fail"


def _stored_like(P, rng, dstar, lipr_slope=1.0):
    """Phase points shaped like the stored ones: each run of width w has its own critical width c (dstar[task](N)
    times a seed's log-normal noise) and best MSE threshold (c / w)^0.7 (reached where at most the threshold, else
    plateaued); the widest Elman runs' (Lip rad)^2 = 30 (N / 4)^lipr_slope times noise, one per seed, their
    participation ratio 2 (N / 4)^0.8 on 1STR and 3 on simple-1STR, their replayed outputs 0.8 apart."""
    W, S, thr, out = np.asarray(P["widths"], float), P["n_seeds"], P["threshold"], {}
    pack_rng = np.random.default_rng(1)             # the packing numbers' own stream: the widths' draws as before
    noise = lambda sd: np.exp(sd * pack_rng.standard_normal(S))
    for arch in P["archs"]:
        for task in ("1str", "simple"):
            for N in P["phase_N"]:
                c = dstar[task](N) * np.exp(0.2 * rng.standard_normal(S))
                best = thr * (c[None, :] / W[:, None]) ** 0.7
                reached = best <= thr
                lipr = 30 * (N / 4) ** lipr_slope * np.exp(0.14 * rng.standard_normal(S))
                product = np.ones((len(W), S))
                product[-1] = lipr
                pr = (2 * (N / 4) ** 0.8 if task == "1str" else 3.0) * noise(0.05)
                out[(arch, task, N)] = {"spec": {"n_seeds": S}, "result": {
                    "best_mse": best.ravel().tolist(), "status": np.where(reached, 0, 1).ravel().tolist(),
                    "samples": np.where(reached, 1e5, np.nan).ravel().tolist(), "product_sq": product.ravel().tolist(),
                    "pack_lipr_sq": lipr.tolist(), "pack_pr": pr.tolist(), "pack_dist_median": (0.8 * noise(0.05)).tolist(),
                    "pack_g_dist_median": [1.0] * S, "pack_phi_mse": [0.1] * S}}
    return {"phase": out}


def test_the_rules_pass_more_often_with_their_mechanism_than_without():
    """The power table (page.power, the worlds of claims/power.py) on a stored-like diagram where 1STR's d* doubles
    with N, simple-1STR's stays at 1.5, the widest runs' (Lip rad)^2 and participation ratio grow with N and their
    replayed outputs stay apart: each row's faithful world (its stored runs resampled) and its worlds with the
    mechanism (the runs moved to what the theorem predicts) pass, and its worlds without the mechanism do not."""
    from lib.chapters.rnn_norm_growth.claims import power

    P = {"archs": ["gru", "elman"], "phase_N": [4, 8, 16], "widths": [1, 2, 4, 8, 16, 32], "n_seeds": 3,
         "threshold": 0.3, "d": 4, "max_samples": 10 ** 6}
    res = _stored_like(P, np.random.default_rng(0), {"1str": lambda N: N / 2, "simple": lambda N: 1.5})
    table = page.power(P, res, 20)
    rate = {(t["row"], t["world"].split(":")[0]): t for t in table if t.get("seeds_times", 1) == 1}
    assert set(power.WORLDS) == {t["row"] for t in table} == {r.id for r in ch_claims.ROWS if r.kind == "claim"}
    assert all(t["pass"] >= 0.8 for t in rate.values() if t["role"] == "with")
    assert all({w.role for w in ws} == {"faithful", "with", "without"} for ws in power.WORLDS.values())
    for arch in ch_claims.ARCHS:
        for row, null in ((f"10a-contrast-{arch}", "no contrast"), (f"10a-width-1str-{arch}", "flat")):
            assert rate[(row, "faithful")]["pass"] >= 0.8 and rate[(row, null)]["pass"] <= 0.3
    for row in ("10b-norm-lower", "10b-norm"):
        # the faithful world carries the stored draw's own slope (its 9 runs' noise): it passes less than slope 1
        assert rate[(row, "faithful")]["pass"] >= 0.6 and rate[(row, "slope 1")]["pass"] >= 0.8
        assert rate[(row, "flat")]["pass"] == 0 and rate[(row, "flat")]["fail"] == 1
    assert rate[("10b-norm", "slope 2")]["pass"] <= 0.1
    for row, null in (("10c-effective-dim", "flat"), ("10c-separation", "shrunk")):
        assert rate[(row, "faithful")]["pass"] >= 0.8 and rate[(row, null)]["pass"] == 0
    # a drawn seed brings its runs of every width, and the widest runs' per-seed numbers with them; with k times the
    # seeds (lib.core.power.seeds_times) each width holds 3k runs, which the measures read from the lists' length
    rec = {"spec": {}, "result": {"best_mse": [10 * w + s for w in range(6) for s in range(3)], "pack_pr": [0, 1, 2],
                                  "samples": [1.0] * 18, "widths": list(range(6))}}
    got = power.resample_phase({"widths": range(6), "n_seeds": 3}, {"phase": {"p": rec}},
                               np.random.default_rng(1))["phase"]["p"]["result"]
    seeds = np.reshape(got["best_mse"], (6, 3)) - 10 * np.arange(6)[:, None]
    assert (seeds == seeds[0]).all() and got["pack_pr"] == seeds[0].tolist() and got["widths"] == list(range(6))
    with seeds_times(4):
        got = power.resample_phase(P, res, np.random.default_rng(1))
    assert ch_results.runs_per_width(P, got["phase"][("gru", "1str", 4)]) == 12
    assert all(r.decide(P, got) for r in ch_claims.TRAINED_ROWS)
    # a world with the mechanism moves 1STR's runs of width w at the smallest N to width w N / 4 at N
    moved = power.Move("gru", widen=True).result(P, res["phase"], 16)
    stored = np.reshape(res["phase"][("gru", "1str", 4)]["result"]["best_mse"], (6, 3))
    assert np.array_equal(np.reshape(moved["best_mse"], (6, 3)), stored[[0, 0, 0, 1, 2, 3]])


def test_the_experiments_are_part_of_the_chapters_lib_hash():
    """Each of the four experiments (the training loop with the phase arm) counts in the hash; no page-side module."""
    from lib.core.store import lib_modules
    mods = lib_modules("rnn_norm_growth")
    arms = ("a2", "construction", "memoriser", "phase")
    assert {f"lib/chapters/rnn_norm_growth/experiments/{arm}.py" for arm in arms} <= set(mods)
    assert not [m for m in mods if m.split("/")[-1] in ("results.py", "figures.py", "page.py") or "/claims/" in m]


def test_rows_that_cannot_fail_are_checks():
    kinds = {r.id: r.kind for r in ch_claims.ROWS}
    assert kinds["thm9-memoriser-slope"] == "check" and kinds["9-drift"] == "check"
    assert kinds["10b-transformer"] == "check"                        # no training enters alpha*(N)
    assert all(r.source for r in ch_claims.ROWS)
    assert all(("hypothesis" in r.source) or any(k in r.source for k in ("Prop", "Thm", "Theorem", "Lemma", "App"))
               for r in ch_claims.ROWS if r.kind == "claim")


def _paper():
    P = params.resolve("rnn_norm_growth", "paper")
    store = Store("rnn_norm_growth", "paper", stored_only=True)
    return P, collect(rg.points(P), store, "cpu", log=None)


def test_paper_findings_quote_the_stored_numbers():
    """The findings (each row's `explain`, on the rows gated by the stored power table), the sentence under the
    verdict and the unreached cells take every number from the stored paper results. The ones they quote are
    recomputed here from the points (d*, slopes and their ranges, the contrast's largest difference in bootstrap SE,
    the norm slope with its SE, the cells where a diagram stops), and every number in the text is one of those or a
    parameter, the grid that would decide a row, or a number of a row's measured text."""
    import json
    import re
    from pathlib import Path

    from lib.core.gate import gate

    P, results = _paper()
    table = json.loads((Path(__file__).parents[1] / "results/rnn_norm_growth/paper/power.json").read_text())
    rows = gate(ch_claims.claims(P, results), table)
    text = "\n".join((page.findings(P, results, rows), page.first_screen(P, results, rows),
                      page.unreached_markdown(P, results)))
    c = ch_results.contrast_numbers(P, results, "gru")
    nt = ch_results.norm_table(P, results)["1str"]
    cell = page.unreached_cells(P, results)
    assert ch_claims.RULE_CONTRAST.side(c["lo"], c["hi"], c["se"]) == "fail"
    assert [(e["arch"], e["task"], e["N"]) for e in cell] == [("elman", "1str", 16)]
    faithful = {t["row"]: t for t in table if t["world"].startswith("faithful")}
    quoted = [ch_results.dstar_text(c["simple"]), ch_results.dstar_text(c["1str"]), f"{c['simple']['slope']:.2f}",
              f"{c['1str']['slope']:.2f}", f"{c['hi']:+.2f}", f"{c['hi'] / c['se']:+.1f} bootstrap SE",
              f"{nt['lipr_slope']:.2f} ± {nt['lipr_se']:.2f} (SE)", f"{cell[0]['best']:.2f} (width {cell[0]['width']})",
              f"none of its {cell[0]['runs']} runs", f"{cell[0]['wall_s']:,.0f} s", f"stops at $N$ = {max(cell[0]['below'])}",
              "the Elman RNN learns 1STR only below N = 16", "cannot pass on this grid", "the critical width of the GRU grows",
              f"$N$ = {2 * max(P['phase_N'])} on both tasks and widths up to {2 * max(P['widths'])}"]
    assert "`10a-contrast-gru`" in text and faithful["10a-contrast-gru"]["fail"] < 0.8
    assert [q for q in quoted if q not in text] == []
    allowed = " ".join(quoted + [r["measured"] for r in rows] + [str(v) for v in P.values()]
                       + [f"{v:,}" for v in P.values() if isinstance(v, int)] + [str(ch_claims.RULE_CONTRAST.z)])
    number = re.compile(r"\d[\d,]*(?:\.\d+)?")
    ratios = [f"{a / b:.1f}" for a, b in zip(c["1str"]["dstar"], c["simple"]["dstar"])]   # the level contrast
    cited = re.sub(r"(Proposition|Theorem|Lemma|Prop\.) \d+", "", text)                   # names, not numbers
    stray = {n for n in number.findall(cited) if n not in number.findall(allowed) + ratios + ["1"]}   # d_h = 1
    assert stray == set(), f"numbers in the findings that no stored result gives: {stray}"


def test_headlines_and_explanations_are_rows():
    """Every headline names rows of ROWS, every claim row is in exactly one headline, a headline holds either the
    paper's statements or this book's readings; every claim row explains itself where it fails or is censored."""
    ids = {r.id for r in ch_claims.ROWS}
    assert all(set(h.ids) <= ids and h.ids for h in ch_claims.HEADLINES) and 2 <= len(ch_claims.HEADLINES) <= 7
    held = [i for h in ch_claims.HEADLINES for i in h.ids]
    assert sorted(i for i in held if i in {r.id for r in ch_claims.ROWS if r.kind == "claim"}) == sorted(
        r.id for r in ch_claims.ROWS if r.kind == "claim")
    source = {r.id: r.source for r in ch_claims.ROWS}
    ours = [i for h in ch_claims.HEADLINES if h.name.startswith("This book's") for i in h.ids]
    assert all("hypothesis" in source[i] for i in ours) and {"10b-norm", "10c-effective-dim"} <= set(ours)
    assert all(r.explain is not None for r in ch_claims.ROWS if r.kind == "claim")


def test_every_row_decides_and_words_its_rule_from_one_object():
    """Each row holds a rule object (lib.core.rules) whose fields both decide the verdict and write the
    rule's text: moving 10a-width's bound moves the verdict on the same diagram and the words together, and the
    contrast's z is the one the page quotes."""
    assert all(r.rule is not None and r.expected == r.rule.text for r in ch_claims.ROWS)
    z = page.RULE_CONTRAST.z
    assert f"> {z} bootstrap SE" in ch_claims.RULE_CONTRAST.text
    P = {"archs": ["gru"], "phase_N": [4, 8, 16], "widths": [1, 2, 4, 8, 16, 32], "n_seeds": 2, "threshold": 0.3, "d": 4,
         "max_samples": 10 ** 6}
    steep = [[.9, .2, .1, .1, .1, .1], [.9, .9, .9, .2, .1, .1], [.9, .9, .9, .9, .9, .2]]   # d* about 2, 8, 32
    res = _phase_results(P, steep, steep)
    row = {r.id: r for r in ch_claims.ROWS}["10a-width-1str-gru"]
    assert row.decide(P, res).passed and "≥ 0.5 for every $d_h^*$" in row.expected
    strict = dataclasses.replace(row, rule=dataclasses.replace(ch_claims.RULE_WIDTH, bound=2.5))
    assert not strict.decide(P, res).passed and "≥ 2.5 for every $d_h^*$" in strict.expected


# ----------------------------------------------------------- small parameter sets the validator accepts: a page, no traceback
def _small(tmp_path, phase_med, **over):
    """The smoke profile with `over`, its construction, A.2 and memoriser points computed (a fraction of a second)
    and its phase points faked (_phase_results, every N with the median best MSE per width `phase_med`)."""
    P = params.resolve("rnn_norm_growth", "smoke", over)
    res = collect([p for p in rg.points(P) if p.label[0] != "phase"], Store("rnn_norm_growth", "smoke", root=tmp_path),
                  "cpu", log=None)
    phase = _phase_results(P, [phase_med] * len(P["phase_N"]), [phase_med] * len(P["phase_N"]))
    S, runs = P["n_seeds"], P["n_seeds"] * len(P["widths"])
    for rec in phase["phase"].values():      # the fields the norm, packing and crossover sections read
        rec["result"] |= {"product_sq": [4.0] * runs, "theta": [3.0] * runs, "pack_lipr_sq": [2.0] * S,
                          "pack_pr": [2.0] * S, "pack_dist_median": [0.8] * S, "pack_g_dist_median": [1.0] * S,
                          "pack_phi_mse": [0.2] * S}
    return P, {**res, **phase}


def _drawn(fig) -> str:
    """Render a figure as the notebook does (a log axis with nothing positive on it fails only here); its text."""
    import matplotlib.pyplot as plt

    try:
        fig.canvas.draw()
        return " ".join(t.get_text() for ax in fig.axes for t in ax.texts)
    finally:
        plt.close(fig)


def test_a_phase_diagram_without_a_critical_width_draws_a_panel_that_says_so(tmp_path):
    """threshold 0.01 on the smoke profile: no width reaches it at any N, so there is no d_h* to put on the critical
    width panel's log axes; the panel says so instead of failing to draw."""
    from lib.chapters.rnn_norm_growth import figures

    P, res = _small(tmp_path, [0.9, 0.8], threshold=0.01)
    assert not np.isfinite(ch_results.phase_table(P, res)[("gru", "1str")]["dstar"]).any()
    assert "no critical width to draw" in _drawn(figures.plot_phase(P, res))
    assert "nothing to draw" in _drawn(figures.plot_norm(P, res))


def test_a_run_without_the_elman_rnn_leaves_its_rows_unmeasured_and_its_panels_say_why(tmp_path):
    """archs: [gru] is accepted: the norm, packing and crossover sections, which read the widest Elman runs, say that
    it was not trained, and its rows are listed as not measured with what they need."""
    from lib.chapters.rnn_norm_growth import figures
    from lib.core.claims import unmeasured

    P, res = _small(tmp_path, [0.9, 0.5], archs=["gru"])
    rows = page.claims(P, res)
    why = unmeasured(ch_claims.ROWS, rows)
    assert {"10a-width-1str-elman", "10b-norm", "10c-separation"} <= set(why)
    assert all("Elman RNN trained" in why[i] for i in why)
    page.power(P, res, 2)
    page.findings(P, res, rows), page.first_screen(P, res, rows)
    assert "not trained" in page.packing_markdown(P, res)
    assert "no run" in page.crossover_markdown(page.crossover_table(P, res))
    for plot in (figures.plot_phase, figures.plot_norm, figures.plot_packing, figures.plot_memoriser):
        _drawn(plot(P, res))
    assert "not trained" in _drawn(figures.plot_packing(P, res))
    source = (Path(__file__).parents[1] / "book/chapters/rnn_norm_growth.md").read_text()
    assert 'phase_spec(P, "gru"' not in source            # the notebook's one-point example reads an arch it trained


def test_one_a2_length_draws_its_point_without_a_fit(tmp_path):
    """alpha* at one length: there is no line to fit, so the page reads no slope, intercept or R^2 from the stored fit
    (NaN), the panel draws the point alone and the row's text says there is no slope. The one-length record is the
    smoke profile's, cut to its first length; its stored fit is left as computed on every length, which the page must
    not read."""
    from lib.chapters.rnn_norm_growth import figures
    from lib.chapters.rnn_norm_growth.claims import checks

    P, res = _small(tmp_path, [0.9, 0.5])
    r = res["a2"]["result"]
    one = {**r, "N": r["N"][:1], "alpha_star": r["alpha_star"][:1]}
    P, res = {**P, "a2_N": r["N"][:1]}, {**res, "a2": {**res["a2"], "result": one}}
    fit = ch_results.a2_fit(res)
    assert all(math.isnan(fit[k]) for k in ("slope", "intercept", "r2")) and list(fit["alpha"]) == one["alpha_star"]
    assert "no line to fit" in _drawn(figures.plot_norm(P, res))
    text = checks.TRANSFORMER_ROWS[0].measure(P, res).text
    assert "no slope" in text and "nan" not in text


def test_the_floor_the_page_names_is_the_grid_s_smallest_width(tmp_path):
    """widths: [2, 4], every run at the threshold already at width 2: the contrast's finding and the first screen
    name the floor d_h = 2, the grid's smallest width, never a width the grid does not have."""
    P, res = _small(tmp_path, [0.2, 0.1], widths=[2, 4])
    rows = page.claims(P, res)
    text = page.findings(P, res, rows)
    screen = page.first_screen(P, res, rows)
    assert "the floor $d_h$ = 2" in text and "sits at 2" in screen
    assert "$d_h$ = 1" not in text and "width 1" not in text and "sits at 1" not in screen


@pytest.mark.parametrize("over, missing", [({"archs": ["gru"]}, "was not trained"),
                                           ({"threshold": 0.01}, "at no $N$")])
def test_the_norm_and_budget_sentences_say_what_is_missing_instead_of_nan(tmp_path, over, missing):
    """Without the Elman RNN, or with no widest run at the threshold, the norm section has no slope to quote: its
    sentence says which is missing; with no run at the threshold at all the budget sentence names no slowest run, and
    the first screen does not say simple-1STR's width sits at the floor."""
    P, res = _small(tmp_path, [0.9, 0.5], **over)
    norm, budget = page.norm_markdown(P, res), page.budget_markdown(P, res)
    assert missing in norm and "nan" not in norm.lower() and "nan" not in budget.lower()
    if "threshold" in over:      # no width reaches: simple-1STR's d_h* is not at the floor, it is nowhere
        assert "No run reached the threshold" in budget
        assert "sits at" not in page.first_screen(P, res, page.claims(P, res))
