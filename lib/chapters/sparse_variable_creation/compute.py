"""Sparse variable creation (Edelman et al. 2022): the computation, everything its stored numbers depend on (the
page's readers are in results.py, its rows in claims/, its figures in figures.py).

Sweep points (see `points`):

- exact: the constructions of App. A.4 and B (lib.science.sparse_boolean): softmax's l_inf -> l_1 bound (Cor. A.7),
  the truncation lemma (B.7), the heads of Lemmas B.2-B.4 with their norms, the least query scale that B.2 needs
  against ln T, and the exact symmetric and general sparse functions of Lemmas B.5/B.6 (B.8's lookup).
- and (one per context length T): the planted 3-way AND of Sec. 5 / App. C.1, every (sample size m, trial) of that
  T trained as one batched computation (lib.science.batched_transformer): full-batch AdamW, validation every
  `eval_every` iterations; per trial the maximum validation accuracy, the training fit, [CLS]'s attention on the
  planted bits and the weight norms of Thm 4.2 / Cor. 4.4 (`weight_norms`).
- parity (one per T): the 3-sparse parity of App. C.2, online batches, every seed at once; per seed the loss curve.

    >>> from lib.core import params; P = params.resolve("sparse_variable_creation", "paper")
    >>> sorted({p.name.split()[0] for p in points(P)})    # lib.core.sweep.collect computes or loads them
    ['and', 'exact', 'parity']
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from lib.core.sweep import Point
from lib.science import batched_transformer as bt
from lib.science import sparse_boolean as sb
from lib.science.seeds import generator, seed_of

S_AND = S_PARITY = 3      # the paper's sparsity in both experiments


# ------------------------------------------------------------------------------------------- exact checks
@dataclass(frozen=True)
class ExactPoint:
    seed: int
    lipschitz_pairs: int          # random pairs for Cor. A.7
    lipschitz_T_max: int
    truncation_instances: int     # random instances for Lemma B.7
    construction_T: tuple         # T grid of the B.2-B.4 heads
    construction_s: tuple         # s grid of the B.2 head
    minimal_R_T: tuple            # T grid of the least query scale
    exhaustive_T: int             # T of the exhaustive Boolean checks (2^T inputs)
    random_T: int                 # T of the random-input Boolean checks
    random_inputs: int
    symmetric_s_max: int
    general_s_max: int


def run_exact(spec: ExactPoint, device: str) -> dict:
    rng = np.random.default_rng(seed_of(spec.seed, "exact"))
    out = {"lipschitz": sb.lipschitz_ratios(spec.lipschitz_pairs, spec.lipschitz_T_max, rng),
           "truncation": sb.truncation_check(spec.truncation_instances, rng)}
    b2, b3, b4 = [], [], []
    for T in spec.construction_T:
        for s in spec.construction_s:
            planted = sorted(rng.choice(T, s, replace=False).tolist())
            head, b = sb.head_b2(T, planted, gamma=1.0), sb.count_patterns(T, planted)
            r = b[:, planted].sum(1)
            rand = rng.integers(0, 2, (2000, T))
            b2.append({"T": T, "s": s, "err": float(np.abs(head.forward(b)[:, 0] - (1 - 2 * r / s)).max()),
                       "err_random": float(np.abs(head.forward(rand)[:, 0] - (1 - 2 * rand[:, planted].sum(1) / s)).max()),
                       "R": math.log(8 * T), **head.norms()})
        planted = sorted(rng.choice(T, 3, replace=False).tolist())
        b = sb.count_patterns(T, planted)
        r = b[:, planted].sum(1)
        h3 = sb.head_b3(T, planted, gamma=1.0)
        b3.append({"T": T, "err": float(np.abs(h3.forward(b)[:, 0] - (1 - 2 * r / 3)).max()),
                   "bound": 2 * T / math.exp(math.log(8 * T)), **h3.norms()})
        h4 = sb.head_b4(T, planted, gamma=0.5)
        att = h4.attention(b)[0]
        active = np.concatenate([np.ones((len(b), 1)), b[:, planted]], 1)   # [CLS] and the planted 1-bits
        b4.append({"T": T, "err": float(np.abs(h4.forward(b)[:, 0] - (r - 3) / (r + 1)).max()), "gamma": 0.5,
                   "att_err": float(np.abs(att[:, [0] + [p + 1 for p in planted]] - active / (r + 1)[:, None]).max()),
                   **h4.norms()})
    out.update(b2=b2, b3=b3, b4=b4)
    out["minimal_R"] = [{"T": T, "R_min": sb.minimal_R(T, 3), "R_lemma": math.log(8 * T)} for T in spec.minimal_R_T]
    out["symmetric"], out["general"] = [], []
    exhaustive = sb.all_inputs(spec.exhaustive_T)
    for T, inputs in ((spec.exhaustive_T, exhaustive), (spec.random_T, None)):
        b = inputs if inputs is not None else rng.integers(0, 2, (spec.random_inputs, T))
        for s in range(1, spec.symmetric_s_max + 1):
            planted = sorted(rng.choice(T, s, replace=False).tolist())
            r = b[:, planted].sum(1)
            g = None                                   # the head is the same for every f: run it once per s
            for name, f in sb.SYMMETRIC.items():
                _, head, net = sb.symmetric_network(T, planted, name)
                g = head.forward(b) if g is None else g
                out["symmetric"].append({"T": T, "s": s, "f": name, "inputs": len(b),
                                         "err": float(np.abs(net(g) - f(r, s)).max()), "widths": list(net.widths),
                                         "W1_max": float(np.abs(net.W1).max()),
                                         "Wq": head.norms()["Wq"], "R": math.log(4 * T * s)})
        for s in range(1, spec.general_s_max + 1):
            planted = sorted(rng.choice(T, s, replace=False).tolist())
            table = rng.integers(0, 2, 2 ** s).astype(float)
            net_f, head, net = sb.general_network(T, planted, table)
            out["general"].append({"T": T, "s": s, "inputs": len(b), "widths": list(net.widths),
                                   "err": float(np.abs(net_f(b) - sb.truth_value(b, planted, table)).max())})
    return out


# ------------------------------------------------------------------------------------------- planted AND
@dataclass(frozen=True)
class AndPoint:
    T: int
    ms: tuple                     # sample sizes; every (m, trial) of this T trains in one batched computation
    trials: int
    d: int
    heads: int
    dropout: float
    embd_dropout: bool            # minGPT's embedding dropout (False: none, and the cheap shared-token training path)
    lr: float
    weight_decay: float
    iters: int
    eval_every: int
    n_val: int
    max_elems: int                # activations per batched computation (R m_max (T+1) d), else the trials are chunked
    seed: int


def planted_and(gen, R: int, n: int, T: int, planted: torch.Tensor | None, device: str):
    """R trials' planted subsets (3 of T, uniform) and n uniform bit strings each with labels prod_{i in I} b_i."""
    if planted is None:
        planted = torch.rand(R, T, generator=gen, device=device).argsort(1)[:, :S_AND]
    bits = torch.randint(0, 2, (R, n, T), generator=gen, device=device)
    y = torch.gather(bits, 2, planted[:, None, :].expand(R, n, S_AND)).prod(-1)
    return planted, bits, y


