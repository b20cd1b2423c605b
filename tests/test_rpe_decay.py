"""lib.chapters.rpe_decay: the exact checks (T5 table, folding identity, LP of Prop. 5.2(B),
bound crossover, Prop. B.1's rounding inequalities, head allocation), the solver and the fitter on kernels they must
fit exactly, the long-window grid, the training model against explicit loops, parameter checks, the specs and one
tiny collect through the store."""
from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys

import numpy as np
import pytest
import torch

from lib.chapters.rpe_decay import claims, page
from lib.chapters.rpe_decay import compute as rd
from lib.chapters.rpe_decay.claims import apph as apph_claims
from lib.chapters.rpe_decay.claims import fit as fit_claims
from lib.chapters.rpe_decay.claims import train as train_claims
from lib.chapters.rpe_decay.experiments import apph, exact, fit, train
from lib.chapters.rpe_decay.experiments.fit import Kernel
from lib.chapters.rpe_decay.results import apph as apph_results
from lib.chapters.rpe_decay.results import errors, guaranteed_rate, heads_needed
from lib.chapters.rpe_decay.results import train as train_results
from lib.core import params as params_mod
from lib.core.store import ROOT, Store, key_of, spec_dict
from lib.core.sweep import collect
from lib.science.numerics import levenberg_marquardt


# ------------------------------------------------------------------------------------------- exact checks
def test_t5_buckets_reproduce_table_1_and_saturate_at_91():
    assert exact.t5_bucket(np.arange(31)).tolist() == exact.TABLE1
    v = exact.t5_bucket(np.arange(0, 2000))
    assert v.max() == 15 and np.argmax(v == 15) == 91 and (np.diff(v) >= 0).all()
    # the formula, by hand, at a few points
    for n in (8, 23, 90, 127):
        assert exact.t5_bucket(n) == 8 + math.floor(8 * math.log(n / 8) / math.log(16))
    assert exact.t5_bucket(128) == exact.t5_bucket(10 ** 6) == 15


def test_head_weights_closed_forms():
    S, p = 50, np.array([0.3, 1.7])
    a = exact.head_weights("lin", S, p)
    s = np.arange(S)
    np.testing.assert_allclose(a, np.exp(-np.outer(p, s)) * ((1 - np.exp(-p)) / (1 - np.exp(-p * S)))[:, None], rtol=1e-12)
    b = exact.head_weights("log", S, [1.5])
    assert b[0, 0] == 0.0
    np.testing.assert_allclose(b[0, 1:], s[1:] ** -1.5 / np.sum(s[1:] ** -1.5), rtol=1e-12)
    np.testing.assert_allclose(a.sum(1), 1.0)
    with pytest.raises(ValueError, match="lin or log"):
        exact.rpe_bias("alibi", 4, [1.0])


@pytest.mark.parametrize("kind,p", [("lin", [0.002, 0.1, 2.0]), ("log", [1.01, 2.0, 4.5])])
def test_folding_identity(kind, p):
    assert exact.folding_error(kind, 2048, p, [0.7, -1.3, 2.0]) <= 1e-12


def test_prop52_lp_optimum_is_one_and_l2_predictor_sup_is_four_thirds():
    lp = exact.prop52_lp()
    assert abs(lp["lp_opt"] - 1.0) < 1e-9 and lp["lp_opt"] >= 2 / 3
    np.testing.assert_allclose(lp["l2_v"], [0.5, 1 / 3, 1 / 3, -1 / 3], atol=1e-12)
    assert abs(lp["l2_sup"] - 4 / 3) < 1e-12 and lp["zero_sup"] == 1.0


def test_bound_crossover():
    lo, hi = exact.crossover_roots()
    assert abs(lo - 1.0101) < 1e-4 and abs(hi - 654.94) < 5e-3
    assert math.isclose(math.exp(0.01 * hi), hi ** 1.01, rel_tol=1e-9)
    T = np.arange(2, 655)
    assert (np.exp(0.01 * T) < T ** 1.01).all() and math.exp(6.55) > 655 ** 1.01


def test_prop_b1_rounding_inequalities():
    z = np.linspace(1, 12, 100001)
    ratio, lin = exact.prop_b1(z)
    assert ratio <= 1 and lin <= 0.5
    assert ratio > 0.99     # nearly tight: the bound is not vacuous on this grid


def test_head_allocation_optimum():
    rng = np.random.default_rng(3)
    for _ in range(3):
        T = np.sort(rng.integers(1, 300, 4)).astype(float)
        for a in (np.exp(0.01 * T), T ** 1.01):
            num, closed = exact.allocation_check(a, 2, 32.0)
            assert abs(num - closed) / closed < 1e-6
            Hk = 32.0 * a / a.sum()                       # the proof's allocation attains the closed form
            assert math.isclose(np.sum(a ** 3 * Hk ** -2.0), closed, rel_tol=1e-12)


# ------------------------------------------------------------------------------------------------ fitter
def test_grid_is_exact_for_short_windows_and_sums_long_ones():
    s, w = fit.grid(100)
    assert s.tolist() == list(range(1, 100)) and (w == 1).all()
    s, w = fit.grid(1e12)
    assert s[0] == 1 and abs(s[-1] - (1e12 - 1)) < 1e-3 * 1e12 and len(s) == fit.N_EXACT + fit.N_GEO
    approx = np.sum(w * (s + 1.0) ** -2)
    exact = math.pi ** 2 / 6 - 1 - 1e-12              # sum_{s=1}^{S-1} (s+1)^-2, up to 1e-12
    assert abs(approx - exact) / exact < 1e-3


def test_kernels_are_normalised_and_extent():
    for k, S in ((Kernel("power", beta=1.5), 1e6), (Kernel("exp", tau=10.0), 1e12),
                 (Kernel("bump", T=16, w=4.0), 96), (Kernel("delta", T=3), 24)):
        s, w, rho = fit.target(k, S)
        assert abs(np.sum(w * np.abs(rho)) - 1) < 1e-12
    s, w, rho = fit.target(Kernel("exp", tau=10.0), 1e12)
    assert 150 < fit.extent(s, w, rho) < 400
    assert fit.extent(*fit.target(Kernel("delta", T=3), 24)) == 4      # the first s with no mass at or beyond it


@pytest.mark.parametrize("family,p,alpha", [("lin", [0.05, 0.4, 1.5], [1.0, -0.5, 2.0]),
                                            ("log", [1.3, 2.2, 3.5], [1.0, 0.8, -0.4]),
                                            ("log", [0.3, 0.5, 2.0], [1.0, -0.6, 0.5])])   # p <= 1: eq. (4) on a window
