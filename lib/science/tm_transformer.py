"""The explicit-weight encoder-decoder Transformer of Theorem 4.1 of Wei, Chen & Ma 2022, built from a machine's
transition table and the horizon T, following Section 4.2 and Appendix C (Lemmas C.1-C.8) of the paper, with the
gaps this book fills (a pre-start state for step 0, P bits that can encode every position, left padding by c0
blank cells, terminal states that write back and move right). Weights are tensors with a leading run axis R, so
R perturbed or differently tempered copies of one construction run as one batched computation.

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

This module builds the weights and measures their size; lib.science.tm_run runs them (attention, the teacher-forced
check, the rollout, decoding).

    >>> from lib.science import turing; net = build(turing.counter(), T=64)
    >>> size(net)["d"], size(net)["w"]                    # depth P + 4 and width K + 4|A| + 4P + 5 (P = 7)
    (11, 48)
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
    """P = ceil(log2(max position + 1)): the paper's w_pos = ceil(log2 T) can encode neither T nor every head cell."""
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
