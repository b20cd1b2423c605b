"""lib.science.models: the batched models against the authors' per-run modules (outputs and gradients)."""
from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

from lib.science import models, reference
from lib.science.qstr import QSTR

R, B, N, d = 3, 4, 5, 3
D = QSTR(N=N, d=d).D

MODELS = {
    "transformer": lambda: models.Transformer(D, m=8),
    "ffn": lambda: models.FFN(N, D, (N * d, 7)),
    "rnn": lambda: models.BiGRU(D, hidden=6),
}


@pytest.fixture(params=list(MODELS))
def model(request):
    return MODELS[request.param]()


def refs_and_stacked(model, seed=0):
    torch.manual_seed(seed)
    refs = [reference.reference(model) for _ in range(R)]
    return refs, reference.stack(refs)


def data(seed=1):
    z, y = QSTR(N=N, d=d).sample(R, B, torch.Generator().manual_seed(seed))
    return z, y


def test_init_shapes_match_reference_layout(model):
    p = model.init(R, torch.Generator().manual_seed(0))
    _, stacked = refs_and_stacked(model)
    assert set(p) == set(stacked)
    for k in p:
        assert p[k].shape == stacked[k].shape, k
        assert p[k].shape[0] == R


def test_init_depends_on_generator(model):
    a = model.init(R, torch.Generator().manual_seed(0))
    b = model.init(R, torch.Generator().manual_seed(0))
    c = model.init(R, torch.Generator().manual_seed(1))
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert any(not torch.equal(a[k], c[k]) for k in a)
    # The runs are independent draws.
    w = next(v for v in a.values() if v[0].abs().sum() > 0)
    assert not torch.equal(w[0], w[1])


def test_forward_shape(model):
    p = model.init(R, torch.Generator().manual_seed(0))
    z, _ = data()
    assert model.forward(p, z).shape == (R, B, N)


def test_forward_matches_reference(model):
    refs, stacked = refs_and_stacked(model)
    z, _ = data()
    out = model.forward(stacked, z)
    for r, ref in enumerate(refs):
        with torch.no_grad():
            expected = ref(z[r])
        assert expected.shape == (B, N)
        torch.testing.assert_close(out[r], expected, atol=1e-5, rtol=0)


def grads_in_batched_layout(refs):
    """The reference modules' gradients, stacked with the same name mapping as models.stack."""
    holders = []
    for ref in refs:
        h = copy.deepcopy(ref)
        for (_, hp), (_, rp) in zip(h.named_parameters(), ref.named_parameters()):
            hp.data = rp.grad.clone()
        holders.append(h)
    return reference.stack(holders)


def test_gradients_match_reference(model):
    refs, stacked = refs_and_stacked(model)
    z, y = data()
    p = {k: v.clone().requires_grad_() for k, v in stacked.items()}
    pred = model.forward(p, z)
    (pred - y).pow(2).flatten(1).mean(1).sum().backward()  # the sum of the per-run losses
    for r, ref in enumerate(refs):
        F.mse_loss(ref(z[r]), y[r]).backward()
    expected = grads_in_batched_layout(refs)
    assert set(expected) == set(p)
    for k in p:
        torch.testing.assert_close(p[k].grad, expected[k], atol=1e-5, rtol=0, msg=lambda m, k=k: f"{k}: {m}")


def test_ffn_gradient_explicit_names():
    """The FFN's gradients by explicit name mapping, without the deepcopy trick."""
    model = MODELS["ffn"]()
    refs, stacked = refs_and_stacked(model, seed=3)
    z, y = data(seed=4)
    p = {k: v.clone().requires_grad_() for k, v in stacked.items()}
    (model.forward(p, z) - y).pow(2).flatten(1).mean(1).sum().backward()
    for r, ref in enumerate(refs):
        F.mse_loss(ref(z[r]), y[r]).backward()
        for i, layer in enumerate(ref.layers):
            torch.testing.assert_close(p[f"l{i}.w"].grad[r], layer.weight.grad, atol=1e-5, rtol=0)
            torch.testing.assert_close(p[f"l{i}.b"].grad[r], layer.bias.grad, atol=1e-5, rtol=0)


def test_build():
    assert isinstance(models.build("transformer", N, D, d, mlp_width=8), models.Transformer)
    ffn = models.build("ffn", N, D, d, ffn_width=7)
    assert isinstance(ffn, models.FFN) and ffn.hidden == (N * d, 7)
    assert isinstance(models.build("rnn", N, D, d, rnn_hidden=6), models.BiGRU)
    with pytest.raises(ValueError, match="cnn"):
        models.build("cnn", N, D, d)


def test_n_params_counts_one_run(model):
    p = model.init(R, torch.Generator().manual_seed(0))
    ref = reference.reference(model)
    assert models.n_params(p) == sum(t.numel() for t in ref.parameters())


def test_birnn_with_a_full_mask_is_bigru():
    """BiRNN's GRU cell at full width is BiGRU (its narrower runs and Elman cell: tests/test_rnn_norm_growth.py)."""
    m = models.BiRNN(D=7, hidden=5, cell="gru")
    p = m.init(3, torch.Generator().manual_seed(4))
    ref = {k.replace("rnn.", "gru."): v for k, v in p.items() if not k.startswith("buf.")}
    z = torch.randn(3, 4, 6, 7, generator=torch.Generator().manual_seed(5))
    torch.testing.assert_close(m.forward(p, z), models.BiGRU(7, 5).forward(ref, z))


@pytest.mark.parametrize("cell", ["gru", "elman"])
def test_fused_per_run_states_equal_the_stacked_recurrence(cell):
    """The CPU path (torch's fused RNN per run, weights sliced to each run's width) and the stacked path (every run
    and direction in one batched matmul per step, what a GPU runs) give the same states and gradients, in float64."""
    m = models.BiRNN(D=4, hidden=6, cell=cell, m=5)
    p = m.init(3, torch.Generator().manual_seed(2), widths=[2, 6, 4])
    p = {k: v.double().requires_grad_(not k.startswith("buf.")) for k, v in p.items()}
    z = torch.randn(3, 5, 7, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    args = [p[f"rnn.{k}"] for k in ("w_ih", "w_hh", "b_ih", "b_hh")]
    fused = models.bidirectional_states(z, *args, p["buf.mask"], stacked=False)
    ref = models.bidirectional_states(z, *args, p["buf.mask"], stacked=True)
    torch.testing.assert_close(fused, ref, rtol=0, atol=1e-12)
    assert float(fused[0, :, :, 2:6].detach().abs().max()) == 0.0           # run 0 has width 2: its other units stay zero
    w = torch.randn_like(ref)
    for a, b in zip(torch.autograd.grad((fused * w).sum(), args), torch.autograd.grad((ref * w).sum(), args)):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-12)


def test_states_refuse_a_mask_that_is_not_a_prefix():
    m = models.BiRNN(D=4, hidden=3, cell="gru")
    p = m.init(1, torch.Generator().manual_seed(0))
    with pytest.raises(ValueError, match="prefix"):
        models.bidirectional_states(torch.randn(1, 2, 3, 4), p["rnn.w_ih"], p["rnn.w_hh"], p["rnn.b_ih"],
                                    p["rnn.b_hh"], torch.tensor([[1.0, 0.0, 1.0]]))
