"""The explicit-weight encoder-decoder Transformer of Theorem 4.1 (Wei, Chen, Ma), built from a machine's
transition table and the horizon T, following the reading guide's implementation-ready spec (section 3.7) and its
errata (3.6). Weights are tensors with a leading run axis R, so R perturbed or differently tempered copies of one
construction run as one batched computation.

Stream layout (width w = K + 4|A| + 4P + 5, K = states + the pre-start state, P bits per position code):
st(K) sym1(A) sym2(A) pos1(P) pos2(P) pos3(P) scr1(A) scr2(A) scr3(P) f1 f2 tmp dirL dirR.
Layers (d = P + 4): 1 transition (FF), 2 the +-1 adder (FF), 3 exists check (self-attention) + input read
(encoder-decoder attention), 4..P+3 the binary search for the bits of the last write (self-attention),
P+4 fetch (self-attention) + select (FF). Each layer: residual self-attention, residual cross-attention, then the
non-residual FF = round(M relu(W1 h + b1) + m0) written as three ReLU layers (the last two are the rounding
correction); `correction=False` drops them: relu(M relu(W1 h + b1) + m0). The round is written
relu(3z - 1) - relu(3z - 2), the paper's 3 relu(z - 1/3) - 3 relu(z - 2/3) with the 3 moved into the second layer:
the same function with integer weights, so that binary activations stay exactly binary in floating point (1/3 is
not a binary fraction, and 3 (1 - 1/3) - 3 (1 - 2/3) is 1 + 2^-52 with a fused multiply-add).

    >>> from lib.science import turing; net = build(turing.counter(), T=64)
    >>> trace = decode(net, rollout(net, [[]] * 1))        # the real autoregressive run
"""
from __future__ import annotations

import math

import numpy as np
import torch

from lib.science import turing

FIELDS = ("st", "sym1", "sym2", "pos1", "pos2", "pos3", "scr1", "scr2", "scr3", "f1", "f2", "tmp", "dir")
ATTN = ("q_W", "q_b", "k_W", "k_b", "k0", "v_W", "v_b", "v0")


def bits(i, P: int) -> np.ndarray:
    """Bin(i), MSB first, as a (..., P) 0/1 array."""
    i = np.asarray(i, dtype=np.int64)
    return ((i[..., None] >> np.arange(P - 1, -1, -1)) & 1).astype(np.float64)


def unbits(b) -> np.ndarray:
    """Bin^{-1} of (..., P) values, each bit read as value > 1/2."""
    b = np.asarray(b) > 0.5
    return (b * (1 << np.arange(b.shape[-1] - 1, -1, -1))).sum(-1)


def n_bits(max_position: int) -> int:
    """P = ceil(log2(max position + 1)) (guide 3.6, item 2: log2 T alone cannot encode T nor head cells)."""
    return max(1, math.ceil(math.log2(max_position + 1)))


class Layout:
    def __init__(self, K: int, A: int, P: int):
        self.K, self.A, self.P = K, A, P
        sizes = dict(st=K, sym1=A, sym2=A, pos1=P, pos2=P, pos3=P, scr1=A, scr2=A, scr3=P, f1=1, f2=1, tmp=1, dir=2)
        self.sl, o = {}, 0
        for f in FIELDS:
            self.sl[f] = slice(o, o + sizes[f])
            o += sizes[f]
        self.w = o

    def idx(self, field: str, j: int = 0) -> int:
        return self.sl[field].start + j

    def coords(self, *fields) -> list[int]:
        return [c for f in fields for c in range(self.sl[f].start, self.sl[f].stop)]


