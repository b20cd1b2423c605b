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
- a2 (one point): alpha*(N) of the Transformer's A.2 construction, from lib.head_lower_bound.
- memoriser (one point): Thm 9's memoriser (Lemmas 36-38) built explicitly for n point-wise 1STR samples as the
  Elman network above with U = 0 and no recurrence, evaluated by BiRNN; its training error, test MSE and
  ||vec Theta||^2 against n, for the crossover with the norm of the trained runs that generalise.

    >>> results = compute(P, Store("rnn_norm_growth", "quick"), device="cpu")
    >>> claims(P, results)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from . import engine, qstr
from .claims import Claim
from .head_lower_bound import a2_codes, a2_off_target
from .models import Params, bidirectional_states, blinear
from .stats import generator, log_crossing, loglog_slope
from .store import Store, environment, result_array

ARCHS = ("gru", "elman")
TASKS = ("1str", "simple")
LABELS = {"gru": "bidirectional GRU", "elman": "bidirectional Elman RNN, readout U",
          "1str": "1STR", "simple": "simple-1STR"}


def check_params(P: dict) -> list[tuple[str, str]]:
    """Constraints between keys (reported by lib.params.resolve before anything runs)."""
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
    (with a full mask, this is lib.models.BiGRU, same parameter names). cell "elman": h' = tanh(W_ih z + W_hh h +
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
        cell = "gru" if p["rnn.w_hh"].shape[-2] == 3 * p["rnn.w_hh"].shape[-1] else "elman"
        return bidirectional_states(z, p["rnn.w_ih"], p["rnn.w_hh"], p["rnn.b_ih"], p["rnn.b_hh"], cell, p["buf.mask"])

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
    """Every width x seed of one (architecture, task, N) as one batch through lib.engine.train_to_threshold."""
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
        Es = [a2_codes(spec["task_seed"], N, d_e, k) for k in range(spec["draws"])]
        mass = lambda a: float(torch.cat([a2_off_target(E, a, 1.0)[0] for E in Es]).median())
        lo, hi = 0.0, 1.0
        while mass(hi) > spec["off_target"]:
            hi *= 2
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if mass(mid) > spec["off_target"] else (lo, mid)
        alpha_star.append(hi)
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
    keys = ("norm_sq", "norm_sq_balanced", "theta_sq", "gap", "tries", "event", "y_sq", "z_sq", "train_err",
            "rounding_ratio", "term_scale", "forward_gap", "test_mse", "zero_mse")
    out = {k: [] for k in keys}
    for n in spec["n"]:
        row = {k: [] for k in keys}
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
            for key, val in (("norm_sq", net["norm_sq"]), ("norm_sq_balanced", net["norm_sq_balanced"]),
                             ("theta_sq", float(param_norm_sq(p))), ("gap", gap), ("tries", tries), ("event", event),
                             ("y_sq", float(y.pow(2).sum())), ("z_sq", float(z.pow(2).sum())),
                             ("train_err", float((pred - y).abs().max())), ("term_scale", float(R.max())),
                             ("rounding_ratio", float(((pred - y).abs() / (R * 2.0 ** -53)).max())),
                             ("forward_gap", float((full - pred[:k]).abs().max())),
                             ("test_mse", float((pt - yt).pow(2).mean())), ("zero_mse", float(yt.pow(2).mean()))):
                row[key].append(val)
        for key in keys:
            out[key].append(row[key])
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


# ============================================================================================== summary
def critical_width(widths, mse, threshold: float) -> float:
    """The width at which the median best test MSE first drops to `threshold` (interpolated in log width), NaN if
    no width gets there."""
    return log_crossing(widths, mse, threshold)


def phase_table(P: dict, results: dict) -> dict:
    """{(arch, task): {"N", "median" (len N, len widths), "reached" (fraction of seeds), "dstar", "slope"}}."""
    out = {}
    Ns = sorted(P["phase_N"])
    for arch in P["archs"]:
        for task in TASKS:
            med, frac = [], []
            for N in Ns:
                rec = results["phase"][(arch, task, N)]
                best = result_array(rec, "best_mse").reshape(len(P["widths"]), P["n_seeds"])
                reached = np.isfinite(result_array(rec, "samples")).reshape(len(P["widths"]), P["n_seeds"])
                med.append(np.median(best, 1))
                frac.append(reached.mean(1))
            dstar = [critical_width(P["widths"], m, P["threshold"]) for m in med]
            out[(arch, task)] = {"N": Ns, "median": np.array(med), "reached": np.array(frac), "dstar": np.array(dstar),
                                 "slope": loglog_slope(Ns, dstar)}
    return out


