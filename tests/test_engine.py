"""lib.science.engine: censoring, samples-to-threshold bookkeeping, stopped runs, equivalence with per-run AdamW, evaluate."""
from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from lib.science import engine, models, reference
from lib.science.engine import TrainConfig, evaluate, train_to_threshold
from lib.science.models import blinear

D = 3


def linear_forward(p, z):
    return blinear(z, p["w"], p["b"]).squeeze(-1)


def linear_init(R, seed=0):
    g = torch.Generator().manual_seed(seed)
    return {"w": torch.randn(R, 1, D, generator=g) * 0.1, "b": torch.zeros(R, 1)}


W_TRUE = torch.tensor([1.0, -2.0, 0.5])


def linear_sample(n, batch, gen):
    z = torch.randn(n, batch, 2, D, generator=gen)
    return z, z @ W_TRUE


def linear_test(R, n=32, seed=123):
    return linear_sample(R, n, torch.Generator().manual_seed(seed))


# ------------------------------------------------------------------------------------------------ censoring
def test_impossible_threshold_is_censored_not_an_error():
    R, K = 3, 2
    cfg = TrainConfig(lr=1e-2, batch_size=4, check_every=2, max_samples=4 * 6)
    runs = train_to_threshold(linear_forward, linear_init(R), linear_sample, [linear_test(R), linear_test(R, seed=7)],
                              [1e-12, 1e-12], cfg, torch.Generator().manual_seed(0))
    assert runs.samples.shape == (R, K) and np.isnan(runs.samples).all() and runs.censored.all()
    assert runs.curves.shape == (3, R, K) and np.isfinite(runs.curves).all()
    assert runs.check_samples.tolist() == [8, 16, 24]
    assert set(runs.params) == {"w", "b"} and runs.params["w"].shape == (R, 1, D)
    assert runs.params["w"].device.type == "cpu"


def test_last_step_is_checked_even_off_the_check_grid():
    cfg = TrainConfig(lr=1e-2, batch_size=4, check_every=3, max_samples=4 * 7)
    runs = train_to_threshold(linear_forward, linear_init(2), linear_sample, [linear_test(2)], [1e-12], cfg,
                              torch.Generator().manual_seed(0))
    assert runs.check_samples.tolist() == [12, 24, 28]


# ------------------------------------------------------------------------------------------ samples bookkeeping
def test_samples_are_first_check_below_threshold():
    R, batch, every = 4, 8, 2
    cfg = TrainConfig(lr=0.05, weight_decay=0.0, batch_size=batch, check_every=every, max_samples=batch * 400)
    tests = [linear_test(R), linear_test(R, seed=9)]
    thresholds = [2.0, 0.05]  # test 0 is crossed well before test 1
    runs = train_to_threshold(linear_forward, linear_init(R, seed=5), linear_sample, tests, thresholds, cfg,
                              torch.Generator().manual_seed(0))
    assert not runs.censored.any(), runs.samples
    C = len(runs.check_samples)
    assert runs.check_samples.tolist() == [batch * every * (c + 1) for c in range(C)]
    assert runs.curves.shape == (C, R, 2)
    assert (runs.samples % (batch * every) == 0).all()
    for r in range(R):
        for k, thr in enumerate(thresholds):
            below = np.flatnonzero(runs.curves[:, r, k] < thr)
            assert runs.samples[r, k] == runs.check_samples[below[0]]
            assert (runs.curves[:below[0], r, k] >= thr).all()
        # A run stops at the check where its last threshold falls: finite up to there, NaN after; the curve of a
        # set it crossed earlier ends at that crossing (skip_crossed).
        for k in range(2):
            end = int(np.flatnonzero(runs.check_samples == runs.samples[r, k])[0])
            assert np.isfinite(runs.curves[:end + 1, r, k]).all()
            assert np.isnan(runs.curves[end + 1:, r, k]).all()
    assert (runs.samples[:, 0] < runs.samples[:, 1]).all()


# ------------------------------------------------------------------------------------- stopping and equivalence
N = 3
FFN = models.FFN(N, 4, (5,))


def ffn_batches(R, steps, batch, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(R, batch, N, 4, generator=g), torch.randn(R, batch, N, generator=g)) for _ in range(steps)]