class Net:
    """A built construction: params (dict of tensors, leading run axis R), its layout and sizes."""

    def __init__(self, tm, T, c0, m_max, lay, params, correction, d, H, dk):
        self.tm, self.T, self.c0, self.m_max, self.lay, self.params = tm, T, c0, m_max, lay, params
        self.correction, self.d, self.H, self.dk = correction, d, H, dk
        self.P, self.w, self.K, self.A = lay.P, lay.w, lay.K, lay.A
        self.pre = lay.K - 1                         # the pre-start state z_pre is the last state index

    @property
    def R(self) -> int:
        return self.params["h0"].shape[0]

    def with_params(self, params: dict) -> "Net":
        net = Net(self.tm, self.T, self.c0, self.m_max, self.lay, params, self.correction, self.d, self.H, self.dk)
        net._checked = self.__dict__.setdefault("_checked", set())   # inputs checked once for every copy
        return net

    def replicate(self, R: int) -> "Net":
        return self.with_params({k: v.expand(R, *v.shape[1:]).clone() for k, v in self.params.items()})

    def to(self, device=None, dtype=None) -> "Net":
        return self.with_params({k: v.to(device=device, dtype=dtype) for k, v in self.params.items()})


# ----------------------------------------------------------------------------------------------- building
class _FF:
    """One layer's FF before the correction: hidden units relu(W1 h + b1), output M hidden + m0."""

    def __init__(self, w: int):
        self.w, self.rows, self.bias, self.M = w, [], [], []

    def unit(self, coefs: dict, bias: float, outs: dict) -> None:
        self.rows.append(coefs); self.bias.append(bias); self.M.append(outs)

    def copy(self, coords, to=None) -> None:
        for j, c in enumerate(coords):
            self.unit({c: 1.0}, 0.0, {c if to is None else to[j]: 1.0})


def _attn(dk: int, w: int):
    return dict(q_W=np.zeros((dk, w)), q_b=np.zeros(dk), k_W=np.zeros((dk, w)), k_b=np.zeros(dk), k0=np.zeros(dk),
                v_W=np.zeros((w, w)), v_b=np.zeros(w), v0=np.zeros(w))


