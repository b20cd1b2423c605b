"""The phase diagram's arm: bidirectional RNNs (lib.science.models.BiRNN) of every width of the grid and every seed,
one batch per (architecture, task, N) (`PhasePoint`, `run_phase`; narrower runs are the widest one with hidden units
masked to zero), each trained until it is *decided* (reached the threshold, or plateaued above it), and what is
measured on them where they stopped: for the Elman, the Lipschitz terms of Prop. 8 and the packing geometry of
Prop. 35. lib.chapters.rnn_norm_growth.compute lists the points.

Training to a decision (`train_to_decision`): lib.science.engine.train_to_threshold stops a run at the threshold or at
the sample cap; a run still above the threshold at the cap is then read as "this width cannot", although it may only
have been slow. The critical width of Prop. 8 is about what a width can represent, not about a training budget, so
this loop gives each run three possible ends (`STATUS`):

- reached: its test MSE fell to the threshold (its weights are kept from that check: the norm of Prop. 8's second
  inequality is measured on networks *at* a fixed accuracy);
- plateau: at the rate its best test MSE fell over its last doubling of training (samples s/2 to s), `factor`
  times more training would still leave it above the threshold (`hopeless`). A run is judged only once it has
  seen `min_samples` and `GUARD` (1.5) times the samples at which the first run of its batch reached the
  threshold (never while no run has): an RNN often sits near MSE 1 before it starts to learn, and a narrow one
  longer than a wide one, so that first flat stretch must not count;
- censored: neither by `max_samples` (undecided; the page marks it).

The training is engine.train_to_threshold's (AdamW, batched runs, compaction, evaluation); this module adds only the
plateau rule, through its `stop` hook.

    >>> from lib.science import models, qstr
    >>> task, gen = qstr.QSTR(N=4, d=4, simple=True), torch.Generator().manual_seed(0)
    >>> model = models.BiRNN(D=task.D, hidden=8, cell="gru")
    >>> r = train_to_decision(model.forward, model.init(3, gen), task.sample, task.sample(3, 256, gen), 0.8,
    ...                       engine.TrainConfig(max_samples=640), min_samples=320, factor=2, gen=gen)
    >>> [STATUS[s] for s in r["status"]]    # 640 samples are too few to reach MSE 0.8
    ['censored', 'censored', 'censored']
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from lib.science import engine, qstr
from lib.science.models import BiRNN, Params
from lib.science.seeds import generator


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
    min_samples: int         # samples before a run may be declared plateaued (`train_to_decision`)
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


# ======================================================================================== training to a decision
STATUS = ("reached", "plateau", "censored")
GUARD = 1.5    # a run is judged only after this many times the samples the fastest run of its batch needed


def hopeless(check_samples: list[int], best: np.ndarray, threshold: float, start: float, factor: float) -> np.ndarray:
    """(R,) bool: runs that, improving at their current rate per doubling of training, would still be above
    `threshold` after `factor` times the samples seen so far. The rate is the drop of the best MSE since half the
    samples, extrapolated linearly in log samples (learning curves flatten, so this is optimistic about the run).

    best (C, R): best-so-far MSE of each run at each check. False for every run before `start` samples."""
    s = check_samples[-1]
    half = int(np.searchsorted(check_samples, s / 2, side="right")) - 1      # the last check at or before s/2
    if s < start or half < 0:
        return np.zeros(best.shape[1], bool)
    rate = best[half] - best[-1]                                             # drop over the last doubling
    return best[-1] - rate * math.log2(factor) > threshold


def train_to_decision(forward, params: dict, sample, test: tuple, threshold: float, cfg: engine.TrainConfig,
                      min_samples: int, factor: float, gen: torch.Generator) -> dict:
    """Every run until it reaches `threshold`, plateaus or hits cfg.max_samples (see the module docstring).

    Returns samples (R,) at the first check below the threshold (NaN if never), status (R,), best (R,) best test
    MSE, curves (C, R) test MSE at each check (NaN once stopped), check_samples (C,), params: each run's weights
    where it stopped, on the CPU."""
    R = next(iter(params.values())).shape[0]
    plateau = np.zeros(R, bool)
    best_rows = []                                   # best-so-far MSE of every run at each check (frozen once stopped)

    def stop(check_samples, curves, samples, live):
        best_rows.append(np.fmin(best_rows[-1], curves[-1][:, 0]) if best_rows else curves[-1][:, 0])
        reached = np.isfinite(samples[:, 0])
        # no run is judged before GUARD x the samples the batch's fastest run needed (none before any run got there)
        start = max(min_samples, GUARD * np.nanmin(samples[:, 0])) if reached.any() else math.inf
        flat = hopeless(check_samples, np.array(best_rows)[:, live], threshold, start, factor) & ~reached[live]
        plateau[live[flat]] = True
        return flat

    runs = engine.train_to_threshold(forward, params, sample, [test], [threshold], cfg, gen, stop=stop)
    reached = np.isfinite(runs.samples[:, 0])
    return {"samples": runs.samples[:, 0], "status": np.where(reached, 0, np.where(plateau, 1, 2)),
            "best": np.nanmin(runs.curves[:, :, 0], 0), "curves": runs.curves[:, :, 0],
            "check_samples": runs.check_samples, "params": runs.params}


# ================================================================================== what the runs are measured on
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
    (`train_to_decision`): it reached the threshold, or plateaued above it, or (censored) neither by the cap."""
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