def norm_table(P: dict, results: dict) -> dict:
    """Elman runs of the widest width that reached the threshold: (L ||U|| r_h)^2 per N and task, and the fit."""
    out = {}
    S = P["n_seeds"]
    for task in TASKS:
        Ns, vals = [], []
        for N in sorted(P["phase_N"]):
            rec = results["phase"][("elman", task, N)]
            v, ok = result_array(rec, "product_sq")[-S:], np.isfinite(result_array(rec, "samples"))[-S:]
            Ns += [N] * int(ok.sum())
            vals += list(v[ok])
        Ns, vals = np.array(Ns, float), np.array(vals, float)
        slope, se = float("nan"), float("nan")
        if len(set(Ns)) >= 2:
            A = np.c_[np.log(Ns), np.ones(len(Ns))]
            coef, resid, *_ = np.linalg.lstsq(A, np.log(vals), rcond=None)
            slope = float(coef[0])
            if len(Ns) > 2:
                s2 = float(np.sum((np.log(vals) - A @ coef) ** 2) / (len(Ns) - 2))
                se = float(math.sqrt(s2 / np.sum((np.log(Ns) - np.log(Ns).mean()) ** 2)))
        out[task] = {"N": Ns, "value": vals, "slope": slope, "se": se}
    return out


def packing_table(P: dict, results: dict) -> dict:
    """Per task: N, participation ratio (mean over the widest runs) and its log-log slope; on 1STR the Phi distances."""
    out = {}
    for task in TASKS:
        Ns = sorted(P["phase_N"])
        recs = [results["phase"][("elman", task, N)] for N in Ns]
        pr = np.array([result_array(r, "pack_pr").mean() for r in recs])
        e = {"N": Ns, "pr": pr, "slope": loglog_slope(Ns, pr),
             "best": np.array([result_array(r, "best_mse")[-P["n_seeds"]:].mean() for r in recs])}
        if task == "1str":
            e |= {k: np.array([result_array(r, f"pack_{k}").mean() for r in recs]) for k in ("dist_median", "g_dist_median", "phi_mse")}
        out[task] = e
    return out


def a2_fit(results: dict) -> dict:
    r = results["a2"]["result"]
    N, a = np.array(r["N"], float), np.array(r["alpha_star"], float)
    slope, icpt = np.polyfit(np.log(N), a, 1)
    resid = a - (slope * np.log(N) + icpt)
    return {"N": N, "alpha": a, "slope": slope, "intercept": icpt, "r2": 1 - resid.var() / a.var() if a.var() > 0 else 1.0}


def memoriser_fit(results: dict) -> dict:
    """The memoriser's ||vec Theta||^2 against n: every draw, the median over draws, its log-log slope and the
    least-squares line log y = slope log n + intercept; the same for the optimally rescaled interpolant."""
    r = results["memoriser"]["result"]
    n = np.array(r["n"], float)
    out = {"n": n}
    for key, name in (("theta_sq", ""), ("norm_sq_balanced", "balanced_")):
        vals = np.array(r[key], float)
        med = np.median(vals, 1)
        slope = loglog_slope(n, med)
        out |= {f"{name}all": vals, f"{name}median": med, f"{name}slope": slope,
                f"{name}intercept": float(np.mean(np.log(med)) - slope * np.mean(np.log(n)))}
    return out