def test_fitter_recovers_a_sum_of_H_heads_exactly(family, p, alpha):
    S = 200.0
    s, w = fit.grid(S)
    rho = exact.fitted_kernel(family, p, alpha, s)
    rho = rho / np.sum(w * np.abs(rho))
    f = fit.fit_kernel(rho, s, w, family, 3, S, restarts=3, rounds=2, seed=0)
    assert f["l1"] < 1e-8 and f["l2"] < 1e-8
    np.testing.assert_allclose(np.sort(f["p"]), np.sort(p), rtol=1e-5)
    # fewer heads cannot do it
    assert fit.fit_kernel(rho, s, w, family, 1, S, restarts=2, rounds=1, seed=0)["l1"] > 1e-3


def test_fit_is_deterministic_and_matches_its_parameters():
    P = params_mod.resolve("rpe_decay", "quick")
    spec = rd.fit_spec(P, Kernel("delta", T=2), "log", 24.0, [1, 2])
    a, b = fit.run_fit(spec, "cpu"), fit.run_fit(spec, "cpu")
    assert a["l1"] == b["l1"] and all(np.array_equal(x, y) for x, y in zip(a["p"], b["p"]))
    s, w, rho = fit.target(spec.kernel, spec.S)
    for i in range(2):
        k = exact.fitted_kernel("log", a["p"][i], a["alpha"][i], s)
        assert math.isclose(np.sum(w * np.abs(k - rho)), a["l1"][i], rel_tol=1e-9, abs_tol=1e-15)


def test_guaranteed_rates():
    assert guaranteed_rate(Kernel("power", beta=3.0), "log") == 1
    assert guaranteed_rate(Kernel("power", beta=2.0), "log") == 0      # needs beta >= 2.02
    assert guaranteed_rate(Kernel("power", beta=5.0), "log") == 3
    assert guaranteed_rate(Kernel("exp", tau=10.0), "lin") == 9
    assert guaranteed_rate(Kernel("exp", tau=100.0), "lin") == 0
    assert guaranteed_rate(Kernel("power", beta=3.0), "lin") == 0


def test_heads_needed():
    e = {1: {"l1": 0.5}, 2: {"l1": 0.05}, 4: {"l1": 1e-3}}
    assert heads_needed(e, 0.1) == 2 and heads_needed(e, 1e-3) == 4 and heads_needed(e, 1e-4) == math.inf


# ----------------------------------------------------------------------------------------------- training
def test_model_kernel_is_the_softmax_heads_and_causal_conv_is_the_sum():
    runs = [(f, H) for f in train.FAMILIES for H in (1, 3)]
    scale = 0.01 / 0.003
    params = train.init_params(runs, 32, scale, torch.Generator().manual_seed(0), "cpu")
    params = {k: v.double() for k, v in params.items()}
    params["w0"] = torch.randn(len(runs), 1, dtype=torch.float64)
    params["u"][2, 0] = math.log(0.5) / scale          # a log head with p = 0.5 < 1 (eq. (4): any p > 0)
    k = train.model_kernel(params, 32, scale).numpy()
    for i, (f, H) in enumerate(runs):
        p = np.exp(scale * params["u"][i, :H].numpy())
        want = params["c"][i, :H].numpy() @ exact.head_weights(f, 32, p)
        want[0] += params["w0"][i, 0].item()
        np.testing.assert_allclose(k[i], want, rtol=1e-10, atol=1e-12)
    x = torch.randn(len(runs), 2, 64, dtype=torch.float64)
    y = train.causal_conv(x, torch.from_numpy(k), 32).numpy()
    for i in range(len(runs)):
        for t in (32, 40, 63):
            assert abs(y[i, 0, t - 32] - sum(k[i, s] * x[i, 0, t - s].item() for s in range(32))) < 1e-10


def test_train_error_is_var_x_times_kernel_error():
    """The linear target makes the test MSE Var(x) ||k - rho||^2: checked by Monte Carlo on a tiny run."""
    P = params_mod.resolve("rpe_decay", "quick", {"train_S": [32], "train_H": [1, 2], "train_seeds": 1,
                                                   "train_steps": 40, "train_batch": 8, "train_n_test": 400,
                                                   "train_checks": 2})
    out = train.run_train(rd.train_spec(P, Kernel("exp", tau=10.0), 32), "cpu")
    assert len(out["runs"]) == 4 and np.all(np.isfinite(out["mse_exact"]))
    rel = np.abs(np.array(out["test_mse"]) - out["mse_exact"]) / out["mse_exact"]
    assert rel.max() < 0.15      # 400 x 32 test positions


# ------------------------------------------------------------------------------------------- parameters
def test_check_params():
    P = params_mod.resolve("rpe_decay", "quick")
    assert rd.check_params(P) == []
    bad = dict(P, context_H=3)
    assert [k for k, _ in rd.check_params(bad)] == ["context_H"]
    assert "H_grid" in [k for k, _ in rd.check_params(dict(P, H_grid=[1, 4, 2]))]
    with pytest.raises(params_mod.ParamError, match="context_H"):
        params_mod.resolve("rpe_decay", "quick", {"context_H": 3})
    with pytest.raises(params_mod.ParamError, match="betas"):
        params_mod.resolve("rpe_decay", "quick", {"betas": [0.5]})


def test_specs_hold_what_their_runs_read():
    """A point's store key changes with a parameter its run reads and with no other; a fit that two parts of the
    page ask for (the training optimum of a main kernel at the main window) is one point, labelled as before."""
    P = params_mod.resolve("rpe_decay", "quick")
    keys = lambda Q: {p.label: key_of(spec_dict(p.spec)) for p in rd.points(Q)}
    base = keys(P)
    differs = lambda **kw: {label for label, k in keys({**P, **kw}).items() if k != base[label]}
    fits = {label for label in base if label[0] == "fit"}
    assert differs(train_lr=0.5) == {label for label in base if label[0] == "train"}
    assert differs(restarts=5) == fits
    assert differs(eps_memory=0.5) == differs(device="cuda") == set()        # page-only and run-time parameters
    conv = {label for label in base if label[0] == "converged"}
    assert differs(max_nfev=7) == fits | conv and differs(decay_frac=0.5) == base.keys() - fits - conv - {("exact",)}
    assert differs(converged_starts=4) == conv
    labels = [p.label for p in rd.points(P)]
    assert labels[0] == ("exact",) and len(set(labels)) == len(labels) == 64    # 4 Appendix H fits, its two arms
    assert P["fitter_seeds"] == 1 and len(conv) == len(rd.converged_specs(P))  # every converged fit at 1 fitter seed
    # the number of fitter seeds lists more points (seeds 1, 2 beside 0), and leaves every listed point's key as it is
    three = keys({**P, "fitter_seeds": 3})
    assert {label: three[label] for label in base} == base and len(three) == len(base) + 2 * len(conv)
    assert {label[2] for label in three if label[0] == "converged"} == {0, 1, 2}
    assert ("apph", "free") in labels and ("fit", ("power s^-0.5", "log", 250.0, (1, 4, 16))) in labels
    assert differs(apph_lr=0.5) == {("apph", "free"), ("apph", "none")}
    assert differs(train_freeze_frac=0.2) == differs(train_init="random") == {label for label in base if label[0] == "train"}
    assert ("fit", ("power beta=1.2", "lin", 256.0, (1, 2, 4, 8))) in labels   # the training optimum, at train_H
    assert ("train", ("exp cutoff tau=10", 256)) in labels


