"""Sparse variable creation by construction (Edelman et al. 2022, App. A.4 and B): softmax's l_inf -> l_1
Lipschitz bound, the truncation lemma, the attention heads of Lemmas B.2-B.4 and the exact ReLU lookup of Lemma B.8
that turns them into exact sparse Boolean functions (Lemmas B.5, B.6). Everything is numpy float64.

Encodings use Delta = 0 (exactly orthonormal vectors, d = T + 3): position t is e_t, E_0 = e_T, E_1 = e_{T+1} and
v_[CLS] = e_{T+2}. [CLS] is a key like every token (its score is 0 and its value 0 in these constructions). A head's
input is never materialised as a (batch, T+1, d) array: X(b) M = (E M)[b] + P M is the same matrix product, computed
in O(T k) per input instead of O(T d k).

    >>> b = np.random.default_rng(0).integers(0, 2, (1000, 100))       # 1,000 inputs of T = 100 bits
    >>> out = head_b2(T=100, planted=[3, 7, 9], gamma=1.0).forward(b)   # g(b) = 1 - 2r/s, r: the planted ones
    >>> out.shape, bool(np.abs(out[:, 0] - (1 - 2 * b[:, [3, 7, 9]].sum(1) / 3)).max() < 0.1)
    ((1000, 1), True)
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np


# ------------------------------------------------------------------------------------------- softmax facts
def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def jacobian_l11(p: np.ndarray) -> float:
    """||J||_{1,1} (sum of the absolute entries) of softmax's Jacobian diag(p) - p p^T, formed explicitly."""
    J = np.diag(p) - np.outer(p, p)
    return float(np.abs(J).sum())


