"""lib.science.turing, lib.science.tm_transformer, lib.chapters.turing_simulation: the interpreter and its catalogue,
each layer's contract on its own (transition on every (z, a), the +-1 adder on every position, the binary search
against the interpreter's last-write table, the select truth table), end-to-end traces, sizes, the toy margins, the
specs and points, and one tiny sweep through the store."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lib.chapters.turing_simulation import claims, page, results
from lib.chapters.turing_simulation import compute as ts
from lib.chapters.turing_simulation.claims import power
from lib.chapters.turing_simulation.experiments import margins
from lib.core import params
from lib.core.power import rates
from lib.core.store import Store, key_of, spec_dict
from lib.core.sweep import collect
from lib.science import tm_run
from lib.science import tm_transformer as tt
from lib.science import turing as tu


def state_vec(net, **fields):
    """A stream vector (1, 1, 1, w) with the given fields set (lists of coordinates set to 1, or bit arrays)."""
    h = torch.zeros(1, 1, 1, net.w, dtype=torch.float64)
    for f, v in fields.items():
        sl = net.lay.sl[f]
        if isinstance(v, (list, tuple)) and not v:
            continue
        if isinstance(v, (list, tuple)) and isinstance(v[0], int) and f in ("st", "sym1", "sym2", "scr1", "scr2", "dir"):
            for j in v:
                h[..., sl.start + j] = 1
        else:
            h[..., sl] = torch.as_tensor(np.asarray(v, float))
    return h


def ff(net, l, h):
    return tm_run._ff(net, l, h, net.params)[0, 0, 0]


# -------------------------------------------------------------------------------------------- interpreter
def test_busy_beavers_reach_their_known_values():
    cat = tu.catalogue()
    for name, (steps, ones) in tu.BB_KNOWN.items():
        tr = tu.run(cat[name], [], T=150)
        assert (tr.halt_step, tr.ones) == (steps, ones)


def test_interpreter_against_a_direct_loop_and_terminal_rule():
    tm = next(t for t in map(tu.random_tm, range(50)) if t.n_sym >= 3)
    x = [1, 2, 1, 1]
    T = 40
    tr = tu.run(tm, x, T)
    tape, z, l = {T + 1 + j: s for j, s in enumerate(x)}, tm.init, T + 1
    for i in range(1, T + 1):
        if z in tm.terminal:
            u, q = tape.get(l, 0), 1
        else:
            z, u, q = tm.delta[z][tape.get(l, 0)]
        tape[l] = u
        l += q
        assert (tr.z[i], tr.l[i], tr.a[i]) == (z, l, tape.get(l, 0))
    # last[i]: the last step t <= i that wrote cell l_i (wl[t] = l_{t-1})
    for i in range(T + 1):
        writers = [t for t in range(i + 1) if tr.wl[t] == tr.l[i]]
        assert tr.last[i] == (max(writers) if writers else -1)


def test_palindrome_parity_increment_answers():
    cat = tu.catalogue()
    assert tu.run(cat["palindrome"], [1, 2, 2, 1], 100).accepted
    assert not tu.run(cat["palindrome"], [1, 2, 1, 1], 100).accepted
    assert tu.run(cat["parity"], [2, 1, 2], 10).accepted and not tu.run(cat["parity"], [2, 1], 10).accepted
    tr = tu.run(cat["increment"], [2, 2, 1, 2, 2], 40)   # 11011 + 1 = 11100
    assert [tr.tape[tr.c0 + 1 + j] for j in range(5)] == [2, 2, 2, 1, 1]
    with pytest.raises(ValueError, match="left of cell 0"):
        tu.run(cat["bb2"], [], T=10, c0=0)


# ------------------------------------------------------------------------------------------ layer contracts
def test_transition_layer_on_every_state_and_symbol():
    tm = tu.random_tm(11)
    net = tt.build(tm, 16)
    table = tm.table()
    rng = np.random.default_rng(0)
    for z in range(net.K):
        for a in range(net.A):
            p1, p2 = rng.integers(0, 2, net.P), rng.integers(0, 2, net.P)
            out = ff(net, 0, state_vec(net, st=[z], sym1=[a], pos1=p1, pos2=p2))
            z2, u, q = (tm.init, 0, 1) if z == net.pre else table[z, a]
            want = state_vec(net, st=[int(z2)], sym2=[int(u)], dir=[0 if q < 0 else 1], pos1=p1, pos2=p2)[0, 0, 0]
            assert torch.equal(out, want), (z, a)


@pytest.mark.parametrize("correction", [True, False])
def test_adder_on_every_position_both_directions(correction):
    net = tt.build(tu.counter(), 16, correction=correction)     # P = 5 bits
    for l in range(1, 2 ** net.P - 1):
        for q, dr in ((-1, [0]), (1, [1])):
            out = ff(net, 1, state_vec(net, pos2=tt.bits(l, net.P), dir=dr))
            assert tt.unbits(out[net.lay.sl["pos3"]].numpy()) == l + q
            assert torch.equal(out[net.lay.sl["pos2"]], torch.as_tensor(tt.bits(l, net.P)))
            assert set(out.unique().tolist()) <= {0.0, 1.0}


def test_select_truth_table():
    net = tt.build(tu.counter(), 16)
    A = net.A
    for f1 in (0, 1):
        for f2 in (0, 1):
            for s1 in range(A):
                for s2 in range(A):
                    h = state_vec(net, st=[0], scr1=[s1] if f1 else [], scr2=[s2] if f2 else [],
                                  pos3=tt.bits(5, net.P), f1=[f1], f2=[f2])
                    out = ff(net, net.d - 1, h)
                    want = s1 if f1 else s2 if f2 else 0
                    exp = state_vec(net, st=[0], sym1=[want], pos2=tt.bits(5, net.P))[0, 0, 0]
                    assert torch.equal(out, exp), (f1, f2, s1, s2)


def test_binary_search_matches_the_last_write_table():
    """Counter machine (cells rewritten many times) and a random machine: after layer P+3, scr3 = Bin(i'),
    f1 = 1(i' exists), f2 = 1(cell in the input), at every step."""
    for tm, x in ((tu.counter(), []), (tu.random_tm(5), [1, 1, 1])):
        T = 64
        tr = tu.run(tm, x, T)
        assert np.bincount(tr.wl[1:]).max() >= 10 or tm.name != "counter"
        net = tt.build(tm, T)
        hid = tm_run.teacher_forced(net, [x], tm_run.reference_outputs(net, [tr]), hidden=True)["hidden"][3 + net.P, 0, 0]
        sl = net.lay.sl
        assert np.array_equal(hid[:, sl["scr3"]].numpy(), tt.bits(np.maximum(tr.last, 0), net.P))
        assert np.array_equal(hid[:, sl["f1"].start].numpy(), (tr.last >= 0).astype(float))
        assert np.array_equal(hid[:, sl["f2"].start].numpy(), tr.in_input.astype(float))


# ------------------------------------------------------------------------------------------------ end to end
@pytest.mark.parametrize("name", list(tu.catalogue()))
def test_catalogue_traces_rollout_and_teacher_forced(name):
    tm = tu.catalogue()[name]
    T = 48
    xs = margins.inputs(tm, T, 2, 0)
    traces = [tu.run(tm, x, T) for x in xs]
    net = tt.build(tm, T)
    ref = tm_run.reference_outputs(net, traces)
    ro = tm_run.rollout(net, xs)
    tf = tm_run.teacher_forced(net, xs, ref, chunk=17)["out"]        # chunked queries give the same result
    assert torch.equal(ro[0], ref) and torch.equal(tf[0], ref)
    assert tm_run.mismatches(net, ro, traces).sum() == 0


def test_random_machines_exact_and_classifier():
    spec = ts.ExactPoint(machines=tuple(f"random{s}" for s in range(6)), T=32, n_inputs=2, seed=1, rollout=True,
                         chunk=64, k_max=8, sym_max=5)
    res = ts.run_exact(spec, "cpu")
    for m in res["machines"].values():
        assert m["tf_mismatch"] == m["ro_mismatch"] == m["nonbinary"] == m["lookup_bad"] == m["cls_bad"] == 0
        assert m["tf_bit_exact"] and m["ro_bit_exact"] and m["gap"] >= 1 and m["tape_bad"] == 0


def test_without_correction_exact_and_low_precision():
    tm = tu.counter()
    T = 32
    tr = tu.run(tm, [], T)
    net = tt.build(tm, T, correction=False)   # decodes exactly; float rounding of 1/|ties| is not erased, only grows
    out = tm_run.rollout(net, [[]])
    assert tm_run.mismatches(net, out, [tr]).sum() == 0
    assert 0 < float((out[0] - tm_run.reference_outputs(net, [tr])).abs().max()) < 1e-6
    for dt in (torch.float16, torch.bfloat16):
        n16 = tt.build(tm, T).to(dtype=dt)
        assert torch.equal(tm_run.rollout(n16, [[]], tol=0.0)[0], tm_run.reference_outputs(n16, [tr]))


def test_softmax_converges_to_hardmax_and_perturbation_breaks_without_correction():
    tm = tu.counter()
    T = 24
    tr = tu.run(tm, [], T)
    net = tt.build(tm, T).replicate(2)
    out = tm_run.rollout(net, [[]], beta=torch.tensor([0.3, 30.0], dtype=torch.float64))
    fm = tm_run.first_mismatch(net, out, [tr])
    assert fm[0] <= T and fm[1] == T + 1
    # structured attack: scaling the transition output by 0.9 is erased with correction, fatal without
    for corr, broken in ((True, False), (False, True)):
        n = tt.build(tm, T, correction=corr)
        d = margins.structured_direction(n)
        fail = margins.fail_scales(n, [d], np.array([[0.1]]), [[]], [tr])
        assert bool(fail[0, 0]) == broken


def test_rollout_takes_one_number_or_one_per_run_and_refuses_the_rest():
    """beta=5.0 (a Python float) raised AttributeError ('float' object has no attribute 'to'): a number now means
    that temperature for every run, and anything else is refused in one line naming beta and its forms."""
    tm = tu.counter()
    net = tt.build(tm, 12).replicate(2)
    both = tm_run.rollout(net, [[]], beta=torch.tensor([5.0, 5.0], dtype=torch.float64))
    for beta in (5.0, 5, np.float32(5.0), [5.0, 5.0], np.array([5.0, 5.0]), torch.tensor(5.0)):
        assert torch.equal(tm_run.rollout(net, [[]], beta=beta), both)
    for beta, err in ((True, TypeError), ("5", TypeError), ({"b": 5}, TypeError), (0.0, ValueError),
                      (-1.0, ValueError), (math.nan, ValueError), (math.inf, ValueError), ([5.0, 5.0, 5.0], ValueError),
                      ([[5.0, 5.0]], ValueError), (["a", "b"], TypeError)):
        with pytest.raises(err, match=r"rollout: beta: expected None \(hard-max\), a number > 0 or 2 numbers") as e:
            tm_run.rollout(net, [[]], beta=beta)
        assert "\n" not in str(e.value)


def test_smallest_failing_finds_a_threshold():
    thr = np.array([1e-6, 0.3, 5.0])
    fail = lambda g: g >= thr[:, None]
    got = margins.smallest_failing(fail, 1e-12, 10.0, 12, 3, 3)
    assert np.all(got >= thr) and np.all(got <= thr * 1.05)
    assert margins.smallest_failing(lambda g: np.zeros_like(g, bool), 1e-3, 1.0, 8, 2, 1)[0] == math.inf


# --------------------------------------------------------------------------------------------- sizes, toy
def test_sizes_follow_the_formulas():
    tm = tu.palindrome()
    for T in (16, 1024):
        net = tt.build(tm, T)
        s = tt.size(net)
        assert s["d"] == s["P"] + 4 and s["w"] == tm.n_states + 1 + 4 * tm.n_sym + 4 * s["P"] + 5
        assert s["linf"] == 2 * s["P"] - 1
        assert s["p"] == sum(v[0].numel() for v in net.params.values())


def test_toy_margins():
    d = np.array([1, 2, 8])
    np.testing.assert_allclose([margins.rho_product_numeric(int(k), 3, 0) for k in d], margins.rho_product_formula(d), rtol=1e-6)
    r = margins.rho_rounded_dp([1, 2, 16], grid=1001)
    assert r[0] == pytest.approx(0.5) and np.all(r > 1 / 3) and r[1] < 0.5
    # the d = 2 value by a direct search over the intermediate level q: (1 - 0.5/q)^2 + ((2 - q)/3)^2
    q = np.linspace(0.5, 1, 200001)
    assert r[1] == pytest.approx(math.sqrt(((1 - 0.5 / q) ** 2 + ((2 - q) / 3) ** 2).min()), abs=2e-3)


def test_check_params_names_bad_machines():
    P = {"machines": ["parity", "nope"], "show_machine": "bb4", "size_machine": "palindrome",
         "robust_machine": "counter", "softmax_machine": "x", "T_list": [16], "robust_T": [2], "softmax_T": [16],
         "precision_T": 16, "n_random": 1}
    keys = [k for k, _ in ts.check_params(P)]
    assert keys == ["machines", "softmax_machine", "robust_T"]


def test_a_radius_nothing_corrupts_is_read_back_as_inf():
    """smallest_failing returns inf where no scale fails; JSON stores it as None; the page must read inf (a robust
    direction), not NaN, which nanmedian and nanmax would silently skip."""
    rec = {"result": {"T": 16, "t_struct": None, "struct_l2": 0.5, "r_random": [1.0, None], "alpha": 1.0, "p": 10, "w": 5}}
    a = results.robust_arrays({"robust": {(16, True): rec}}, True)
    assert np.isinf(a["t"][0]) and np.isinf(a["r"][0, 1]) and a["r"][0, 0] == 1.0


# ----------------------------------------------------------------------------------------------- points
SMOKE = params.resolve("turing_simulation", "smoke")     # every arm at its smallest (parameters/turing_simulation/smoke.yaml)


def test_points_nest_as_the_page_reads_them():
    P = params.resolve("turing_simulation", "quick")
    points = ts.points(P)
    labels = {p.label for p in points}
    assert {("exact", ("bb4", 256)), ("random", 16), ("anatomy",), ("sizes",), ("robust", (128, False)),
            ("softmax", (16, True)), ("precision",), ("toy",)} <= labels
    assert len(labels) == len(P["T_list"]) * (len(P["machines"]) + 1) + 2 * (len(P["robust_T"]) + len(P["softmax_T"])) + 4
    assert all(p.threads == 1 for p in points)


def test_specs_hold_what_their_runs_read():
    """The random-machine bounds reach the points that build random machines, and no other; the rollout horizon
    reaches an exact point as whether it rolls out."""
    key = lambda spec: key_of(spec_dict(spec))
    catalogue, random = ts.exact_spec(SMOKE, ["parity"], 16), ts.exact_spec(SMOKE, ts.random_names(SMOKE), 16)
    assert catalogue.k_max is None and random.k_max == SMOKE["random_k_max"]
    assert ts.precision_spec(SMOKE).sym_max == SMOKE["random_sym_max"]
    bigger = {**SMOKE, "random_k_max": SMOKE["random_k_max"] + 1, "random_sym_max": SMOKE["random_sym_max"] + 1}
    assert key(ts.exact_spec(bigger, ["parity"], 16)) == key(catalogue)
    assert key(ts.exact_spec(bigger, ts.random_names(bigger), 16)) != key(random)
    assert key(ts.precision_spec(bigger)) != key(ts.precision_spec(SMOKE))
    assert not ts.exact_spec({**SMOKE, "rollout_T_max": 9}, ["parity"], 16).rollout
    assert key(ts.exact_spec({**SMOKE, "rollout_T_max": 9}, ["parity"], 16)) == key(catalogue)   # T = 16 > both
    assert ts.exact_spec({**SMOKE, "rollout_T_max": 16}, ["parity"], 16).rollout


def test_sweep_stores_and_reloads(tmp_path):
    store = Store("turing_simulation", "smoke", root=tmp_path)
    res = collect(ts.points(SMOKE), store, "cpu", log=None)
    lines = []
    res2 = collect(ts.points(SMOKE), Store("turing_simulation", "smoke", root=tmp_path), "cpu", log=lines.append)
    assert not [line for line in lines if "computed" in line]
    c1, c2 = page.claims(SMOKE, res), page.claims(SMOKE, res2)
    assert c1 == c2 and [c["id"] for c in c1] == [r.id for r in page.ROWS]
    # the exact rows hold on any machine and horizon (2-lookup also asks for a cell overwritten 10 times)
    assert all(c["passed"] for c in c1 if c["id"] in ("1-exact", "3-binary", "3-gap", "4-depth-width", "10-toy-rounded"))
    assert len(page.exact_table(res).splitlines()) == 2 + len(SMOKE["T_list"]) * (len(SMOKE["machines"]) + 1)


def test_polylog_row_tests_the_theorems_bound_not_flatness(monkeypatch):
    """Theorem 4.1 allows the corrected margin to fall like 1/poly(log T): a mild fall passes (the old row, 'flat
    within 2x and slope > -0.1', failed it), an exponential collapse in T fails."""
    T = np.array([16, 32, 64, 128])
    for radii, ok in (([2.0, 2.03, 1.88, 1.44], True), (2.0 * np.exp(-0.1 * (T - 16)), False)):
        monkeypatch.setattr(claims, "robust_arrays", lambda results, corr, r=radii: {"T": T, "r": np.array(r)[:, None]})
        assert claims.RULE_POLYLOG.decide(claims._polylog_random({"n_directions": 1}, {})).passed is ok


# The quick profile's robustness radii (counter machine, 3 random directions), with and without correction.
RADII = {True: {16: (0.3908, 10.36, [1.953, 2.026, 2.001]), 24: (0.3814, 10.10, [1.624, 1.792, 2.655]),
                32: (0.3814, 10.10, [1.727, 2.026, 2.051]), 48: (0.3814, 10.10, [1.271, 1.302, 1.859]),
                64: (0.3814, 10.36, [1.882, 1.665, 1.905]), 128: (0.3814, 10.61, [1.437, 1.491, 1.385])},
         False: {16: (1.566e-4, 9.78e-4, [4.34e-6, 5.68e-6, 1.22e-5]), 24: (5.48e-6, 3.42e-5, [2.50e-8, 1.45e-8, 1.27e-8]),
                 32: (4.58e-7, 2.86e-6, [1.98e-10, 6.5e-12, 2.06e-5]), 48: (1.70e-9, 1.06e-8, [1.72e-15, 1.59e-15, 1.10e-15]),
                 64: (5.22e-12, 3.34e-11, [1.12e-15, 1.34e-15, 9.3e-16]), 128: (1e-17, 6.6e-17, [1e-17, 1e-17, 1e-17])}}
SIZE = {16: (5261.0, 162080, 44), 24: (5261.0, 162080, 44), 32: (5261.0, 162080, 44), 48: (5261.0, 162080, 44),
        64: (6409.0, 216720, 48), 128: (7673.0, 282380, 52)}


def _robust_results(swap: bool, T=tuple(SIZE)) -> dict:
    """Robust points as stored; swap=True files each horizon's uncorrected radii as the corrected ones and back:
    a run in which the correction's mechanism is absent (and one in which the uncorrected network is robust)."""
    out = {}
    for corr in (True, False):
        for t in T:
            (tt, l2, r), (a, p, w) = RADII[corr ^ swap][t], SIZE[t]
            out[(t, corr)] = {"spec": {"T": t, "correction": corr, "n_directions": len(r)},
                              "result": {"T": t, "t_struct": tt, "struct_l2": l2, "r_random": r, "alpha": a, "p": p, "w": w,
                                         "d": 4 + int(math.log2(t)) + 2}}
    return {"robust": out}


def _softmax_results() -> dict:
    """Softmax points as stored (the paper profile's beta*, counter machine): none without correction from T = 128."""
    bs = {True: [1.97, 2.59, 3.39, 3.90, 4.58, 5.37], False: [9.51, 14.9, 26.5, None, None, None]}
    return {"softmax": {(T, c): {"spec": {"T": T, "correction": c, "beta_max": 60.0}, "result": {"T": T, "beta_star": b}}
                        for c in bs for T, b in zip((16, 32, 64, 128, 256, 512), bs[c])}}


def test_robustness_claims_fail_when_the_mechanism_is_absent():
    """The rule for a claim: it passes the faithful run and fails a run without the mechanism it is about
    (the correction's T-independent radius for 7-polylog-random, the uncorrected collapse for the other two);
    censored radii (at the float64 floor) are shown as bounds, not dropped. 12-bound, a formula of the sizes and
    of 7-polylog-random's radius, is a check and fails with it."""
    P = {"n_directions": 3}
    ids = ("7-polylog-random", "12-bound", "7-collapse", "7-random-nocorr")
    decide = {r.id: r.decide for r in claims.ROWS}
    faithful, absent = _robust_results(False), _robust_results(True)
    for i in ids:
        assert decide[i](P, faithful).passed, i
        assert not decide[i](P, absent).passed, i
        assert next(r for r in claims.ROWS if r.id == i).kind == ("check" if i == "12-bound" else "claim")
    collapse = decide["7-collapse"](P, faithful).measured
    assert "$T$ = 128: ≤ 1e-15 (censored)" in collapse and "over 5 measured radii" in collapse
    assert "sd over 3 directions" in decide["7-polylog-random"](P, faithful).measured
    assert "sd over 3 directions" in decide["12-bound"](P, faithful).measured


def test_collapse_needs_five_measured_radii():
    """The doublings 16, 32, 64 alone leave 3 radii above the floor: a line through them reaches R^2 > 0.9 for
    radii with no trend in about one run in five, so the row reads censored, not pass; a censored radius before a
    measured one fails whatever their number."""
    row = next(r for r in claims.ROWS if r.id == "7-collapse")
    m = row.measure({}, _robust_results(False, T=(16, 32, 64, 128)))
    assert m.gate == 3                                                  # the measure counts; RULE_COLLAPSE's gate censors
    three = row.rule.decide(m)
    assert not three.passed and three.censored == "3 measured radii, fewer than 5"
    early = _robust_results(False, T=(16, 32, 64, 128))
    early["robust"][(16, False)]["result"]["t_struct"] = 1e-17
    v = row.decide({}, early)
    assert not v.passed and not v.censored


def test_random_nocorr_reads_the_smallest_radius_so_directions_only_tighten_it():
    """The old rule held the largest radius over the directions to 1e-4 and failed the paper profile's 6 directions
    at T = 16 (two near 1e-2); the smallest over the directions bounds the margin, so a direction added can only
    lower it, and resampled runs with half the directions pass no more often than with all of them (claims/power.py)."""
    row = next(r for r in claims.ROWS if r.id == "7-random-nocorr")
    res = _robust_results(False)
    res["robust"][(16, False)]["result"]["r_random"] = [4.34e-6, 1.02e-2, 7.77e-3]   # the old rule failed this
    assert row.decide({}, res).passed
    res["robust"][(16, False)]["result"]["r_random"] = [1.02e-2, 7.77e-3, 2e-4]      # no direction below 1e-4
    assert not row.decide({}, res).passed
    all_, half = (w for w in power.WORLDS[row.id] if w.mechanism)
    share = {w: rates(row, w, {"n_directions": 3}, _robust_results(False), draws=60)["pass"] for w in (all_, half)}
    assert share[half] <= share[all_] and share[all_] >= 0.9


def test_power_faithful_worlds_pass_and_worlds_without_the_mechanism_fail():
    """The power table (page.power, claims/power.py) on a stored-like run: each robustness claim's own rule passes
    the stored runs resampled by direction (7-collapse: the stored run itself, it has no seed) and fails the runs
    relabelled without the mechanism (the other arm's radii at each T; 7-collapse's t* at permuted T)."""
    table = page.power({"n_directions": 3}, {**_robust_results(False), **_softmax_results()}, 30)
    assert sorted({t["row"] for t in table}) == sorted(r.id for r in claims.ROWS if r.kind == "claim")
    for t in table:
        assert t["draws"] == 30 and "unmeasured" not in t, t
        # 8-beta's permuted-T null passes where the permutation keeps beta* nearly in order (15% of the paper's)
        assert (t["pass"] >= 0.9) if t["mechanism"] else (t["pass"] <= (0.3 if t["row"] == "8-beta" else 0.1)), t
    # the worlds relabel the stored runs: a draw is shaped like them, and the absent world's radii are the other arm's
    rng = np.random.default_rng(0)
    absent = power.WORLDS["7-random-nocorr"][1].draw({}, _robust_results(False), rng)
    assert set(absent["robust"]) == set(_robust_results(False)["robust"])
    assert all(set(absent["robust"][(T, False)]["result"]["r_random"]) <= set(RADII[True][T][2]) for T in SIZE)
    permuted = power.permuted("robust", "t_struct", False)({}, _robust_results(False), rng)["robust"]
    assert sorted(permuted[(T, False)]["result"]["t_struct"] for T in SIZE) == sorted(RADII[False][T][0] for T in SIZE)


def test_every_threshold_says_whose_it_is():
    """Every row's rule names the source of its numbers: the paper's, the book's calibration, or exact."""
    for r in claims.ROWS:
        assert any(w in r.expected for w in ("paper", "book", "exact", "no threshold", "known values")), r.id


def test_every_row_decides_and_words_its_rule_from_one_object():
    """Each row holds a rule object (lib.core.rules) whose fields both decide the verdict and write the rule's text:
    moving 7-polylog-random's bound moves its verdict and its words together."""
    import dataclasses

    assert all(r.rule is not None and r.expected == r.rule.text for r in claims.ROWS)
    P, faithful = {"n_directions": 3}, _robust_results(False)
    m = claims._polylog_random(P, faithful)                             # what the row measured: its rule decides
    assert claims.RULE_POLYLOG.decide(m).passed and "≤ 3 (book's calibration" in claims.RULE_POLYLOG.text
    strict = dataclasses.replace(claims.RULE_POLYLOG, bound=0.1)
    assert not strict.decide(m).passed and "≤ 0.1 (book's calibration" in strict.text


def test_rows_hold_their_scope_explanation_and_headlines():
    """Every claim row explains itself where it fails or is censored (no findings dispatched by row id), the toy's
    slope range is one Scope that the statement quotes and the measure applies, and the headlines name real rows."""
    from lib.core.claims import explanations

    ids = [r.id for r in claims.ROWS]
    assert all(set(h.ids) <= set(ids) for h in claims.HEADLINES) and 2 <= len(claims.HEADLINES) <= 4
    assert all(r.explain is not None for r in claims.ROWS if r.kind == "claim")
    toy = next(r for r in claims.ROWS if r.id == "10-toy-product")
    assert claims.TOY_SLOPE.text in toy.text and toy.scope is claims.TOY_SLOPE
    P, absent = {"n_directions": 3}, _robust_results(True)
    rows = [{"id": r.id, "kind": r.kind, "passed": r.decide(P, absent).passed} for r in claims.ROWS
            if r.id in ("7-polylog-random", "7-collapse", "7-random-nocorr")]
    assert [f.split("`")[1] for f in explanations(claims.ROWS, rows, P, absent)] == [r["id"] for r in rows]