def build(tm: turing.TM, T: int, m_max: int = 32, c0: int | None = None, correction: bool = True,
          dtype=torch.float64, device="cpu") -> Net:
    """The construction for machine tm, horizon T and inputs of length <= m_max (R = 1). The machine and the
    horizon are checked as the interpreter checks them (turing.validate, turing.check_run)."""
    turing.validate(tm)
    c0 = tm.offset(T) if c0 is None and turing._whole(T) else c0
    turing.check_run(tm, [], T, c0)
    if not turing._whole(m_max) or m_max < 0:
        raise turing.TMError(f"{tm.name}: m_max: expected a whole number >= 0, got {m_max!r}")
    P = n_bits(turing.max_position(tm, T, m_max, c0))
    K, A = tm.n_states + 1, tm.n_sym
    lay = Layout(K, A, P)
    w, sl, I = lay.w, lay.sl, lay.idx
    d, dk = P + 4, 2 * P + 2
    table = tm.table()
    layers = []                                          # (self-attn dict, cross-attn dict, _FF)
    keep = lambda *f: lay.coords(*f)

    # layer 1: transition. Pair units u_{z,a} = relu(st_z + sym1_a - 1); S(z_pre, .) = (z_init, blank, +1).
    ff = _FF(w)
    for z in range(K):
        for a in range(A):
            z2, u, q = (tm.init, 0, 1) if z == K - 1 else table[z, a]
            ff.unit({I("st", z): 1.0, I("sym1", a): 1.0}, -1.0,
                    {I("st", z2): 1.0, I("sym2", u): 1.0, I("dir", 0 if q < 0 else 1): 1.0})
    ff.copy(keep("pos1", "pos2"))
    layers.append((_attn(dk, w), _attn(dk, w), ff))

    # layer 2: the +-1 adder on b = pos2 into pos3; bit k (0 = MSB) has n_k = P-1-k bits below it.
    ff = _FF(w)
    ff.copy(keep("st", "sym2", "pos1"))
    dL, dR = I("dir", 0), I("dir", 1)
    for k in range(P):
        bk, n_k, below = I("pos2", k), P - 1 - k, [I("pos2", j) for j in range(k + 1, P)]
        ff.unit({bk: 1.0}, 0.0, {bk: 1.0, I("pos3", k): 1.0})
        sig = {c: 1.0 for c in below}
        ff.unit({dR: 1.0, **sig}, -float(n_k), {I("pos3", k): 1.0})                       # carry c_k
        ff.unit({dL: 1.0, **{c: -1.0 for c in below}}, 0.0, {I("pos3", k): 1.0})           # borrow c'_k
        ff.unit({bk: 1.0, dR: 1.0, **sig}, -float(n_k) - 1, {I("pos3", k): -2.0})          # b_k AND carry
        ff.unit({bk: 1.0, dL: 1.0, **{c: -1.0 for c in below}}, -1.0, {I("pos3", k): -2.0})  # b_k AND borrow
    layers.append((_attn(dk, w), _attn(dk, w), ff))

    base = ("st", "sym2", "pos1", "pos2", "pos3", "scr2", "f1", "f2")

    # layer 3: exists check (Claim C.4) and the input read (Lemma C.7).
    sa, ca = _attn(dk, w), _attn(dk, w)
    for j in range(P):
        sa["q_W"][j, I("pos3", j)] = 2.0; sa["q_b"][j] = -1.0
        sa["k_W"][j, I("pos2", j)] = 2.0; sa["k_b"][j] = -1.0
        ca["q_W"][j, I("pos3", j)] = 2.0; ca["q_b"][j] = -1.0
        ca["k_W"][j, I("pos1", j)] = 2.0; ca["k_b"][j] = -1.0
    for at in (sa, ca):
        at["q_b"][P] = 1.0; at["k0"][P] = P - 1.0
    sa["v_b"][I("f1")] = 1.0
    ca["v_b"][I("f2")] = 1.0
    for a in range(A):
        ca["v_W"][I("scr2", a), I("sym1", a)] = 1.0
    ff = _FF(w)
    ff.copy(keep(*base))
    layers.append((sa, ca, ff))

    # layers 4..P+3: bit j of i' (Claim C.5); key/query [pos match (P); prefix (j); bit j; 1 / 0].
    for j in range(P):
        sa = _attn(dk, w)
        for b in range(P):
            sa["q_W"][b, I("pos3", b)] = 2.0; sa["q_b"][b] = -1.0
            sa["k_W"][b, I("pos2", b)] = 2.0; sa["k_b"][b] = -1.0
        for b in range(j):
            sa["q_W"][P + b, I("scr3", b)] = 2.0; sa["q_b"][P + b] = -1.0
            sa["k_W"][P + b, I("pos1", b)] = 2.0; sa["k_b"][P + b] = -1.0
        sa["q_b"][P + j] = 1.0; sa["k_W"][P + j, I("pos1", j)] = 2.0; sa["k_b"][P + j] = -1.0
        sa["q_b"][P + j + 1] = 1.0; sa["k0"][P + j + 1] = float(P + j)
        sa["v_b"][I("tmp")] = 1.0
        ff = _FF(w)
        ff.copy(keep(*base) + [I("scr3", b) for b in range(j)])
        ff.unit({I("tmp"): 1.0}, 0.0, {I("scr3", j): 1.0})
        layers.append((sa, _attn(dk, w), ff))

    # layer P+4: fetch (Claim C.6) and select (Lemma C.8): last write > input symbol > blank.
    sa = _attn(dk, w)
    for b in range(P):
        sa["q_W"][b, I("pos3", b)] = 2.0; sa["q_b"][b] = -1.0
        sa["k_W"][b, I("pos2", b)] = 2.0; sa["k_b"][b] = -1.0
        sa["q_W"][P + b, I("scr3", b)] = 2.0; sa["q_b"][P + b] = -1.0
        sa["k_W"][P + b, I("pos1", b)] = 2.0; sa["k_b"][P + b] = -1.0
    sa["q_b"][2 * P] = 1.0; sa["k0"][2 * P] = 2 * P - 1.0
    for a in range(A):
        sa["v_W"][I("scr1", a), I("sym2", a)] = 1.0
    ff = _FF(w)
    f1, f2 = I("f1"), I("f2")
    for a in range(A):
        ff.unit({f1: 1.0, I("scr1", a): 1.0}, -1.0, {I("sym1", a): 1.0})
        ff.unit({f2: 1.0, f1: -1.0, I("scr2", a): 1.0}, -1.0, {I("sym1", a): 1.0})
    ff.unit({f1: -1.0, f2: -1.0}, 1.0, {I("sym1", 0): 1.0})
    ff.copy(keep("st"))
    ff.copy(keep("pos3"), to=keep("pos2"))
    layers.append((sa, _attn(dk, w), ff))
    assert len(layers) == d

    H = max(len(f.rows) for _, _, f in layers)
    p = {}
    for pre, col in (("s", 0), ("c", 1)):
        for key in ATTN:
            p[f"{pre}{key}"] = np.stack([lyr[col][key] for lyr in layers])
    W1, b1, M, m0 = np.zeros((d, H, w)), np.zeros((d, H)), np.zeros((d, w, H)), np.zeros((d, w))
    for li, (_, _, f) in enumerate(layers):
        for h, (row, bias, outs) in enumerate(zip(f.rows, f.bias, f.M)):
            for c, v in row.items():
                W1[li, h, c] = v
            b1[li, h] = bias
            for c, v in outs.items():
                M[li, c, h] += v
    p["W1"], p["b1"] = W1, b1
    if correction:   # round(z) = 3 relu(z - 1/3) - 3 relu(z - 2/3) = relu(3z - 1) - relu(3z - 2): integer weights
        p["W2"] = np.concatenate([3 * M, 3 * M], 1)
        p["b2"] = np.concatenate([3 * m0 - 1, 3 * m0 - 2], 1)
        p["W3"] = np.broadcast_to(np.concatenate([np.eye(w), -np.eye(w)], 1), (d, w, 2 * w)).copy()
        p["b3"] = np.zeros((d, w))
    else:
        p["W2"], p["b2"] = M, m0
    E = np.zeros((w, A))
    E[sl["sym1"], :] = np.eye(A)
    h0 = np.zeros(w)
    h0[I("st", K - 1)] = 1.0; h0[I("sym1", 0)] = 1.0; h0[sl["pos2"]] = bits(c0, P)
    cls = np.zeros(w)
    for z in tm.accept:
        cls[I("st", z)] = 1.0
    for z in tm.reject:
        cls[I("st", z)] = -1.0
    p["E"], p["h0"], p["cls"] = E, h0, cls
    params = {k: torch.as_tensor(np.ascontiguousarray(v), dtype=dtype, device=device)[None] for k, v in p.items()}
    return Net(tm, T, c0, m_max, lay, params, correction, d, H, dk)