def per_run_adamw(init, r, batches, cfg):
    """The authors' loop for run r: its own RefFFN and its own torch.optim.AdamW, on its own batches."""
    ref = reference.reference(FFN)
    with torch.no_grad():
        for i, layer in enumerate(ref.layers):
            layer.weight.copy_(init[f"l{i}.w"][r])
            layer.bias.copy_(init[f"l{i}.b"][r])
    opt = torch.optim.AdamW(ref.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    for z, y in batches:
        opt.zero_grad()
        F.mse_loss(ref(z), y).backward()
        opt.step()
    out = {}
    for i, layer in enumerate(ref.layers):
        out[f"l{i}.w"], out[f"l{i}.b"] = layer.weight.detach(), layer.bias.detach()
    return out


def assert_run_equals(final, r, expected):
    for k, v in expected.items():
        torch.testing.assert_close(final[k][r], v, atol=1e-5, rtol=0, msg=lambda m, k=k: f"run {r} {k}: {m}")


def test_equivalent_to_per_run_adamw():
    R, steps, batch = 2, 8, 5
    cfg = TrainConfig(lr=1e-2, weight_decay=0.1, batch_size=batch, check_every=steps, max_samples=steps * batch)
    init = FFN.init(R, torch.Generator().manual_seed(0))
    batches = ffn_batches(R, steps, batch)
    calls = iter(batches)

    def sample(n, b, gen):
        assert (n, b) == (R, batch)
        return next(calls)

    test = ffn_batches(R, 1, 6, seed=1)[0]
    runs = train_to_threshold(FFN.forward, init, sample, [test], [-math.inf], cfg, torch.Generator())
    assert runs.censored.all() and runs.check_samples.tolist() == [steps * batch]
    for r in range(R):
        expected = per_run_adamw(init, r, [(z[r], y[r]) for z, y in batches], cfg)
        assert_run_equals(runs.params, r, expected)
        assert not torch.equal(runs.params["l0.w"][r], init["l0.w"][r])
    assert all(torch.equal(init[k], v) for k, v in FFN.init(R, torch.Generator().manual_seed(0)).items())  # not mutated


def test_stopped_run_freezes_and_the_others_continue_exactly():
    """Run 0 crosses at the first check and stops; run 1 never crosses. Run 0's weights are those of its stopping
    check; run 1, compacted into a one-run batch (Adam moments carried over), still equals its own AdamW run."""
    R, steps, batch, every = 2, 6, 4, 2
    cfg = TrainConfig(lr=1e-2, weight_decay=0.01, batch_size=batch, check_every=every, max_samples=steps * batch)
    init = FFN.init(R, torch.Generator().manual_seed(2))
    batches = ffn_batches(R, steps, batch, seed=3)
    live, calls = [], iter(batches)

    def sample(n, b, gen):
        live.append(n)
        z, y = next(calls)
        return z[R - n:], y[R - n:]  # once run 0 has stopped, the one live run is run 1

    tz = torch.randn(R, 6, N, 4, generator=torch.Generator().manual_seed(4))
    ty = torch.stack([torch.zeros(6, N), torch.full((6, N), 1e3)])  # run 0: easy; run 1: out of reach
    runs = train_to_threshold(FFN.forward, init, sample, [(tz, ty)], [100.0], cfg, torch.Generator())

    assert live == [2, 2, 1, 1, 1, 1]
    assert runs.samples[0, 0] == every * batch and np.isnan(runs.samples[1, 0])
    assert runs.check_samples.tolist() == [8, 16, 24]
    assert np.isfinite(runs.curves[0, 0, 0]) and np.isnan(runs.curves[1:, 0, 0]).all()
    assert np.isfinite(runs.curves[:, 1, 0]).all()
    assert_run_equals(runs.params, 0, per_run_adamw(init, 0, [(z[0], y[0]) for z, y in batches[:every]], cfg))
    assert_run_equals(runs.params, 1, per_run_adamw(init, 1, [(z[1], y[1]) for z, y in batches], cfg))


# ------------------------------------------------------------------------------------------------- evaluate
def test_evaluate_chunks_like_one_batch():
    R = 3
    p = FFN.init(R, torch.Generator().manual_seed(0))
    tests = [ffn_batches(R, 1, 10, seed=s)[0] for s in (5, 6)]
    whole = evaluate(FFN.forward, p, tests, eval_batch=1000)
    for chunk in (1, 3, 4, 10):
        torch.testing.assert_close(evaluate(FFN.forward, p, tests, eval_batch=chunk), whole, atol=1e-6, rtol=1e-6)
    assert whole.shape == (R, 2)
    direct = torch.stack([engine.mse_per_run(FFN.forward(p, z), y) for z, y in tests], 1)
    torch.testing.assert_close(whole, direct, atol=1e-6, rtol=1e-6)


def test_skipping_crossed_test_sets_changes_no_sample_count():
    """A set a run has crossed is not evaluated again: the same samples, the same curves up to each crossing, NaN after."""
    R = 4
    tests = [linear_test(R), linear_test(R, seed=7)]
    thresholds = [0.5, 0.05]                     # set 0 is crossed first, so its curve ends while set 1 still trains
    def run(skip):
        cfg = TrainConfig(lr=3e-2, batch_size=8, check_every=2, max_samples=8 * 300, skip_crossed=skip)
        return train_to_threshold(linear_forward, linear_init(R), linear_sample, tests, thresholds, cfg,
                                  torch.Generator().manual_seed(0))
    full, skip = run(False), run(True)
    np.testing.assert_array_equal(full.samples, skip.samples)
    assert np.isfinite(full.samples).all() and (full.samples[:, 0] < full.samples[:, 1]).all()
    at = lambda r: np.searchsorted(full.check_samples, full.samples[r, 0])     # the check at which set 0 crossed
    for r in range(R):
        np.testing.assert_allclose(skip.curves[:at(r) + 1, r], full.curves[:at(r) + 1, r], rtol=1e-6)
        assert np.isnan(skip.curves[at(r) + 1:, r, 0]).all() and np.isfinite(full.curves[at(r) + 1:, r, 0]).sum() > 0


def test_evaluate_only_the_needed_pairs():
    R = 3
    p, tests = linear_init(R), [linear_test(R), linear_test(R, seed=7)]
    need = torch.tensor([[True, False], [False, False], [True, True]])
    out, full = evaluate(linear_forward, p, tests, need=need), evaluate(linear_forward, p, tests)
    assert torch.isnan(out[~need]).all()
    torch.testing.assert_close(out[need], full[need])
