"""Seed 004 (Wang & E): relative positional encodings of T5 type, p * phi(t - s), and the memory kernels they can
build. A dot-product-free attention layer with H heads realises exactly the kernels sum_h alpha_h e^{-p_h s} (lin
RPE, phi = -s) or sum_h alpha_h s^{-p_h} (log RPE, phi = -log s), once each head's softmax normaliser is folded
into its value; so how well H heads approximate a memory kernel rho is a question about sums of exponentials or
powers. Theorems 4.1 and 6.1 of the paper give upper bounds; this module measures the best H-head kernel directly.

Sweep points (see `points`):

- exact: the small exact checks (T5 bucket table, head allocation, bound crossover, Prop. B.1, the LP of
  Prop. 5.2(B), the folding identity), computed by exact.py beside this module with the paper's RPEs.
- fit (one per kernel, RPE family and window S): the best H-head kernel for every H of the grid, by variable
  projection inside l1 reweighting rounds (lib.science.numerics), from several starts, in float64; l1 and l2
  errors on s >= 1 (the residual stream carries x_t, so the s = 0 tap is free for both families).
- train (one per training kernel and context length): one-layer DP-free models with lin or log RPE, attention as a
  causal FFT convolution, trained with lib.science.engine on x_t ~ U[-1, 1] and the linear target y = rho * x,
  for which the test MSE is Var(x) ||k - rho||_2^2 exactly.

This module is the computation only (what the stored numbers depend on); the page's readers of the stored points,
claims and tables are in page.py beside it, its figures in figures.py, and no computation imports either.

    >>> results = collect(points(P), Store("rpe_decay", "quick"), "cpu"); page.claims(P, results)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from lib.chapters.rpe_decay import exact
from lib.core.sweep import Point
from lib.science import engine
from lib.science.numerics import separable_l1_fit
from lib.science.stats import generator, seed_of

FAMILIES = ("lin", "log")
EXACT_MAX = 4096      # windows up to this many taps are summed exactly; longer ones on a geometric grid
N_EXACT, N_GEO = 512, 400
VAR_X = 1.0 / 3.0     # Var(x) for x ~ U[-1, 1]
FLOOR = 1e-6         # below this the fits are at float64's ill-conditioning floor (guide: ~6e-7)
GROWTH = 1.5         # check 13: an error above GROWTH x the best at smaller H is an optimiser failure
REFIT = 4            # ... and is refitted with REFIT x, then REFIT^2 x the restarts (the guide: "rerun with more restarts")
UNDERFLOW = 230.0     # e^-230 ~ 1e-100: smaller column entries are set to 0 (their squares would be subnormal, ~100x slower)


# ------------------------------------------------------------------------------- the H-head kernel's columns
def basis(family: str, theta: np.ndarray, s: np.ndarray):
    """Columns of the folded H-head kernel and their derivatives in theta: lin p = e^theta, column e^{-p s};
    log p = 1 + e^theta (p > 1, the paper's class), column s^{-p}. Returns (E, dE/dtheta), each (len(s), H)."""
    if family == "lin":
        p = np.exp(theta)
        arg = -np.outer(s, p)
        E = np.where(arg > -UNDERFLOW, np.exp(np.maximum(arg, -UNDERFLOW)), 0.0)
        return E, -s[:, None] * p[None, :] * E
    q = np.exp(theta)
    L = np.log(s)
    arg = -np.outer(L, 1.0 + q)
    E = np.where(arg > -UNDERFLOW, np.exp(np.maximum(arg, -UNDERFLOW)), 0.0)
    return E, -L[:, None] * q[None, :] * E


def rates(family: str, theta) -> np.ndarray:
    theta = np.asarray(theta, float)
    return np.exp(theta) if family == "lin" else 1.0 + np.exp(theta)


# ------------------------------------------------------------------------------------------- the kernels
@dataclass(frozen=True)
class Kernel:
    """A memory kernel rho(s) (see `kernel_values`): its kind, and the parameters of that kind (None for others)."""
    kind: str                  # power, exp, bump or delta
    beta: float | None = None  # power: (s + 1)^-beta
    tau: float | None = None   # exp: e^(-s / tau) / (1 + s)
    T: int | None = None       # bump and delta: the distance of the memory
    w: float | None = None     # bump: its width, e^(-(s - T)^2 / (2 w^2))


def kernel_name(k: Kernel) -> str:
    return {"power": lambda: f"power beta={k.beta:g}", "exp": lambda: f"exp cutoff tau={k.tau:g}",
            "bump": lambda: f"bump T={k.T}, w={k.w:g}", "delta": lambda: f"delta T={k.T}"}[k.kind]()


def kernel_values(k: Kernel, s: np.ndarray) -> np.ndarray:
    """The memory kernel rho(s), unnormalised (normalise with `grid`'s weights)."""
    s = np.asarray(s, float)
    if k.kind == "power":
        return (s + 1.0) ** -k.beta
    if k.kind == "exp":
        return np.exp(-s / k.tau) / (1.0 + s)
    if k.kind == "bump":
        return np.exp(-((s - k.T) ** 2) / (2.0 * k.w ** 2))
    if k.kind == "delta":
        return (s == k.T).astype(float)
    raise ValueError(f"unknown kernel {k!r}")


def grid(S: float) -> tuple[np.ndarray, np.ndarray]:
    """Distances s >= 1 of a window of S taps (s = 0..S-1) and weights w with sum_s f(s) ~ sum_i w_i f(s_i):
    every integer when S <= EXACT_MAX, else the integers up to N_EXACT and a geometric grid of N_GEO points up to
    S - 1 with trapezoid weights (the sums over 10^12 taps the long windows need)."""
    last = int(S) - 1
    if last <= EXACT_MAX:
        s = np.arange(1, last + 1, dtype=float)
        return s, np.ones_like(s)
    head = np.arange(1, N_EXACT + 1, dtype=float)
    tail = np.geomspace(N_EXACT + 1, last, N_GEO)
    return np.concatenate([head, tail]), np.concatenate([np.ones_like(head), np.gradient(tail)])


def target(k: Kernel, S: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s, w, rho) with rho normalised to l1 norm 1 on s >= 1 of the window."""
    s, w = grid(S)
    rho = kernel_values(k, s)
    rho = np.where(np.abs(rho) < 1e-200, 0.0, rho)          # no subnormal numbers (they slow the fitter ~100x)
    return s, w, rho / np.sum(w * np.abs(rho))


def window_of(P: dict, k: Kernel) -> float:
    """Long windows for the decaying kernels, 6 T for the sparse ones (the reading guide's P4), at least 64 taps (more
    than any H of the grids: with fewer taps than heads the fit is degenerate)."""
    if k.kind in ("power", "exp"):
        return float(P["window"])
    return float(max(P["sparse_window_factor"] * k.T, 64))


# --------------------------------------------------------------------------------------------- the fitter
def theta_box(family: str, S: float) -> tuple[float, float, float, float]:
    """(lo, hi) bounds of theta and (lo, hi) of the starting rates: lin p in [1/S, 2] (p down to e^-45 allowed),
    where S is the extent of the target (see `extent`); log p - 1 in [0.05, 8] (down to e^-12)."""
    if family == "lin":
        return -45.0, 6.0, math.log(1.0 / S), math.log(2.0)
    return -12.0, 5.0, math.log(0.05), math.log(8.0)


def extent(s: np.ndarray, w: np.ndarray, rho: np.ndarray, tail: float = 1e-12) -> float:
    """The first distance s whose tail mass (at s and beyond) is below `tail` (at least 2): lin heads start with
    decay lengths up to it, not up to the window (for e^(-s/10)/(1+s) on 10^12 taps: about 250, not 10^12)."""
    mass = np.cumsum((w * np.abs(rho))[::-1])[::-1]
    beyond = np.nonzero(mass < tail)[0]
    return float(max(s[beyond[0]] if len(beyond) else s[-1], 2.0))


def fit_kernel(rho, s, w, family: str, H: int, S: float, restarts: int = 4, rounds: int = 4, seed: int = 0,
               max_nfev: int = 100, geometric_start: bool = True) -> dict:
    """Best H-head kernel of one family for the target rho on the points s with weights w, by
    `lib.science.numerics.separable_l1_fit` (variable projection, IRLS rounds towards the l1 error) over the rates
    theta in `theta_box`. Restart 0 starts from rates geometric on the whole starting range (unless
    `geometric_start` is False: a refit, which has fitted that start already), every other restart from rates on a
    random sub-range with jitter. Returns the best l1 error with its rates p and values alpha, and the best l2 error.
    """
    rng = np.random.default_rng(seed)
    lo, hi, a0, b0 = theta_box(family, min(S, extent(s, w, rho)))
    starts = []
    for r in range(restarts):
        geometric = r == 0 and geometric_start
        a, b = (a0, b0) if geometric else tuple(np.sort(rng.uniform(a0, b0, 2)))
        th = np.linspace(a, b, H) if H > 1 else np.array([(a + b) / 2])
        starts.append(th if geometric else th + rng.normal(0.0, 0.3, H))
    best = separable_l1_fit(lambda t: basis(family, t, s), rho, w, starts, lo, hi, rounds, max_nfev * H)
    best["p"] = rates(family, best["theta"])
    return best


@dataclass(frozen=True)
class FitPoint:
    """The best H-head kernels of one family for one kernel and window, every H of the grid."""
    kernel: Kernel               # the target memory kernel
    family: str                  # lin or log RPE
    S: float                     # window: taps s = 0..S-1
    H: tuple[int, ...]           # numbers of heads, each fitted independently
    restarts: int                # starts per H (more for a refit, see `_fit_all`)
    rounds: int                  # IRLS rounds towards the l1 error after the l2 fit
    max_nfev: int                # Levenberg-Marquardt evaluations per head and round
    seed: int                    # seed of the random starts
    grid: tuple[int, int, int]   # the window's quadrature: (EXACT_MAX, N_EXACT, N_GEO) of `grid`


def fit_spec(P: dict, k: Kernel, family: str, S: float, H_list=None) -> FitPoint:
    return FitPoint(kernel=k, family=family, S=float(S), H=tuple(H_list or P["H_grid"]), restarts=P["restarts"],
                    rounds=P["irls_rounds"], max_nfev=P["max_nfev"], seed=P["seed"], grid=(EXACT_MAX, N_EXACT, N_GEO))


def run_fit(spec: FitPoint, device: str) -> dict:
    """Every H of the point, each fitted independently (no warm start from a smaller H: check 13 tests that), on
    the CPU whatever the device. One BLAS thread: the fits are many small SVDs, and on a shared 2-core machine a
    second thread adds spin-waiting, not speed (the point's torch thread is set by Point(threads=1))."""
    t0 = time.perf_counter()
    s, w, rho = target(spec.kernel, spec.S)
    out = {"H": spec.H, "l1": [], "l2": [], "p": [], "alpha": [], "nfev": [], "restarts": []}
    with threadpool_limits(limits=1):
        _fit_all(spec, s, w, rho, out)
    out["wall_s"] = time.perf_counter() - t0
    return out


def grows_with_H(best_below: float, e: float) -> float:
    """How far the error e at H exceeds the best at smaller H (1.0 where it does not, or where that best is at the
    float64 floor): H heads contain every smaller set, so a ratio above GROWTH is an optimiser failure."""
    return e / best_below if best_below > FLOOR else 1.0


def _fit_all(spec, s, w, rho, out):
    """Fit each H; where the error grows with H beyond GROWTH, refit with REFIT x then REFIT^2 x the restarts from
    fresh random starts and keep the best (the reading guide's remedy for check 13). `out["restarts"]` records the
    starts each H took, so the page can say which fits needed more; check 13 still fails if none of them helps."""
    for i, H in enumerate(spec.H):
        best, l2, starts, nfev = None, math.inf, 0, 0
        for attempt in range(3):
            n = spec.restarts * REFIT ** attempt
            f = fit_kernel(rho, s, w, spec.family, H, spec.S, n, spec.rounds,
                           seed_of(spec.seed, "fit", kernel_name(spec.kernel), spec.family, spec.S, H,
                                   *(["refit", attempt] if attempt else [])), spec.max_nfev,
                           geometric_start=attempt == 0)
            starts, nfev, l2 = starts + n, nfev + f["nfev"], min(l2, f["l2"])     # l2: the best of every attempt
            best = f if best is None or f["l1"] < best["l1"] else best
            if i == 0 or grows_with_H(min(out["l1"]), best["l1"]) <= GROWTH:
                break
        for key in ("l1", "p", "alpha"):
            out[key].append(best[key])
        out["l2"].append(l2)
        out["nfev"].append(nfev)
        out["restarts"].append(starts)


@dataclass(frozen=True)
class ExactPoint:
    """The exact checks of the reading guide (checks 1-6)."""
    seed: int                    # seed of the random cases (allocation, folding inputs)
    fold_S: int                  # window of the folding identity


def exact_spec(P: dict) -> ExactPoint:
    return ExactPoint(seed=P["seed"], fold_S=4096)


def run_exact(spec: ExactPoint, device: str) -> dict:
    """Checks 1-6 (`lib.chapters.rpe_decay.exact.checks`), in numpy whatever the device."""
    return exact.checks(spec.seed, spec.fold_S)


# ----------------------------------------------------------------------------------------- the training
def softplus_inv(y: torch.Tensor) -> torch.Tensor:
    return y + torch.log(-torch.expm1(-y))


def model_kernel(params: dict, S: int, theta_scale: float) -> torch.Tensor:
    """(R, S) effective kernel k(s) of a one-layer DP-free model: sum_h c_h softmax_s(p_h phi(s)) + w0 1{s=0}.

    Per run: heads h with buf.mask = 1 (the run's H), RPE type from buf.log (0: lin, p = softplus(theta);
    1: log, p = 1 + softplus(theta)); theta = theta_scale * u, so that AdamW's step on theta is theta_scale times
    its step on the other weights (a separate learning rate for the rates through one optimiser)."""
    u, c, w0 = params["u"], params["c"], params["w0"]
    theta = theta_scale * u
    is_log = params["buf.log"][:, :, None] > 0.5                        # (R, 1, 1)
    p = torch.where(is_log, 1.0 + torch.nn.functional.softplus(theta)[:, :, None],
                    torch.nn.functional.softplus(theta)[:, :, None])    # (R, H, 1)
    s = torch.arange(S, device=u.device, dtype=u.dtype)
    phi = torch.where(is_log, -torch.log(s.clamp(min=1.0)), -s)         # (R, 1, S)
    bias = (p * phi).masked_fill(is_log & (s == 0), -math.inf)
    a = torch.softmax(bias, -1)
    k = torch.einsum("rh,rhs->rs", c * params["buf.mask"], a)
    return torch.cat([k[:, :1] + w0, k[:, 1:]], 1)


def causal_conv(x: torch.Tensor, k: torch.Tensor, S: int) -> torch.Tensor:
    """(R, B, S): sum_{s<S} k(s) x_{t-s} at the last S positions t = S..2S-1 of sequences x (R, B, 2S), by FFT of
    size 2S (no wrap-around reaches those positions); k (R, S) or (S,)."""
    kf = torch.fft.rfft(k, n=2 * S)
    y = torch.fft.irfft(torch.fft.rfft(x, n=2 * S) * (kf[:, None, :] if kf.dim() == 2 else kf), n=2 * S)
    return y[..., S:]


@dataclass(frozen=True)
class TrainPoint:
    """All (family, H, seed) training runs of one kernel and context length, as one batch."""
    kernel: Kernel               # the target memory kernel
    S: int                       # context length: the window, and the loss on the last S of 2S positions
    H: tuple[int, ...]           # numbers of heads
    seeds: int                   # runs per (family, H)
    steps: int                   # AdamW steps in all
    batch: int                   # fresh sequences per step
    lr: float                    # AdamW learning rate of the values
    theta_lr: float              # AdamW learning rate of the rates
    decay_frac: float            # the last fraction of the steps, at a tenth of the learning rates
    n_test: int                  # test sequences
    checks: int                  # test evaluations over the run
    seed: int                    # seed of the initialisation, data and test sets


def train_spec(P: dict, k: Kernel, S: int) -> TrainPoint:
    return TrainPoint(kernel=k, S=int(S), H=tuple(P["train_H"]), seeds=P["train_seeds"], steps=P["train_steps"],
                      batch=P["train_batch"], lr=P["train_lr"], theta_lr=P["theta_lr"], decay_frac=P["decay_frac"],
                      n_test=P["train_n_test"], checks=P["train_checks"], seed=P["seed"])


def train_init(spec: TrainPoint, gen: torch.Generator, device) -> tuple[dict, list]:
    """Runs (family, H, seed) in that order, each with Hmax head slots and a mask. Initial rates as the reading
    guide proposes: lin p log-uniform on [1/S, 1], log p - 1 log-uniform on [0.05, 5]; values small."""
    Hs, n_seeds, S = spec.H, spec.seeds, spec.S
    runs = [(f, H, r) for f in FAMILIES for H in Hs for r in range(n_seeds)]
    R, Hm = len(runs), max(Hs)
    U = torch.rand(R, Hm, generator=gen, device=device, dtype=torch.float64)
    is_log = torch.tensor([f == "log" for f, _, _ in runs], device=device)[:, None]
    lo = torch.where(is_log, torch.tensor(math.log(0.05), device=device, dtype=torch.float64),
                     torch.tensor(math.log(1.0 / S), device=device, dtype=torch.float64))
    hi = torch.where(is_log, torch.tensor(math.log(5.0), device=device, dtype=torch.float64),
                     torch.tensor(0.0, device=device, dtype=torch.float64))
    theta = softplus_inv(torch.exp(lo + (hi - lo) * U))
    scale = spec.theta_lr / spec.lr
    mask = torch.tensor([[1.0 if h < H else 0.0 for h in range(Hm)] for _, H, _ in runs], device=device)
    params = {"u": (theta / scale).float(), "c": 0.01 * torch.randn(R, Hm, generator=gen, device=device),
              "w0": torch.zeros(R, 1, device=device), "buf.mask": mask, "buf.log": is_log.float()}
    return params, runs


def run_train(spec: TrainPoint, device: str) -> dict:
    """All (family, H, seed) runs of one kernel and context length as one batch through lib.science.engine: AdamW (no
    weight decay), `steps` steps of fresh sequences of length 2S, loss on the last S positions (a full window),
    the last `decay_frac` of the steps at a tenth of the learning rate (a second engine call from the first's
    weights). The error of each run is computed exactly from its kernel: MSE = Var(x) ||k - rho||_2^2. On the CPU
    it runs with one torch thread (Point(threads=1)): its tensors are small FFTs."""
    t0 = time.perf_counter()
    S, k = spec.S, spec.kernel
    gen = generator(spec.seed, "train", kernel_name(k), S, device=device)
    s = np.arange(S, dtype=float)
    rho0 = kernel_values(k, s)
    rho0 = rho0 / np.abs(rho0[1:]).sum()                  # l1 norm 1 on s >= 1, as the fits
    rho = torch.tensor(rho0, dtype=torch.float32, device=device)
    params, runs = train_init(spec, gen, device)
    scale = spec.theta_lr / spec.lr
    forward = lambda p, x: causal_conv(x, model_kernel(p, S, scale), S)

    def sample(n_live, batch, g):
        x = torch.rand(n_live, batch, 2 * S, generator=g, device=device) * 2 - 1
        return x, causal_conv(x, rho, S)

    tests = [sample(len(runs), spec.n_test, gen)]
    steps2 = int(round(spec.steps * spec.decay_frac))
    curves, check_steps, done = [], [], 0
    for lr, steps in ((spec.lr, spec.steps - steps2), (spec.lr / 10, steps2)):
        if steps <= 0:
            continue
        every = max(1, spec.steps // spec.checks)
        cfg = engine.TrainConfig(lr=lr, weight_decay=0.0, batch_size=spec.batch, check_every=every,
                                 max_samples=steps * spec.batch)
        out = engine.train_to_threshold(forward, params, sample, tests, [-math.inf], cfg, gen)
        params = {kk: v.to(device) for kk, v in out.params.items()}
        curves.append(out.curves[:, :, 0])
        check_steps += [done + int(n) // spec.batch for n in out.check_samples]
        done += steps
    with torch.no_grad():
        p64 = {kk: v.double() for kk, v in params.items()}
        kern = model_kernel(p64, S, scale).cpu().numpy()
        theta = (scale * p64["u"]).cpu().numpy()
    err = kern - rho0[None, :]
    p_all = np.log1p(np.exp(theta)) + np.array([[1.0 if f == "log" else 0.0] for f, _, _ in runs])
    return {"runs": [list(r) for r in runs], "mse_exact": VAR_X * (err ** 2).sum(1), "l1": np.abs(err).sum(1),
            "test_mse": np.concatenate(curves)[-1], "curve_steps": check_steps, "curves": np.concatenate(curves),
            "p": [p_all[i, :H].tolist() for i, (_, H, _) in enumerate(runs)], "wall_s": time.perf_counter() - t0}


# ---------------------------------------------------------------------------------------------- points
def main_kernels(P: dict) -> list[Kernel]:
    return ([Kernel("power", beta=float(b)) for b in P["betas"]] + [Kernel("exp", tau=float(t)) for t in P["taus"]]
            + [Kernel("bump", T=int(T), w=float(T) * P["rel_bump_frac"]) for T in P["rel_bump_T"]]
            + [Kernel("bump", T=int(T), w=float(P["bump_width"])) for T in P["bump_T"]]
            + [Kernel("delta", T=int(T)) for T in P["delta_T"]])


def train_kernels(P: dict) -> list[Kernel]:
    return [Kernel("power", beta=float(b)) for b in P["train_betas"]] + [Kernel("exp", tau=float(t)) for t in P["train_taus"]]


def check_params(P: dict) -> list[tuple[str, str]]:
    bad = []
    for key in ("H_grid", "train_H", "context_windows", "delta_T", "bump_T", "rel_bump_T"):
        if list(P[key]) != sorted(set(P[key])):
            bad.append((key, "a strictly increasing list"))
    if P["context_H"] not in P["H_grid"]:
        bad.append(("context_H", f"one of H_grid = {P['H_grid']}"))
    if min(P["context_windows"]) < 64 or P["window"] < 64:
        bad.append(("context_windows" if min(P["context_windows"]) < 64 else "window", "windows of at least 64 taps"))
    return bad




def fit_specs(P: dict) -> dict[tuple, FitPoint]:
    """Every fit the page reads, by results["fit"] key (kernel name, family, S, H): the main kernels in their
    windows, the context-length sweep, and the optima of the training runs (at their H); longest windows first.
    A fit that two of these ask for (the same key) is listed once."""
    rel = {kernel_name(k) for k in main_kernels(P) if k.kind == "bump" and k.T in P["rel_bump_T"]
           and k.w == float(k.T) * P["rel_bump_frac"]}
    rel_H = sorted(set(P["H_grid"]) | {P["rel_bump_H"]})   # claim 11 is stated at rel_bump_H: never substitute another H
    jobs = [(k, f, window_of(P, k), rel_H if kernel_name(k) in rel else None) for k in main_kernels(P) for f in FAMILIES]
    jobs += [(Kernel("power", beta=float(b)), f, float(S), None) for b in P["context_betas"] for S in P["context_windows"]
             for f in FAMILIES]
    jobs += [(k, f, float(S), P["train_H"]) for k in train_kernels(P) for S in P["train_S"] for f in FAMILIES]
    out = {}
    for k, f, S, Hs in sorted(jobs, key=lambda j: -j[2]):
        spec = fit_spec(P, k, f, S, Hs)
        out.setdefault((kernel_name(k), f, S, spec.H), spec)
    return out


def points(P: dict) -> list[Point]:
    """results["exact"], results["fit"][(kernel name, family, S, H)] and results["train"][(kernel name, S)].
    Cost: rough seconds on one CPU thread, from the quadrature points times the heads (fits) and the sequence
    positions trained (training)."""
    out = [Point(("exact",), exact_spec(P), run_exact, cost=1.0)]
    out += [Point(("fit", key), spec, run_fit, cost=len(grid(spec.S)[0]) * sum(spec.H) * spec.restarts / 5e4, threads=1)
            for key, spec in fit_specs(P).items()]
    for k in train_kernels(P):
        for S in sorted(P["train_S"], reverse=True):
            spec = train_spec(P, k, S)
            out.append(Point(("train", (kernel_name(k), int(S))), spec, run_train, threads=1,
                             cost=spec.steps * 2 * len(spec.H) * spec.seeds * spec.batch * spec.S / 2e7))
    return out


def footprint(P: dict) -> list[tuple[str, float, str]]:
    """The training points' largest allocations in bytes, with the parameters that set them (lib.core.params refuses
    a profile whose point cannot fit the device): a step's sequences and their FFTs, the test sequences, the kernels.
    The fits sum long windows on a grid of at most EXACT_MAX distances, so their size does not grow with the window."""
    S, H = max(P["train_S"]), max(P["train_H"])
    R = 2 * len(P["train_H"]) * P["train_seeds"]
    return [("train_batch, train_S, train_H, train_seeds", R * P["train_batch"] * 2 * S * 4 * 8, "a training step"),
            ("train_n_test, train_S, train_H, train_seeds", R * P["train_n_test"] * 2 * S * 4 * 4, "the test sequences"),
            ("train_H, train_S, train_seeds", R * H * S * 4 * 8, "the runs' kernels and their gradients")]
