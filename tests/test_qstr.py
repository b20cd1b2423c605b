"""lib.science.qstr: d_e rule, sample shapes, labels recomputed by hand, the encoding's blocks, seeds."""
from __future__ import annotations

import math

import pytest
import torch

from lib.science.qstr import QSTR, embed_dim_rule


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("N, floor, ceil", [(2, 3, 4), (4, 6, 7), (12, 12, 13), (25, 16, 17), (33, 17, 18), (100, 23, 24)])
def test_embed_dim_rule(N, floor, ceil):
    assert embed_dim_rule(N, "floor") == floor
    assert embed_dim_rule(N, "ceil") == ceil
    assert QSTR(N=N, d=3, d_e_rule="ceil").d_e == ceil


def test_embed_dim_rule_rejects_unknown():
    with pytest.raises(ValueError):
        embed_dim_rule(4, "round")
    with pytest.raises(ValueError):
        QSTR(N=4, encoding="other")


@pytest.mark.parametrize("q", [1, 2])
@pytest.mark.parametrize("encoding", ["code", "paper"])
@pytest.mark.parametrize("simple", [False, True])
def test_sample_shapes(q, encoding, simple):
    task = QSTR(N=5, d=3, q=q, encoding=encoding, simple=simple)
    z, y = task.sample(R=2, batch=4, gen=gen())
    assert task.D == 3 + (q + 1) * task.d_e
    assert z.shape == (2, 4, 5, task.D) and y.shape == (2, 4, 5)
    assert z.dtype == y.dtype == torch.float32


@pytest.mark.parametrize("q", [1, 2])
@pytest.mark.parametrize("encoding", ["code", "paper"])
def test_encoding_blocks(q, encoding):
    task = QSTR(N=5, d=3, q=q, encoding=encoding)
    X, T = task.draw(2, 3, gen())
    z = task.encode(X, T)
    c = 1.0 if encoding == "code" else math.sqrt(task.d / q)
    de = task.d_e
    for r in range(2):
        for b in range(3):
            for i in range(5):
                assert torch.equal(z[r, b, i, :3], X[r, b, i])
                assert torch.allclose(z[r, b, i, 3:3 + de], c * task.E[i])
                for j in range(q):
                    t = int(T[r, b, i, j])
                    assert torch.allclose(z[r, b, i, 3 + (1 + j) * de:3 + (2 + j) * de], c * task.E[t])


def test_paper_encoding_scales_position_blocks_only():
    code, paper = QSTR(N=5, d=8, q=2, encoding="code"), QSTR(N=5, d=8, q=2, encoding="paper")
    (zc, yc), (zp, yp) = code.sample(1, 4, gen(3)), paper.sample(1, 4, gen(3))
    assert torch.equal(yc, yp)
    assert torch.equal(zc[..., :8], zp[..., :8])
    assert torch.allclose(zp[..., 8:], 2.0 * zc[..., 8:])  # sqrt(d/q) = sqrt(8/2)


@pytest.mark.parametrize("simple", [False, True])
def test_labels_by_explicit_loops(simple):
    task = QSTR(N=4, d=3, simple=simple)
    X, T = task.draw(2, 3, gen(1))
    y = task.labels(X, T)
    for r in range(2):
        for b in range(3):
            for i in range(4):
                t = int(T[r, b, i, 0])
                expected = sum(float(task.u[k]) * float(X[r, b, t, k]) for k in range(3))
                assert float(y[r, b, i]) == pytest.approx(expected, abs=1e-6)


def test_labels_q2_linear_and_mean():
    for link in ("linear", "mean"):
        task = QSTR(N=4, d=3, q=2, link=link)
        X, T = task.draw(1, 2, gen(2))
        y = task.labels(X, T)
        for b in range(2):
            for i in range(4):
                dots = [float(task.u @ X[0, b, int(T[0, b, i, j])]) for j in range(2)]
                expected = sum(dots) / math.sqrt(2) if link == "linear" else sum(dots) / 2
                assert float(y[0, b, i]) == pytest.approx(expected, abs=1e-6)


def test_sample_labels_match_its_own_draw():
    task = QSTR(N=4, d=3)
    z, y = task.sample(2, 3, gen(5))
    X, T = task.draw(2, 3, gen(5))
    assert torch.equal(z, task.encode(X, T)) and torch.equal(y, task.labels(X, T))


def test_simple_shares_t_along_positions():
    task = QSTR(N=6, d=3, simple=True)
    X, T = task.draw(2, 5, gen())
    assert (T == T[:, :, :1]).all()
    y = task.labels(X, T)
    assert torch.equal(y, y[:, :, :1].expand_as(y))
    _, y2 = task.sample(2, 5, gen())
    assert torch.equal(y2, y2[:, :, :1].expand_as(y2))
    # The override: the same task drawn as 1STR has position-dependent t.
    _, T1 = task.draw(2, 50, gen(), simple=False)
    assert not (T1 == T1[:, :, :1]).all()


def test_same_seed_same_samples():
    task = QSTR(N=5, d=3)
    a, b = task.sample(2, 4, gen(7)), task.sample(2, 4, gen(7))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    c = task.sample(2, 4, gen(8))
    assert not torch.equal(a[0], c[0])


def test_task_seed_fixes_E_and_u():
    a, b = QSTR(N=5, d=3, task_seed=1), QSTR(N=5, d=3, task_seed=1)
    assert torch.equal(a.E, b.E) and torch.equal(a.u, b.u)
    c = QSTR(N=5, d=3, task_seed=2)
    assert not torch.equal(a.u, c.u)
    assert a.u.norm().item() == pytest.approx(1.0, abs=1e-6)


def test_position_codes_are_rademacher():
    task = QSTR(N=12, d=3)
    assert task.E.shape == (12, task.d_e)
    assert torch.allclose(task.E.abs(), torch.full_like(task.E, 1 / math.sqrt(task.d_e)))
    assert (task.E > 0).any() and (task.E < 0).any()
