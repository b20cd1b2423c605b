"""Many one-layer minGPT-style [CLS] classifiers trained at once: every trial's weights are stacked along a leading
axis R, every matrix product is a batched einsum, and one AdamW steps all of them (AdamW is elementwise, so this is
R separate AdamW runs: torch.optim.AdamW over the stacked tensors; the gradient clipping is per trial).

The model (Edelman et al. 2022, Sec. 5 and App. C, on minGPT's 2021 defaults): token embeddings for 0, 1 and [CLS],
learned positions (N(0, 0.02^2)), one pre-LayerNorm block (16-head self-attention with 1/sqrt(head dim) scaling,
then a GELU MLP of width 4d, both residual), a final LayerNorm and a bias-free head with 2 logits read at [CLS].
[CLS] is the first token and attention is bidirectional (no mask): minGPT's causal mask would let a first [CLS]
see only itself, and with no mask every position sees every other. Dropout (embedding, attention, residual) as
minGPT. One layer makes one exact shortcut possible: the logits read only [CLS]'s output, so queries, the
attention row and the MLP are computed at [CLS] alone (keys and values at every token); nothing is approximated.

    >>> params = init(R=8, T=20, cfg=ModelConfig(), gen=torch.Generator().manual_seed(0))    # 8 trials, T = 20 bits
    >>> tokens = torch.cat([torch.full((8, 5, 1), CLS), torch.randint(0, 2, (8, 5, 20))], -1)   # [CLS] first
    >>> logits, att = forward(params, tokens, ModelConfig()); logits.shape, att.shape
    (torch.Size([8, 5, 2]), torch.Size([8, 5, 16, 21]))
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from lib.science.training import fit

Params = dict[str, torch.Tensor]
CLS = 2                                    # token ids: 0, 1 for the bits, 2 for [CLS]
DECAY = ("q_w", "k_w", "v_w", "proj_w", "fc_w", "fc2_w", "head_w")   # minGPT decays Linear weights only


@dataclass(frozen=True)
class ModelConfig:
    d: int = 64                # n_embd
    heads: int = 16
    dropout: float = 0.1       # embd_pdrop = attn_pdrop = resid_pdrop
    embd_dropout: bool = True  # minGPT's embedding dropout; False: none, which lets training use `forward_shared`


@dataclass(frozen=True)
class OptConfig:
    lr: float = 1e-3
    betas: tuple = (0.9, 0.999)
    weight_decay: float = 1e-4
    clip: float = 1.0          # minGPT's grad_norm_clip, per trial (0: none)


def init(R: int, T: int, cfg: ModelConfig, gen: torch.Generator, device="cpu") -> Params:
    """minGPT's initialisation: Linear and Embedding weights N(0, 0.02), biases 0, LayerNorms (1, 0)."""
    d = cfg.d
    n = lambda *shape: (torch.randn(R, *shape, generator=gen, device=device) * 0.02)
    z = lambda *shape: torch.zeros(R, *shape, device=device)
    o = lambda *shape: torch.ones(R, *shape, device=device)
    p = {"wte": n(3, d), "wpe": n(T + 1, d), "ln1_w": o(d), "ln1_b": z(d), "q_w": n(d, d), "k_w": n(d, d),
         "v_w": n(d, d), "q_b": z(d), "k_b": z(d), "v_b": z(d), "proj_w": n(d, d), "proj_b": z(d), "ln2_w": o(d),
         "ln2_b": z(d), "fc_w": n(d, 4 * d), "fc_b": z(4 * d), "fc2_w": n(4 * d, d), "fc2_b": z(d), "lnf_w": o(d),
         "lnf_b": z(d), "head_w": n(d, 2)}
    return {k: v.requires_grad_() for k, v in p.items()}


def _ln(x, w, b):
    """LayerNorm with per-trial affine: x (R, ..., d), w and b (R, d)."""
    shape = (x.shape[0],) + (1,) * (x.dim() - 2) + (x.shape[-1],)
    return F.layer_norm(x, x.shape[-1:]) * w.view(shape) + b.view(shape)