# ------------------------------------------------------------------------------------------ sizes and norms
def size(net: Net) -> dict:
    """Depth, width, FF hidden width, dense parameter count and the l1 / l_inf norms of all trainable parameters
    (E, h0, every Q/K/V with its null key and value, the FF and correction weights, theta_cls), run 0."""
    flat = torch.cat([v[0].reshape(-1) for v in net.params.values()]).double()
    return {"d": net.d, "w": net.w, "H": net.H, "P": net.P, "K": net.K, "A": net.A, "p": int(flat.numel()),
            "l1": float(flat.abs().sum()), "linf": float(flat.abs().max()), "nnz": int((flat != 0).sum())}


# ---------------------------------------------------------------------------------------------- running
def positions(net: Net, idx, dtype, device) -> torch.Tensor:
    """beta(i): Bin(i) on pos1, zeros elsewhere; (len(idx), w)."""
    out = torch.zeros(len(idx), net.w, dtype=dtype, device=device)
    out[:, net.lay.sl["pos1"]] = torch.as_tensor(bits(np.asarray(idx), net.P), dtype=dtype, device=device)
    return out


def _check_inputs(net: Net, xs) -> None:
    """The interpreter's checks of each input (symbols, and the head staying on the tape for T steps), so that the
    Transformer never writes into a neighbouring field or wraps the head round: the same error on both sides.
    Inputs are checked once per net; with c0 >= T the head cannot reach cell -1 and only the symbols are checked."""
    seen = net.__dict__.setdefault("_checked", set())
    for x in xs:
        key = tuple(int(s) if turing._whole(s) else s for s in x)
        if key in seen:
            continue
        turing.check_run(net.tm, list(x), net.T, net.c0)
        if net.c0 < net.T:
            turing.run(net.tm, list(x), net.T, net.c0)
        seen.add(key)


