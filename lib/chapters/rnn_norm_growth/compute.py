"""Mousavi-Hosseini et al. 2025, Prop. 8/35, Thm 7 and Thm 9: an RNN learns simple-qSTR at a fixed width, but on
1STR its width d_h or its readout norm must grow with N, because its state is a code with exponentially many words
(the packing argument); a memoriser of n samples costs a norm that does not depend on N, so a min-norm learner prefers it.

Four kinds of point (see `points`):

- construction (one point): Thm 7's hand-built accumulator (lib.science.rnn_constructions), d_h = q d per
  direction. Its MSE on simple-qSTR for N up to 10^4, on 1STR, and the state error of the variant whose
  transition carries a per-step bias, with and without the dead-zone rectifier.
- phase (one point per architecture, task and N): bidirectional RNNs (lib.science.models.BiRNN) of every width of
  the grid, all seeds, one batch (narrower runs are the widest one with hidden units masked to zero), trained
  online with AdamW until each run is decided (train.py beside it): its test MSE reached the threshold, or it
  plateaued above it, or (censored) neither by the sample cap. For the Elman RNN, whose readout is the theory's
  f_y = w_2 relu(U s_j + W_y z_j + b), also (L ||U||_op r_h)^2 of every run where it stopped (at the threshold), and
  the packing geometry of the widest runs: states s_j at a fixed position j and token x_j over many prompts, their
  participation ratio, and Phi(s_j) in R^(N-1), the outputs for every candidate index replayed from the state.
- a2 (one point): alpha*(N) of the Transformer's A.2 construction, from lib.science.a2.
- memoriser (one point): Thm 9's memoriser (lib.science.rnn_constructions) built for n point-wise 1STR samples as
  the Elman network above with U = 0 and no recurrence, evaluated by BiRNN; its training error, test MSE and
  ||vec Theta||^2 against n, for the crossover with the norm of the trained runs that generalise.

What the page shows (tables, claims) is in lib.chapters.rnn_norm_growth.page and its figures in figures.py beside
it: they read these points, and are not part of this chapter's lib hash.

    >>> from lib.core import params; P = params.resolve("rnn_norm_growth", "paper")
    >>> sorted({p.name.split()[0] for p in points(P)})    # lib.core.sweep.collect computes or loads them
    ['a2', 'construction', 'memoriser', 'phase']
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from lib.chapters.rnn_norm_growth.train import train_to_decision
from lib.core.sweep import Point
from lib.science import a2, engine, qstr
from lib.science.models import BiRNN, Params
from lib.science.rnn_constructions import (
    accumulate,
    construction_task,
    lemma37_direction,
    memoriser_params,
    readout,
    relu_interpolant,
    rounding_scale,
    transition,
)
from lib.science.seeds import generator

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
    if P.get("min_samples", 0) > P.get("max_samples", math.inf):
        bad.append(("min_samples", "at most max_samples (no run could be judged plateaued before the cap)"))
    if len(set(P["memo_n"])) < 2:
        bad.append(("memo_n", "at least two distinct training-set sizes (the norm is fitted against n)"))
    return bad


# ================================================================================== the Thm 7 construction
@dataclass(frozen=True)
class ConstructionPoint:
    """Thm 7's accumulator at every N of the grid."""
    N: tuple[int, ...]       # sequence lengths
    q: int                   # relevant tokens per position (simple-qSTR)
    d: int                   # token dimension
    B: float                 # the gadget's bound (exact for |x| <= B)
    eps: float               # transition error of the C.1/C.2 demonstration (bias eps/2 per token block)
    prompts: int             # test prompts per N and task
    seed: int                # seed of the prompts
    task_seed: int           # seed of the position codes and of u


def construction_spec(P: dict) -> ConstructionPoint:
    return ConstructionPoint(N=tuple(P["construction_N"]), q=P["q"], d=P["d"], B=P["gadget_B"], eps=P["eps"],
                             prompts=P["construction_prompts"], seed=P["seed"], task_seed=P["task_seed"])