def crossover_table(P: dict, results: dict) -> dict:
    """Per N, the widest Elman runs on 1STR that reached the threshold: the lower bound of Thm 9's proof on the
    ||vec Theta||^2 of a network that generalises, L_y (L^2 ||U||^2)^(1/L_y) with L_y = 2 in the theorem's
    normalisation r_h = 1 (which moves r_h into U: 2 L ||U||_op r_h), and their measured ||vec Theta||^2; the median
    of each over runs, and n*, the n at which the memoriser's fitted ||vec Theta||^2 reaches it (NaN with no runs);
    the log-log slopes of the bound and of its n* against N."""
    fit = memoriser_fit(results)
    n_at = lambda g: float(np.exp((np.log(g) - fit["intercept"]) / fit["slope"])) if np.isfinite(g) else float("nan")
    S = P["n_seeds"]
    out = {k: [] for k in ("N", "runs", "bound", "theta_sq", "n_bound", "n_theta")}
    for N in sorted(P["phase_N"]):
        rec = results["phase"][("elman", "1str", N)]
        ok = np.isfinite(result_array(rec, "samples"))[-S:]
        bound = 2 * np.sqrt(result_array(rec, "product_sq")[-S:][ok])
        theta_sq = result_array(rec, "theta")[-S:][ok] ** 2
        med = lambda v: float(np.median(v)) if len(v) else float("nan")
        out["N"].append(N)
        out["runs"].append(int(ok.sum()))
        out["bound"].append(med(bound))
        out["theta_sq"].append(med(theta_sq))
        out["n_bound"].append(n_at(out["bound"][-1]))
        out["n_theta"].append(n_at(out["theta_sq"][-1]))
    out = {k: np.array(v) for k, v in out.items()}
    return out | {"bound_slope": loglog_slope(out["N"], out["bound"]), "n_bound_slope": loglog_slope(out["N"], out["n_bound"])}


def records(results: dict) -> list[dict]:
    return [results["construction"], results["a2"], results["memoriser"], *results["phase"].values()]


def run_summary(results: dict) -> str:
    recs = records(results)
    envs = sorted({(r["device"], r["commit"]) for r in recs})
    return (f"{len(recs)} stored points, {sum(r['result']['wall_s'] for r in recs):.0f} s of computation in all, "
            "computed on " + "; ".join(f"{dev} at commit `{c}`" for dev, c in envs) + ".")