def test_tiny_compute_through_the_store(tmp_path):
    P = params_mod.resolve("rpe_decay", "smoke")      # every arm at its smallest (parameters/rpe_decay/smoke.yaml)
    store = Store("rpe_decay", "smoke", root=tmp_path)
    first, second = [], []
    res = collect(rd.points(P), store, "cpu", log=first.append)
    again = collect(rd.points(P), store, "cpu", log=second.append)
    n = 1 + len(res["fit"]) + sum(map(len, res["converged"].values())) + len(res["train"]) + len(res["apph"])
    assert len([line for line in first if "computed in" in line]) == n          # one line per point computed
    assert second == [f"rpe_decay: {n} of {n} points loaded from {store.dir}"] and again["fit"].keys() == res["fit"].keys()
    cl = page.claims(P, res)
    ids = [c["id"] for c in cl]
    assert ids[:6] == ["1-t5-buckets", "2-allocation", "3-crossover", "4-prop-B1", "5-prop-5.2B", "6-folding"]
    assert all(c["passed"] and c["kind"] == "check" for c in cl[:6]) and "13-monotone-in-H" in ids and "14a-train-order" in ids
    assert {"H4a-log", "H4a-lin", "H4b-lin", "H4b-log"} <= set(ids)
    h = next(c for c in cl if c["id"] == "H4a-log")
    assert h["paper"] == "< 1e-5 (one head)" and (h["passed"] or "S = 1000" in h["scale"])
    # claim 13 catches a fit whose error grows with H
    key = next(k for k in res["fit"] if k[1] == "lin" and k[0].startswith("power"))
    res["fit"][key]["result"]["l1"] = [0.5, 0.1, 0.4, 0.01]
    assert not next(c for c in page.claims(P, res) if c["id"] == "13-monotone-in-H")["passed"]


def test_levenberg_marquardt_on_rosenbrock_and_at_a_bound():
    rosen = lambda x: (np.array([10 * (x[1] - x[0] ** 2), 1 - x[0]]), np.array([[-20 * x[0], 10.0], [-1.0, 0.0]]))
    x, nfev = levenberg_marquardt(rosen, np.array([-1.2, 1.0]), -5.0, 5.0, 200)
    np.testing.assert_allclose(x, [1.0, 1.0], atol=1e-10)
    assert nfev < 100
    x, _ = levenberg_marquardt(lambda x: (x - 3.0, np.eye(1)), np.zeros(1), -10.0, 2.0, 50)
    assert x[0] == 2.0                                                   # the minimum is outside the box: its edge


def test_fits_do_not_depend_on_what_ran_before_in_the_process():
    """Two fits in two fresh processes, in one order and in the other, give the same bits. scipy 1.17's MINPACK,
    which the fitter used before, failed this in 5 of 5 tries (its optima changed with what had run before)."""
    code = ("import json, sys; from lib.chapters.rpe_decay import compute as rd; "
            "from lib.chapters.rpe_decay.experiments import fit; "
            "P = {'H_grid': [1, 2, 4, 8, 16], 'restarts': 3, 'irls_rounds': 4, 'max_nfev': 50, 'seed': 0}; "
            "specs = [rd.fit_spec(P, fit.Kernel('delta', T=T), 'log', 64.0) for T in json.loads(sys.argv[1])]; "
            "print(json.dumps([fit.run_fit(s, 'cpu')['l1'] for s in specs]))")
    fits = lambda Ts: json.loads(subprocess.run([sys.executable, "-c", code, json.dumps(Ts)], capture_output=True,
                                                text=True, cwd=ROOT, check=True).stdout)
    assert fits([2, 8]) == fits([8, 2])[::-1]


def test_more_heads_than_taps():
    s, w, rho = fit.target(Kernel("delta", T=1), 6)
    f = fit.fit_kernel(rho, s, w, "lin", 8, 6.0, restarts=1, rounds=1)
    assert np.isfinite(f["l1"]) and f["l1"] < 1e-6


def test_a_fit_that_grows_with_H_is_refitted_with_more_starts(monkeypatch):
    """The remedy for check 13: an H whose error exceeds 1.5x the best at smaller H is fitted again with
    4x, then 16x the starts; the best attempt is kept and the starts are recorded. A refit does not repeat the
    geometric start, and the l2 error kept is the best of every attempt (the training floor)."""
    calls, geometric = [], []

    def fake(rho, s, w, family, H, S, restarts, rounds, seed, max_nfev, geometric_start=True):
        calls.append((H, restarts))
        geometric.append(geometric_start)
        l1 = {1: 0.5, 2: 0.1}.get(H, 0.4 if restarts < 16 else 0.05)    # H = 4 fails until 16 starts
        l2 = {4: 0.3 if restarts < 16 else 0.35}.get(H, l1)              # ... and its best l2 is the first attempt's
        return {"l1": l1, "l2": l2, "p": [1.0] * H, "alpha": [0.0] * H, "nfev": 1}

    monkeypatch.setattr(fit, "fit_kernel", fake)
    spec = rd.fit_spec({"restarts": 4, "irls_rounds": 1, "max_nfev": 10, "seed": 0}, Kernel("delta", T=2), "lin", 64.0,
                       [1, 2, 4])
    out = fit.run_fit(spec, "cpu")
    assert calls == [(1, 4), (2, 4), (4, 4), (4, 16)]
    assert out["l1"] == [0.5, 0.1, 0.05] and out["restarts"] == [4, 4, 20] and out["nfev"] == [1, 1, 2]
    assert geometric == [True, True, True, False] and out["l2"] == [0.5, 0.1, 0.3]