def encode_inputs(net: Net, xs) -> torch.Tensor:
    """Encoder tokens E[:, x_j] + beta(j) of the left-padded inputs [blank]^c0 x, j = 1..c0+m: (R, B, c0+m, w).
    All inputs of one call have the same length m."""
    p = net.params
    m = len(xs[0])
    if any(len(x) != m for x in xs) or m > net.m_max:
        raise turing.TMError(f"{net.tm.name}: inputs must share one length <= m_max={net.m_max}")
    _check_inputs(net, xs)
    toks = torch.tensor([[0] * net.c0 + list(x) for x in xs], device=p["E"].device)        # (B, Me)
    emb = p["E"].transpose(1, 2)[:, toks]                                                    # (R, B, Me, w)
    return emb + positions(net, range(1, net.c0 + m + 1), emb.dtype, emb.device)


def attend(q, k, v, k0, v0, mask=None, beta=None, tol=1e-6, stats=None):
    """Single-head attention with a null key/value, no scaling, no output projection. q (R,B,Nq,dk), k (R,B,Nk,dk),
    v (R,B,Nk,w), k0 (R,dk), v0 (R,w), mask (Nq,Nk) True = visible. Hard-max (beta None): uniform average over the
    keys within tol of the max; softmax: softmax(beta * scores), beta (R,). Returns sum_j weight_j v_j."""
    s = torch.einsum("rbqk,rbnk->rbqn", q, k)
    s0 = torch.einsum("rbqk,rk->rbq", q, k0)
    s = torch.cat([s0[..., None], s], -1)
    if mask is not None:
        full = torch.cat([torch.ones_like(mask[:, :1]), mask], 1)
        s = s.masked_fill(~full, float("-inf"))
    if beta is None:
        top = s.max(-1, keepdim=True).values
        wts = (s >= top - tol).to(q.dtype)
        wts = wts / wts.sum(-1, keepdim=True)
        if stats is not None:
            below = s.masked_fill(s >= top - tol, float("-inf")).max(-1).values
            gap = (top[..., 0] - below)
            finite = gap[torch.isfinite(gap)]
            stats["gap"] = min(stats.get("gap", math.inf), float(finite.min()) if finite.numel() else math.inf)
    else:
        wts = torch.softmax(beta.to(s.dtype).view(-1, *([1] * (s.dim() - 1))) * s, -1)
    vals = torch.cat([v0[:, None, None, :].expand(*v.shape[:2], 1, v.shape[-1]), v], -2)
    out = torch.einsum("rbqn,rbnw->rbqw", wts, vals)
    if stats is not None and beta is None:   # tied maximisers must carry identical values
        spread = torch.einsum("rbqn,rbnw->rbqw", wts, vals * vals) - out * out   # variance of v over the ties
        stats["tie_spread"] = max(stats.get("tie_spread", 0.0), float(spread.abs().max()))
    return out, wts


def _lin(W, b, x):
    """x (R,B,N,w_in) @ W (R,out,w_in)^T + b (R,out)."""
    return torch.einsum("row,rbnw->rbno", W, x) + b[:, None, None, :]


def _ff(net: Net, l: int, x, p):
    h = torch.relu(_lin(p["W1"][:, l], p["b1"][:, l], x))
    z = torch.relu(_lin(p["W2"][:, l], p["b2"][:, l], h))
    return torch.relu(_lin(p["W3"][:, l], p["b3"][:, l], z)) if net.correction else z


def _zero(p, pre, l) -> bool:
    return all(not bool(p[pre + k][:, l].any()) for k in ATTN)