# ================================================================================================ claims
def claims(P: dict, results: dict) -> list[Claim]:
    """Claims 9 and 10 of the reading guide (section 6), every number from this run's points."""
    out = []
    c = results["construction"]["result"]
    Ns, q, eps = c["N"], P["q"], P["eps"]
    mse = np.array(c["mse_simple"], float)
    out.append(Claim("9-exact", f"The hand-built accumulator (d_h = q d = {q * P['d']} per direction) on simple-qSTR, "
                     f"q={q}, N from {min(Ns)} to {max(Ns)}", "MSE < 1e-6 at every N", "Thm 7 / Prop. 26-28: exact construction",
                     f"max MSE {mse.max():.1e} over N = {Ns}; max |x| = {max(c['max_abs_x']):.2f} <= B = {P['gadget_B']}",
                     bool(mse.max() < 1e-6 and max(c["max_abs_x"]) <= P["gadget_B"])))
    plain, rect = np.array(c["err_plain"], float), np.array(c["err_rect"], float)
    slope = loglog_slope(Ns, plain)
    out.append(Claim("9-drift", f"With a per-step bias of norm eps/2 = {eps / 2:g} per token block, the unrectified "
                     "accumulator's state error grows linearly in N", "log-log slope in [0.9, 1.1]",
                     "App. C.1: error O(N eps)", f"slope {slope:.3f}; error {plain[0]:.2g} at N={Ns[0]}, {plain[-1]:.2g} at N={Ns[-1]}",
                     bool(0.9 <= slope <= 1.1)))
    out.append(Claim("9-rectified", "The same bias through the dead-zone rectifier: the state error stays below "
                     "sqrt(q) eps at every N", f"max error <= sqrt(q) eps = {math.sqrt(q) * eps:.3g}",
                     "App. C.2 / Prop. 26: exact zero off target", f"max {rect.max():.3g} (N={Ns[int(np.argmax(rect))]})",
                     bool(rect.max() <= math.sqrt(q) * eps)))
    full = np.array(c["mse_full"], float)
    out.append(Claim("9-fails-qstr", f"The same fixed-width network on qSTR (q={q}, every position its own indices; "
                     "1STR for q = 1) does not retrieve", "MSE >= 0.9 at every N (0 predicts 1)",
                     "Sec. 3.4 of the guide: the state would have to hold all N tokens",
                     f"MSE from {full.min():.2f} to {full.max():.2f}", bool(full.min() >= 0.9)))

    table = phase_table(P, results)
    for arch in P["archs"]:
        e1, es = table[(arch, "1str")], table[(arch, "simple")]
        found = [N for N, v in zip(e1["N"], e1["dstar"]) if np.isfinite(v)]
        fmt = lambda e: ", ".join(f"{v:.1f}" if np.isfinite(v) else "none" for v in e["dstar"])
        out.append(Claim(f"10a-width-1str-{arch}", f"{LABELS[arch]}: the critical width d_h*(N) at which the median best "
                         f"test MSE reaches {P['threshold']} on 1STR grows with N (N = {e1['N']})",
                         "log-log slope in [0.6, 1.2]", "Prop. 8: d_h >~ N / log(1 + L^2 ||U||^2), slope ~1",
                         f"slope {e1['slope']:.2f}; d_h* = {fmt(e1)}", bool(len(found) >= 2 and 0.6 <= e1["slope"] <= 1.2)))
        found_s = [N for N, v in zip(es["N"], es["dstar"]) if np.isfinite(v)]
        out.append(Claim(f"10a-width-simple-{arch}", f"{LABELS[arch]}: the same critical width on simple-1STR stays flat",
                         "log-log slope <= 0.2", "Thm 7: a fixed width suffices", f"slope {es['slope']:.2f}; d_h* = {fmt(es)}"
                         + (" (the smallest width of the grid reaches it: d_h* is at most that)" if np.all(es["dstar"] <= P["widths"][0]) else ""),
                         bool(len(found_s) >= 2 and es["slope"] <= 0.2)))

    if "elman" in P["archs"]:
        nt = norm_table(P, results)["1str"]
        out.append(Claim("10b-norm", f"Elman RNN of width {max(P['widths'])}: (L ||U||_op r_h)^2 of the runs when they reach "
                         f"test MSE {P['threshold']} on 1STR grows with N", "fitted log-log slope > 0",
                         "Prop. 8: (L ||U||)^2 >~ N / log(1 + d_h), slope ~1",
                         f"slope {nt['slope']:.2f}" + (f" ± {nt['se']:.2f} (SE)" if np.isfinite(nt["se"]) else "")
                         + f" over {len(nt['value'])} runs at N = {sorted(set(nt['N'].astype(int).tolist()))}",
                         bool(np.isfinite(nt["slope"]) and nt["slope"] > 0)))
        pk = packing_table(P, results)
        p1, ps = pk["1str"], pk["simple"]
        out.append(Claim("10c-effective-dim", "Participation ratio of the states s_j (widest Elman runs) grows with N on "
                         "1STR, not on simple-1STR", "slope >= 0.5 on 1STR, <= 0.3 on simple-1STR",
                         "Prop. 35: the state is a packing of e^(cN) points; simple-1STR needs one token",
                         f"1STR slope {p1['slope']:.2f} (PR " + ", ".join(f"{v:.1f}" for v in p1["pr"]) + f"); simple slope "
                         f"{ps['slope']:.2f} (PR " + ", ".join(f"{v:.1f}" for v in ps["pr"]) + ")",
                         bool(p1["slope"] >= 0.5 and ps["slope"] <= 0.3)))
        out.append(Claim("10c-separation", "Replayed outputs Phi(s_j) in R^(N-1) of different prompts stay apart at the "
                         "scale of the labels: median ||Phi - Phi'|| / sqrt(2(N-1)) at every N",
                         "in [0.6, 1.2] at every N (labels g: 1)", "Prop. 35, event E1: pairwise >= eps_g sqrt(N-1)",
                         ", ".join(f"N={N}: {v:.2f}" for N, v in zip(p1["N"], p1["dist_median"]))
                         + " (labels: " + ", ".join(f"{v:.2f}" for v in p1["g_dist_median"]) + ")",
                         bool(np.all((p1["dist_median"] >= 0.6) & (p1["dist_median"] <= 1.2)))))
    fit = a2_fit(results)
    out.append(Claim("10b-transformer", f"The Transformer's A.2 attention norm alpha*(N) (median off-target mass "
                     f"{P['off_target']}) grows like log N, N from {int(fit['N'][0])} to {int(fit['N'][-1])}",
                     "R^2 >= 0.95 of alpha* against ln N", "Lemma 11: ||W_QK|| <~ (2 d_e q / d) log(N ...)",
                     f"R^2 = {fit['r2']:.3f}, slope {fit['slope']:.2f} per unit of ln N; alpha* from {fit['alpha'][0]:.1f} "
                     f"to {fit['alpha'][-1]:.1f}", bool(fit["r2"] >= 0.95)))
    return out + memoriser_claims(P, results)