def test_a_fit_doubles_its_starts_until_the_best_no_longer_moves(monkeypatch):
    """A fit's starts are doubled (k more on top of k, the first k unchanged) until the best of 2k is within
    CONVERGED of the best of k, and while the error is above GROWTH x the best at fewer heads (check 13), up to
    `most` starts; the record says how many starts it took, the best of half of them and whether they agree."""
    seen = []

    def fake(basis, b, w, starts, lo, hi, rounds, max_nfev):
        seen.append(len(starts))
        l1 = max(1.0 / sum(seen), 1 / 32)         # the best falls until 32 starts, then stays
        return {"l1": l1, "l2": 2 * l1, "theta": np.zeros(2), "alpha": np.zeros(2), "nfev": 1}

    monkeypatch.setattr(fit, "separable_l1_fit", fake)
    s, w, rho = fit.target(Kernel("delta", T=2), 64.0)
    f = fit.fit_converged(rho, s, w, "lin", 2, 64.0, restarts=4)
    assert seen == [4, 4, 8, 16, 32] and f["starts"] == 64 and f["converged"] and f["l1_half"] == f["l1"] == 1 / 32
    seen.clear()
    f = fit.fit_converged(rho, s, w, "lin", 2, 64.0, restarts=4, below=1 / 64, most=128)   # grows: up to `most`
    assert sum(seen) == 128 and f["starts"] == 128 and f["nfev"] == len(seen)
    first = fit.start_rates("log", 3, -1.0, 1.0, 4, np.random.default_rng(0))
    more = fit.start_rates("log", 3, -1.0, 1.0, 8, np.random.default_rng(0))
    assert len(first) == 5 and all(np.array_equal(x, y) for x, y in zip(first, more))      # more starts extend
    calls = []
    monkeypatch.setattr(fit, "fit_converged", lambda *a, **kw: calls.append(kw["below"]) or
                        {"l1": 0.1, "l2": 0.2, "p": [1.0], "alpha": [0.0], "nfev": 1, "starts": 16, "l1_half": 0.1,
                         "converged": True})
    out = fit.run_converged(rd.ConvergedPoint(Kernel("delta", T=2), "lin", 64.0, (1, 2), 8, 1, 10, 0, (1, 1, 1)), "cpu")
    assert calls == [math.inf, 0.1] and out["restarts"] == [16, 16] and out["converged"] == [True, True]


def test_the_delta_the_paper_grid_flagged_does_not_grow_with_H():
    """A delta at T = 3 on 64 taps: with 4 starts scipy's MINPACK once fitted H = 8 5x worse than H = 4 (paper
    profile, before the refits); now the errors are non-increasing above the float64 floor, refits or not."""
    spec = rd.fit_spec({"restarts": 4, "irls_rounds": 4, "max_nfev": 50, "seed": 0}, Kernel("delta", T=3), "lin", 64.0,
                       [1, 2, 4, 8])
    e = fit.run_fit(spec, "cpu")["l1"]
    assert all(fit.grows_with_H(min(e[:i]), e[i]) <= fit.GROWTH for i in range(1, len(e))), e


def test_gap_summary_names_the_run_furthest_from_its_floor():
    k = Kernel("power", beta=1.2)
    name = fit.kernel_name(k)
    fitted = lambda p, alpha: {"result": {"H": [2], "l1": [0.1], "l2": [0.003], "p": [p], "alpha": [alpha]}}
    results = {"fit": {(name, "log", 64.0, (2,)): fitted([1.3, 1.4], [1.2, -1.0]),
                       (name, "lin", 64.0, (2,)): fitted([0.05, 0.5], [0.1, 0.2])},
               "train": {(name, 64): {"spec": {"kernel": dataclasses.asdict(k), "H": [2]},   # as the store keeps it
                                      "result": {"runs": [["lin", 2, 0], ["log", 2, 0]], "mse_exact": [4e-6, 3e-4],
                                                 "test_mse": [4e-6, 3e-4], "l1": [0.1, 0.2],
                                                 "p": [[0.05, 0.5], [1.001, 1.02]]}}}}
    text = page.gap_summary(results)
    assert "log RPE, $H$ = 2, $S$ = 64" in text and "(1.001, 1.020)" in text and "(1.300, 1.400)" in text
    assert "(1.200, -1.000)" in text and "opposite signs" in text and f"{3e-4 / (0.003 ** 2 / 3):.0f}x" in text
    assert page.gap_summary({"fit": {}, "train": {}}) == ""


# ------------------------------------------------------------------ claims read at the H their rules name
def _fits(P, kernels, errs_by_H):
    """Fake fit results: every kernel, both families, the given {H: l1} (l2 = l1), as 4-start fits and as fits
    converged in 16 starts (the best of 8 the same) at three fitter seeds that agree."""
    out, conv = {}, {}
    for k in kernels:
        for f in train.FAMILIES:
            Hs = sorted(errs_by_H[f])
            e = [errs_by_H[f][H] for H in Hs]
            key = (fit.kernel_name(k), f, rd.window_of(P, k), tuple(Hs))
            out[key] = {"result": {"H": Hs, "l1": e, "l2": e, "p": [[1.0]] * len(Hs), "alpha": [[1.0]] * len(Hs)}}
            conv[key] = {seed: {"result": {**out[key]["result"], "restarts": [16] * len(Hs), "l1_half": e,
                                           "converged": [True] * len(Hs)}} for seed in range(3)}
    return {"fit": out, "converged": conv, "train": {}}


def _row(row_id):
    """The claim row of that id: `row.decide(P, results)` is its rule on what its measure found."""
    return next(r for r in claims.ROWS if r.id == row_id)


def test_claim_11_is_stated_at_rel_bump_H_and_never_read_at_another_H():
    P = params_mod.resolve("rpe_decay", "quick", {"H_grid": [1, 2, 4, 8, 16], "rel_bump_H": 24})
    rel = [Kernel("bump", T=T, w=T * P["rel_bump_frac"]) for T in P["rel_bump_T"]]
    specs = rd.fit_specs(P)
    assert all(24 in s.H for s in specs.values() if s.kernel in rel)               # fitted at 24 though the grid stops at 16
    assert not any(24 in s.H for s in specs.values() if s.kernel not in rel)
    # H = 16 would fail the band (lin 0.1), H = 24 passes it: the row reads 24 (the old code read the largest H <= 24)
    good = _fits(P, rel, {"lin": {16: 0.1, 24: 0.01}, "log": {16: 0.5, 24: 0.4}})
    v = _row("11-relative-bump").decide(P, good)
    assert v.passed and "$H$ = 24" in v.where
    # without a fit at 24 the row is not measured at all
    assert fit_claims._relative_bump(P, _fits(P, rel, {"lin": {16: 0.01}, "log": {16: 0.5}})) is None