def _drop(x, p: float, gen):
    if p <= 0 or gen is None:
        return x
    keep = torch.rand(x.shape, generator=gen, device=x.device) >= p
    return x * keep / (1 - p)


def tokens_of(bits: torch.Tensor) -> torch.Tensor:
    """(..., T) bits -> (..., T+1) token ids with [CLS] first."""
    return torch.cat([torch.full_like(bits[..., :1], CLS), bits], -1).long()


def forward(p: Params, tok: torch.Tensor, cfg: ModelConfig, gen: torch.Generator | None = None):
    """tok (R, B, L) token ids -> (logits (R, B, 2), [CLS] attention (R, B, heads, L)). gen=None: evaluation (no
    dropout); else dropout masks are drawn from gen."""
    R, B, L = tok.shape
    wte = p["wte"][:, None, None]                                                   # (R, 1, 1, 3, d)
    x = torch.where((tok == CLS)[..., None], wte[..., 2, :], torch.where((tok == 1)[..., None], wte[..., 1, :],
                                                                         wte[..., 0, :]))
    x = _drop(x + p["wpe"][:, None, :L], cfg.dropout if cfg.embd_dropout else 0.0, gen)   # (R, B, L, d)
    h = _ln(x, p["ln1_w"], p["ln1_b"])
    return _head(p, x[:, :, 0], h[:, :, 0], h, cfg, gen)


def _head(p: Params, x0, h0, h, cfg: ModelConfig, gen):
    """Everything after the first LayerNorm: x0, h0 (R, B, d) the residual and normalised [CLS] rows, h (R, B, L, d)
    the normalised rows of every token."""
    R, B, L, d = h.shape
    H, hd = cfg.heads, d // cfg.heads
    k = (torch.einsum("rbld,rde->rble", h, p["k_w"]) + p["k_b"][:, None, None]).view(R, B, L, H, hd)
    v = (torch.einsum("rbld,rde->rble", h, p["v_w"]) + p["v_b"][:, None, None]).view(R, B, L, H, hd)
    q = (torch.einsum("rbd,rde->rbe", h0, p["q_w"]) + p["q_b"][:, None]).view(R, B, 1, H, hd)   # [CLS] only
    att = torch.softmax((q * k).sum(-1) / math.sqrt(hd), 2)                          # (R, B, L, H)
    y = (_drop(att, cfg.dropout, gen)[..., None] * v).sum(2).reshape(R, B, d)
    return _tail(p, x0, y, cfg, gen), att.transpose(2, 3)


def _tail(p: Params, x0, y, cfg: ModelConfig, gen):
    """[CLS]'s residual stream after attention output y (R, B, d): projection, MLP, final LayerNorm, logits."""
    c = x0 + _drop(torch.einsum("rbd,rde->rbe", y, p["proj_w"]) + p["proj_b"][:, None], cfg.dropout, gen)
    m = F.gelu(torch.einsum("rbd,rde->rbe", _ln(c, p["ln2_w"], p["ln2_b"]), p["fc_w"]) + p["fc_b"][:, None])
    c = c + _drop(torch.einsum("rbe,red->rbd", m, p["fc2_w"]) + p["fc2_b"][:, None], cfg.dropout, gen)
    return torch.einsum("rbd,rdo->rbo", _ln(c, p["lnf_w"], p["lnf_b"]), p["head_w"])


