"""lib.science.turing, lib.science.tm_transformer, lib.chapters.turing_simulation.compute: the interpreter and its catalogue, each layer's contract
on its own (transition on every (z, a), the +-1 adder on every position, the binary search against the
interpreter's last-write table, the select truth table), end-to-end traces, sizes, the toy margins."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lib.science import tm_transformer as tt
from lib.science import turing as tu
from lib.chapters.turing_simulation import compute as ts
from lib.chapters.turing_simulation import page as page



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
    return tt._ff(net, l, h, net.params)[0, 0, 0]


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
    with pytest.raises(ValueError, match="left the tape"):
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
        hid = tt.teacher_forced(net, [x], tt.reference_outputs(net, [tr]), hidden=True)["hidden"][3 + net.P, 0, 0]
        sl = net.lay.sl
        assert np.array_equal(hid[:, sl["scr3"]].numpy(), tt.bits(np.maximum(tr.last, 0), net.P))
        assert np.array_equal(hid[:, sl["f1"].start].numpy(), (tr.last >= 0).astype(float))
        assert np.array_equal(hid[:, sl["f2"].start].numpy(), tr.in_input.astype(float))


# ------------------------------------------------------------------------------------------------ end to end
@pytest.mark.parametrize("name", list(tu.catalogue()))
def test_catalogue_traces_rollout_and_teacher_forced(name):
    tm = tu.catalogue()[name]
    T = 48
    xs = ts._inputs(tm, T, 2, 0)
    traces = [tu.run(tm, x, T) for x in xs]
    net = tt.build(tm, T)
    ref = tt.reference_outputs(net, traces)
    ro = tt.rollout(net, xs)
    tf = tt.teacher_forced(net, xs, ref, chunk=17)["out"]        # chunked queries give the same result
    assert torch.equal(ro[0], ref) and torch.equal(tf[0], ref)
    assert tt.mismatches(net, ro, traces).sum() == 0


def test_random_machines_exact_and_classifier():
    res = ts.run_exact({"machines": [f"random{s}" for s in range(6)], "T": 32, "n_inputs": 2, "seed": 1,
                        "rollout_T_max": 32, "chunk": 64, "P": {"random_k_max": 8, "random_sym_max": 5}}, "cpu")
    for m in res["machines"].values():
        assert m["tf_mismatch"] == m["ro_mismatch"] == m["nonbinary"] == m["lookup_bad"] == m["cls_bad"] == 0
        assert m["tf_bit_exact"] and m["ro_bit_exact"] and m["gap"] >= 1 and m["tape_bad"] == 0


def test_without_correction_exact_and_low_precision():
    tm = tu.counter()
    T = 32
    tr = tu.run(tm, [], T)
    net = tt.build(tm, T, correction=False)   # decodes exactly; float rounding of 1/|ties| is not erased, only grows
    out = tt.rollout(net, [[]])
    assert tt.mismatches(net, out, [tr]).sum() == 0
    assert 0 < float((out[0] - tt.reference_outputs(net, [tr])).abs().max()) < 1e-6
    for dt in (torch.float16, torch.bfloat16):
        n16 = tt.build(tm, T).to(dtype=dt)
        assert torch.equal(tt.rollout(n16, [[]], tol=0.0)[0], tt.reference_outputs(n16, [tr]))


def test_softmax_converges_to_hardmax_and_perturbation_breaks_without_correction():
    tm = tu.counter()
    T = 24
    tr = tu.run(tm, [], T)
    net = tt.build(tm, T).replicate(2)
    out = tt.rollout(net, [[]], beta=torch.tensor([0.3, 30.0], dtype=torch.float64))
    fm = tt.first_mismatch(net, out, [tr])
    assert fm[0] <= T and fm[1] == T + 1
    # structured attack: scaling the transition output by 0.9 is erased with correction, fatal without
    for corr, broken in ((True, False), (False, True)):
        n = tt.build(tm, T, correction=corr)
        d = ts._structured_direction(n)
        fail = ts._fail_scales(n, [d], np.array([[0.1]]), [[]], [tr])
        assert bool(fail[0, 0]) == broken


def test_smallest_failing_finds_a_threshold():
    thr = np.array([1e-6, 0.3, 5.0])
    fail = lambda g: g >= thr[:, None]
    got = ts.smallest_failing(fail, 1e-12, 10.0, 12, 3, 3)
    assert np.all(got >= thr) and np.all(got <= thr * 1.05)
    assert ts.smallest_failing(lambda g: np.zeros_like(g, bool), 1e-3, 1.0, 8, 2, 1)[0] == math.inf


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
    np.testing.assert_allclose([ts.rho_product_numeric(int(k), 3, 0) for k in d], ts.rho_product_formula(d), rtol=1e-6)
    r = ts.rho_rounded_dp([1, 2, 16], grid=1001)
    assert r[0] == pytest.approx(0.5) and np.all(r > 1 / 3) and r[1] < 0.5
    # the d = 2 value by a direct search over the intermediate level q: (1 - 0.5/q)^2 + ((2 - q)/3)^2
    q = np.linspace(0.5, 1, 200001)
    assert r[1] == pytest.approx(math.sqrt(((1 - 0.5 / q) ** 2 + ((2 - q) / 3) ** 2).min()), abs=2e-3)


def test_check_params_names_bad_machines():
    P = {"machines": ["parity", "nope"], "show_machine": "bb4", "size_machine": "palindrome",
         "robust_machine": "counter", "softmax_machine": "x", "T_list": [16], "robust_T": [2], "softmax_T": [16],
         "precision_T": 16}
    keys = [k for k, _ in ts.check_params(P)]
    assert keys == ["machines", "softmax_machine", "robust_T"]


def test_a_radius_nothing_corrupts_is_read_back_as_inf():
    """smallest_failing returns inf where no scale fails; JSON stores it as None; the page must read inf (a robust
    direction), not NaN, which nanmedian and nanmax would silently skip."""
    rec = {"result": {"T": 16, "t_struct": None, "struct_l2": 0.5, "r_random": [1.0, None], "alpha": 1.0, "p": 10, "w": 5}}
    a = page.robust_arrays({"robust": {(16, True): rec}}, True)
    assert np.isinf(a["t"][0]) and np.isinf(a["r"][0, 1]) and a["r"][0, 0] == 1.0