def layer(net: Net, l: int, x, hist, enc, mask, beta=None, tol=1e-6, stats=None, keep_attn=False):
    """One decoder layer on queries x (R,B,Nq,w) with self-attention over hist (R,B,Nk,w) (mask (Nq,Nk)) and
    encoder-decoder attention over enc (R,B,Me,w). An attention module whose parameters are all zero adds exactly
    zero (scores tie, values vanish), so it is skipped."""
    p, att = net.params, None
    if not _zero(p, "s", l):
        o, att = attend(_lin(p["sq_W"][:, l], p["sq_b"][:, l], x), _lin(p["sk_W"][:, l], p["sk_b"][:, l], hist),
                        _lin(p["sv_W"][:, l], p["sv_b"][:, l], hist), p["sk0"][:, l], p["sv0"][:, l], mask, beta, tol, stats)
        x = x + o
    if not _zero(p, "c", l):
        o, _ = attend(_lin(p["cq_W"][:, l], p["cq_b"][:, l], x), _lin(p["ck_W"][:, l], p["ck_b"][:, l], enc),
                      _lin(p["cv_W"][:, l], p["cv_b"][:, l], enc), p["ck0"][:, l], p["cv0"][:, l], None, beta, tol, stats)
        x = x + o
    return _ff(net, l, x, p), (att if keep_attn else None)


def reference_outputs(net: Net, traces) -> torch.Tensor:
    """The invariant (C.2) of every o_i from the interpreter's traces: st = 1(z_i), sym1 = 1(a_i), pos2 = Bin(l_i),
    zero elsewhere; (B, T+1, w)."""
    p0 = net.params["h0"]
    out = torch.zeros(len(traces), net.T + 1, net.w, dtype=p0.dtype, device=p0.device)
    sl = net.lay.sl
    for b, tr in enumerate(traces):
        i = torch.arange(net.T + 1)
        out[b, i, sl["st"].start + torch.as_tensor(tr.z)] = 1
        out[b, i, sl["sym1"].start + torch.as_tensor(tr.a)] = 1
        out[b, :, sl["pos2"]] = torch.as_tensor(bits(tr.l, net.P), dtype=p0.dtype, device=p0.device)
    return out


def teacher_forced(net: Net, xs, ref, chunk: int = 2048, hidden: bool = False, stats=None, keep_attn_layer=None):
    """The parallel check: every position i gets the encoded reference o_{i-1} + beta(i) (h0 at i = 0) and all
    T+1 positions run at once under a causal mask; returns the outputs (R, B, T+1, w). If every o_i equals the
    reference, the autoregressive rollout equals it too (induction on i). Queries run in chunks of `chunk`.
    hidden=True also returns every layer's output (d+1, R, B, T+1, w); keep_attn_layer: that layer's self-attention
    weights (R, B, T+1, T+2)."""
    p = net.params
    N = net.T + 1
    x = torch.cat([p["h0"][:, None, None, :].expand(net.R, len(xs), 1, net.w),
                   ref[None, :, :-1].to(p["h0"].dtype).expand(net.R, -1, -1, -1)
                   + positions(net, range(1, N), p["h0"].dtype, p["h0"].device)], 2)
    enc = encode_inputs(net, xs)
    causal = torch.ones(N, N, dtype=torch.bool, device=x.device).tril()
    hs, att_keep = [x], None
    for l in range(net.d):
        outs, atts = [], []
        for s in range(0, N, chunk):
            o, a = layer(net, l, x[:, :, s:s + chunk], x, enc, causal[s:s + chunk], stats=stats,
                         keep_attn=keep_attn_layer == l)
            outs.append(o); atts.append(a)
        x = torch.cat(outs, 2)
        if keep_attn_layer == l and atts[0] is not None:
            att_keep = torch.cat(atts, 2)
        if hidden:
            hs.append(x)
    out = {"out": x}
    if hidden:
        out["hidden"] = torch.stack(hs)
    if keep_attn_layer is not None:
        out["attn"] = att_keep
    return out