def memoriser_claims(P: dict, results: dict) -> list[Claim]:
    """Theorem 9's memoriser: exact on its training set (up to float64 rounding), useless on fresh prompts, its
    ||vec Theta||^2 growing like n^3, and Lemma 37's random direction. The crossover is a table, not a claim."""
    r = results["memoriser"]["result"]
    n = np.array(r["n"], float)
    tol = np.sqrt(n + r["D"])[:, None]                         # sqrt(K) u R: the rounding of a sum of K = n + D terms
    ratio = np.array(r["rounding_ratio"], float)
    fwd = np.array(r["forward_gap"], float) / (2.0 ** -53 * np.array(r["term_scale"], float))
    err, test, zero = (np.array(r[k], float) for k in ("train_err", "test_mse", "zero_mse"))
    worst = np.unravel_index(np.argmax(err), err.shape)
    fit = memoriser_fit(results)
    tries, gap = np.array(r["tries"]), np.array(r["gap"], float)
    first = tries == 1
    where = f"1STR (N = {r['N']}, d = {P['d']}), n = {int(n[0])} to {int(n[-1])}, {P['memo_draws']} draws per n"
    return [
        Claim("thm9-memoriser-exact", "Thm 9's memoriser (Lemmas 36-38 as the Elman readout of width m = n, U = 0, "
              f"recurrence 0), evaluated by BiRNN, on n training prompts of {where}", "every training error <= sqrt(n + D) "
              "u R_i, float64 rounding of its sums (R_i: the size of its terms); test MSE >= 0.9 in every draw",
              "Lemma 36 / proof of Thm 9: zero point-wise training loss; a memoriser does not generalise",
              f"max training error {err.max():.1e} (n = {int(n[worst[0]])}), at most {(ratio / tol).max():.2f} of the "
              f"rounding bound; BiRNN.forward at every position (16 prompts per set) equals forward_at to "
              f"{np.nanmax(fwd / tol):.2f} of it; test MSE median "
              f"{np.median(test):.2f}, min {test.min():.2f} (predicting 0: {np.median(zero):.2f})",
              bool((ratio <= tol).all() and (fwd <= tol).all() and test.min() >= 0.9)),
        Claim("thm9-memoriser-slope", "||vec Theta||^2 of the memoriser (median over draws) against n, log-log slope",
              "slope in [2.5, 3.5]: its w, b half is (n + ||b'||^2) ||y|| / (sqrt(n + ||z||^2) eps) ~ n / eps, with "
              "eps ~ n^-2", "Lemma 36: ||vec Theta||^2 = O(n^3)",
              f"slope {fit['slope']:.2f}; median {fit['median'][0]:.3g} (n = {int(n[0])}) to {fit['median'][-1]:.3g} "
              f"(n = {int(n[-1])}); the same interpolant at its norm-minimising rescale: slope {fit['balanced_slope']:.2f}",
              bool(2.5 <= fit["slope"] <= 3.5)),
        Claim("thm9-lemma37", "A uniform random unit v projects the n tokens to scalars at least sqrt(pi) / (3 n^2) "
              "apart with ||z||^2 <= 3n", "in at least 1/3 of the draws", "Lemma 37: probability >= 1/3",
              f"{int(first.sum())} of {first.size} first draws ({first.mean():.2f}); the v used met it in "
              f"{int(np.sum(r['event']))} of {first.size}; median gap x n^2 = {np.median(gap * n[:, None] ** 2):.2f} "
              f"(the lemma's sqrt(pi)/3 = {math.sqrt(math.pi) / 3:.2f})", bool(first.mean() >= 1 / 3)),
    ]


