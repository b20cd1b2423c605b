"""Seed 000, Prop. 8/35, Thm 7 and Thm 9: an RNN learns simple-qSTR at a fixed width, but on 1STR its width d_h or
its readout norm must grow with N, because its state is a code with exponentially many words (the packing
argument); a memoriser of n samples costs a norm that does not depend on N, so a min-norm learner prefers it.

Four computations, each stored as one point (see `compute`):

- construction (one point): the hand-built bidirectional accumulator of Thm 7 / App. C, d_h = q d per direction,
  an exact ReLU network (hypercube-code matcher, dead-zone rectifier, the gadget x s = relu(x - B(1-s)) -
  relu(-x - B(1-s))). Its MSE on simple-qSTR for N up to 10^4, on 1STR, and the state error of the variant whose
  transition carries a per-step bias, with and without the dead-zone rectifier.
- phase (one point per architecture, task and N): bidirectional RNNs of every width of the grid, all seeds, one
  batch (narrower runs are the widest one with hidden units masked to zero), trained online with AdamW until the
  test MSE crosses the threshold or the sample cap. For the Elman RNN, whose readout is the theory's
  f_y = w_2 relu(U s_j + W_y z_j + b), also (L ||U||_op r_h)^2 of every run where it stopped, and the packing
  geometry of the widest runs: states s_j at a fixed position j and token x_j over many prompts, their
  participation ratio, and Phi(s_j) in R^(N-1), the outputs for every candidate index replayed from the state.
- a2 (one point): alpha*(N) of the Transformer's A.2 construction, from lib.science.a2.
- memoriser (one point): Thm 9's memoriser (Lemmas 36-38) built explicitly for n point-wise 1STR samples as the
  Elman network above with U = 0 and no recurrence, evaluated by BiRNN; its training error, test MSE and
  ||vec Theta||^2 against n, for the crossover with the norm of the trained runs that generalise.

What the page shows (summary, tables, claims, figures) is in lib.chapters.rnn_norm_growth.page, which reads these points
and is not part of this chapter's lib hash.

    >>> results = compute(P, Store("rnn_norm_growth", "quick"), device="cpu")
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from lib.science import a2, engine, qstr
from lib.science.models import Params, bidirectional_states, blinear
from lib.science.stats import generator
from lib.core.store import Store, environment

TASKS = ("1str", "simple")


def check_params(P: dict) -> list[tuple[str, str]]:
    """Constraints between keys (reported by lib.core.params.resolve before anything runs)."""
    bad = []
    if len(P["phase_N"]) < 2:
        bad.append(("phase_N", "at least two sequence lengths (the critical width is fitted against N)"))
    if len(P["widths"]) < 2 or sorted(P["widths"]) != list(P["widths"]) or len(set(P["widths"])) != len(P["widths"]):
        bad.append(("widths", "at least two widths, strictly increasing"))
    if any(N < 2 * P["q"] for N in P["construction_N"]):
        bad.append(("construction_N", f"every N >= 2 q = {2 * P['q']}"))
    if len(set(P["memo_n"])) < 2:
        bad.append(("memo_n", "at least two distinct training-set sizes (the norm is fitted against n)"))
    return bad


# ================================================================================== the Thm 7 construction
def distinct_codes(N: int, d_e: int, gen: torch.Generator) -> torch.Tensor:
    """N distinct Rademacher codes in {+-1/sqrt(d_e)}^{d_e} (rows that repeat an earlier row are redrawn).

    The accumulator needs only that codes differ (it compares them coordinate by coordinate); Assumption 3
    (overlaps <= 1/2) is not needed and random codes with d_e = floor(5 ln N) do not satisfy it."""
    if 2 ** d_e < N:
        raise ValueError(f"{N} distinct codes need d_e >= log2 N, got d_e={d_e}")
    E = qstr.rademacher_codes(N, d_e, gen)
    while True:
        _, inverse, counts = torch.unique(E, dim=0, return_inverse=True, return_counts=True)
        first = torch.full((len(counts),), N, dtype=torch.long).scatter_reduce(0, inverse, torch.arange(N), "amin")
        dup = first[inverse] != torch.arange(N)
        if not dup.any():
            return E
        E[dup] = qstr.rademacher_codes(int(dup.sum()), d_e, gen)


def relu(x):
    return torch.relu(x)


def dead_zone(x: torch.Tensor, b: float) -> torch.Tensor:
    """The rectifier of Prop. 26: relu(x - b) - relu(-x - b), exactly 0 where |x| <= b, x -+ b elsewhere."""
    return relu(x - b) - relu(-x - b)


def gate(x: torch.Tensor, off: torch.Tensor, B: float) -> torch.Tensor:
    """The exact ReLU gadget x * 1[off = 0] = relu(x - B off) - relu(-x - B off), for |x| <= B and off = 0 or off >= 1."""
    return relu(x - B * off) - relu(-x - B * off)


def transition(z: torch.Tensor, q: int, d: int, d_e: int, B: float) -> torch.Tensor:
    """Psi(z_i) = (x_i 1[t_l = i])_{l <= q} in R^(q d): the accumulator's transition, a depth-3 ReLU network of z_i
    = (x_i, w_i, w_t1, ..., w_tq) (the code's encoding) that ignores the state (alpha_N = 0 in Thm 7).

    Layer 1: relu(+-(w_i + w_tl)), coordinate by coordinate; |a + b| is 2c where the codes agree and 0 where they
    differ (c = 1/sqrt(d_e)). Layer 2: off_l = 2 relu(m_l - 1/2), with m_l = sum_k (1 - |a_k + b_k| / 2c) the number
    of coordinates where w_i and w_tl differ: 0 on a match, >= 1 otherwise (the dead zone makes the 0 exact in
    floating point). Layer 3: the gadget x_i 1[off_l = 0]. z (..., N, D) -> (..., N, q d)."""
    x, own = z[..., :d], z[..., d:d + d_e]
    tgt = z[..., d + d_e:d + (q + 1) * d_e].unflatten(-1, (q, d_e))            # (..., N, q, d_e)
    s = own.unsqueeze(-2) + tgt
    absval = relu(s) + relu(-s)                                                # layer 1
    c2 = 2 / math.sqrt(d_e)
    m = (1 - absval / c2).sum(-1)                                              # (..., N, q)
    off = 2 * relu(m - 0.5)                                                    # layer 2
    return gate(x.unsqueeze(-2), off.unsqueeze(-1), B).flatten(-2)             # layer 3: (..., N, q d)


def accumulate(psi: torch.Tensor, bias: float = 0.0, rectify: float | None = None):
    """The bidirectional accumulator h_(i+1) = h_i + f(Psi_i), run over a whole sequence at once.

    f(Psi) = Psi + bias (every coordinate: the C.1 setting, a transition that is only approximately right), then
    the dead-zone rectifier of width `rectify` if given (C.2). Returns (forward, backward, own): the forward
    state before position i (tokens < i), the backward state (tokens > i) and f at i itself, each (..., N, q d);
    the prediction reads forward + backward + own. A cumulative sum is the recurrence (the transition ignores h;
    `recurrent_accumulate` runs the same thing step by step)."""
    f = psi + bias
    if rectify is not None:
        f = dead_zone(f, rectify)
    cs = f.cumsum(-2)
    fwd = cs - f                                                               # sum over j < i
    bwd = cs[..., -1:, :] - cs                                                 # sum over j > i
    return fwd, bwd, f


def recurrent_accumulate(psi: torch.Tensor, bias: float = 0.0, rectify: float | None = None):
    """`accumulate` as an explicit recurrence, one step per token in each direction (for the tests)."""
    f = psi + bias
    if rectify is not None:
        f = dead_zone(f, rectify)
    N = f.shape[-2]
    h = torch.zeros_like(f[..., 0, :])
    fwd = []
    for i in range(N):
        fwd.append(h)
        h = h + f[..., i, :]
    h = torch.zeros_like(h)
    bwd = [None] * N
    for i in reversed(range(N)):
        bwd[i] = h
        h = h + f[..., i, :]
    return torch.stack(fwd, -2), torch.stack(bwd, -2), f


def readout(state: torch.Tensor, u: torch.Tensor, q: int) -> torch.Tensor:
    """The linear link read from the state (x_t1, ..., x_tq): sum_l <u, x_tl> / sqrt(q)."""
    return (state.unflatten(-1, (q, -1)) @ u).sum(-1) / math.sqrt(q)


def construction_task(N: int, d: int, q: int, simple: bool, task_seed: int, device="cpu") -> qstr.QSTR:
    task = qstr.QSTR(N=N, d=d, q=q, simple=simple, task_seed=task_seed, device=device)
    task.E = distinct_codes(N, task.d_e, generator(task_seed, "distinct-codes", N)).to(device)
    return task


def construction_spec(P: dict) -> dict:
    return {"kind": "construction", "N": P["construction_N"], "q": P["q"], "d": P["d"], "B": P["gadget_B"],
            "eps": P["eps"], "prompts": P["construction_prompts"], "seed": P["seed"], "task_seed": P["task_seed"]}


def run_construction(spec: dict, device: str) -> dict:
    """MSE of the accumulator on simple-qSTR and 1STR-style qSTR for every N; the state error of the biased
    transition with and without the rectifier. Prompts are processed in chunks of about 2^21 state entries."""
    t0 = time.perf_counter()
    q, d, B, eps = spec["q"], spec["d"], spec["B"], spec["eps"]
    beta = eps / (2 * math.sqrt(d))        # per-coordinate bias: |bias| = eps / 2 on each token block
    out = {k: [] for k in ("mse_simple", "mse_full", "err_plain", "err_rect", "max_abs_x", "d_e")}
    for N in spec["N"]:
        gen = generator(spec["seed"], "construction", N, device=device)
        acc = {k: [0.0, 0] for k in ("mse_simple", "mse_full")}
        err_plain = err_rect = max_x = 0.0
        chunk = max(1, min(spec["prompts"], 2 ** 21 // (N * q * d)))
        for simple in (True, False):
            task = construction_task(N, d, q, simple, spec["task_seed"], device)
            done = 0
            while done < spec["prompts"]:
                b = min(chunk, spec["prompts"] - done)
                X, T = task.draw(1, b, gen)
                z, y = task.encode(X, T)[0], task.labels(X, T)[0]
                psi = transition(z, q, d, task.d_e, B)
                fwd, bwd, own = accumulate(psi)
                pred = readout(fwd + bwd + own, task.u, q)
                key = "mse_simple" if simple else "mse_full"
                acc[key][0] += float((pred.double() - y.double()).pow(2).sum())
                acc[key][1] += y.numel()
                if simple:
                    max_x = max(max_x, float(X.abs().max()))
                    exact = sum(accumulate(psi.double()))            # (x_t1, ..., x_tq) at every position
                    for rect, name in ((None, "plain"), (beta, "rect")):
                        state = sum(accumulate(psi.double(), beta, rect))
                        e = float((state - exact).norm(dim=-1).max())
                        if name == "plain":
                            err_plain = max(err_plain, e)
                        else:
                            err_rect = max(err_rect, e)
                done += b
        out["mse_simple"].append(acc["mse_simple"][0] / acc["mse_simple"][1])
        out["mse_full"].append(acc["mse_full"][0] / acc["mse_full"][1])
        out["err_plain"].append(err_plain)
        out["err_rect"].append(err_rect)
        out["max_abs_x"].append(max_x)
        out["d_e"].append(qstr.embed_dim_rule(N))
    return {**out, "N": spec["N"], "beta": beta, "wall_s": time.perf_counter() - t0}


# ============================================================================ trained bidirectional RNNs
@dataclass
class BiRNN:
    """A bidirectional one-layer RNN with a per-run width: R runs share the widest shape `hidden`, and run r uses
    only its first widths[r] hidden units (the mask "buf.mask" zeroes the others after every step, so they never
    reach the output and get no gradient: run r is exactly a width-widths[r] network).

    cell "gru": torch's GRU cell, read out as the authors' BGRU does, Linear(2H, 1) on the states after position i
    (with a full mask, this is lib.science.models.BiGRU, same parameter names). cell "elman": h' = tanh(W_ih z + W_hh h +
    b), read out as in the theory's lower bound (Sec. 5.2, Thm 9): y_j = w_2 relu(U s_j + W_y z_j + b_1) + b_2 on
    the states s_j = (h->_(j-1), h<-_(j+1)) *before* position j, which do not depend on t_j. Initialisation is
    PyTorch's for each run's own width."""

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
        return bidirectional_states(z, p["rnn.w_ih"], p["rnn.w_hh"], p["rnn.b_ih"], p["rnn.b_hh"], p["buf.mask"])

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
        return blinear(relu(a), p["rd.w2"], p["rd.b2"]).squeeze(-1)

    @staticmethod
    def forward(p: Params, z: torch.Tensor) -> torch.Tensor:
        if "rd.U" in p:
            return BiRNN.read(p, BiRNN.pre_states(p, z), z)
        hs = BiRNN.states(p, z)
        return blinear(torch.cat([hs[:, 0], hs[:, 1]], -1), p["out.w"], p["out.b"]).squeeze(-1)

    @staticmethod
    def forward_at(p: Params, z: torch.Tensor, j: torch.Tensor) -> torch.Tensor:
        """forward(p, z)[:, b, j[b]] for every prompt b: z (R, B, N, D), j (B,) -> (R, B), the outputs the
        point-wise loss reads. The Elman readout is position-wise, so it is evaluated at those positions alone: a
        width-m readout on B prompts costs B m D instead of B N m D."""
        b = torch.arange(z.shape[1], device=z.device)
        if "rd.U" in p:
            return BiRNN.read(p, BiRNN.pre_states(p, z)[:, b, j], z[:, b, j])
        return BiRNN.forward(p, z)[:, b, j]


def lipschitz_terms(p: Params, s: torch.Tensor) -> dict:
    """Per run: L = ||w_2||_op, ||U||_op (U restricted to the run's live units), r_h = max ||s_j|| over the states
    given, and the product (L ||U||_op r_h)^2 that Prop. 8 bounds below by N / log(1 + d_h); ||vec Theta|| too."""
    mask = p["buf.mask"]
    U = p["rd.U"] * torch.cat([mask, mask], 1)[:, None, :]
    U_op = torch.linalg.matrix_norm(U.double(), ord=2)
    L = p["rd.w2"].double().flatten(1).norm(dim=1)
    r_h = s.double().norm(dim=-1).flatten(1).max(1).values
    return {"L": L, "U_op": U_op, "r_h": r_h, "product_sq": (L * U_op * r_h) ** 2, "theta": param_norm_sq(p).sqrt()}


def param_norm_sq(p: Params) -> torch.Tensor:
    """||vec Theta||^2 per run: every weight and bias, the per-run constants buf.* excepted."""
    return sum(v.double().pow(2).flatten(1).sum(1) for k, v in p.items() if not k.startswith("buf."))


def replay_phi(p: Params, task: qstr.QSTR, s: torch.Tensor, z_j: torch.Tensor, j: int) -> torch.Tensor:
    """Phi(s_j) = (f_y(s_j, z_j with t_j = k))_{k != j}: every output the state allows at position j, (R, P, N-1).

    s (R, P, 2H) states before position j; z_j (R, P, D) the encoded token j (its target slot is replaced)."""
    N, d, d_e = task.N, task.d, task.d_e
    ks = [k for k in range(N) if k != j]
    zk = z_j.unsqueeze(2).repeat(1, 1, len(ks), 1)                               # (R, P, N-1, D)
    zk[..., d + d_e:d + 2 * d_e] = task.E[ks]
    return BiRNN.read(p, s.unsqueeze(2).expand(-1, -1, len(ks), -1), zk)


def participation_ratio(s: torch.Tensor) -> torch.Tensor:
    """(sum lambda)^2 / sum lambda^2 of the covariance of each run's state cloud s (R, P, k)."""
    c = s.double() - s.double().mean(1, keepdim=True)
    lam = torch.linalg.svdvals(c).pow(2)
    return lam.sum(1) ** 2 / lam.pow(2).sum(1)


def packing(p: Params, task: qstr.QSTR, prompts: int, gen: torch.Generator) -> dict:
    """The Prop. 35 geometry at position j = N // 2 for every run of p: fix x_j (one draw per run), draw `prompts`
    prompts around it, and measure the states s_j, their participation ratio, Phi(s_j) replayed for every
    candidate index, its pairwise distances over sqrt(2 (N - 1)), and its MSE against g = (<u, x_k>)_{k != j}."""
    R, N, j = p["buf.mask"].shape[0], task.N, task.N // 2
    X, T = task.draw(R, prompts, gen)
    X[:, :, j] = X[:, :1, j]                                                     # one x_j per run
    z = task.encode(X, T)
    with torch.no_grad():
        s = BiRNN.pre_states(p, z)[:, :, j]                                      # (R, P, 2H)
        out = {"pr": participation_ratio(s).cpu().numpy()}
        if not task.simple:
            phi = replay_phi(p, task, s, z[:, :, j], j).double()                  # (R, P, N-1)
            g = (X[:, :, [k for k in range(N) if k != j]] @ task.u).double()
            dist = torch.cdist(phi, phi) / math.sqrt(2 * (N - 1))
            iu = torch.triu_indices(prompts, prompts, 1, device=dist.device)
            pair = dist[:, iu[0], iu[1]]
            gd = (torch.cdist(g, g) / math.sqrt(2 * (N - 1)))[:, iu[0], iu[1]]
            out |= {"dist_median": pair.median(1).values.cpu().numpy(), "dist_q05": pair.quantile(0.05, 1).cpu().numpy(),
                    "g_dist_median": gd.median(1).values.cpu().numpy(),
                    "phi_mse": (phi - g).pow(2).mean((1, 2)).cpu().numpy()}
    return out


def phase_spec(P: dict, arch: str, task: str, N: int) -> dict:
    return {"kind": "phase", "arch": arch, "task": task, "N": N, "widths": P["widths"], "d": P["d"],
            "n_seeds": P["n_seeds"], "seed": P["seed"], "task_seed": P["task_seed"], "lr": P["lr"],
            "weight_decay": P["weight_decay"], "batch_size": P["batch_size"], "check_every": P["check_every"],
            "max_samples": P["max_samples"], "n_test": P["n_test"], "threshold": P["threshold"],
            "readout_width": P["readout_width"], "packing_prompts": P["packing_prompts"]}


def run_phase(spec: dict, device: str) -> dict:
    """Every width x seed of one (architecture, task, N) as one batch through lib.science.engine.train_to_threshold."""
    t0 = time.perf_counter()
    N, S, widths = spec["N"], spec["n_seeds"], spec["widths"]
    task = qstr.QSTR(N=N, d=spec["d"], simple=spec["task"] == "simple", task_seed=spec["task_seed"], device=device)
    gen = generator(spec["seed"], "phase", spec["arch"], spec["task"], N, device=device)
    run_w = [w for w in widths for _ in range(S)]
    R = len(run_w)
    model = BiRNN(task.D, max(widths), spec["arch"], spec["readout_width"])
    init = model.init(R, gen, device, run_w)
    test = task.sample(R, spec["n_test"], gen)
    cfg = engine.TrainConfig(lr=spec["lr"], weight_decay=spec["weight_decay"], batch_size=spec["batch_size"],
                             check_every=spec["check_every"], max_samples=spec["max_samples"])
    runs = engine.train_to_threshold(model.forward, init, lambda n, b, g: task.sample(n, b, g), [test],
                                     [spec["threshold"]], cfg, gen)
    curves = runs.curves[:, :, 0]                                                # (C, R)
    best = np.nanmin(curves, 0)
    out = {"N": N, "widths": widths, "run_width": run_w, "samples": runs.samples[:, 0], "best_mse": best,
           "final_mse": np.array([c[np.isfinite(c)][-1] for c in curves.T]), "D": task.D, "d_e": task.d_e}
    if spec["arch"] == "elman":
        params = {k: v.to(device) for k, v in runs.params.items()}
        with torch.no_grad():
            s = BiRNN.pre_states(params, test[0][:, :500])
            lt = lipschitz_terms(params, s)
        out |= {k: v.cpu().numpy() for k, v in lt.items()}
        widest = {k: v[-S:] for k, v in params.items()}                          # the widest runs
        pk = packing(widest, task, spec["packing_prompts"], generator(spec["seed"], "packing", spec["task"], N, device=device))
        out |= {f"pack_{k}": v for k, v in pk.items()}
    out["wall_s"] = time.perf_counter() - t0
    return out


# ==================================================================================== the A.2 comparison
def a2_spec(P: dict) -> dict:
    return {"kind": "a2", "N": P["a2_N"], "task_seed": P["task_seed"], "off_target": P["off_target"], "draws": 4}


def run_a2(spec: dict, device: str) -> dict:
    """alpha*(N): the smallest alpha of Eq. A.2 (||W_QK||_op = alpha with the code's encoding) that keeps the median
    off-target attention mass below `off_target`, over every target and `draws` draws of Rademacher codes."""
    t0 = time.perf_counter()
    alpha_star = []
    for N in spec["N"]:
        d_e = qstr.embed_dim_rule(N)
        grams = a2.overlaps(spec["task_seed"], N, d_e, spec["draws"])           # once per N, not per bisection step
        alpha_star.append(a2.alpha_star(lambda a: a2.pooled(grams, a, 1.0)[0], spec["off_target"]))
    return {"N": spec["N"], "alpha_star": alpha_star, "wall_s": time.perf_counter() - t0}


# ============================================================== Theorem 9: the memoriser of Lemmas 36-38
def min_gap(z: torch.Tensor) -> float:
    """The smallest distance between two of the scalars z (inf for fewer than two)."""
    return float(z.sort().values.diff().min()) if z.numel() > 1 else math.inf


def lemma37_direction(x: torch.Tensor, gen: torch.Generator, tries: int = 32):
    """Lemma 37: a unit v whose projections z = x v (x (n, d)) are pairwise >= sqrt(pi) / (3 n^2) apart, with
    ||z||^2 <= 3 n. The lemma's probabilistic method made constructive: draw v uniformly on the sphere until both
    hold (a draw does with probability >= 1/3, by a union bound and Markov); after `tries` misses, the draw with
    the largest gap. Returns (v, z, gap, draws used, whether the lemma's event holds)."""
    n = x.shape[0]
    bound = math.sqrt(math.pi) / (3 * n ** 2)
    best = None
    for k in range(1, tries + 1):
        v = torch.randn(x.shape[1], generator=gen, device=x.device, dtype=x.dtype)
        v = v / v.norm()
        z = x @ v
        gap = min_gap(z)
        event = gap >= bound and float(z.pow(2).sum()) <= 3 * n
        if best is None or gap > best[2]:
            best = (v, z, gap, k, event)
        if event:
            return v, z, gap, k, True
    return best[0], best[1], best[2], tries, False


def relu_interpolant(z: torch.Tensor, y: torch.Tensor) -> dict:
    """Lemma 38: g(t) = sum_k a_k relu(w_k t - b_k) with m = n units and g(z_i) = y_i exactly, for distinct z.

    With z sorted and slopes s_i = (y_i - y_(i-1)) / (z_i - z_(i-1)), the proof's units are a' = (y_1, s_2 - y_1,
    s_3 - s_2, ..., s_n - s_(n-1)) at b' = (z_1 - 1, z_1, ..., z_(n-1)), w' = 1: g rises from 0 at z_1 - 1 to y_1
    and then follows the chords. The balancing rescale alpha = ((||z||^2 + n) eps^2 / ||y||^2)^(1/4) (eps the
    smallest gap, capped at 1 as the lemma assumes) gives a = alpha a', w = w' / alpha, b = b' / alpha: the same
    function, with ||a||^2 + ||w||^2 + ||b||^2 = O(||y|| sqrt(n + ||z||^2) / eps) (C.16). Also returned: the norm
    of the rescale that minimises it for these a', b', 2 ||a'|| sqrt(n + ||b'||^2).

        >>> relu_interpolant(torch.tensor([0.3, -1.0, 2.0]), torch.tensor([1.0, 0.5, -2.0]))["norm_sq"]"""
    n = z.numel()
    order = z.argsort()
    zs, ys = z[order], y[order]
    slopes = ys.diff() / zs.diff()                                              # s_2, ..., s_n
    a1 = torch.cat([ys[:1], slopes[:1] - ys[:1], slopes.diff()])[:n]           # n = 1: the first unit alone
    b1 = torch.cat([zs[:1] - 1, zs[:-1]])[:n]
    eps = min(min_gap(z), 1.0)
    alpha = float(((z.pow(2).sum() + n) * eps ** 2 / y.pow(2).sum()) ** 0.25)
    a, w, b = alpha * a1, torch.full_like(zs, 1 / alpha), b1 / alpha
    return {"a": a, "w": w, "b": b, "alpha": alpha, "eps": eps,
            "norm_sq": float(a.pow(2).sum() + w.pow(2).sum() + b.pow(2).sum()),
            "norm_sq_balanced": float(2 * a1.norm() * (n + b1.pow(2).sum()).sqrt())}


def interpolant(net: dict, t: torch.Tensor) -> torch.Tensor:
    """g(t) = sum_k a_k relu(w_k t - b_k) of `relu_interpolant`, for scalars t (T,), in chunks of about 2^22 units."""
    chunk = max(1, 2 ** 22 // net["a"].numel())
    return torch.cat([relu(c[:, None] * net["w"] - net["b"]) @ net["a"] for c in t.split(chunk)])


def rounding_scale(net: dict, v: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """R_i = sum_k |a_k| (|w_k| sum_d |v_d x_id| + |b_k|): the size of the terms the memoriser adds up at token x_i
    (its pre-activations' and its output's), so that float64 evaluates it to about u R_i, u = 2^-53. The terms
    cancel to a label of order 1, but their size grows like a power of n (Lemma 38's slopes are 1/eps ~ n^2): the
    memoriser is exact in exact arithmetic and ill-conditioned in floating point. A sum of K terms has a rounding
    error of about sqrt(K) u times their size (the probabilistic bound of Higham and Mary), K = n + D here."""
    c = (x * v).abs().sum(-1)
    return c * (net["a"] * net["w"]).abs().sum() + (net["a"] * net["b"]).abs().sum()


def memoriser_params(v: torch.Tensor, net: dict, D: int) -> Params:
    """The memoriser of Thm 9's proof (case d_h >= n, L_y = 2) as the book's Elman network, one run:
    Theta_h = 0 (the states are tanh(0) = 0), U = 0, readout width m = n with W_y rows w_k v^T on the token block
    and 0 on the position codes, b_1 = -b, w_2 = a, b_2 = 0, so y_j = sum_k a_k relu(w_k <v, x_j> - b_k): Lemma 38's
    g of Lemma 37's projection of the token at j. The state is zero and unread, so its width (1 here) changes
    neither the outputs nor ||vec Theta||; the theorem's d_h >= n is the width at which the case arises."""
    m, d = net["a"].numel(), v.numel()
    Wy = torch.zeros(1, m, D, dtype=v.dtype, device=v.device)
    Wy[0, :, :d] = net["w"][:, None] * v
    zero = lambda *shape: torch.zeros(1, *shape, dtype=v.dtype, device=v.device)
    return {"rnn.w_ih": zero(2, 1, D), "rnn.w_hh": zero(2, 1, 1), "rnn.b_ih": zero(2, 1), "rnn.b_hh": zero(2, 1),
            "rd.U": zero(m, 2), "rd.Wy": Wy, "rd.b": -net["b"][None], "rd.w2": net["a"][None, None], "rd.b2": zero(1),
            "buf.mask": torch.ones(1, 1, dtype=v.dtype, device=v.device)}


def pointwise_outputs(p: Params, task: qstr.QSTR, X: torch.Tensor, T: torch.Tensor, j: torch.Tensor) -> torch.Tensor:
    """BiRNN.forward_at on prompts (X, T) (one run) at positions j, in float64, in chunks of prompts whose inputs
    (chunk x N x D) and readout units (chunk x m) stay within about 2^22 entries."""
    chunk = max(1, 2 ** 22 // max(task.N * task.D, p["rd.w2"].shape[-1]))
    out = [BiRNN.forward_at(p, task.encode(X[:, s:s + chunk], T[:, s:s + chunk]).double(), j[s:s + chunk])
           for s in range(0, X.shape[1], chunk)]
    return torch.cat(out, 1)[0]


def memoriser_spec(P: dict) -> dict:
    return {"kind": "memoriser", "n": P["memo_n"], "draws": P["memo_draws"], "d": P["d"], "N": max(P["phase_N"]),
            "n_test": P["n_test"], "seed": P["seed"], "task_seed": P["task_seed"]}


def run_memoriser(spec: dict, device: str) -> dict:
    """For every n and draw: n 1STR prompts (d, N, task_seed of the chapter), one uniform position j per prompt
    and its label y = <u, x_(t_j)> (the point-wise loss), Lemma 37's direction for the tokens x_j, Lemma 38's
    interpolant, the Elman memoriser built from them, its largest training error and its test MSE on n_test fresh
    prompts (one uniform position each: the point-wise risk, equal in expectation to the averaged one) through
    BiRNN.forward_at, and ||vec Theta||^2. Also: BiRNN.forward (every position) on the first 16 training prompts
    against forward_at, the largest difference; and each training error in units of its float64 rounding scale
    u R_i (`rounding_scale`), the largest ratio."""
    t0 = time.perf_counter()
    task = qstr.QSTR(N=spec["N"], d=spec["d"], task_seed=spec["task_seed"], device=device)
    per_n = []                                     # per n, one dict of measurements per draw
    for n in spec["n"]:
        draws = []
        for r in range(spec["draws"]):
            gen = generator(spec["seed"], "memoriser", n, r, device=device)
            X, T = task.draw(1, n, gen)
            j = torch.randint(0, task.N, (n,), generator=gen, device=device)
            b = torch.arange(n, device=device)
            x, y = X[0, b, j].double(), task.labels(X, T)[0, b, j].double()
            v, z, gap, tries, event = lemma37_direction(x, gen)
            net = relu_interpolant(z, y)
            p = memoriser_params(v, net, task.D)
            with torch.no_grad():
                pred = pointwise_outputs(p, task, X, T, j)
                k = min(n, 16)
                full = BiRNN.forward(p, task.encode(X[:, :k], T[:, :k]).double())[0, b[:k], j[:k]]
                Xt, Tt = task.draw(1, spec["n_test"], gen)
                jt = torch.randint(0, task.N, (spec["n_test"],), generator=gen, device=device)
                yt = task.labels(Xt, Tt)[0, torch.arange(spec["n_test"], device=device), jt].double()
                pt = pointwise_outputs(p, task, Xt, Tt, jt)
                R = rounding_scale(net, v, x)
            draws.append({"norm_sq_balanced": net["norm_sq_balanced"], "theta_sq": float(param_norm_sq(p)),
                          "gap": gap, "tries": tries, "event": event, "train_err": float((pred - y).abs().max()),
                          "term_scale": float(R.max()), "rounding_ratio": float(((pred - y).abs() / (R * 2.0 ** -53)).max()),
                          "forward_gap": float((full - pred[:k]).abs().max()),
                          "test_mse": float((pt - yt).pow(2).mean()), "zero_mse": float(yt.pow(2).mean())})
        per_n.append(draws)
    out = {key: [[d[key] for d in draws] for draws in per_n] for key in per_n[0][0]}
    return {**out, "n": spec["n"], "N": spec["N"], "D": task.D, "wall_s": time.perf_counter() - t0}


# ============================================================================================== compute
def _one_thread(fn, spec: dict, device: str):
    with engine.one_cpu_thread(device):  # every tensor of this chapter is small
        return fn(spec, device)


def compute(P: dict, store: Store, device: str, force: bool = False, log=print) -> dict:
    """Every point of the chapter, loaded from the store when present, else computed and stored at once.
    The longest points (largest N) go first, so parallel workers (`compute --jobs`) finish together."""
    env = environment(device, store.chapter)

    def get(spec, fn, label):
        record, done = store.load_or_compute(spec, lambda: _one_thread(fn, spec, device), env, force)
        log(f"{label:<30} " + ("(claimed by another worker)" if record is None else
                               f"computed in {record['result']['wall_s']:6.1f} s" if done else "loaded from the store"))
        return record

    out = {"construction": get(construction_spec(P), run_construction, "construction"),
           "a2": get(a2_spec(P), run_a2, "A.2 alpha*(N)"),
           "memoriser": get(memoriser_spec(P), run_memoriser, "Thm 9 memoriser"), "phase": {}}
    for N in sorted(P["phase_N"], reverse=True):
        for arch in P["archs"]:
            for task in TASKS:
                out["phase"][(arch, task, N)] = get(phase_spec(P, arch, task, N), run_phase, f"{arch} {task} N={N}")
    return out
