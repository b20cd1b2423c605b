"""lib.science.models: the batched models against the authors' per-run modules (outputs and gradients)."""
from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

from lib.science import models
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
    refs = [models.reference(model) for _ in range(R)]
    return refs, models.stack(refs)


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
    return models.stack(holders)


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
    ref = models.reference(model)
    assert models.n_params(p) == sum(t.numel() for t in ref.parameters())


def test_birnn_with_a_full_mask_is_bigru():
    """BiRNN's GRU cell at full width is BiGRU (its narrower runs and Elman cell: tests/test_rnn_norm_growth.py)."""
    m = models.BiRNN(D=7, hidden=5, cell="gru")
    p = m.init(3, torch.Generator().manual_seed(4))
    ref = {k.replace("rnn.", "gru."): v for k, v in p.items() if not k.startswith("buf.")}
    z = torch.randn(3, 4, 6, 7, generator=torch.Generator().manual_seed(5))
    torch.testing.assert_close(m.forward(p, z), models.BiGRU(7, 5).forward(ref, z))