def rollout(net: Net, xs, beta=None, tol=1e-6):
    """The real autoregressive run: h_0 = h0, h_{i+1} = o_i + beta(i+1), each layer attending over its own inputs
    at steps 0..i (per-layer caches of keys and values). beta: (R,) inverse temperatures for softmax attention
    (None: hard-max). Returns the outputs (R, B, T+1, w) (teacher_forced has the attention and hidden states)."""
    p = net.params
    R, B, N, w = net.R, len(xs), net.T + 1, net.w
    dt, dev = p["h0"].dtype, p["h0"].device
    enc = encode_inputs(net, xs)
    on_s = [not _zero(p, "s", l) for l in range(net.d)]
    on_c = [not _zero(p, "c", l) for l in range(net.d)]
    Ks = {l: torch.zeros(R, B, N, net.dk, dtype=dt, device=dev) for l in range(net.d) if on_s[l]}
    Vs = {l: torch.zeros(R, B, N, w, dtype=dt, device=dev) for l in range(net.d) if on_s[l]}
    Kc = {l: _lin(p["ck_W"][:, l], p["ck_b"][:, l], enc) for l in range(net.d) if on_c[l]}
    Vc = {l: _lin(p["cv_W"][:, l], p["cv_b"][:, l], enc) for l in range(net.d) if on_c[l]}
    outs = torch.zeros(R, B, N, w, dtype=dt, device=dev)
    pos = positions(net, range(N + 1), dt, dev)
    h = p["h0"][:, None, None, :].expand(R, B, 1, w)
    for i in range(N):
        for l in range(net.d):
            if on_s[l]:
                Ks[l][:, :, i:i + 1] = _lin(p["sk_W"][:, l], p["sk_b"][:, l], h)
                Vs[l][:, :, i:i + 1] = _lin(p["sv_W"][:, l], p["sv_b"][:, l], h)
                o, _ = attend(_lin(p["sq_W"][:, l], p["sq_b"][:, l], h), Ks[l][:, :, : i + 1], Vs[l][:, :, : i + 1],
                              p["sk0"][:, l], p["sv0"][:, l], None, beta, tol)
                h = h + o
            if on_c[l]:
                o, _ = attend(_lin(p["cq_W"][:, l], p["cq_b"][:, l], h), Kc[l], Vc[l], p["ck0"][:, l], p["cv0"][:, l],
                              None, beta, tol)
                h = h + o
            h = _ff(net, l, h, p)
        outs[:, :, i] = h[:, :, 0]
        h = h + pos[i + 1]
    return outs


def decode(net: Net, out: torch.Tensor) -> dict:
    """(z, a, l) of every o_i: argmax of st, argmax of sym1, Bin^{-1}(pos2 > 1/2); arrays (R, B, T+1)."""
    sl = net.lay.sl
    o = out.double().cpu()
    return {"z": o[..., sl["st"]].argmax(-1).numpy(), "a": o[..., sl["sym1"]].argmax(-1).numpy(),
            "l": unbits(o[..., sl["pos2"]].numpy())}


def mismatches(net: Net, out: torch.Tensor, traces) -> np.ndarray:
    """Steps i where the decoded (z_i, a_i, l_i) differs from the interpreter's, counted per (run, input): (R, B)."""
    dec = decode(net, out)
    ref = {k: np.stack([getattr(tr, k) for tr in traces])[None] for k in ("z", "a", "l")}
    bad = (dec["z"] != ref["z"]) | (dec["a"] != ref["a"]) | (dec["l"] != ref["l"])
    return bad.sum(-1)


def first_mismatch(net: Net, out: torch.Tensor, traces) -> np.ndarray:
    """The first step with a wrong decoded (z, a, l) per run (any input), T+1 where there is none: (R,)."""
    dec = decode(net, out)
    ref = {k: np.stack([getattr(tr, k) for tr in traces])[None] for k in ("z", "a", "l")}
    bad = ((dec["z"] != ref["z"]) | (dec["a"] != ref["a"]) | (dec["l"] != ref["l"])).any(1)   # (R, T+1)
    return np.where(bad.any(-1), bad.argmax(-1), bad.shape[-1])