def test_exp_kernel_rows_need_h_8_and_16_on_the_grid():
    P = params_mod.resolve("rpe_decay", "quick", {"H_grid": [1, 2, 4, 8]})
    res = _fits(P, [Kernel("exp", tau=10.0)], {"lin": {1: 0.1, 8: 1e-9}, "log": {1: 0.2, 8: 1e-3}})
    assert fit_claims._exp_kernel_lin(P, res) is None and fit_claims._exp_kernel_log(P, res) is None


def test_fit_rows_read_fits_settled_across_three_fitter_seeds():
    """A fit row reads the best of its fitter seeds and decides only where every fit it reads is settled: the run's
    fitter_seeds (the paper profile's 3) stored, each converged in its starts, their bests within 5%, better than the
    do-nothing fit (error 1); else it is censored with the reason. The rule's text quotes the paper profile's 3 seeds,
    a run at another count its own. Row 12b orders the fewest heads of each family that reach 0.1 (Thm 4.1)."""
    assert params_mod.resolve("rpe_decay", "paper")["fitter_seeds"] == fit_claims.SEEDS == 3
    P = params_mod.resolve("rpe_decay", "quick", {"H_grid": [1, 2, 4, 8, 16], "fitter_seeds": 3})
    heavy = _fits(P, [Kernel("power", beta=1.2)], {"lin": {8: 0.1}, "log": {8: 1e-6}})
    row = _row("7a-heavy-tail-log")
    v = row.decide(P, heavy)
    assert v.passed and v.expected == "" and "fewer than 3 fitter seeds," in row.expected
    key = next(k for k in heavy["converged"] if k[1] == "log")
    one = {**heavy, "converged": {**heavy["converged"], key: {0: heavy["converged"][key][0]}}}
    assert row.decide(P, one).censored == "needs 3 fitter seeds; 1 stored"
    v = row.decide({**P, "fitter_seeds": 1}, one)                      # the quick profile's one seed: settled there
    assert v.passed and not v.censored and "fewer than 1 fitter seed," in v.expected and "3 fitter" not in v.expected
    heavy["converged"][key][1]["result"] = {**heavy["converged"][key][1]["result"], "l1": [2e-6]}
    assert "more than 5% apart" in row.decide(P, heavy).censored
    delta = _fits(P, [Kernel("delta", T=8)], {"lin": {1: 1.0, 2: 0.5, 4: 0.05, 8: 0.01, 16: 0.01},
                                             "log": {1: 0.9, 2: 0.5, 4: 0.3, 8: 0.2, 16: 0.05}})
    far = _row("12b-sharp-memory-far")
    assert "no better than the do-nothing fit" in far.decide(P, delta).censored
    for recs in delta["converged"].values():
        for rec in recs.values():
            rec["result"]["l1"] = [0.9] + rec["result"]["l1"][1:]
    v = far.decide(P, delta)
    assert v.passed and "fewest heads to 0.1: lin 4, log 16" in v.measured


def test_rows_about_how_large_an_error_stays_are_hypotheses_about_the_best_fit_found():
    by_id = {r.id: r for r in claims.ROWS}
    for i in ("7b-heavy-tail-lin", "8b-context-lin", "9b-exp-kernel-log", "11-relative-bump"):
        assert by_id[i].kind == "claim" and by_id[i].source == claims.BEST, i
    for i in ("9a-exp-kernel-lin", "10a-slope-power", "12a-sharp-memory-near", "12b-sharp-memory-far"):
        assert by_id[i].source.startswith("Theorem"), i
    for i in ("7a-heavy-tail-log", "8a-context-log"):          # Thm 6.1(B) gives no rate at beta = 1.2 < 2.02
        assert by_id[i].source.startswith(claims.BOOK) and "no rate" in by_id[i].source, i
    for r in claims.ROWS:                                        # every claim's threshold says whose it is
        if r.kind == "claim":
            assert any(w in r.expected for w in ("calibration", "(paper", "paper's", "theorem's")), r.id


def _train_rows(mse_of, opt=1e-12, S=256, seeds=3, Hs=(8,)):
    """Fake Part C rows: one power law, both families, mse_of(family, H, seed), one optimum for all."""
    power = Kernel("power", beta=1.2)
    return [{"kernel": "power beta=1.2", "k": power, "S": S, "family": f, "H": H, "seed": s, "mse": mse_of(f, H, s),
             "opt": opt} for f in train.FAMILIES for H in Hs for s in range(seeds)]


def test_training_floor_is_measured_from_the_precision_limited_lin_runs():
    rows_ = _train_rows(lambda f, H, s: {"lin": [1e-8, 2e-8, 4e-8][s], "log": 1e-4}[f])
    floor, n = train_results.training_floor(rows_)
    assert (floor, n) == (2e-8, 3)                            # log runs never set it; lin runs far above their optimum do
    assert train_results.training_floor(_train_rows(lambda f, H, s: 1e-6, opt=1e-7)) == (0.0, 0)   # none precision-limited
    assert train_results.reachable({"opt": 1e-12}, floor) == floor and train_results.reachable({"opt": 1e-3}, floor) == 1e-3


def test_train_floor_compares_every_run_and_says_when_seeds_are_identical(monkeypatch):
    """14b: every run enters its (kernel, S, family, H) group, whose median over seeds is held to 10x of
    max(optimum, floor); a group's seeds that agree to three digits give no z-score."""
    P = params_mod.resolve("rpe_decay", "quick", {})
    # every run is compared (none dropped for a small optimum): the collapsed log runs fail, 1e4 x the floor
    collapsed = lambda f, H, s: {"lin": 1e-8, "log": 1.27e-4}[f]
    monkeypatch.setattr(train_results, "train_table", lambda results: _train_rows(collapsed))
    v = _row("14b-train-floor").decide(P, {})
    assert not v.passed and "worst median ratio 12700.0" in v.measured
    assert "1 of 2 groups and 3 of 6 runs within 10×" in v.measured
    assert "seeds identical" in v.measured and " sd over" not in v.measured
    monkeypatch.setattr(train_results, "train_table", lambda results: _train_rows(lambda f, H, s: {"lin": 1e-8 * (1 + s),
                                                                                          "log": 3e-8 * (1 + s)}[f]))
    v = _row("14b-train-floor").decide(P, {})
    assert v.passed and "sd over 3 seeds" in v.measured