# =============================================================================================== figures
TASK_COLORS = {"1str": "#fc8d62", "simple": "#8da0cb"}


def plot_construction(P: dict, results: dict):
    """Left: MSE of the accumulator on simple-qSTR and qSTR against N. Right: state error of the biased transition,
    unrectified and rectified, with the lines N eps sqrt(q) / 2 and sqrt(q) eps."""
    from .plotting import figure

    c = results["construction"]["result"]
    N = np.array(c["N"], float)
    fig, axes = figure(2, 1, width=4.6, height=3.6)
    ax = axes[0, 0]
    ax.plot(N, c["mse_simple"], "o-", color=TASK_COLORS["simple"], label=f"simple-qSTR (q={P['q']})")
    ax.plot(N, c["mse_full"], "s-", color=TASK_COLORS["1str"], label=f"qSTR, independent indices (q={P['q']})")
    ax.axhline(1, color="gray", ls=":", lw=0.8, label="predicting 0")
    ax.set(xscale="log", xlabel="N (sequence length)", ylabel="test MSE", ylim=(-0.1, max(2.2, max(c["mse_full"]) + 0.2)),
           title=f"accumulator, d_h = q d = {P['q'] * P['d']} per direction")
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    ax.plot(N, c["err_plain"], "o-", color="#e78ac3", label="unrectified: f = Psi + bias")
    ax.plot(N, c["err_rect"], "s-", color="#66c2a5", label="rectified: dead zone of width bias")
    ax.plot(N, N * P["eps"] * math.sqrt(P["q"]) / 2, "k--", lw=0.8, label="N eps sqrt(q) / 2")
    ax.axhline(math.sqrt(P["q"]) * P["eps"], color="k", ls=":", lw=0.8, label="sqrt(q) eps")
    ax.set(xscale="log", yscale="log", xlabel="N", ylabel="max state error ||h - (x_t1, ..., x_tq)||",
           title=f"per-step bias eps/2 per token block, eps = {P['eps']:g}")
    ax.legend(fontsize=7)
    return fig


def plot_phase(P: dict, results: dict):
    """Per architecture: median best test MSE over (N, width) on 1STR and simple-1STR, and d_h*(N)."""
    from .plotting import figure

    table = phase_table(P, results)
    archs = P["archs"]
    fig, axes = figure(3, len(archs), width=3.5, height=3.1)
    W = np.array(P["widths"], float)
    for a, arch in enumerate(archs):
        for k, task in enumerate(TASKS):
            e, ax = table[(arch, task)], axes[a, k]
            im = ax.imshow(e["median"].T, origin="lower", aspect="auto", cmap="viridis_r", vmin=0, vmax=1)
            for i in range(len(e["N"])):
                for j in range(len(W)):
                    ax.text(i, j, f"{e['median'][i, j]:.2f}", ha="center", va="center", fontsize=6,
                            color="w" if e["median"][i, j] > 0.5 else "k")
            ax.set(xticks=range(len(e["N"])), xticklabels=e["N"], yticks=range(len(W)), yticklabels=P["widths"],
                   xlabel="N", ylabel="width d_h", title=f"{arch.upper()} on {LABELS[task]}")
            ax.grid(False)
        fig.colorbar(im, ax=axes[a, 1], label="median best test MSE")
        ax = axes[a, 2]
        for task in TASKS:
            e = table[(arch, task)]
            ok = np.isfinite(e["dstar"])
            ax.plot(np.array(e["N"])[ok], e["dstar"][ok], "o-", color=TASK_COLORS[task],
                    label=f"{LABELS[task]}: slope {e['slope']:.2f}")
        Ns = np.array(table[(arch, "1str")]["N"], float)
        ref = table[(arch, "1str")]["dstar"]
        if np.isfinite(ref[0]):
            ax.plot(Ns, ref[0] * Ns / Ns[0], "k:", lw=0.8, label="slope 1")
        ax.set(xscale="log", yscale="log", xlabel="N", ylabel=f"d_h* (MSE <= {P['threshold']})",
               title=f"{arch.upper()}: critical width")
        ax.set_xticks(Ns, [f"{v:.0f}" for v in Ns])
        _no_minor_x(ax)
        ax.legend(fontsize=7)
    return fig


