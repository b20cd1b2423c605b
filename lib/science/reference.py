"""The authors' per-run modules (the code of Mousavi-Hosseini et al. 2025, setup.py): the benchmark's per-run
baseline, and the tests' reference, whose weights `stack` loads into the batched form of models.py to compare outputs
and gradients.

    >>> from lib.science.models import FFN
    >>> net = reference(FFN(N=4, D=22, hidden=(40, 1000))); stack([net, net])["l0.w"].shape
    torch.Size([2, 40, 88])
"""
from __future__ import annotations

import torch
import torch.nn as nn

from lib.science.models import FFN, Params, Transformer


class RefTransformer(nn.Module):
    def __init__(self, D: int, m: int = 100):
        super().__init__()
        self.attn = nn.MultiheadAttention(D, num_heads=1, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(D, m), nn.ReLU(), nn.Linear(m, 1))

    def forward(self, z):
        return self.mlp(self.attn(z, z, z, need_weights=False)[0]).squeeze(-1)


class RefFFN(nn.Module):
    def __init__(self, N: int, D: int, hidden: tuple[int, ...]):
        super().__init__()
        widths = [N * D, *hidden, N]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(widths[:-1], widths[1:]))

    def forward(self, z):
        h = z.flatten(-2)
        for i, layer in enumerate(self.layers):
            h = layer(h) if i == len(self.layers) - 1 else torch.relu(layer(h))
        return h


class RefBiGRU(nn.Module):
    def __init__(self, D: int, hidden: int = 500):
        super().__init__()
        self.rnn = nn.GRU(D, hidden, batch_first=True, bidirectional=True)
        self.linear = nn.Linear(2 * hidden, 1)

    def forward(self, z):
        return self.linear(self.rnn(z)[0]).squeeze(-1)


def reference(model) -> nn.Module:
    """The authors' per-run module matching a batched model's configuration."""
    if isinstance(model, Transformer):
        return RefTransformer(model.D, model.m)
    if isinstance(model, FFN):
        return RefFFN(model.N, model.D, model.hidden)
    return RefBiGRU(model.D, model.hidden)


def stack(modules: list[nn.Module]) -> Params:
    """Batched parameters holding the weights of R per-run reference modules (same model class)."""
    def one(m):
        s = {k: v.detach() for k, v in m.state_dict().items()}
        if isinstance(m, RefTransformer):
            return {"attn.in_w": s["attn.in_proj_weight"], "attn.in_b": s["attn.in_proj_bias"],
                    "attn.out.w": s["attn.out_proj.weight"], "attn.out.b": s["attn.out_proj.bias"],
                    "mlp.0.w": s["mlp.0.weight"], "mlp.0.b": s["mlp.0.bias"],
                    "mlp.2.w": s["mlp.2.weight"], "mlp.2.b": s["mlp.2.bias"]}
        if isinstance(m, RefFFN):
            return {f"l{i}.{t[0]}": s[f"layers.{i}.{t}"] for i in range(len(m.layers)) for t in ("weight", "bias")}
        two = lambda name: torch.stack([s[f"rnn.{name}_l0"], s[f"rnn.{name}_l0_reverse"]])
        return {"gru.w_ih": two("weight_ih"), "gru.w_hh": two("weight_hh"), "gru.b_ih": two("bias_ih"),
                "gru.b_hh": two("bias_hh"), "out.w": s["linear.weight"], "out.b": s["linear.bias"]}

    per_run = [one(m) for m in modules]
    return {k: torch.stack([p[k] for p in per_run]) for k in per_run[0]}
