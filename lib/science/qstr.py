"""q-sparse token regression (qSTR) and simple-qSTR, Definition 2 of Mousavi-Hosseini et al. 2025, generated on
the device.

A prompt holds N tokens x_i ~ N(0, I_d) and, for each position i, q indices t_i in [N]^q; the label is
y_i = g(x_{t_i1}, ..., x_{t_iq}). In simple-qSTR one t is shared by every position of a prompt. The model input
is the encoding z_i = (x_i, w_i, w_{t_i1}, ..., w_{t_iq}) with Rademacher position codes w in {+-1/sqrt(d_e)}^{d_e}.

Every sampler takes a leading run dimension R, so R independent runs draw independent data in one call:

    >>> task = QSTR(N=6, d=10); z, y = task.sample(R=5, batch=64, gen=torch.Generator().manual_seed(0))
    >>> z.shape, y.shape, task.d_e   # z: (R, batch, N, d + 2 d_e)
    (torch.Size([5, 64, 6, 26]), torch.Size([5, 64, 6]), 8)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch


def embed_dim_rule(N: int, rule: str = "floor") -> int:
    """d_e: the authors' code uses floor(5 ln N); the Figure 1 caption says ceil(5 log N)."""
    value = 5 * math.log(N)
    if rule == "floor":
        return int(value)
    if rule == "ceil":
        return math.ceil(value)
    raise ValueError(f"d_e rule: expected one of floor, ceil, got {rule!r}")


def rademacher_codes(N: int, d_e: int, gen: torch.Generator) -> torch.Tensor:
    """N position codes, uniform on the hypercube {+-1/sqrt(d_e)}^{d_e} (Assumption 3 is not enforced)."""
    return (2.0 * torch.randint(0, 2, (N, d_e), generator=gen) - 1.0) / math.sqrt(d_e)


@dataclass
class QSTR:
    """One qSTR task: fixed N, d, q, link, position codes E and link direction u.

    `encoding`: "code" (the authors' z_i = (x_i, w_i, w_t)), or "paper" (the paper's, Sec. 3, with the
    sqrt(d/q) factor on the position blocks). `link`: "linear" y = sum_j <u, x_{t_j}> / sqrt(q), the link of
    Figure 1; "mean" the sparse average (1/q) sum_j <u, x_{t_j}>; "square" the quadratic link of Prop. 3/21,
    y = sum_j (|x_{t_j}|^2 - E|x_{t_j}|^2) / sqrt(q d). E and u come from `task_seed`, on the CPU, so they are
    the same on every device.

    `lower_bound`: the distribution of Prop. 3/21: tokens x_i = 0 for i >= N/2, and every
    position i >= N/2 reads tokens 0..q-1; positions i < N/2 read q uniform indices, as in qSTR.
    """

    N: int
    d: int = 10
    q: int = 1
    simple: bool = False
    d_e_rule: str = "floor"
    encoding: str = "code"
    link: str = "linear"
    task_seed: int = 42
    device: str = "cpu"
    lower_bound: bool = False
    E: torch.Tensor = field(init=False, repr=False)
    u: torch.Tensor = field(init=False, repr=False)

    def __post_init__(self):
        if self.encoding not in ("code", "paper") or self.link not in ("linear", "mean", "square"):
            raise ValueError(f"encoding in (code, paper), link in (linear, mean, square); got {self.encoding!r}, {self.link!r}")
        if self.lower_bound and (self.simple or 2 * self.q > self.N):
            raise ValueError(f"the Prop. 3 distribution needs q <= N/2 and no simple variant; got N={self.N}, q={self.q}")
        gen = torch.Generator().manual_seed(self.task_seed)
        u = torch.randn(self.d, generator=gen)
        self.u = (u / u.norm()).to(self.device)
        # E depends on (task_seed, N) only, so every model of a sweep point sees the same codes, as in the code.
        gen_e = torch.Generator().manual_seed(self.task_seed * 1_000_003 + self.N)
        self.E = rademacher_codes(self.N, self.d_e, gen_e).to(self.device)

    @property
    def d_e(self) -> int:
        return embed_dim_rule(self.N, self.d_e_rule)

    @property
    def D(self) -> int:
        """Width of one encoded token."""
        return self.d + (self.q + 1) * self.d_e

    def draw(self, R: int, batch: int, gen: torch.Generator, simple: bool | None = None):
        """Raw tokens X (R, B, N, d) and indices T (R, B, N, q); `simple` overrides the task's variant."""
        simple = self.simple if simple is None else simple
        X = torch.randn(R, batch, self.N, self.d, generator=gen, device=self.device)
        rows = 1 if simple else self.N
        T = torch.randint(0, self.N, (R, batch, rows, self.q), generator=gen, device=self.device)
        T = T.expand(R, batch, self.N, self.q)
        if self.lower_bound:
            half = self.N // 2
            X[:, :, half:] = 0
            T = T.clone()
            T[:, :, half:] = torch.arange(self.q, device=self.device)
        return X, T

    def labels(self, X: torch.Tensor, T: torch.Tensor) -> torch.Tensor:
        """y (R, B, N): the link applied to the q retrieved tokens of every position."""
        R, B, N, q = T.shape
        picked = torch.gather(X, 2, T.reshape(R, B, N * q, 1).expand(R, B, N * q, self.d)).view(R, B, N, q, self.d)
        if self.link == "square":
            # E|x_t|^2 is d, or 0 for the zero tokens of the lower-bound distribution
            mean_sq = self.d * (T < self.N // 2).float() if self.lower_bound else float(self.d)
            return (picked.pow(2).sum(-1) - mean_sq).sum(-1) / math.sqrt(q * self.d)
        proj = picked @ self.u  # (R, B, N, q)
        return proj.sum(-1) / math.sqrt(q) if self.link == "linear" else proj.mean(-1)

    def encode(self, X: torch.Tensor, T: torch.Tensor) -> torch.Tensor:
        """z (R, B, N, D) = (x_i, c w_i, c w_{t_i1}, ..., c w_{t_iq}), c = 1 (code) or sqrt(d/q) (paper)."""
        R, B, N, q = T.shape
        c = 1.0 if self.encoding == "code" else math.sqrt(self.d / self.q)
        own = (c * self.E).expand(R, B, N, self.d_e)
        targets = c * self.E[T].reshape(R, B, N, q * self.d_e)
        return torch.cat([X, own, targets], dim=-1)

    def sample(self, R: int, batch: int, gen: torch.Generator, simple: bool | None = None):
        """A fresh batch for each of R runs: (z, y) with shapes (R, B, N, D) and (R, B, N)."""
        X, T = self.draw(R, batch, gen, simple)
        return self.encode(X, T), self.labels(X, T)