def weight_norms(p: bt.Params, cfg: bt.ModelConfig) -> dict:
    """Per trial, the norms that Thm 4.2 / Cor. 4.4 (multi-head form, Lemma A.12) bound capacity by: per head h,
    B_QK^inf[h] = ||W_QK^h||_{2,inf} (largest column norm of W_Q^h W_K^h^T / sqrt(head dim), the score's bilinear
    form), B_V[h] = ||W_V^h||_2 and B_V^inf[h] = ||W_V^h^T||_{2,inf}; the capacity factor
    (sum_h (B_V^inf[h])^(2/3) + (2 B_QK^inf[h] B_V[h])^(2/3))^3 of the covering bound, and B_P = ||P^T||_{2,inf}
    of the learned positions (Lemma A.11's B_X + B_P)."""
    with torch.no_grad():
        R, d, H = p["q_w"].shape[0], cfg.d, cfg.heads
        hd = d // H
        q, k, v = (p[n].double().view(R, d, H, hd).permute(0, 2, 1, 3) for n in ("q_w", "k_w", "v_w"))   # (R, H, d, hd)
        qk = q @ k.transpose(-1, -2) / math.sqrt(hd)                                                     # (R, H, d, d)
        b_qk = qk.norm(dim=-2).max(-1).values                                                            # (R, H)
        b_v = torch.linalg.matrix_norm(v, ord=2)
        b_vinf = v.norm(dim=-1).max(-1).values
        cap = ((b_vinf ** (2 / 3) + (2 * b_qk * b_v) ** (2 / 3)).sum(1)) ** 3
        pos = p["wpe"].double().norm(dim=-1).max(1).values
    return {"qk_norm": b_qk.max(1).values.tolist(), "v_norm": b_v.max(1).values.tolist(), "capacity": cap.tolist(),
            "pos_norm": pos.tolist()}