def test_train_order_is_decided_at_H_2_and_4_and_censored_at_the_floor(monkeypatch):
    """14a: read at H = 2 and 4 (its scope), where the runs can tell; a cell where both RPEs sit within 10x of the
    training floor leaves it censored (its rule's Needs gate), not failed; seeds that agree are one effective run."""
    P = params_mod.resolve("rpe_decay", "quick", {})
    rows = lambda mse: (lambda results: _train_rows(mse, Hs=(2, 4, 8)))
    at_floor = lambda f, H, s: {"lin": [1e-8, 2e-8, 4e-8][s], "log": [3e-8, 4e-8, 5e-8][s]}[f]
    monkeypatch.setattr(train_claims, "train_table", rows(at_floor))
    v = _row("14a-train-order").decide(P, {})
    assert not v.passed and "cells" in v.censored and "$H$ = 2, 4" in v.where and "$H$ = 8" not in v.measured
    collapsed = lambda f, H, s: {"lin": 1e-8, "log": 1e-4}[f]                      # log far above what it can reach
    monkeypatch.setattr(train_claims, "train_table", rows(collapsed))
    v = _row("14a-train-order").decide(P, {})
    assert not v.passed and not v.censored and "(1 effective)" in v.measured
    monkeypatch.setattr(train_claims, "train_table", rows(lambda f, H, s: {"lin": 1e-6, "log": 1e-8}[f]))
    assert _row("14a-train-order").decide(P, {}).passed


# ------------------------------------------------------------------------------------------- Appendix H
def test_apph_kernels_and_the_rho0_convention():
    P = params_mod.resolve("rpe_decay", "quick", {"apph_S": 64})
    spec = rd.apph_spec(P)
    rho = apph.targets(spec)
    t = np.arange(1, 64.0)
    np.testing.assert_allclose(rho[0, 1:], t ** -0.5)
    np.testing.assert_allclose(rho[1, 1:], np.exp(-5 * t))
    assert rho[0, 0] == 0.0 and rho[1, 0] == 1.0 and rd.window_of(P, spec.kernels[0]) == 64.0   # t^-0.5: undefined, dropped
    assert spec.current == "free" and rd.apph_spec(P, "none").current == "none"


def test_one_log_head_is_t_to_the_minus_half():
    """Experiment 4a's kernel is one log head at p = 0.5 (p <= 1 was outside the old class p > 1, whose best
    single head missed it by an l1 error of 0.77)."""
    s, w, rho = fit.target(Kernel("spow", beta=0.5), 1000)
    f = fit.fit_kernel(rho, s, w, "log", 1, 1000, restarts=2, rounds=1, seed=0)
    assert f["l1"] < 1e-8 and abs(f["p"][0] - 0.5) < 1e-6


def test_apph_mse_is_the_kernel_error():
    """For +-1 inputs the test MSE is ||k - rho||^2 exactly in expectation: the engine's Monte Carlo test MSE and
    the stored exact MSE agree; every run is one (seed, kernel, family, H)."""
    P = params_mod.resolve("rpe_decay", "quick", {"apph_S": 64, "apph_H": [1, 2], "apph_seeds": 2, "apph_steps": 20,
                                                   "apph_batch": 8, "apph_n_test": 2000, "train_checks": 2})
    spec = rd.apph_spec(P)
    out = apph.run_apph(spec, "cpu")
    assert len(out["runs"]) == 2 * 2 * 2 * 2 and out["runs"][0] == [0, 0, "lin", 1]
    rel = np.abs(np.array(out["test_mse"]) - out["mse_exact"]) / out["mse_exact"]
    assert rel.max() < 0.15


def _apph_results(mse: dict, S=1000, Hs=(1, 64), seeds=2):
    """Fake Appendix H results of both arms: mse[(arm, kind, family, H)] (default 1.0; a list: one per seed), p = 1."""
    k = [dataclasses.asdict(Kernel("spow", beta=0.5)), dataclasses.asdict(Kernel("sexp", beta=5.0))]
    kinds = ("spow", "sexp")
    runs = [[r, j, f, H] for r in range(seeds) for j in range(2) for f in train.FAMILIES for H in Hs]
    at = lambda m, r: m[r] if isinstance(m, list) else m
    return {"fit": {}, "apph": {c: {"spec": {"kernels": k, "S": S, "H": list(Hs), "seeds": seeds}, "result": {
        "runs": runs, "p": [[1.0] * H for *_, H in runs],
        "mse_exact": [at(mse.get((c, kinds[j], f, H), 1.0), r) for r, j, f, H in runs]}} for c in ("free", "none")}}


def test_apph_claims_margin_and_rules():
    assert train_results.margin([1e-7, 1e-8], 1e-5, True).startswith("margin +2.0 decades = ")
    assert train_results.margin([0.5], 0.019, False) == "margin +1.4 decades; one seed"
    assert "seeds identical" in train_results.margin([1e-7, 1e-7], 1e-5, True)
    copy = apph_results.copy_baseline(np.exp(-5.0 * np.arange(1000)))
    assert abs(copy - math.exp(-10) / (1 - math.exp(-10))) < 1e-12            # 4.54e-5: the tail beyond t = 0
    res = _apph_results({("none", "spow", "log", 1): 1e-7, ("none", "spow", "lin", 64): 1e-3,
                         ("none", "sexp", "lin", 1): 1e-9, ("free", "sexp", "log", 64): 5.3e-4,
                         ("free", "sexp", "lin", 1): 1e-8})
    P = params_mod.resolve("rpe_decay", "quick", {"apph_S": 1000, "apph_steps": 10000, "apph_H": [1, 64]})
    got = {r.id: r.decide(P, res) for r in claims.ROWS if r.id.startswith("H4")}
    assert got["H4a-log"].passed and got["H4b-lin"].passed and got["H4b-log"].passed
    assert "heads only" in got["H4b-lin"].where and "with w0" in got["H4b-log"].where
    assert "copy-the-current-token baseline 4.5e-05" in got["H4b-lin"].measured
    assert f"{5.3e-4 / copy:.2g}× the copy-the-current-token baseline" in got["H4b-log"].measured
    assert got["H4b-log"].paper.startswith("5.3e-4 (64 heads) = 11.7× the copy baseline")
    assert not got["H4a-lin"].passed and got["H4a-lin"].scale == ""         # at the paper's scale: a plain failure
    assert got["H4a-lin"].paper == "0.19 (up to 64 heads)"
    # the log heads learn the tail beyond the current token (with w0): H4b-log fails
    res = _apph_results({("free", "sexp", "log", 64): 1e-7})
    assert not _row("H4b-log").decide(P, res).passed
    # a row whose arm was not run is not measured
    del res["apph"]["none"]
    assert apph_claims._4a_log(P, res) is None and apph_claims._4b_log(P, res) is not None