def plot_norm(P: dict, results: dict):
    """Left: (L ||U||_op r_h)^2 of the widest Elman runs at the threshold, against N. Right: alpha*(N) of A.2."""
    from .plotting import COLORS, figure

    fig, axes = figure(2, 1, width=4.6, height=3.6)
    ax = axes[0, 0]
    for task, e in norm_table(P, results).items():
        if not len(e["N"]):
            continue
        ax.plot(e["N"], e["value"], "o", color=TASK_COLORS[task], alpha=0.7, label=f"{LABELS[task]}: slope {e['slope']:.2f}")
        Ns = np.array(sorted(set(e["N"])))
        ax.plot(Ns, [np.exp(np.log(e["value"][e["N"] == N]).mean()) for N in Ns], "-", color=TASK_COLORS[task])
    ax.set(xscale="log", yscale="log", xlabel="N", ylabel="(L ||U||_op r_h)^2",
           title=f"Elman RNN, d_h = {max(P['widths'])}, at test MSE {P['threshold']}")
    _no_minor_x(ax)
    ax.set_xticks(sorted(P["phase_N"]), [str(n) for n in sorted(P["phase_N"])])
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    fit = a2_fit(results)
    ax.plot(fit["N"], fit["alpha"], "^", color=COLORS["transformer"], label="alpha*(N) = ||W_QK||_op of A.2")
    ax.plot(fit["N"], fit["slope"] * np.log(fit["N"]) + fit["intercept"], "-", color=COLORS["transformer"],
            label=f"{fit['slope']:.2f} ln N + {fit['intercept']:.2f}, R^2 = {fit['r2']:.3f}")
    ax.set(xscale="log", xlabel="N (log scale)", ylabel="alpha*", title=f"Transformer, off-target mass {P['off_target']}")
    ax.legend(fontsize=7)
    return fig


def plot_packing(P: dict, results: dict):
    """Left: participation ratio of the states against N, both tasks. Right: pairwise distances of Phi, 1STR."""
    from .plotting import figure

    pk = packing_table(P, results)
    fig, axes = figure(2, 1, width=4.6, height=3.6)
    ax = axes[0, 0]
    for task, e in pk.items():
        ax.plot(e["N"], e["pr"], "o-", color=TASK_COLORS[task], label=f"{LABELS[task]}: slope {e['slope']:.2f}")
    Ns = np.array(pk["1str"]["N"], float)
    ax.plot(Ns, pk["1str"]["pr"][0] * Ns / Ns[0], "k:", lw=0.8, label="slope 1")
    ax.set(xscale="log", yscale="log", xlabel="N", ylabel="participation ratio of Cov(s_j)",
           title=f"effective dimension, Elman d_h = {max(P['widths'])}")
    ax.set_xticks(Ns, [f"{v:.0f}" for v in Ns])
    _no_minor_x(ax)
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    e = pk["1str"]
    ax.plot(Ns, e["dist_median"], "o-", color=TASK_COLORS["1str"], label="replayed outputs Phi(s_j)")
    ax.plot(Ns, e["g_dist_median"], "s--", color="gray", label="labels g = (<u, x_k>)_(k != j)")
    ax.plot(Ns, np.sqrt(np.clip(1 - e["phi_mse"], 0, None)), ":", color=TASK_COLORS["1str"], label="sqrt(1 - MSE of Phi)")
    ax.set(xscale="log", xlabel="N", ylabel="median ||Phi - Phi'|| / sqrt(2(N-1))", ylim=(0, 1.3),
           title="pairwise separation on 1STR")
    ax.set_xticks(Ns, [f"{v:.0f}" for v in Ns])
    _no_minor_x(ax)
    ax.legend(fontsize=7)
    return fig


