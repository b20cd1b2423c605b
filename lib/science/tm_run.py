"""Running the construction of lib.science.tm_transformer: single-head attention with a null key (hard-max or
softmax), one decoder layer, the teacher-forced parallel check, the real autoregressive rollout, and decoding the
outputs against the interpreter's traces (the invariant (C.2) of Appendix C: state, symbol under the head, head
cell). Every function takes a built `Net`, whose weights carry a leading run axis R, so R perturbed or differently
tempered copies of one construction run as one batched computation.

    >>> from lib.science import turing, tm_transformer as tt
    >>> net = tt.build(turing.counter(), T=64); out = rollout(net, [[]])   # the real autoregressive run
    >>> decode(net, out)["l"][0, 0][:8]                                     # its head cells, step by step
    array([2, 1, 2, 3, 2, 1, 2, 1])
    >>> bool((decode(net, out)["l"][0, 0] == turing.run(net.tm, [], T=64, c0=net.c0).l).all())   # the interpreter's
    True
"""
from __future__ import annotations

import math
import numbers

import numpy as np
import torch

from lib.science import turing
from lib.science.tm_transformer import ATTN, Net, bits, unbits


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
            outs.append(o)
            atts.append(a)
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


def inverse_temperatures(beta, R: int, device=None) -> torch.Tensor | None:
    """beta as rollout takes it: None (hard-max), one number > 0 for every run, or R numbers > 0 (one per run, a
    sequence, array or tensor); returned as an (R,) float64 tensor, or None. Anything else is refused in one line."""
    if beta is None:
        return None
    want = f"rollout: beta: expected None (hard-max), a number > 0 or {R} numbers > 0 (one per run)"
    if isinstance(beta, (bool, np.bool_)) or not isinstance(beta, (numbers.Real, torch.Tensor, np.ndarray, list, tuple)):
        raise TypeError(f"{want}, got {type(beta).__name__} {beta!r}"[:400])
    try:
        b = torch.as_tensor(beta, dtype=torch.float64, device=device)
    except (TypeError, ValueError, RuntimeError):
        raise TypeError(f"{want}, got {beta!r}"[:400]) from None
    if b.dim() == 0:
        b = b.expand(R)
    if b.shape != (R,) or not bool(torch.isfinite(b).all() and (b > 0).all()):
        raise ValueError(f"{want}, got {beta!r}"[:400])
    return b


def rollout(net: Net, xs, beta=None, tol=1e-6):
    """The real autoregressive run: h_0 = h0, h_{i+1} = o_i + beta(i+1), each layer attending over its own inputs
    at steps 0..i (per-layer caches of keys and values). beta: inverse temperatures for softmax attention, one
    number or one per run (inverse_temperatures); None: hard-max. Returns the outputs (R, B, T+1, w)
    (teacher_forced has the attention and hidden states)."""
    p = net.params
    R, B, N, w = net.R, len(xs), net.T + 1, net.w
    dt, dev = p["h0"].dtype, p["h0"].device
    beta = inverse_temperatures(beta, R, dev)
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
