"""The engine's GPU switches (TrainConfig.fuse_tests, pad, compile; a larger eval_batch), each against the default on
the CPU: the same samples-to-threshold, and learning curves and weights equal to float32 rounding (pad: curves bit for
bit; fuse_tests and eval_batch change only the order of the test-error sums)."""
from __future__ import annotations

import math
import os
import shutil

import numpy as np
import pytest
import torch

from lib.science import engine, models, qstr
from lib.science.engine import TrainConfig


def _train(model: str, **switches):
    torch.manual_seed(0)
    task = qstr.QSTR(N=4, d=4, simple=False, task_seed=1)
    m = models.build(model, 4, task.D, 4, **({"mlp_width": 16} if model == "transformer" else {"ffn_width": 32}))
    gen = torch.Generator().manual_seed(3)
    R = 4
    tests = [task.sample(R, 200, gen, simple=True), task.sample(R, 200, gen)]
    params = m.init(R, gen, "cpu")
    cfg = TrainConfig(**{"lr": 3e-3, "batch_size": 32, "check_every": 5, "max_samples": 32 * 150, "eval_batch": 64,
                         "skip_crossed": False,   # pad evaluates every set (fixed shapes): compare whole curves
                         **switches})
    with engine.one_cpu_thread("cpu"):
        return engine.train_to_threshold(m.forward, params, task.sample, tests, [0.75, 0.8], cfg, gen)


@pytest.fixture(scope="module", params=["ffn", "transformer"])
def default(request):
    runs = _train(request.param)
    # runs stop at different checks, so compaction (or padding) happens along the way
    assert len(set(runs.samples[:, 1][~np.isnan(runs.samples[:, 1])])) >= 2 or np.isnan(runs.samples).any()
    return request.param, runs


def _same(a, b, exact: bool, rtol: float = 1e-5, atol: float = 1e-6):
    np.testing.assert_array_equal(a.samples, b.samples)
    np.testing.assert_array_equal(a.check_samples, b.check_samples)
    if exact:
        np.testing.assert_array_equal(a.curves, b.curves)
    else:
        np.testing.assert_allclose(a.curves, b.curves, rtol=rtol, atol=atol / 10)
    for k in a.params:
        np.testing.assert_allclose(a.params[k].numpy(), b.params[k].numpy(), rtol=rtol, atol=atol)


def test_padding_instead_of_compaction_gives_the_same_numbers(default):
    """Bit for bit in every sample and curve. The weights too, except where the gradient is zero in exact arithmetic
    and rounding noise in float32 (the attention's key bias, which softmax ignores): AdamW divides that noise by its
    own size, and a run trained alone (compacted to a batch of 1) gets other noise than in a batch of 4."""
    model, runs = default
    _same(runs, _train(model, pad=True), exact=True, atol=2e-3)


def test_one_pass_over_both_test_sets_gives_the_same_numbers(default):
    model, runs = default
    _same(runs, _train(model, fuse_tests=True), exact=False)


def test_a_larger_evaluation_batch_gives_the_same_numbers(default):
    model, runs = default
    _same(runs, _train(model, eval_batch=400), exact=False)


def test_cuda_graphs_need_padding():
    with pytest.raises(ValueError, match="pad"):
        _train("ffn", compile="reduce-overhead")


@pytest.mark.skipif(not os.environ.get("BOOK_TEST_COMPILE") or not (shutil.which("cc") or shutil.which("gcc")),
                    reason="about 40 s of compilation on 2 CPU cores: set BOOK_TEST_COMPILE=1 (needs a C compiler)")
def test_compiled_forward_gives_the_same_samples():
    """Inductor fuses and reorders float32 operations: the same samples-to-threshold and curves to 1e-4, and weights
    that drift apart by a few 1e-4 over 150 steps of AdamW."""
    _same(_train("ffn"), _train("ffn", compile="default", pad=True), exact=False, rtol=1e-3, atol=2e-3)


def test_evaluate_fused_equals_separate():
    task = qstr.QSTR(N=4, d=4, simple=False, task_seed=1)
    m = models.build("ffn", 4, task.D, 4, ffn_width=16)
    gen = torch.Generator().manual_seed(5)
    params = m.init(3, gen, "cpu")
    tests = [task.sample(3, 50, gen, simple=True), task.sample(3, 50, gen)]
    a = engine.evaluate(m.forward, params, tests, eval_batch=16)
    b = engine.evaluate(m.forward, params, tests, eval_batch=16, fuse=True)
    assert a.shape == b.shape == (3, 2) and torch.allclose(a, b, rtol=1e-5) and not math.isnan(float(a.sum()))
