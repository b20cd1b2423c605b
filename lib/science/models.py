"""The models of the experiments of Mousavi-Hosseini et al. 2025, batched: R independent models as one computation.
Parameters are plain tensors with a leading run axis (weight (R, out, in)), the forward is a pure function
`forward(params, z)` of z (R, B, N, D), and the gradient of the sum of the per-run losses is, run by run, each run's
own gradient. Initialisation follows PyTorch's defaults.

The authors' per-run nn.Modules, which the tests and the benchmark compare these with, are in reference.py.

    >>> m = Transformer(D=22); p = m.init(R=5, gen=torch.Generator().manual_seed(0))
    >>> m.forward(p, torch.randn(5, 64, 4, 22)).shape    # (R, batch, N): one prediction per position
    torch.Size([5, 64, 4])
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

Params = dict[str, torch.Tensor]


def _uniform(shape, bound, gen, device):
    return (torch.rand(shape, generator=gen, device=device) * 2 - 1) * bound


def linear_init(R, fan_out, fan_in, gen, device, prefix) -> Params:
    """nn.Linear's default: weight and bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    b = 1 / math.sqrt(fan_in)
    return {f"{prefix}.w": _uniform((R, fan_out, fan_in), b, gen, device), f"{prefix}.b": _uniform((R, fan_out), b, gen, device)}


class _BLinear(torch.autograd.Function):
    """baddbmm(b, x, w^T) whose weight gradient is computed as g^T x, already in w's (R, out, in) layout. Autograd's
    own bmm backward computes x^T g (R, in, out) and copies it into w's layout: on the CPU that transpose cost as
    much as the matmul itself (Figure 1's N = 33 FFN: 8.6 ms per step for a 5 x 330 x 1452 weight, measured)."""

    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        return torch.baddbmm(b.unsqueeze(1), x, w.transpose(1, 2))

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gx = torch.bmm(g, w) if ctx.needs_input_grad[0] else None
        gw = torch.bmm(g.transpose(1, 2), x) if ctx.needs_input_grad[1] else None
        gb = g.sum(1) if ctx.needs_input_grad[2] else None
        return gx, gw, gb