def plot_memoriser(P: dict, results: dict):
    """Left: ||vec Theta||^2 of Thm 9's memoriser against n (every draw, medians, the fitted line). Middle: the same
    line near the crossovers, with the norms of the generalising Elman runs at each N (solid: the proof's lower bound
    2 L ||U|| r_h; dashed: their measured ||vec Theta||^2) and the crossovers n*. Right: Lemma 37, the smallest gap
    of the projected tokens against n, with the lemma's bound."""
    from matplotlib import colormaps
    from matplotlib.ticker import FuncFormatter

    from .plotting import figure

    r, fit, cx = results["memoriser"]["result"], memoriser_fit(results), crossover_table(P, results)
    n = fit["n"]
    line = lambda x: np.exp(fit["intercept"]) * x ** fit["slope"]
    fig, axes = figure(3, 1, width=3.9, height=3.6)
    ax = axes[0, 0]
    ax.plot(np.repeat(n, fit["all"].shape[1]), fit["all"].ravel(), ".", color="gray", alpha=0.4, ms=4, label="each training set")
    ax.plot(n, fit["median"], "o", color="k", ms=5, label="median")
    ax.plot(n, line(n), "k-", lw=1, label=f"fit: slope {fit['slope']:.2f}")
    ax.set(xscale="log", yscale="log", xlabel="n (training prompts)", ylabel="||vec Theta||^2", title="the memoriser")
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    levels = np.r_[cx["bound"], cx["theta_sq"]]
    stars = np.r_[cx["n_bound"], cx["n_theta"]]
    if np.isfinite(levels).any():
        lo, hi = np.nanmin(np.r_[stars, n[0]]) / 1.5, max(np.nanmax(stars) * 1.5, n[1])
        grid = np.geomspace(lo, hi, 50)
        ax.plot(grid, line(grid), "k-", lw=1, label="memoriser (fit)")
        keep = (n >= lo) & (n <= hi)
        ax.plot(np.repeat(n[keep], fit["all"].shape[1]), fit["all"][keep].ravel(), ".", color="gray", alpha=0.4, ms=4)
        ax.plot(n[keep], fit["median"][keep], "o", color="k", ms=5)
        colors = colormaps["viridis"](np.linspace(0, 0.85, len(cx["N"])))
        for i, N in enumerate(cx["N"]):
            for key, nkey, ls, mk in (("bound", "n_bound", "-", "o"), ("theta_sq", "n_theta", "--", "s")):
                if np.isfinite(cx[key][i]):
                    ax.axhline(cx[key][i], color=colors[i], ls=ls, lw=1, label=f"N={N}" if key == "bound" else None)
                    ax.plot(cx[nkey][i], cx[key][i], mk, color=colors[i], mfc="none", ms=8)
        ax.set(xlim=(lo, hi), ylim=(np.nanmin(levels) / 3, np.nanmax(levels) * 3))
    ax.set(xscale="log", yscale="log", xlabel="n", ylabel="||vec Theta||^2",
           title="crossovers n* (solid: bound, dashed: measured)")
    # a narrow log axis: 3, 4, 6, 10 rather than 3 x 10^0 ..., and no crowded labels at 7, 8, 9
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:e}"[0] in "2346" else ""))
    ax.legend(fontsize=7, loc="upper left")
    ax = axes[0, 2]
    gap = np.array(r["gap"], float)
    ax.plot(np.repeat(n, gap.shape[1]), gap.ravel(), ".", color="gray", alpha=0.5, ms=4, label="each training set")
    ax.plot(n, np.median(gap, 1), "o", color="k", ms=5, label="median")
    ax.plot(n, math.sqrt(math.pi) / (3 * n ** 2), "k--", lw=0.8, label="sqrt(pi) / (3 n^2)")
    ax.set(xscale="log", yscale="log", xlabel="n", ylabel="smallest gap min |z_i - z_k|", title="Lemma 37")
    ax.legend(fontsize=7)
    return fig


def _no_minor_x(ax):
    """No minor ticks on a log x axis whose ticks are the N that were run (a log y axis keeps its labelled minor
    ticks: within a decade they are the only labels)."""
    from matplotlib.ticker import NullLocator

    ax.xaxis.set_minor_locator(NullLocator())