PAD = 1.25     # a batched computation pads every trial to its largest m: at most this many padded per real sample


def pack(spec: AndPoint) -> list[list[tuple[int, int]]]:
    """The (m, trial) pairs of one T in batched computations: in order of m, a new one starts where the padding to
    the largest m would exceed PAD x the real samples, or the activations max_elems."""
    chunks, cur = [], []
    for job in sorted((m, k) for m in spec.ms for k in range(spec.trials)):
        n, m = len(cur) + 1, job[0]
        if cur and (n * m > PAD * (sum(j[0] for j in cur) + m) or n * m * (spec.T + 1) * spec.d > spec.max_elems):
            chunks.append(cur)
            cur = []
        cur.append(job)
    return chunks + [cur]


def run_and(spec: AndPoint, device: str) -> dict:
    t0 = time.perf_counter()
    cfg = bt.ModelConfig(d=spec.d, heads=spec.heads, dropout=spec.dropout, embd_dropout=spec.embd_dropout)
    opt = bt.OptConfig(lr=spec.lr, weight_decay=spec.weight_decay)
    chunks = pack(spec)
    rec = {k: [] for k in ("m", "max_val_acc", "success", "first_success", "min_train_loss", "final_train_acc",
                           "planted_attention", "top3_is_planted", "qk_norm", "v_norm", "capacity", "pos_norm")}
    curves = {}
    for c, chunk in enumerate(chunks):
        R, m_max = len(chunk), max(m for m, _ in chunk)
        gen = generator(spec.seed, "and", spec.T, c, device=device)
        params = bt.init(R, spec.T, cfg, gen, device)
        planted, bits, y = planted_and(gen, R, m_max, spec.T, None, device)
        _, vbits, vy = planted_and(gen, R, spec.n_val, spec.T, planted, device)
        ms = torch.tensor([m for m, _ in chunk], device=device)
        weight = (torch.arange(m_max, device=device)[None] < ms[:, None]).float()
        out = bt.train_full_batch(params, bits, y, weight, vbits, vy, cfg, opt, spec.iters, spec.eval_every, gen)
        val = out["val_acc"]
        success = val > 0.99
        first = torch.where(success.any(1), success.float().argmax(1), -1)
        _, att = bt.eval_logits(params, vbits[:, :512], cfg)                # (R, B, heads, T+1)
        mass = att[..., 1:].mean((1, 2))                                     # mean over samples and heads: (R, T)
        on = torch.gather(mass, 1, planted).sum(1)
        top = mass.topk(S_AND, 1).indices.sort(1).values
        rec["m"] += ms.tolist()
        rec["max_val_acc"] += val.max(1).values.tolist()
        rec["success"] += success.any(1).tolist()
        rec["first_success"] += [out["checks"][int(f)] if f >= 0 else -1 for f in first]
        rec["min_train_loss"] += out["train_loss"].min(1).values.tolist()
        rec["final_train_acc"] += out["train_acc"][:, -1].tolist()
        rec["planted_attention"] += on.tolist()
        rec["top3_is_planted"] += (top == planted.sort(1).values).all(1).tolist()
        for k, v in weight_norms(params, cfg).items():                        # the trained weights, after the last step
            rec[k] += v
        for i, (m, k) in enumerate(chunk):                                    # example curves: trial 0 of every m
            if k == 0:
                curves[m] = {"train_loss": out["train_loss"][i, [c - 1 for c in out["checks"]]].tolist(),
                             "val_acc": val[i].tolist()}
    return {**rec, "curves": curves, "checks": out["checks"], "chunks": len(chunks), "wall_s": time.perf_counter() - t0}


# ------------------------------------------------------------------------------------------- sparse parity
@dataclass(frozen=True)
class ParityPoint:
    T: int
    seeds: int
    d: int
    heads: int
    dropout: float
    embd_dropout: bool
    lr: float
    weight_decay: float
    iters: int
    batch: int
    log_every: int
    seed: int


