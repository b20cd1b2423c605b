"""rpe_decay's fits: the memory kernels every arm targets, and the best H-head kernel of each RPE family by variable
projection. A dot-product-free attention layer with H heads realises exactly the kernels sum_h alpha_h e^{-p_h s}
(lin RPE, phi = -s) or sum_h alpha_h s^{-p_h} (log RPE, phi = -log s), once each head's softmax normaliser is folded
into its value; so how well H heads approximate a memory kernel rho is a question about sums of exponentials or
powers. Theorems 4.1 and 6.1 of the paper give upper bounds; this arm measures the best H-head kernel directly.

A fit point (`FitPoint`, one per kernel, RPE family and window S) fits every H of the grid, by variable projection
inside l1 reweighting rounds (lib.science.numerics), from several starts, in float64; l1 and l2 errors on s >= 1
(the residual stream carries x_t, so the s = 0 tap is free for both families). The kernels (`Kernel`,
`kernel_values`) are here too: the training arms (experiments/train.py, experiments/apph.py) train towards them.

    >>> from lib.chapters import stored; P, results = stored("rpe_decay")   # the committed paper results
    >>> out = results["fit"][("power beta=1.2", "log", 1e12, (1, 2, 4, 8, 16, 24, 32))]["result"]   # what run_fit stored
    >>> f"{out['l1'][out['H'].index(8)]:.2e}"                     # 8 log heads' best L1 error on (s+1)^-1.2
    '2.46e-06'
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from lib.science.numerics import separable_l1_fit
from lib.science.seeds import seed_of

EXACT_MAX = 4096      # windows up to this many taps are summed exactly; longer ones on a geometric grid
N_EXACT, N_GEO = 512, 400
FLOOR = 1e-6         # below this the fits are at float64's ill-conditioning floor (calibration fits: ~6e-7)
GROWTH = 1.5         # check 13: an error above GROWTH x the best at smaller H is an optimiser failure
REFIT = 4            # ... and is refitted with REFIT x, then REFIT^2 x the restarts (fresh starts, see `_fit_all`)
CONVERGED = 0.05     # a converged fit: the best of 2k starts is within this fraction of the best of k
MOST_STARTS = 256    # ... its starts doubled until then (and while check 13 fails), up to this many
UNDERFLOW = 230.0     # e^-230 ~ 1e-100: smaller column entries are set to 0 (their squares would be subnormal, ~100x slower)


# ------------------------------------------------------------------------------- the H-head kernel's columns
def basis(family: str, theta: np.ndarray, s: np.ndarray):
    """Columns of the folded H-head kernel and their derivatives in theta, p = e^theta for both families: lin column
    e^{-p s}, log column s^{-p}. Any p > 0, as eq. (4) allows (p in R_+): on a finite window a log head with p <= 1
    is normalisable too, and t^-0.5 (Appendix H, experiment 4a) is one head. Returns (E, dE/dtheta), (len(s), H)."""
    p = np.exp(theta)
    L = s if family == "lin" else np.log(s)
    arg = -np.outer(L, p)
    E = np.where(arg > -UNDERFLOW, np.exp(np.maximum(arg, -UNDERFLOW)), 0.0)
    return E, -L[:, None] * p[None, :] * E


def rates(family: str, theta) -> np.ndarray:
    return np.exp(np.asarray(theta, float))


# ------------------------------------------------------------------------------------------- the kernels
@dataclass(frozen=True)
class Kernel:
    """A memory kernel rho(s) (see `kernel_values`): its kind, and the parameters of that kind (None for others)."""
    kind: str                  # power, exp, bump, delta, or Appendix H's spow and sexp
    beta: float | None = None  # power: (s + 1)^-beta; spow: s^-beta; sexp: e^(-beta s)
    tau: float | None = None   # exp: e^(-s / tau) / (1 + s)
    T: int | None = None       # bump and delta: the distance of the memory
    w: float | None = None     # bump: its width, e^(-(s - T)^2 / (2 w^2))


def kernel_name(k: Kernel) -> str:
    return {"power": lambda: f"power beta={k.beta:g}", "exp": lambda: f"exp cutoff tau={k.tau:g}",
            "bump": lambda: f"bump T={k.T}, w={k.w:g}", "delta": lambda: f"delta T={k.T}",
            "spow": lambda: f"power s^-{k.beta:g}", "sexp": lambda: f"exp e^-{k.beta:g}s"}[k.kind]()


def kernel_values(k: Kernel, s: np.ndarray) -> np.ndarray:
    """The memory kernel rho(s), unnormalised (normalise with `grid`'s weights). spow at s = 0 is inf (the fits read
    s >= 1; Appendix H's arm sets its convention rho(0) = 1)."""
    s = np.asarray(s, float)
    if k.kind == "spow":
        with np.errstate(divide="ignore"):
            return s ** -k.beta
    if k.kind == "sexp":
        return np.exp(-k.beta * s)
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


# --------------------------------------------------------------------------------------------- the fitter
def theta_box(family: str, S: float) -> tuple[float, float, float, float]:
    """(lo, hi) bounds of theta and (lo, hi) of the starting rates: lin p in [1/S, 2] (p down to e^-45 allowed),
    where S is the extent of the target (see `extent`); log p in [0.05, 8] (p in [e^-12, e^5] allowed)."""
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
    random sub-range with jitter. Log heads draw these starts for p - 1 (log p - 1 in the box of `theta_box`), as the
    class p > 1 did: heavy tails need rates resolved near p = 1; one more start, geometric in p over the box, covers
    p <= 1 (t^-0.5 is one head at p = 0.5). Returns the best l1 error with its rates p and values alpha, and the
    best l2 error.
    """
    rng = np.random.default_rng(seed)
    lo, hi, a0, b0 = theta_box(family, min(S, extent(s, w, rho)))
    starts = []
    for r in range(restarts):
        geometric = r == 0 and geometric_start
        a, b = (a0, b0) if geometric else tuple(np.sort(rng.uniform(a0, b0, 2)))
        th = np.linspace(a, b, H) if H > 1 else np.array([(a + b) / 2])
        th = th if geometric else th + rng.normal(0.0, 0.3, H)
        starts.append(th if family == "lin" else np.log1p(np.exp(th)))        # log: the start is for p - 1
    if family == "log" and geometric_start:
        starts.append(np.linspace(a0, b0, H) if H > 1 else np.array([(a0 + b0) / 2]))
    best = separable_l1_fit(lambda t: basis(family, t, s), rho, w, starts, lo, hi, rounds, max_nfev * H)
    best["p"] = rates(family, best["theta"])
    return best


def start_rates(family: str, H: int, a0: float, b0: float, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The first n starts of a fit (the first k of them are the same for any n >= k: more starts extend the list).
    Start 0 is geometric on the whole starting range [a0, b0], every other one on a random sub-range with jitter.
    Log heads draw these starts for p - 1 (log p - 1 in the box of `theta_box`), as the class p > 1 did: heavy tails
    need rates resolved near p = 1; one more start, geometric in p over the box, covers p <= 1 (t^-0.5 is one head
    at p = 0.5): it comes second."""
    out = []
    for r in range(n):
        a, b = (a0, b0) if r == 0 else tuple(np.sort(rng.uniform(a0, b0, 2)))
        th = np.linspace(a, b, H) if H > 1 else np.array([(a + b) / 2])
        th = th if r == 0 else th + rng.normal(0.0, 0.3, H)
        out.append(th if family == "lin" else np.log1p(np.exp(th)))        # log: the start is for p - 1
    if family == "log":
        out.insert(1, np.linspace(a0, b0, H) if H > 1 else np.array([(a0 + b0) / 2]))
    return out


def converged(best_k: float, best_2k: float) -> bool:
    """Whether doubling the starts no longer moves the best l1 error: within CONVERGED of it, or both at the float64
    floor FLOOR."""
    return best_2k >= best_k / (1.0 + CONVERGED) or best_k <= FLOOR


def fit_converged(rho, s, w, family: str, H: int, S: float, restarts: int = 8, rounds: int = 4, seed: int = 0,
                  max_nfev: int = 100, below: float = math.inf, most: int = MOST_STARTS) -> dict:
    """`fit_kernel`'s fit, converged in its starts: from `start_rates` (whose first starts are `fit_kernel`'s for
    the same seed), first `restarts` starts, then doubled (k more starts on top of k) until
    the best of 2k is `converged` with the best of k and is not above GROWTH x `below` (the best error at fewer heads,
    check 13), or `most` starts are spent. Returns the best l1 error with its rates p and values alpha, the best l2
    error, the starts spent, the best l1 of the first half of them (`l1_half`) and whether it `converged`.
    """
    rng = np.random.default_rng(seed)
    lo, hi, a0, b0 = theta_box(family, min(S, extent(s, w, rho)))
    starts = start_rates(family, H, a0, b0, max(most, restarts), rng)
    extra = family == "log"                          # the log heads' geometric-in-p start rides in the first batch
    fit = lambda part: separable_l1_fit(lambda t: basis(family, t, s), rho, w, part, lo, hi, rounds, max_nfev * H)
    best, n = fit(starts[:restarts + extra]), restarts
    half, nfev, l2 = best["l1"], best["nfev"], best["l2"]
    while 2 * n <= max(most, restarts):
        more = fit(starts[n + extra:2 * n + extra])
        half, n, nfev, l2 = best["l1"], 2 * n, nfev + more["nfev"], min(l2, more["l2"])
        best = more if more["l1"] < best["l1"] else best
        if converged(half, best["l1"]) and grows_with_H(below, best["l1"]) <= GROWTH:
            break
    return {**best, "l2": l2, "nfev": nfev, "p": rates(family, best["theta"]), "starts": n + extra, "l1_half": half,
            "converged": n > restarts and converged(half, best["l1"])}


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
    rates: str = "p = e^theta, log starts p - 1 and p"   # log p > 0 as eq. (4) allows (it was p = 1 + e^theta)


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
    fresh random starts and keep the best (more starts: the remedy for an optimiser failure). `out["restarts"]` records the
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
class ConvergedPoint:
    """The best H-head kernels of one family for one kernel and window at the H a claim row reads, each converged in
    its starts (`fit_converged`): the fits the claims about the best fit found read."""
    kernel: Kernel               # the target memory kernel
    family: str                  # lin or log RPE
    S: float                     # window: taps s = 0..S-1
    H: tuple[int, ...]           # numbers of heads, each fitted independently
    restarts: int                # starts per H first, doubled until the fit converges
    rounds: int                  # IRLS rounds towards the l1 error after the l2 fit
    max_nfev: int                # Levenberg-Marquardt evaluations per head and round
    seed: int                    # seed of the random starts
    grid: tuple[int, int, int]   # the window's quadrature: (EXACT_MAX, N_EXACT, N_GEO) of `grid`
    converge: tuple[float, int] = (CONVERGED, MOST_STARTS)   # within this fraction, up to this many starts


def run_converged(spec: ConvergedPoint, device: str) -> dict:
    """Every H of the point, each converged in its starts from its own seed (`fit_converged`, the seed `run_fit`
    gives the same fit), and while its error is above GROWTH x the best at smaller H; on the CPU, one BLAS thread.
    Records per H the starts it took (`restarts`), the best of the first half of them (`l1_half`) and whether the
    two agree (`converged`)."""
    if spec.converge != (CONVERGED, MOST_STARTS):
        raise ValueError(f"a converged point stops at {(CONVERGED, MOST_STARTS)}, not {spec.converge}")
    t0 = time.perf_counter()
    s, w, rho = target(spec.kernel, spec.S)
    keys = ("l1", "p", "alpha", "l2", "nfev", "restarts", "l1_half", "converged")
    out = {"H": spec.H, **{k: [] for k in keys}}
    with threadpool_limits(limits=1):
        for H in spec.H:
            f = fit_converged(rho, s, w, spec.family, H, spec.S, spec.restarts, spec.rounds,
                              seed_of(spec.seed, "fit", kernel_name(spec.kernel), spec.family, spec.S, H),
                              spec.max_nfev, below=min(out["l1"], default=math.inf))
            for key, field in zip(keys, ("l1", "p", "alpha", "l2", "nfev", "starts", "l1_half", "converged")):
                out[key].append(f[field])
    out["wall_s"] = time.perf_counter() - t0
    return out