def lipschitz_ratios(n_pairs: int, T_max: int, rng: np.random.Generator) -> dict:
    """Cor. A.7 on random pairs: ||softmax(a) - softmax(b)||_1 / ||a - b||_inf, with T log-uniform in [2, T_max],
    logit scales log-uniform in [1e-2, 1e2] and perturbations from tiny to as large as the logits. Also the explicit
    Jacobian's ||J||_{1,1} against 2 sum p(1-p), and at uniform p against 2(1 - 1/T)."""
    Ts = np.unique(np.exp(rng.uniform(np.log(2), np.log(T_max), 64)).astype(int))
    per_T = max(1, n_pairs // len(Ts))
    worst, count = 0.0, 0
    for T in Ts:
        scale = np.exp(rng.uniform(np.log(1e-2), np.log(1e2), (per_T, 1)))
        a = rng.standard_normal((per_T, T)) * scale
        eps = np.exp(rng.uniform(np.log(1e-6), np.log(1.0), (per_T, 1))) * scale
        b = a + rng.standard_normal((per_T, T)) * eps
        num = np.abs(softmax(a) - softmax(b)).sum(1)
        den = np.abs(a - b).max(1)
        worst, count = max(worst, float((num / den).max())), count + per_T
    jac_err, jac_max, uni_err = 0.0, 0.0, 0.0
    for T in (2, 3, 10, 100, 1000):
        for scale in (0.1, 1.0, 10.0):
            p = softmax(rng.standard_normal(T) * scale)
            j = jacobian_l11(p)
            jac_err, jac_max = max(jac_err, abs(j - 2 * np.sum(p * (1 - p)))), max(jac_max, j)
        uni_err = max(uni_err, abs(jacobian_l11(np.full(T, 1 / T)) - 2 * (1 - 1 / T)))
    return {"pairs": count, "max_ratio": worst, "jacobian_formula_err": jac_err, "jacobian_max": jac_max,
            "uniform_err": uni_err}


def truncation_check(n: int, rng: np.random.Generator) -> dict:
    """Lemma B.7 on random instances: z_t >= R on s entries, <= 0 on the rest; ||softmax(z') - softmax(z)||_1 against
    2 (T - s) / (s e^R), z' being z with the rest set to -inf. Returns the largest measured / bound ratio."""
    worst = 0.0
    for _ in range(n):
        T = int(rng.integers(2, 2000))
        s = int(rng.integers(1, T))
        R = float(rng.uniform(0, 12))
        z = np.concatenate([R + rng.exponential(rng.uniform(0.01, 3), s), -rng.exponential(rng.uniform(0.01, 3), T - s)])
        z[rng.integers(0, s)] = R                                       # some entries sit on the boundaries
        z[s + rng.integers(0, T - s)] = 0.0
        zp = np.where(np.arange(T) < s, z, -np.inf)
        gap = np.abs(softmax(zp) - softmax(z)).sum()
        worst = max(worst, gap / (2 * (T - s) / (s * math.exp(R))))
    return {"instances": n, "max_ratio_to_bound": worst}


# ------------------------------------------------------------------------------------------- attention heads
@dataclass
class Head:
    """One or more attention heads read by [CLS] under an encoding: Wq, Wk (heads, d, k), Wv (heads, d, k),
    Wc (heads, k, d_out); `encode(b, M)` returns rows [x_CLS; X(b)] @ M, shape (batch, T+1, k). The output is
    sum_h softmax(x_CLS Wq_h Wk_h^T X^T) X Wv_h Wc_h, shape (batch, d_out)."""
    Wq: np.ndarray
    Wk: np.ndarray
    Wv: np.ndarray
    Wc: np.ndarray
    encoding: str            # "deterministic", "trainable" or "bag"
    P: np.ndarray            # (T, d) positional rows (deterministic, trainable) or V (bag)
    E: np.ndarray            # (2, d): E_0, E_1
    cls: np.ndarray          # (d,)

    def encode(self, b: np.ndarray, M: np.ndarray) -> np.ndarray:
        if self.encoding == "bag":                                       # X = diag(b) V: rows b_t v_t
            body = b[:, :, None] * (self.P @ M)[None]
        else:                                                            # X = E_b + P
            body = (self.E @ M)[b] + (self.P @ M)[None]
        return np.concatenate([np.broadcast_to(self.cls @ M, (len(b), 1, M.shape[1])), body], 1)

    def attention(self, b: np.ndarray) -> np.ndarray:
        """(heads, batch, T+1): each head's [CLS] attention, [CLS] first."""
        out = []
        for Wq, Wk in zip(self.Wq, self.Wk):
            q = self.cls @ Wq                                            # (k,)
            out.append(softmax(self.encode(b, Wk) @ q))
        return np.stack(out)

    def forward(self, b: np.ndarray) -> np.ndarray:
        b = np.asarray(b, dtype=np.int64)
        att = self.attention(b)
        return sum(np.einsum("nt,ntk->nk", a, self.encode(b, Wv)) @ Wc for a, Wv, Wc in zip(att, self.Wv, self.Wc))

    def norms(self) -> dict:
        f = lambda W: float(max(np.linalg.norm(w) for w in W))           # largest per-head Frobenius norm
        return {"Wq": f(self.Wq), "Wk": f(self.Wk), "Wv": f(self.Wv), "Wc": f(self.Wc),
                "P_21": float(np.linalg.norm(self.P, axis=1).sum())}


def _basis(T: int):
    d = T + 3
    eye = np.eye(d)
    return eye[:T], eye[[T, T + 1]], eye[T + 2], d


def _e(n: int, i: int) -> np.ndarray:
    return np.eye(n)[i]


def head_b2(T: int, planted, gamma: float = 1.0, R: float | None = None, heads: str = "one") -> Head:
    """Lemma B.2 (deterministic P, Delta = 0). heads="one": one head approximating g(b) = 1 - 2r/s (d_out = 1);
    heads="per_bit": s heads, head h selecting planted[h], approximating g'(b) = (chi_i)_{i in I} (d_out = s),
    chi = +1 for a 0 bit, -1 for a 1 bit. R defaults to the lemma's log(8T / gamma)."""
    P, E, cls, d = _basis(T)
    R = math.log(8 * T / gamma) if R is None else R
    s = len(planted)
    if heads == "one":
        e1 = _e(1, 0)
        Wk = [np.outer(P[list(planted)].sum(0), e1)]
        Wc = [np.outer(e1, e1)]                                       # uniform attention on I averages chi
        Wq, Wv = [R * np.outer(cls, e1)], [np.outer(E[0] - E[1], e1)]
    else:
        e1 = _e(1, 0)
        Wk = [np.outer(P[i], e1) for i in planted]
        Wq, Wv = [R * np.outer(cls, e1)] * s, [np.outer(E[0] - E[1], e1)] * s
        Wc = [np.outer(e1, _e(s, h)) for h in range(s)]
    return Head(np.stack(Wq), np.stack(Wk), np.stack(Wv), np.stack(Wc), "deterministic", P, E, cls)


def head_b3(T: int, planted, gamma: float = 1.0) -> Head:
    """Lemma B.3 (trainable P): P_i = v_1 on the planted positions, 0 elsewhere; W_K = v_1 e_1^T; scores exactly R
    on I; R = log(8T / gamma). v_1 here is the first positional basis vector (orthogonal to E and [CLS])."""
    P0, E, cls, d = _basis(T)
    v1 = P0[0]
    P = np.zeros((T, d))
    P[list(planted)] = v1
    R, e1 = math.log(8 * T / gamma), _e(1, 0)
    return Head(np.stack([R * np.outer(cls, e1)]), np.stack([np.outer(v1, e1)]), np.stack([np.outer(E[0] - E[1], e1)]),
                np.stack([np.outer(e1, e1)]), "trainable", P, E, cls)


def head_b4(T: int, planted, gamma: float = 0.5) -> Head:
    """Lemma B.4 (bag of vectors X = diag(b) V, Delta = 0): attention uniform on [CLS] and the planted 1-bits,
    approximating g(r) = (r - s)/(r + 1) (d_out = 1); R = log(8 T s / gamma)."""
    V, E, cls, d = _basis(T)
    s = len(planted)
    R = math.log(8 * T * s / gamma)
    vI = V[list(planted)].sum(0)
    Wv = sum(np.outer(V[i], _e(s, n)) for n, i in enumerate(planted)) - np.outer(cls, np.ones(s))
    Wc = np.ones((s, 1))
    return Head(np.stack([R * np.outer(cls, _e(1, 0))]), np.stack([np.outer(vI + cls, _e(1, 0))]), np.stack([Wv]),
                np.stack([Wc]), "bag", V, E, cls)


def count_patterns(T: int, planted) -> np.ndarray:
    """One input per (ones among the planted positions, ones elsewhere): every value the B.2-B.4 heads can output
    (their scores and values treat the planted positions alike and the others alike), (s+1)(T-s+1) inputs."""
    planted = list(planted)
    rest = [t for t in range(T) if t not in set(planted)]
    out = []
    for r_in in range(len(planted) + 1):
        for r_out in range(len(rest) + 1):
            b = np.zeros(T, dtype=np.int64)
            b[planted[:r_in]] = 1
            b[rest[:r_out]] = 1
            out.append(b)
    return np.stack(out)


def b2_error(T: int, s: int, R: float) -> float:
    """Largest |f(X(b)) - (1 - 2r/s)| of the one-head B.2 construction with query scale R, over every count pattern."""
    planted = list(range(s))
    b = count_patterns(T, planted)
    r = b[:, :s].sum(1)
    return float(np.abs(head_b2(T, planted, R=R).forward(b)[:, 0] - (1 - 2 * r / s)).max())


def minimal_R(T: int, s: int, gamma: float = 1.0, tol: float = 1e-7) -> float:
    """The smallest query scale R at which the B.2 head is a (gamma/4)-uniform approximation (bisection; the error
    falls as R grows)."""
    lo, hi = 0.0, math.log(8 * T / gamma) + 5
    while hi - lo > tol:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if b2_error(T, s, mid) <= gamma / 4 else (mid, hi)
    return hi


# ------------------------------------------------------------------------------------------- Lemma B.8
@dataclass
class Lookup:
    """A 3-layer ReLU network f(x) = relu(relu(x W1 + b1) W2 + b2) w (Lemma B.8)."""
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    w: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return np.maximum(np.maximum(x @ self.W1 + self.b1, 0) @ self.W2 + self.b2, 0) @ self.w

    @property
    def widths(self) -> tuple[int, int]:
        return self.W1.shape[1], self.W2.shape[1]


def lookup(centers: np.ndarray, values: np.ndarray, delta: float) -> Lookup:
    """Lemma B.8: f(c_i + z) = values[i] whenever ||z||_inf <= delta, for centers (n, d_f) pairwise >= 4 delta apart
    in l_inf. Layer 1: per center and coordinate four ReLUs whose combination is the bump psi (1 within delta, 0
    beyond 2 delta); layer 2: per center the ramp nu_{1/d_f} of the bumps' average minus 1 (two ReLUs), which is 1 at
    the own center and 0 at every other; layer 3: the values. Widths (4 n d_f, 2 n)."""
    centers = np.atleast_2d(np.asarray(centers, float))
    n, df = centers.shape
    W1, b1 = np.zeros((df, 4 * n * df)), np.zeros(4 * n * df)
    W2, b2 = np.zeros((4 * n * df, 2 * n)), np.zeros(2 * n)
    for i, j in itertools.product(range(n), range(df)):
        c, col = centers[i, j], 4 * (i * df + j)
        # u = (x - c)/delta; psi = (u+2)_+ - (u+1)_+ + (-u+2)_+ - (-u+1)_+ - 1
        for unit, (sign, shift) in enumerate([(1, 2), (1, 1), (-1, 2), (-1, 1)]):
            W1[j, col + unit] = sign / delta
            b1[col + unit] = shift - sign * c / delta
        W2[col:col + 4, 2 * i] = W2[col:col + 4, 2 * i + 1] = [1, -1, 1, -1]
    for i in range(n):
        # sum_j psi_ij - d_f + 1 = sum_j (units) - 2 d_f + 1 (first ReLU), and one less (second); difference = nu
        b2[2 * i], b2[2 * i + 1] = -2 * df + 1, -2 * df
    w = np.zeros(2 * n)
    w[0::2], w[1::2] = values, -np.asarray(values, float)
    return Lookup(W1, b1, W2, b2, w)


SYMMETRIC = {"AND": lambda r, s: (r == s).astype(float), "OR": lambda r, s: (r >= 1).astype(float),
             "MAJ": lambda r, s: (2 * r > s).astype(float), "PARITY": lambda r, s: (r % 2).astype(float)}


def symmetric_network(T: int, planted, name: str):
    """Lemma B.5 on the one-head B.2 construction: head then lookup; returns (f(b), head, lookup). gamma = 2/s (g is
    (2/s)-strictly monotone), R = log(8T/gamma), delta = gamma/4 (see `lookup`: the head errs by <= gamma/4)."""
    s = len(planted)
    gamma = 2 / s
    head = head_b2(T, planted, gamma=gamma)
    r = np.arange(s + 1)
    net = lookup((1 - 2 * r / s)[:, None], SYMMETRIC[name](r, s), gamma / 4)
    return (lambda b: net(head.forward(b))), head, net


def general_network(T: int, planted, table: np.ndarray):
    """Lemma B.6 on the s-head B.2 construction: any s-sparse f given by its truth table (2^s values, indexed by the
    planted bits read as a binary number, planted[0] most significant). gamma = 2 (g' is 2-injective)."""
    s = len(planted)
    head = head_b2(T, planted, gamma=2.0, heads="per_bit")
    bits = np.array(list(itertools.product([0, 1], repeat=s)))
    net = lookup(1 - 2 * bits, table, 0.5)
    return (lambda b: net(head.forward(b))), head, net


def all_inputs(T: int) -> np.ndarray:
    return ((np.arange(2 ** T)[:, None] >> np.arange(T)[::-1]) & 1).astype(np.int64)


def truth_value(b: np.ndarray, planted, table: np.ndarray) -> np.ndarray:
    idx = np.zeros(len(b), dtype=np.int64)
    for i in planted:
        idx = 2 * idx + b[:, i]
    return np.asarray(table, float)[idx]