def blinear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Run-wise affine map: x (R, ..., in), w (R, out, in), b (R, out) -> (R, ..., out), one batched matmul.

    >>> blinear(torch.ones(2, 3, 4), torch.ones(2, 5, 4), torch.zeros(2, 5)).shape
    torch.Size([2, 3, 5])
    """
    R, fan_in = x.shape[0], x.shape[-1]
    y = _BLinear.apply(x.reshape(R, -1, fan_in), w, b)
    return y.view(*x.shape[:-1], w.shape[1])


# ------------------------------------------------------------------------------------------ batched models
@dataclass
class Transformer:
    """One attention layer (torch's MultiheadAttention, one head: Q, K, V and output projections with biases,
    scores scaled by 1/sqrt(D)), then a width-m ReLU MLP per position. No residual, no LayerNorm, no mask."""

    D: int
    m: int = 100

    def init(self, R: int, gen: torch.Generator, device="cpu") -> Params:
        D = self.D
        p = {"attn.in_w": _uniform((R, 3 * D, D), math.sqrt(6 / (4 * D)), gen, device),  # xavier_uniform
             "attn.in_b": torch.zeros(R, 3 * D, device=device)}
        p |= linear_init(R, D, D, gen, device, "attn.out")
        p["attn.out.b"].zero_()
        p |= linear_init(R, self.m, D, gen, device, "mlp.0") | linear_init(R, 1, self.m, gen, device, "mlp.2")
        return p

    @staticmethod
    def forward(p: Params, z: torch.Tensor) -> torch.Tensor:
        q, k, v = blinear(z, p["attn.in_w"], p["attn.in_b"]).chunk(3, dim=-1)
        a = F.scaled_dot_product_attention(q, k, v)  # (R, B, N, D), softmax(q k^T / sqrt(D)) v
        a = blinear(a, p["attn.out.w"], p["attn.out.b"])
        h = torch.relu_(blinear(a, p["mlp.0.w"], p["mlp.0.b"]))
        return blinear(h, p["mlp.2.w"], p["mlp.2.b"]).squeeze(-1)

    @staticmethod
    def attention(p: Params, z: torch.Tensor) -> torch.Tensor:
        """Attention weights (R, B, N, N): row i is where position i looks."""
        q, k, _ = blinear(z, p["attn.in_w"], p["attn.in_b"]).chunk(3, dim=-1)
        return torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]), dim=-1)


@dataclass
class FFN:
    """Fully connected on the flattened N*D input: hidden widths `hidden` (the authors': [N*d, 1000]), N outputs."""

    N: int
    D: int
    hidden: tuple[int, ...]

    def init(self, R: int, gen: torch.Generator, device="cpu") -> Params:
        widths = [self.N * self.D, *self.hidden, self.N]
        p: Params = {}
        for i, (a, b) in enumerate(zip(widths[:-1], widths[1:])):
            p |= linear_init(R, b, a, gen, device, f"l{i}")
        return p

    @staticmethod
    def forward(p: Params, z: torch.Tensor) -> torch.Tensor:
        n_layers = len(p) // 2
        h = z.flatten(-2)  # (R, B, N*D), row-major like the authors' view(-1, D*N)
        for i in range(n_layers):
            h = blinear(h, p[f"l{i}.w"], p[f"l{i}.b"])
            if i < n_layers - 1:
                h = torch.relu_(h)     # in place: blinear's backward does not need its output
        return h


@dataclass
class BiGRU:
    """A one-layer bidirectional GRU of width `hidden` per direction (`bidirectional_states`), then
    Linear(2*hidden, 1) per position."""

    D: int
    hidden: int = 500

    def init(self, R: int, gen: torch.Generator, device="cpu") -> Params:
        H, b = self.hidden, 1 / math.sqrt(self.hidden)  # nn.GRU: every weight and bias ~ U(-1/sqrt(H), 1/sqrt(H))
        p = {"gru.w_ih": _uniform((R, 2, 3 * H, self.D), b, gen, device), "gru.w_hh": _uniform((R, 2, 3 * H, H), b, gen, device),
             "gru.b_ih": _uniform((R, 2, 3 * H), b, gen, device), "gru.b_hh": _uniform((R, 2, 3 * H), b, gen, device)}
        return p | linear_init(R, 1, 2 * H, gen, device, "out")

    @staticmethod
    def forward(p: Params, z: torch.Tensor) -> torch.Tensor:
        hs = bidirectional_states(z, p["gru.w_ih"], p["gru.w_hh"], p["gru.b_ih"], p["gru.b_hh"])  # (R, B, N, 2H)
        return blinear(hs, p["out.w"], p["out.b"]).squeeze(-1)


@dataclass
class BiRNN:
    """A bidirectional one-layer RNN with a per-run width: R runs share the widest shape `hidden`, and run r uses
    only its first widths[r] hidden units (the mask "buf.mask" zeroes the others after every step, so they never
    reach the output and get no gradient: run r is exactly a width-widths[r] network).

    cell "gru": torch's GRU cell, read out as the authors' BGRU does, Linear(2H, 1) on the states after position i
    (with a full mask, this is BiGRU, same parameter names). cell "elman": h' = tanh(W_ih z + W_hh h + b), read
    out as in the theory's lower bound (Sec. 5.2, Thm 9): y_j = w_2 relu(U s_j + W_y z_j + b_1) + b_2 on
    the states s_j = (h->_(j-1), h<-_(j+1)) *before* position j, which do not depend on t_j. Initialisation is
    PyTorch's for each run's own width.

        >>> m = BiRNN(D=7, hidden=8, cell="elman", m=16); p = m.init(4, torch.Generator().manual_seed(0), widths=[2, 4, 8, 8])
        >>> m.forward(p, torch.randn(4, 3, 5, 7)).shape
        torch.Size([4, 3, 5])
    """

    D: int
    hidden: int
    cell: str = "gru"
    m: int = 64            # width of the Elman readout

    def init(self, R: int, gen: torch.Generator, device="cpu", widths: list[int] | None = None) -> Params:
        H, D = self.hidden, self.D
        w = torch.tensor(widths if widths is not None else [H] * R, device=device, dtype=torch.float32)
        if int(w.max()) > H:
            raise ValueError(f"widths must be at most hidden={H}, got {widths}")
        bound = (1 / w.sqrt()).view(R, 1, 1, 1)
        G = 3 if self.cell == "gru" else 1
        uni = lambda shape, b: (torch.rand(shape, generator=gen, device=device) * 2 - 1) * b
        p = {"rnn.w_ih": uni((R, 2, G * H, D), bound), "rnn.w_hh": uni((R, 2, G * H, H), bound),
             "rnn.b_ih": uni((R, 2, G * H), bound[..., 0]), "rnn.b_hh": uni((R, 2, G * H), bound[..., 0])}
        if self.cell == "gru":
            b = (1 / (2 * w).sqrt()).view(R, 1, 1)
            p |= {"out.w": uni((R, 1, 2 * H), b), "out.b": uni((R, 1), b[..., 0])}
        else:
            b = (1 / (2 * w + D).sqrt()).view(R, 1, 1)
            b2 = 1 / math.sqrt(self.m)
            p |= {"rd.U": uni((R, self.m, 2 * H), b), "rd.Wy": uni((R, self.m, D), b), "rd.b": uni((R, self.m), b[..., 0]),
                  "rd.w2": uni((R, 1, self.m), b2), "rd.b2": uni((R, 1), b2)}
        p["buf.mask"] = (torch.arange(H, device=device)[None] < w[:, None]).float()     # (R, H)
        return p

    @staticmethod
    def states(p: Params, z: torch.Tensor) -> torch.Tensor:
        """Hidden states after every position, (R, 2, B, N, H): [:, 0] forward, [:, 1] backward (in sequence order)."""
        hs = bidirectional_states(z, p["rnn.w_ih"], p["rnn.w_hh"], p["rnn.b_ih"], p["rnn.b_hh"], p["buf.mask"])
        return hs.unflatten(-1, (2, -1)).permute(0, 3, 1, 2, 4)

    @staticmethod
    def pre_states(p: Params, z: torch.Tensor) -> torch.Tensor:
        """s_j = (h->_(j-1), h<-_(j+1)), (R, B, N, 2H): the states before position j, zero at the ends."""
        hs = BiRNN.states(p, z)
        fwd = torch.nn.functional.pad(hs[:, 0, :, :-1], (0, 0, 1, 0))
        bwd = torch.nn.functional.pad(hs[:, 1, :, 1:], (0, 0, 0, 1))
        return torch.cat([fwd, bwd], -1)

    @staticmethod
    def read(p: Params, s: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        """The Elman readout f_y(U s + W_y z + b): s (R, ..., 2H), z (R, ..., D) -> (R, ...)."""
        a = blinear(s, p["rd.U"], p["rd.b"]) + blinear(z, p["rd.Wy"], torch.zeros_like(p["rd.b"]))
        return blinear(torch.relu(a), p["rd.w2"], p["rd.b2"]).squeeze(-1)

    @staticmethod
    def forward(p: Params, z: torch.Tensor) -> torch.Tensor:
        if "rd.U" in p:
            return BiRNN.read(p, BiRNN.pre_states(p, z), z)
        hs = bidirectional_states(z, p["rnn.w_ih"], p["rnn.w_hh"], p["rnn.b_ih"], p["rnn.b_hh"], p["buf.mask"])
        return blinear(hs, p["out.w"], p["out.b"]).squeeze(-1)

    @staticmethod
    def forward_at(p: Params, z: torch.Tensor, j: torch.Tensor) -> torch.Tensor:
        """forward(p, z)[:, b, j[b]] for every prompt b: z (R, B, N, D), j (B,) -> (R, B), the outputs the
        point-wise loss reads. The Elman readout is position-wise, so it is evaluated at those positions alone: a
        width-m readout on B prompts costs B m D instead of B N m D."""
        b = torch.arange(z.shape[1], device=z.device)
        if "rd.U" in p:
            return BiRNN.read(p, BiRNN.pre_states(p, z)[:, b, j], z[:, b, j])
        return BiRNN.forward(p, z)[:, b, j]


def bidirectional_states(z, w_ih, w_hh, b_ih, b_hh, mask: torch.Tensor | None = None, stacked: bool | None = None):
    """Hidden states (R, B, N, 2H) of R one-layer bidirectional RNNs after every position, in sequence order:
    [..., :H] forward, [..., H:] backward (nn.GRU's output layout). Weights (R, 2, G*H, D), (R, 2, G*H, H),
    (R, 2, G*H) twice; the shapes say the cell: G = 3 is torch's GRU cell, G = 1 an Elman cell
    h' = tanh(W_ih z + b_ih + W_hh h + b_hh). `mask` (R, H), a prefix of ones per run, gives run r the width
    mask[r].sum(): its other units are zero after every step.

    On the CPU (stacked False, the default there) each run calls torch's fused RNN kernel (torch.gru /
    torch.rnn_tanh, what nn.GRU runs) on its own weights, sliced to its width, one run after another: its working
    set stays in cache and the recurrence runs in C++, several times faster at width 500 than the stacked Python loop,
    whose (2R, B, 3H) gate tensors spill out of the cache (benchmarks/bench_engine.py measures it). On a GPU, where
    tiny kernels are launch-bound, the runs and directions are stacked into one batch (2R recurrences) so each time
    step is one batched matmul.

        >>> w = lambda *s: torch.randn(*s) * 0.1
        >>> bidirectional_states(torch.randn(4, 8, 5, 3), w(4, 2, 18, 3), w(4, 2, 18, 6), w(4, 2, 18), w(4, 2, 18)).shape
        torch.Size([4, 8, 5, 12])
    """
    if stacked if stacked is not None else z.is_cuda:
        return _stacked_states(z, w_ih, w_hh, b_ih, b_hh, mask)
    R, B, N, D = z.shape
    H, GH = w_hh.shape[-1], w_hh.shape[-2]
    rnn = torch.gru if GH == 3 * H else torch.rnn_tanh
    widths = [H] * R if mask is None else mask.sum(1).round().long().tolist()
    prefix = None if mask is None else (torch.arange(H, device=mask.device) < mask.sum(1, keepdim=True)).to(mask.dtype)
    if mask is not None and not torch.equal(mask, prefix):
        raise ValueError("mask: expected a prefix of ones per run (run r uses its first widths[r] units)")
    outs = []
    for r, (wi, wh, bi, bh) in enumerate(zip(w_ih.unbind(0), w_hh.unbind(0), b_ih.unbind(0), b_hh.unbind(0))):
        w = widths[r]
        if w < H:   # the width-w network: its gates' first w rows, the first w columns of W_hh
            rows = torch.cat([torch.arange(g * H, g * H + w, device=z.device) for g in range(GH // H)])
            wi, wh, bi, bh = wi[:, rows], wh[:, rows, :w], bi[:, rows], bh[:, rows]
        flat = [t[d] for d in (0, 1) for t in (wi, wh, bi, bh)]
        out = rnn(z[r], z.new_zeros(2, B, w), flat, True, 1, 0.0, torch.is_grad_enabled(), True, True)[0]
        if w < H:
            out = torch.cat([F.pad(out[..., :w], (0, H - w)), F.pad(out[..., w:], (0, H - w))], -1)
        outs.append(out)
    return torch.stack(outs)


def _stacked_states(z, w_ih, w_hh, b_ih, b_hh, mask):
    """bidirectional_states with the two directions of every run stacked into one batch (2R recurrences): each time
    step is one batched matmul, the input projections of all positions one matmul before the recurrence."""
    R, B, N, D = z.shape
    H = w_hh.shape[-1]
    GH = w_hh.shape[-2]
    gru = GH == 3 * H
    gi = blinear(z, w_ih.reshape(R, 2 * GH, D), b_ih.reshape(R, 2 * GH))
    gi = gi.view(R, B, N, 2, GH).permute(0, 3, 1, 2, 4)                        # (R, 2, B, N, GH)
    gi = torch.stack([gi[:, 0], gi[:, 1].flip(2)], 1).reshape(2 * R, B, N, GH)  # backward runs reversed
    w_hh = w_hh.reshape(2 * R, GH, H).transpose(1, 2)
    b_hh = b_hh.reshape(2 * R, 1, GH)
    mask = None if mask is None else mask.repeat_interleave(2, 0)[:, None, :]   # (2R, 1, H)
    h = z.new_zeros(2 * R, B, H)
    states = []
    for s in range(N):
        gh = torch.baddbmm(b_hh, h, w_hh)
        if gru:
            i_r, i_z, i_n = gi[:, :, s].chunk(3, -1)
            h_r, h_z, h_n = gh.chunk(3, -1)
            r, u = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
            h = torch.lerp(torch.tanh(i_n + r * h_n), h, u)   # (1 - u) * n + u * h, torch's GRU update
        else:
            h = torch.tanh(gi[:, :, s] + gh)
        if mask is not None:
            h = h * mask
        states.append(h)
    hs = torch.stack(states, 2).view(R, 2, B, N, H)
    return torch.cat([hs[:, 0], hs[:, 1].flip(2)], -1)


@dataclass
class MergedAttention:
    """The single-layer Transformer of the theory (Mousavi-Hosseini et al. 2025, Sec. 3): H heads with merged query-key matrices
    W_QK (D x D, no value matrix, no 1/sqrt(D) scaling), head h at position i outputs sum_j softmax_j(z_i W_QK z_j) z_j,
    the H outputs are concatenated (H*D) and a width-m ReLU MLP reads them. No residual, no LayerNorm, no mask.

    `qk_mask` (D x D, optional) restricts every W_QK, e.g. to the block-diagonal form of Prop. 21. Runs with fewer
    heads than H share the shapes: `init(..., heads=[1, 2, ...])` stores a per-run head mask as the constant
    "buf.heads", and a masked head contributes exactly zero, so one batch trains every H at once.

        >>> m = MergedAttention(D=8, H=3); p = m.init(4, torch.Generator().manual_seed(0), heads=[1, 2, 3, 3])
        >>> m.forward(p, torch.randn(4, 16, 5, 8)).shape
        torch.Size([4, 16, 5])
    """

    D: int
    H: int = 1
    m: int = 100
    qk_mask: torch.Tensor | None = None
    qk_std: float = 0.1  # W_QK ~ N(0, qk_std^2 / D): small, nearly uniform attention at the start

    def init(self, R: int, gen: torch.Generator, device="cpu", heads: list[int] | None = None) -> Params:
        D, H = self.D, self.H
        p = {"qk": torch.randn(R, H, D, D, generator=gen, device=device) * (self.qk_std / math.sqrt(D))}
        if self.qk_mask is not None:
            p["qk"] = p["qk"] * self.qk_mask.to(device)
        p |= linear_init(R, self.m, H * D, gen, device, "mlp.0") | linear_init(R, 1, self.m, gen, device, "mlp.2")
        active = torch.tensor(heads if heads is not None else [H] * R, device=device)
        p["buf.heads"] = (torch.arange(H, device=device) < active[:, None]).float()  # (R, H)
        if self.qk_mask is not None:
            p["buf.qk_mask"] = self.qk_mask.to(device).expand(R, D, D).contiguous()
        return p

    @staticmethod
    def attention(p: Params, z: torch.Tensor) -> torch.Tensor:
        """Attention weights (R, B, H, N, N) of every head: row i is where position i looks."""
        R, B, N, D = z.shape
        qk = p["qk"] * p["buf.qk_mask"][:, None] if "buf.qk_mask" in p else p["qk"]
        H = qk.shape[1]
        # z_i W_QK for every head in one batched matmul: (R, B*N, D) @ (R, D, H*D)
        zq = torch.bmm(z.reshape(R, B * N, D), qk.permute(0, 2, 1, 3).reshape(R, D, H * D))
        zq = zq.view(R, B, N, H, D).transpose(2, 3).reshape(R * B, H * N, D)
        scores = torch.bmm(zq, z.reshape(R * B, N, D).transpose(1, 2)).view(R, B, H, N, N)
        return torch.softmax(scores, dim=-1)

    @staticmethod
    def forward(p: Params, z: torch.Tensor) -> torch.Tensor:
        R, B, N, D = z.shape
        a = MergedAttention.attention(p, z) * p["buf.heads"][:, None, :, None, None]  # masked heads: exactly zero
        H = a.shape[2]
        heads = torch.bmm(a.reshape(R * B, H * N, N), z.reshape(R * B, N, D))           # (R*B, H*N, D)
        h = heads.view(R, B, H, N, D).transpose(2, 3).reshape(R, B, N, H * D)        # (R, B, N, H*D)
        h = torch.relu_(blinear(h, p["mlp.0.w"], p["mlp.0.b"]))
        return blinear(h, p["mlp.2.w"], p["mlp.2.b"]).squeeze(-1)


def build(name: str, N: int, D: int, d: int, ffn_width: int = 1000, rnn_hidden: int = 500, mlp_width: int = 100):
    """The batched model called `name` in the chapter's parameters ("transformer", "rnn", "ffn")."""
    if name == "transformer":
        return Transformer(D, mlp_width)
    if name == "ffn":
        return FFN(N, D, (N * d, ffn_width))
    if name == "rnn":
        return BiGRU(D, rnn_hidden)
    raise ValueError(f"model: expected one of transformer, ffn, rnn, got {name!r}")


def forward_flops(name: str, N: int, D: int, d: int, width: int) -> float:
    """FLOPs (2 x multiply-adds) of one prompt's forward pass through `build(name, ...)` of that width (the GRU's
    units, the FFN's second hidden layer, the Transformer's MLP). Its training step costs about 3x as much per prompt."""
    if name == "rnn":          # two directions, three gates on [input; state] at every position, then Linear(2H, 1)
        return 2 * (2 * N * 3 * width * (D + width) + N * 2 * width)
    if name == "ffn":          # N D -> N d -> width -> N
        return 2 * (N * D * N * d + N * d * width + width * N)
    if name == "transformer":  # Q, K, V and output projections, scores and their average, then the MLP per position
        return 2 * (4 * N * D * D + 2 * N * N * D + N * (D * width + width))
    raise ValueError(f"model: expected one of transformer, ffn, rnn, got {name!r}")


def n_params(params: Params) -> int:
    """Parameters of one run."""
    return sum(t[0].numel() for k, t in params.items() if not k.startswith("buf."))