def test_apph_page_tables_and_findings_quote_the_stored_runs():
    res = _apph_results({("none", "spow", "log", 1): 1e-7, ("none", "spow", "lin", 64): 2e-6,
                         ("free", "spow", "lin", 64): 3e-6, ("none", "sexp", "lin", 1): 4e-14,
                         ("free", "sexp", "lin", 1): 2.3e-7, ("free", "sexp", "log", 64): 1.1e-7})
    P = params_mod.resolve("rpe_decay", "quick", {"apph_S": 1000, "apph_steps": 10000, "apph_H": [1, 64]})
    nums = page.apph_numbers(P, res)
    assert "| H4b-lin | < 1e-7 (one head) | 4.0e-14 (4.0e-14 – 4.0e-14), $H$ = 1: reproduced | 2.3e-07" in nums
    assert apph_claims.reproduces("H4b-log", [5e-4, 6e-4]) and not apph_claims.reproduces("H4b-log", [1.1e-7])
    text = page.apph_findings(P, res)
    assert "MSE 2.3e-07, 2.3e-07" in text and "MSE 4.0e-14, 4.0e-14" in text
    assert "scores 4.5e-05" in text and f"{5.3e-4 / 4.54e-5:.1f}×" in text and "median of 1.1e-07" in text
    assert "reach 2.0e-06 – 2.0e-06" in text


def _stored_like(P, seeds=3):
    """A small stored-like result set: Part C at H in {2, 8} on one power law and one exponential, its optima as fit
    points, the relative-width bumps' fits, and both Appendix H arms, every training cell with a spread over seeds."""
    opt = {("power", "lin"): {2: 1e-3, 8: 1e-12}, ("power", "log"): {2: 1e-4, 8: 1e-19},
           ("exp", "lin"): {2: 1e-3, 8: 1e-17}, ("exp", "log"): {2: 2e-3, 8: 1e-6}}
    at8 = {("power", "lin"): 1e-8, ("power", "log"): 0.5e-8, ("exp", "lin"): 1e-8, ("exp", "log"): 1e-6}
    rel = [Kernel("bump", T=T, w=T * P["rel_bump_frac"]) for T in P["rel_bump_T"]]
    res = _fits(P, rel, {"lin": {24: 0.01}, "log": {24: 0.4}})
    res["train"] = {}
    for k in (Kernel("power", beta=1.2), Kernel("exp", tau=10.0)):
        name = fit.kernel_name(k)
        for f in train.FAMILIES:
            l2 = [math.sqrt(opt[(k.kind, f)][H] / train.VAR_X) for H in (2, 8)]
            res["fit"][(name, f, 256.0, (2, 8))] = {"result": {"H": [2, 8], "l1": l2, "l2": l2, "p": [[1.0] * 2, [1.0] * 8],
                                                              "alpha": [[1.0] * 2, [1.0] * 8]}}
        runs = [[f, H, s] for f in train.FAMILIES for H in (2, 8) for s in range(seeds)]
        mse = [opt[(k.kind, f)][2] * (1 + 0.1 * s) if H == 2 else at8[(k.kind, f)] * (1 + s) for f, H, s in runs]
        res["train"][(name, 256)] = {"spec": {"kernel": dataclasses.asdict(k), "H": [2, 8], "seeds": seeds},
                                     "result": {"runs": runs, "mse_exact": mse, "test_mse": mse, "l1": [0.1] * len(runs),
                                                "p": [[1.0] * H for _, H, _ in runs]}}
    res["apph"] = _apph_results({("none", "spow", "log", 1): [1e-7, 3e-7, 2e-7], ("none", "sexp", "lin", 1): [1e-9, 4e-9, 2e-9],
                                 ("free", "sexp", "log", 64): [1e-7, 3e-8, 5e-8]}, seeds=seeds)["apph"]
    return res


def test_faithful_worlds_pass_more_often_than_worlds_without_the_mechanism():
    """The power table (claims/power.py): on a small stored-like result set that each row's rule passes, the row
    passes its faithful world (the runs' seeds resampled; row 11: the fits redrawn over the fitter's seeds) more often
    than its world without the mechanism (relabelled runs); where the stored runs fail a row (H4b-log here), the world that moves
    them to the paper's number passes, and every row's world with the mechanism passes."""
    from lib.chapters.rpe_decay.claims import power
    from lib.core.power import power_table
    P = params_mod.resolve("rpe_decay", "quick", {"train_S": [256], "apph_S": 1000, "apph_steps": 10000,
                                                  "apph_H": [1, 64], "rel_bump_H": 24})
    res = _stored_like(P)
    ids = ["11-relative-bump", "14a-train-order", "14b-train-floor", "H4a-log", "H4b-lin", "H4b-log"]
    table = power_table(claims.ROWS, {i: power.WORLDS[i] for i in ids}, P, res, draws=20)
    rate = {(t["row"], t["world"]): t["pass"] for t in table}
    assert not any(t.get("unmeasured") for t in table)
    for i in ids[:-1]:
        faithful = rate[(i, power.WORLDS[i][0].name)]
        absent = max(rate[(i, w.name)] for w in power.WORLDS[i] if not w.mechanism)
        assert faithful >= 0.9 and absent <= 0.5 and faithful > absent, (i, faithful, absent)
    assert rate[("H4b-log", power.FAITHFUL.name)] == 0.0 and rate[("H4b-log", power.WORLDS["H4b-log"][1].name)] == 1.0
    # every claim row but 8b has a world with its mechanism, so that a FAIL can stand; here they pass
    with_ = {i: w for i, ws in power.WORLDS.items() for w in ws if w.role == "with"}
    assert {r.id for r in claims.ROWS if r.kind == "claim"} - set(with_) == {"8b-context-lin"}
    assert all(rate[(i, with_[i].name)] == 1.0 for i in ids), {i: rate[(i, with_[i].name)] for i in ids}
    # a drawn seed brings every run it holds: the lin and log runs of a resampled seed stay paired
    key = next(iter(res["train"]))
    drawn = power.resample_runs(P, res, np.random.default_rng(0))["train"][key]["result"]
    by_run = {tuple(r): m for r, m in zip(drawn["runs"], drawn["mse_exact"])}
    stored = {tuple(r): m for r, m in zip(res["train"][key]["result"]["runs"], res["train"][key]["result"]["mse_exact"])}
    for s in range(3):
        src = {t for t in range(3) if all(by_run[(f, H, s)] == stored[(f, H, t)] for f in train.FAMILIES for H in (2, 8))}
        assert len(src) == 1