def run_construction(spec: ConstructionPoint, device: str) -> dict:
    """MSE of the accumulator on simple-qSTR and 1STR-style qSTR for every N; the state error of the biased
    transition with and without the rectifier. Prompts are processed in chunks of about 2^21 state entries."""
    q, d, B = spec.q, spec.d, spec.B
    beta = spec.eps / (2 * math.sqrt(d))   # per-coordinate bias: |bias| = eps / 2 on each token block
    out = {k: [] for k in ("mse_simple", "mse_full", "err_plain", "err_rect", "max_abs_x", "d_e")}
    for N in spec.N:
        gen = generator(spec.seed, "construction", N, device=device)
        acc = {k: [0.0, 0] for k in ("mse_simple", "mse_full")}
        err = {"plain": 0.0, "rect": 0.0}
        max_x = 0.0
        chunk = max(1, min(spec.prompts, 2 ** 21 // (N * q * d)))
        for simple in (True, False):
            task = construction_task(N, d, q, simple, spec.task_seed, device)
            key = "mse_simple" if simple else "mse_full"
            done = 0
            while done < spec.prompts:
                b = min(chunk, spec.prompts - done)
                X, T = task.draw(1, b, gen)
                z, y = task.encode(X, T)[0], task.labels(X, T)[0]
                psi = transition(z, q, d, task.d_e, B)
                fwd, bwd, own = accumulate(psi)
                pred = readout(fwd + bwd + own, task.u, q)
                acc[key][0] += float((pred.double() - y.double()).pow(2).sum())
                acc[key][1] += y.numel()
                if simple:
                    max_x = max(max_x, float(X.abs().max()))
                    exact = sum(accumulate(psi.double()))            # (x_t1, ..., x_tq) at every position
                    for rect, name in ((None, "plain"), (beta, "rect")):
                        state = sum(accumulate(psi.double(), beta, rect))
                        err[name] = max(err[name], float((state - exact).norm(dim=-1).max()))
                done += b
        for key in ("mse_simple", "mse_full"):
            out[key].append(acc[key][0] / acc[key][1])
        out["err_plain"].append(err["plain"])
        out["err_rect"].append(err["rect"])
        out["max_abs_x"].append(max_x)
        out["d_e"].append(qstr.embed_dim_rule(N))
    return {**out, "N": list(spec.N), "beta": beta}


# ============================================================================ trained bidirectional RNNs
@dataclass(frozen=True)
class PhasePoint:
    """Every width and seed of one (architecture, task, N), trained as one batch."""
    arch: str                # gru or elman
    task: str                # 1str or simple
    N: int                   # sequence length
    widths: tuple[int, ...]  # hidden widths d_h per direction
    d: int                   # token dimension
    n_seeds: int             # runs per width
    seed: int                # seed of the initialisations, data streams, test sets and packing prompts
    task_seed: int           # seed of the position codes and of u
    lr: float                # AdamW learning rate
    weight_decay: float      # AdamW decoupled weight decay
    batch_size: int          # fresh prompts per step
    check_every: int         # steps between test evaluations
    max_samples: int         # training cap in samples (a run undecided there is censored)
    min_samples: int         # samples before a run may be declared plateaued (train.train_to_decision)
    plateau_factor: float    # plateaued: this many times more training, at its current rate, stays above threshold
    n_test: int              # test prompts per run
    threshold: float         # test MSE at which a run stops
    readout_width: int       # width m of the Elman readout
    packing_prompts: int     # prompts sharing x_j for the packing geometry (Elman)


def phase_spec(P: dict, arch: str, task: str, N: int) -> PhasePoint:
    return PhasePoint(arch=arch, task=task, N=N, widths=tuple(P["widths"]), d=P["d"], n_seeds=P["n_seeds"],
                      seed=P["seed"], task_seed=P["task_seed"], lr=P["lr"], weight_decay=P["weight_decay"],
                      batch_size=P["batch_size"], check_every=P["check_every"], max_samples=P["max_samples"],
                      min_samples=P["min_samples"], plateau_factor=P["plateau_factor"], n_test=P["n_test"],
                      threshold=P["threshold"], readout_width=P["readout_width"],
                      packing_prompts=P["packing_prompts"])


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
    return sum(v.double().pow(2).flatten(1).sum(1) for v in engine.trainable(p))


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
            out |= lipschitz_on_states(phi, s.double())
    return out


def lipschitz_on_states(phi: torch.Tensor, s: torch.Tensor) -> dict:
    """The readout's Lipschitz constant on the states it sees, and their radius: per run, Lip = the largest
    ||Phi(s) - Phi(s')|| / ||s - s'|| over pairs of the P states s (R, P, k), and rad = the largest ||s - mean s||;
    (Lip rad)^2 is Prop. 8's (L ||U||_op r_h)^2 with the worst-case Lipschitz bound replaced by the one measured on
    the state cloud and the ball by the cloud's own (invariant to rescaling s against U, which AdamW's weight
    growth inflates only through the function on the states, not through the product of separate norms)."""
    iu = torch.triu_indices(s.shape[1], s.shape[1], 1, device=s.device)
    ds = torch.cdist(s, s)[:, iu[0], iu[1]]
    dphi = torch.cdist(phi, phi)[:, iu[0], iu[1]]
    lip = torch.where(ds > 0, dphi / ds.clamp_min(1e-300), torch.zeros_like(ds)).max(1).values
    rad = (s - s.mean(1, keepdim=True)).norm(dim=-1).max(1).values
    return {"lip": lip.cpu().numpy(), "radius": rad.cpu().numpy(), "lipr_sq": ((lip * rad) ** 2).cpu().numpy()}


def run_phase(spec: PhasePoint, device: str) -> dict:
    """Every width x seed of one (architecture, task, N) as one batch, each run trained until it is decided
    (train.train_to_decision): it reached the threshold, or plateaued above it, or (censored) neither by the cap."""
    N, S, widths = spec.N, spec.n_seeds, list(spec.widths)
    task = qstr.QSTR(N=N, d=spec.d, simple=spec.task == "simple", task_seed=spec.task_seed, device=device)
    gen = generator(spec.seed, "phase", spec.arch, spec.task, N, device=device)
    run_w = [w for w in widths for _ in range(S)]
    R = len(run_w)
    model = BiRNN(task.D, max(widths), spec.arch, spec.readout_width)
    init = model.init(R, gen, device, run_w)
    test = task.sample(R, spec.n_test, gen)
    cfg = engine.TrainConfig(lr=spec.lr, weight_decay=spec.weight_decay, batch_size=spec.batch_size,
                             check_every=spec.check_every, max_samples=spec.max_samples)
    runs = train_to_decision(model.forward, init, task.sample, test, spec.threshold, cfg, spec.min_samples,
                             spec.plateau_factor, gen)
    out = {"N": N, "widths": widths, "samples": runs["samples"], "best_mse": runs["best"], "status": runs["status"],
           "D": task.D, "d_e": task.d_e}
    if spec.arch == "elman":
        params = {k: v.to(device) for k, v in runs["params"].items()}
        with torch.no_grad():
            s = BiRNN.pre_states(params, test[0][:, :500])
            lt = lipschitz_terms(params, s)
        out |= {k: v.cpu().numpy() for k, v in lt.items()}
        widest = {k: v[-S:] for k, v in params.items()}                          # the widest runs
        pk = packing(widest, task, spec.packing_prompts, generator(spec.seed, "packing", spec.task, N, device=device))
        out |= {f"pack_{k}": v for k, v in pk.items()}
    return out


# ==================================================================================== the A.2 comparison
@dataclass(frozen=True)
class A2Point:
    """alpha*(N) of Eq. A.2 at every N of the grid."""
    N: tuple[int, ...]       # sequence lengths
    task_seed: int           # seed of the Rademacher codes
    off_target: float        # off-target attention mass of the worst target that defines alpha*
    draws: int               # draws of the codes per N


def a2_spec(P: dict) -> A2Point:
    return A2Point(N=tuple(P["a2_N"]), task_seed=P["task_seed"], off_target=P["off_target"], draws=4)


def run_a2(spec: A2Point, device: str) -> dict:
    """alpha*(N): the smallest alpha of Eq. A.2 (||W_QK||_op = alpha with the code's encoding) that keeps the worst
    target's off-target attention mass below `off_target` (Lemma 11 is uniform over targets), on Rademacher codes that
    satisfy Assumption 3, averaged over `draws` draws; with the fits of ln N against powers of N (lib.science.a2)."""
    out = a2.sweep(spec.task_seed, spec.N, spec.off_target, spec.draws)
    return out | {"compare": a2.compare_fits(list(spec.N), out["alpha_star"])}


# ============================================================== Theorem 9: the memoriser of Lemmas 36-38
@dataclass(frozen=True)
class MemoriserPoint:
    """Thm 9's memoriser for every training-set size n."""
    n: tuple[int, ...]       # training-set sizes
    draws: int               # training sets (each with its own direction v) per n
    d: int                   # token dimension
    N: int                   # sequence length (the largest of the phase diagram)
    n_test: int              # fresh test prompts per training set
    seed: int                # seed of the training sets, directions and test prompts
    task_seed: int           # seed of the position codes and of u


def memoriser_spec(P: dict) -> MemoriserPoint:
    return MemoriserPoint(n=tuple(P["memo_n"]), draws=P["memo_draws"], d=P["d"], N=max(P["phase_N"]),
                          n_test=P["n_test"], seed=P["seed"], task_seed=P["task_seed"])


def pointwise_outputs(p: Params, task: qstr.QSTR, X: torch.Tensor, T: torch.Tensor, j: torch.Tensor) -> torch.Tensor:
    """BiRNN.forward_at on prompts (X, T) (one run) at positions j, in float64, in chunks of prompts whose inputs
    (chunk x N x D) and readout units (chunk x m) stay within about 2^22 entries."""
    chunk = max(1, 2 ** 22 // max(task.N * task.D, p["rd.w2"].shape[-1]))
    out = [BiRNN.forward_at(p, task.encode(X[:, s:s + chunk], T[:, s:s + chunk]).double(), j[s:s + chunk])
           for s in range(0, X.shape[1], chunk)]
    return torch.cat(out, 1)[0]


def run_memoriser(spec: MemoriserPoint, device: str) -> dict:
    """For every n and draw: n 1STR prompts (d, N, task_seed of the chapter), one uniform position j per prompt
    and its label y = <u, x_(t_j)> (the point-wise loss), Lemma 37's direction for the tokens x_j, Lemma 38's
    interpolant, the Elman memoriser built from them, its largest training error and its test MSE on n_test fresh
    prompts (one uniform position each: the point-wise risk, equal in expectation to the averaged one) through
    BiRNN.forward_at, and ||vec Theta||^2. Also: BiRNN.forward (every position) on the first 16 training prompts
    against forward_at, the largest difference; and each training error in units of its float64 rounding scale
    u R_i (`rounding_scale`), the largest ratio."""
    task = qstr.QSTR(N=spec.N, d=spec.d, task_seed=spec.task_seed, device=device)
    per_n = []                                     # per n, one dict of measurements per draw
    for n in spec.n:
        draws = []
        for r in range(spec.draws):
            gen = generator(spec.seed, "memoriser", n, r, device=device)
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
                Xt, Tt = task.draw(1, spec.n_test, gen)
                jt = torch.randint(0, task.N, (spec.n_test,), generator=gen, device=device)
                yt = task.labels(Xt, Tt)[0, torch.arange(spec.n_test, device=device), jt].double()
                pt = pointwise_outputs(p, task, Xt, Tt, jt)
                R = rounding_scale(net, v, x)
            draws.append({"norm_sq_balanced": net["norm_sq_balanced"], "theta_sq": float(param_norm_sq(p)),
                          "gap": gap, "tries": tries, "event": event, "train_err": float((pred - y).abs().max()),
                          "term_scale": float(R.max()), "rounding_ratio": float(((pred - y).abs() / (R * 2.0 ** -53)).max()),
                          "forward_gap": float((full - pred[:k]).abs().max()),
                          "test_mse": float((pt - yt).pow(2).mean()), "zero_mse": float(yt.pow(2).mean())})
        per_n.append(draws)
    out = {key: [[d[key] for d in draws] for draws in per_n] for key in per_n[0][0]}
    return {**out, "n": list(spec.n), "N": spec.N, "D": task.D}


# =============================================================================================== points
def points(P: dict) -> list[Point]:
    """Every point of the chapter: results["construction"], ["a2"], ["memoriser"] and ["phase"][(arch, task, N)].
    Every tensor here is small: one torch thread per point (a second one costs more than it brings)."""
    one = [Point(("construction",), construction_spec(P), run_construction, cost=1, threads=1),
           Point(("a2",), a2_spec(P), run_a2, cost=0.5, threads=1),
           Point(("memoriser",), memoriser_spec(P), run_memoriser, cost=1, threads=1)]
    # a phase point trains longer at larger N, the GRU (3 gates) and 1STR (more samples) longest
    return one + [Point(("phase", (arch, task, N)), phase_spec(P, arch, task, N), run_phase, threads=1,
                        cost=N * (2 if arch == "gru" else 1) * (2 if task == "1str" else 1))
                  for N in P["phase_N"] for arch in P["archs"] for task in TASKS]


def footprint(P: dict) -> list[tuple[str, float, str]]:
    """The biggest points' largest allocations in bytes, each with the parameters that set it (lib.core.params refuses
    a profile whose point cannot fit the device): the phase runs' test sets, weights and a training step's states,
    the A.2 Gram matrices, and the memoriser's prompts and units."""
    N, H = max(P["phase_N"]), max(P["widths"])
    D = P["d"] + 2 * qstr.embed_dim_rule(N)
    R = P["n_seeds"] * len(P["widths"])
    step = R * P["batch_size"] * N * (D + 2 * 4 * H + P["readout_width"]) * 4 * 4     # inputs, gates, readout, grads
    NA, n = max(P["a2_N"]), max(P["memo_n"])
    return [("n_test, n_seeds, widths, phase_N", R * P["n_test"] * N * (D + 1) * 4, "the phase runs' test sets"),
            ("widths, n_seeds, readout_width", 4 * R * (2 * 3 * (D + H + 2) * H + P["readout_width"] * (2 * H + D)) * 4,
             "the RNNs' weights, gradients and AdamW state"),
            ("batch_size, widths, n_seeds, phase_N", step, "a training step's states"),
            ("packing_prompts, widths, phase_N", P["n_seeds"] * P["packing_prompts"] * N * (D + 2 * H) * 8,
             "the packing geometry's prompts and states"),
            ("a2_N", 3 * 4 * NA * NA * 8, "the A.2 Gram matrices"),
            ("memo_n, memo_draws", 8 * n * (N * D + 4 * P["d"]) * 8 + 8 * P["n_test"] * N * D * 8,
             "the memoriser's prompts and units")]