def forward_shared(p: Params, bits: torch.Tensor, cfg: ModelConfig, gen: torch.Generator | None = None):
    """forward(p, tokens_of(bits), cfg, gen) computed exactly but cheaply where no embedding dropout touches the
    tokens (gen=None, or cfg.embd_dropout False): each position then holds one of two tokens, so its key and value
    are one of two vectors per trial, and [CLS]'s query is a constant; scores and values are gathered, O(T heads +
    T d) per sample instead of O(T d^2). Attention and residual dropout act on [CLS]'s row alone, and draw the same
    masks from gen as `forward`. Returns (logits, att)."""
    if gen is not None and cfg.embd_dropout and cfg.dropout > 0:
        raise ValueError("forward_shared cannot apply embedding dropout: use forward, or embd_dropout=False")
    R, B, T = bits.shape
    d, H = cfg.d, cfg.heads
    hd = d // H
    e = p["wte"][:, None, :, :] + p["wpe"][:, :, None, :]                            # (R, T+1, 3, d)
    he = _ln(e, p["ln1_w"], p["ln1_b"])
    k = (torch.einsum("rtcd,rde->rtce", he, p["k_w"]) + p["k_b"][:, None, None]).view(R, T + 1, 3, H, hd)
    v = torch.einsum("rtcd,rde->rtce", he, p["v_w"]) + p["v_b"][:, None, None]      # (R, T+1, 3, d)
    q = (torch.einsum("rd,rde->re", he[:, 0, CLS], p["q_w"]) + p["q_b"]).view(R, 1, H, hd)
    s = (q[:, :, None] * k).sum(-1) / math.sqrt(hd)                                 # (R, T+1, 3, H)
    bf = bits.to(s.dtype)[..., None]                                                # (R, B, T, 1)
    s0, s1 = s[:, None, 1:, 0], s[:, None, 1:, 1]                                  # a 0 bit's and a 1 bit's score
    scores = torch.cat([s[:, 0, CLS][:, None, None].expand(R, B, 1, H), s0 + bf * (s1 - s0)], 2)
    att = torch.softmax(scores, 2)                                                  # (R, B, T+1, H)
    ad = _drop(att, cfg.dropout, gen)                                               # forward's attention dropout
    va = v.view(R, T + 1, 3, H, hd)
    y = ad[:, :, 0, :, None] * va[:, None, 0, CLS]                                  # [CLS]'s own value
    a = ad[:, :, 1:]                                                                # (R, B, T, H)
    y = y + torch.einsum("rbth,rthe->rbhe", a * (1 - bf), va[:, 1:, 0]) + torch.einsum("rbth,rthe->rbhe", a * bf, va[:, 1:, 1])
    x0 = e[:, None, 0, CLS].expand(R, B, d)
    return _tail(p, x0, y.reshape(R, B, d), cfg, gen), att.transpose(2, 3)


@torch.no_grad()
def eval_logits(p: Params, bits: torch.Tensor, cfg: ModelConfig):
    """forward(p, tokens_of(bits), cfg) without dropout, through `forward_shared`. Returns (logits, att)."""
    return forward_shared(p, bits, cfg, None)


def train_logits(p: Params, bits: torch.Tensor, cfg: ModelConfig, gen: torch.Generator):
    """forward with dropout from gen: `forward_shared` where there is no embedding dropout (the same numbers, at a
    fraction of the cost), else forward on the tokens."""
    if cfg.embd_dropout and cfg.dropout > 0:
        return forward(p, tokens_of(bits), cfg, gen)
    return forward_shared(p, bits, cfg, gen)


def optimizer(params: Params, cfg: OptConfig) -> torch.optim.AdamW:
    """torch.optim.AdamW over the stacked weights, decoupled decay on the Linear weights only (minGPT's groups).
    AdamW is elementwise, so one optimizer over (R, ...) tensors is R separate AdamW runs."""
    decay = [v for k, v in params.items() if k in DECAY]
    rest = [v for k, v in params.items() if k not in DECAY]
    return torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay}, {"params": rest, "weight_decay": 0.0}],
                             lr=cfg.lr, betas=cfg.betas, eps=1e-8)