def test_paper_findings_quote_the_stored_numbers():
    """Issue 37: the findings of the Appendix H and Part C sections and under the claim table take every number from
    the stored paper results: each number in them is one of the computed tables' or claim rows' (which read the stored
    points), a parameter, or the paper's four stated numbers."""
    import re

    from lib.core import verify
    stored, total, _ = verify.progress("rpe_decay", "paper")
    if stored < total:
        pytest.skip(f"paper profile in progress ({stored} of {total} points)")
    P = params_mod.resolve("rpe_decay", "paper")
    results = collect(rd.points(P), Store("rpe_decay", "paper", stored_only=True), "cpu", log=None)
    claim_rows = page.claims(P, results)
    text = "\n".join([page.apph_findings(P, results), page.partc_findings(P, results),
                      page.findings_markdown(P, results, claim_rows)])
    assert text.strip()
    allowed = " ".join([page.apph_summary(P, results), page.apph_numbers(P, results), page.training_summary(P, results),
                        page.partc_recipes()]     # its numbers: the benchmark JSON's (test_partc_recipes_read_the_json)
                       + [r["measured"] + " " + r["paper"] + " " + r["expected"] for r in claim_rows]
                       + [str(v) for v in P.values()] + [apph_claims.num(v) for v in apph_claims.PAPER.values()]
                       + [train_results.optimum_values(r) for r in train_results.train_table(results)]
                       + [f"{max(abs(a) for a in e[H]['alpha']):.0e}" for e, H in (    # rows 11 and 12b's fits
                           (errors(results, k, "lin", rd.window_of(P, k), part="converged"), H) for k, H in
                           [(Kernel("bump", T=T, w=T * P["rel_bump_frac"]), P["rel_bump_H"]) for T in P["rel_bump_T"]]
                           + [(Kernel("delta", T=8), 16)]) if H in e])
    number = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?")
    ps = [r["p"][0] for c in apph_results.arms(results) for r in apph_results.apph_table(P, results, c)]
    exponents = {f"{p:.2f}" for p in ps} | {f"{p:.3f}" for p in ps}
    counts = {str(train_results.distinct_exponents(r["p"])) for r in train_results.train_table(results)}
    # names and fixed symbols, not measurements: eq. (4), e^6 (the largest exponent), t^-0.5, rho(0)^2 = 1, 4a/4b
    cited = re.sub(r"eq\. \(\d\)|\^\{?-0\.5\}?|\$\\rho\(0\)\^2 = 1\$|[0-9][ab]\b|14[ab]|\$H\$ = \d+|p = 0\.5(?!\d)|distance 0|"
                   r"\$t = 0\$|\$t \\ge 1\$", "", text)
    stray = {n for n in number.findall(cited) if n not in number.findall(allowed) and n not in exponents | counts}
    assert stray == set(), f"numbers in the findings that no stored result gives: {stray}"


def test_every_row_decides_and_words_its_rule_from_one_object():
    """Issue 38: each row holds a rule object (lib.core.rules) whose fields both decide the verdict and write the
    rule's text: moving 11-relative-bump's band on E_lin moves the verdict on the same fits and the words together;
    14b's band is the one the page quotes."""
    import dataclasses

    assert all(r.rule is not None and r.expected == r.rule.text for r in claims.ROWS)
    floor_rule = train_claims.RULE_TRAIN_FLOOR
    assert train_claims.BAND == floor_rule.bound and "≤ 10 for every kernel" in floor_rule.text
    P = params_mod.resolve("rpe_decay", "quick", {"H_grid": [1, 2, 4, 8, 16], "rel_bump_H": 24})
    rel = [Kernel("bump", T=T, w=T * P["rel_bump_frac"]) for T in P["rel_bump_T"]]
    good = _fits(P, rel, {"lin": {16: 0.1, 24: 0.01}, "log": {16: 0.5, 24: 0.4}})
    row = _row("11-relative-bump")
    assert row.rule is fit_claims.RULE_RELATIVE_BUMP
    assert row.decide(P, good).passed and "≤ 0.05 at every $T$" in row.expected
    lin, *rest = row.rule.rule.parts                  # the rule inside its convergence gate
    strict = dataclasses.replace(row.rule, rule=dataclasses.replace(row.rule.rule, parts=(
        dataclasses.replace(lin, bound=0.005), *rest)))
    assert not strict.decide(row.measure(P, good)).passed and "≤ 0.005 at every $T$" in strict.text


def _json_numbers(x, out: set) -> set:
    """Every number of a JSON value, as the page may write it, and the lengths of its lists."""
    from lib.chapters.rpe_decay.results import times
    if isinstance(x, dict):
        for v in x.values():
            _json_numbers(v, out)
    elif isinstance(x, list):
        out.add(str(len(x)))
        for v in x:
            _json_numbers(v, out)
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        out |= {str(x), f"{x:g}", f"{x:.0e}", f"{x:.1f}", times(x) if x > 0 else str(x)}
    return out


def test_partc_recipes_read_the_json(tmp_path):
    """Part C's recipes paragraph (in partc_findings) takes every number from benchmarks/rpe_decay_partc_recipes.json:
    each number in it is one of the JSON's (or the float32 optimum's MSE over what the heads can reach, of two JSON
    numbers), every cell's best median ratio is quoted, and a JSON with other numbers gives other words."""
    import re

    from lib.chapters.rpe_decay.results import times
    d = json.loads(page.RECIPES_JSON.read_text())
    text = page.partc_recipes()
    allowed = _json_numbers(d, set()) | {times(c["optimum_mse_float32"] / c["reachable"]) for c in d["cells"]}
    stray = set(re.findall(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?", text.replace("float32", ""))) - allowed
    assert stray == set(), f"numbers in the recipes paragraph that the JSON does not give: {stray}"
    for c in d["cells"]:
        assert f"{times(min(r['median_ratio'] for r in c['recipes']))}×" in text
        assert f"{c['optimum_max_abs_c']:.0e}" in text or any(r["within"] for r in c["recipes"])
    # other numbers in the JSON, other words: every recipe 1000x further, none within the factor
    for c in d["cells"]:
        for r in c["recipes"]:
            r.update(median_ratio=r["median_ratio"] * 1000, ratio=[x * 1000 for x in r["ratio"]], within=False)
        c["optimum_max_abs_c"] = 7.0e12
    path = tmp_path / "recipes.json"
    path.write_text(json.dumps(d))
    moved = page.partc_recipes(path)
    assert moved != text and "7e+12" in moved and "is to be recomputed" not in moved
    assert "is to be recomputed" in text or not any(r["within"] for c in json.loads(page.RECIPES_JSON.read_text())[
        "cells"] for r in c["recipes"])
    assert page.partc_recipes(tmp_path / "missing.json") == ""