def run_parity(spec: ParityPoint, device: str) -> dict:
    t0 = time.perf_counter()
    cfg = bt.ModelConfig(d=spec.d, heads=spec.heads, dropout=spec.dropout, embd_dropout=spec.embd_dropout)
    gen = generator(spec.seed, "parity", spec.T, device=device)
    R = spec.seeds
    params = bt.init(R, spec.T, cfg, gen, device)
    planted = torch.rand(R, spec.T, generator=gen, device=device).argsort(1)[:, :S_PARITY]

    def sample(n, g):
        bits = torch.randint(0, 2, (R, n, spec.T), generator=g, device=device)
        return bits, torch.gather(bits, 2, planted[:, None, :].expand(R, n, S_PARITY)).sum(-1) % 2

    out = bt.train_online(params, sample, cfg, bt.OptConfig(lr=spec.lr, weight_decay=spec.weight_decay), spec.iters,
                          spec.batch, spec.log_every, gen)
    test_bits, test_y = sample(4096, gen)
    acc = bt.accuracy(params, test_bits, test_y, cfg)
    return {"iters_logged": out["logged"], "loss": out["loss"].tolist(), "acc": out["acc"].tolist(), "test_acc": acc.tolist(),
            "wall_s": time.perf_counter() - t0}


# ------------------------------------------------------------------------------------------- the sweep
def points(P: dict) -> list[Point]:
    ex = ExactPoint(seed=P["seed"], lipschitz_pairs=P["lipschitz_pairs"], lipschitz_T_max=P["lipschitz_T_max"],
                    truncation_instances=P["truncation_instances"], construction_T=tuple(P["construction_T"]),
                    construction_s=tuple(P["construction_s"]), minimal_R_T=tuple(P["minimal_R_T"]),
                    exhaustive_T=P["exhaustive_T"], random_T=P["random_T"], random_inputs=P["random_inputs"],
                    symmetric_s_max=P["symmetric_s_max"], general_s_max=P["general_s_max"])
    pts = [Point(("exact",), ex, run_exact, cost=5.0, threads=1)]
    model = dict(d=P["d_model"], heads=P["heads"], dropout=P["dropout"], embd_dropout=P["embd_dropout"], lr=P["lr"],
                 weight_decay=P["weight_decay"])
    for T in P["and_T"]:
        spec = AndPoint(T=T, ms=tuple(P["and_m"]), trials=P["and_trials"], iters=P["and_iters"], eval_every=P["eval_every"],
                        n_val=P["n_val"], max_elems=P["max_elems"], seed=P["seed"], **model)
        pts.append(Point(("and", T), spec, run_and, cost=T * sum(P["and_m"]) * P["and_trials"] / 1e3, threads=1))
    for T in (P["parity_T"] if P["parity"] else []):
        spec = ParityPoint(T=T, seeds=P["parity_trials"], iters=P["parity_iters"], batch=P["parity_batch"],
                           log_every=P["parity_log_every"], seed=P["seed"], **model)
        pts.append(Point(("parity", T), spec, run_parity, cost=T * P["parity_batch"] * P["parity_iters"] / 1e5, threads=1))
    return pts


def check_params(P: dict) -> list[tuple[str, str]]:
    bad = []
    if P["d_model"] % P["heads"]:
        bad.append(("heads", "a divisor of d_model"))
    if min(P["and_T"]) < S_AND or (P["parity_T"] and min(P["parity_T"]) < S_PARITY):
        bad.append(("and_T, parity_T", f"context lengths of at least {S_AND}"))
    if P["symmetric_s_max"] > min(P["exhaustive_T"], P["random_T"]) or P["general_s_max"] > min(P["exhaustive_T"], P["random_T"]):
        bad.append(("symmetric_s_max, general_s_max", "at most exhaustive_T and random_T"))
    if P["eval_every"] > P["and_iters"]:
        bad.append(("eval_every", "at most and_iters"))
    if min(P["construction_s"]) < 1 or max(P["construction_s"]) > min(P["construction_T"]):
        bad.append(("construction_s", "in [1, min(construction_T)]"))
    return bad


def footprint(P: dict) -> list[tuple[str, float, str]]:
    """The biggest allocations: a chunk's activations (about 12 tensors of max_elems floats kept for the backward
    pass), and the exhaustive check's 2^T inputs."""
    return [("max_elems", 12 * 4 * P["max_elems"], "activations of one batched AND computation"),
            ("exhaustive_T", 8 * (P["exhaustive_T"] + 3) * 2 ** P["exhaustive_T"] * 4, "the exhaustive Boolean inputs"),
            ("parity_batch, parity_trials",
             12 * 4 * P["parity_trials"] * P["parity_batch"] * (max(P["parity_T"]) + 1) * P["d_model"],
             "activations of the parity runs")]