@torch.no_grad()
def clip_per_trial(params: Params, clip: float) -> None:
    """torch.nn.utils.clip_grad_norm_ for every trial at once: trial r's gradients (its slice of every stacked
    tensor) are scaled by min(1, clip / (norm_r + 1e-6)), norm_r the norm over all of that trial's gradients."""
    grads = [p.grad for p in params.values()]
    norm = torch.sqrt(sum(g.flatten(1).pow(2).sum(1) for g in grads))
    scale = (clip / (norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(scale.view(-1, *[1] * (g.dim() - 1)))


def _step(params: Params, opt: torch.optim.AdamW, clip: float) -> None:
    if clip > 0:
        clip_per_trial(params, clip)
    opt.step()
    opt.zero_grad(set_to_none=True)


def per_trial_ce(logits: torch.Tensor, y: torch.Tensor, weight: torch.Tensor | None = None) -> torch.Tensor:
    """(R, B, 2), (R, B) -> (R,) mean cross-entropy per trial; weight (R, B) in {0, 1} masks padded samples."""
    ce = F.cross_entropy(logits.flatten(0, 1), y.flatten().long(), reduction="none").view(y.shape)
    if weight is None:
        return ce.mean(1)
    return (ce * weight).sum(1) / weight.sum(1)


@torch.no_grad()
def accuracy(p: Params, bits: torch.Tensor, y: torch.Tensor, cfg: ModelConfig, chunk: int = 2048) -> torch.Tensor:
    """(R,) accuracy of every trial on its own set bits (R, n, T), labels (R, n); no dropout."""
    hits = torch.zeros(bits.shape[0], device=bits.device)
    for i in range(0, bits.shape[1], chunk):
        logits, _ = eval_logits(p, bits[:, i:i + chunk], cfg)
        hits += (logits.argmax(-1) == y[:, i:i + chunk]).float().sum(1)
    return hits / bits.shape[1]


def train_full_batch(p: Params, bits, y, weight, val_bits, val_y, cfg: ModelConfig, opt_cfg: OptConfig, iters: int,
                     eval_every: int, gen: torch.Generator) -> dict:
    """Full-batch training of every trial on its own samples (bits (R, m_max, T), y, weight masking padding), the
    validation accuracy of every trial every `eval_every` iterations (and at the end). Returns per-trial curves and
    `checks`, the iterations validated at."""
    opt = optimizer(p, opt_cfg)
    train_loss, train_acc, val_acc, checks = [], [], [], []
    for it in range(1, iters + 1):
        logits, _ = train_logits(p, bits, cfg, gen)
        loss = per_trial_ce(logits, y, weight)
        loss.sum().backward()                               # the sum: every trial gets exactly its own gradient
        _step(p, opt, opt_cfg.clip)
        train_loss.append(loss.detach())
        train_acc.append((((logits.argmax(-1) == y).float() * weight).sum(1) / weight.sum(1)).detach())
        if it % eval_every == 0 or it == iters:
            val_acc.append(accuracy(p, val_bits, val_y, cfg))
            checks.append(it)
    return {"train_loss": torch.stack(train_loss, 1), "train_acc": torch.stack(train_acc, 1),
            "val_acc": torch.stack(val_acc, 1), "checks": checks}


def train_online(p: Params, sample, cfg: ModelConfig, opt_cfg: OptConfig, iters: int, batch: int, log_every: int,
                 gen: torch.Generator) -> dict:
    """Online training: every iteration sample(batch, gen) -> (bits (R, batch, T), y (R, batch)) fresh for every
    trial. Returns the per-trial loss and accuracy on each fresh batch (before its step), every `log_every`."""
    losses, accs, logged = [], [], []

    def fresh_batch(step):
        bits, y = sample(batch, gen)
        logits, _ = train_logits(p, bits, cfg, gen)
        return per_trial_ce(logits, y), (logits, y)

    def log(step, loss, out):
        if (step - 1) % log_every == 0 or step == iters:      # iterations counted from 0, as logged
            logits, y = out
            losses.append(loss.detach())
            accs.append((logits.argmax(-1) == y).float().mean(1).detach())
            logged.append(step - 1)

    clip = (lambda: clip_per_trial(p, opt_cfg.clip)) if opt_cfg.clip > 0 else None
    fit(optimizer(p, opt_cfg), fresh_batch, iters, log, clip)
    return {"loss": torch.stack(losses, 1), "acc": torch.stack(accs, 1), "logged": logged}


# ------------------------------------------------------------------------------------------- one model at a time
class Reference(torch.nn.Module):
    """One trial as minGPT writes it (nn.Linear, nn.LayerNorm, full self-attention over every position, the block
    at every position): the per-trial reference the batched code is tested and benchmarked against.
    `from_stacked(p, r, T, cfg)` copies trial r's weights."""

    def __init__(self, T: int, cfg: ModelConfig):
        super().__init__()
        d, self.cfg = cfg.d, cfg
        self.wte, self.wpe = torch.nn.Embedding(3, d), torch.nn.Parameter(torch.zeros(T + 1, d))
        self.ln1, self.ln2, self.ln_f = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.q, self.k, self.v = torch.nn.Linear(d, d), torch.nn.Linear(d, d), torch.nn.Linear(d, d)
        self.proj = torch.nn.Linear(d, d)
        self.fc, self.fc2 = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)
        self.head = torch.nn.Linear(d, 2, bias=False)
        self.drop = torch.nn.Dropout(cfg.dropout)

    @classmethod
    def from_stacked(cls, p: Params, r: int, T: int, cfg: ModelConfig) -> Reference:
        m = cls(T, cfg)
        with torch.no_grad():
            m.wte.weight.copy_(p["wte"][r]), m.wpe.copy_(p["wpe"][r])
            for ln, name in ((m.ln1, "ln1"), (m.ln2, "ln2"), (m.ln_f, "lnf")):
                ln.weight.copy_(p[f"{name}_w"][r]), ln.bias.copy_(p[f"{name}_b"][r])
            for lin, name in ((m.q, "q"), (m.k, "k"), (m.v, "v"), (m.proj, "proj"), (m.fc, "fc"), (m.fc2, "fc2")):
                lin.weight.copy_(p[f"{name}_w"][r].T), lin.bias.copy_(p[f"{name}_b"][r])
            m.head.weight.copy_(p["head_w"][r].T)
        return m

    def forward(self, tok: torch.Tensor) -> torch.Tensor:
        B, L = tok.shape
        H, d = self.cfg.heads, self.cfg.d
        x = self.drop(self.wte(tok) + self.wpe[:L])
        h = self.ln1(x)
        q, k, v = self.q(h), self.k(h), self.v(h)
        q, k, v = (t.view(B, L, H, d // H).transpose(1, 2) for t in (q, k, v))
        att = self.drop(torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // H), -1))
        x = x + self.drop(self.proj((att @ v).transpose(1, 2).reshape(B, L, d)))
        x = x + self.drop(self.fc2(F.gelu(self.fc(self.ln2(x)))))
        return self.head(self.ln_f(x))[:, 0]

    def optimizer(self, cfg: OptConfig):
        decay = [m.weight for m in (self.q, self.k, self.v, self.proj, self.fc, self.fc2, self.head)]
        rest = [p for p in self.parameters() if all(p is not q for q in decay)]
        return torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                                  {"params": rest, "weight_decay": 0.0}], lr=cfg.lr, betas=cfg.betas)


def train_reference(m: Reference, bits, y, cfg: OptConfig, iters: int) -> list[float]:
    """Full-batch training of one trial (bits (n, T), y (n,)): its training losses. The tests' oracle for
    train_full_batch (tests/test_sparse_variable_creation.py); no stored point trains with it."""
    opt, tok, losses = m.optimizer(cfg), tokens_of(bits), []
    for _ in range(iters):
        loss = F.cross_entropy(m(tok), y.long())
        opt.zero_grad()
        loss.backward()
        if cfg.clip > 0:
            torch.nn.utils.clip_grad_norm_(m.parameters(), cfg.clip)
        opt.step()
        losses.append(float(loss.detach()))
    return losses
