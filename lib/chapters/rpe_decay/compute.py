"""Wang & E 2024: relative positional encodings of T5 type, p * phi(t - s), and the memory kernels they can
build. This module is the list of the chapter's points: which kernels, windows, heads and trainings the page reads,
each a spec of one arm of experiments/ and that arm's run function. What the numbers depend on, and nothing else.

Sweep points (see `points`):

- exact: the small exact checks (T5 bucket table, head allocation, bound crossover, Prop. B.1, the LP of
  Prop. 5.2(B), the folding identity): `run_exact` here runs experiments/exact.py's `checks` with the paper's RPEs.
- fit (one per kernel, RPE family and window S): the best H-head kernel for every H of the grid, by variable
  projection inside l1 reweighting rounds (lib.science.numerics), from several starts, in float64; l1 and l2
  errors on s >= 1 (the residual stream carries x_t, so the s = 0 tap is free for both families); `run_fit` in
  experiments/fit.py, beside the kernels.
- converged (per kernel, RPE family and window that a claim about the best fit found reads, at the H it reads, one
  point for each of P["fitter_seeds"] independent seeds of the fitter): the same fits, each converged in its starts
  (`run_converged`: the starts doubled until the best no longer moves); the claims read a fit as converged where
  the seeds' bests agree.
- train (one per training kernel and context length): one-layer DP-free models with lin or log RPE trained on the
  linear target y = rho * x (Part C, this book's design); `run_train` in experiments/train.py.
- apph (one point per current-token convention, `apph_current`): experiments 4a and 4b of the NeurIPS version's
  Appendix H in their setup, with the current token through a trainable residual coefficient ("free") or through
  the heads only ("none"); `run_apph` in experiments/apph.py.

The page's readers of the stored points are in results/, its claim rows in claims/, its figures in figures.py, and
no computation imports them.

    >>> from lib.core import params; P = params.resolve("rpe_decay", "paper")
    >>> len(points(P)), sorted({p.name.split()[0] for p in points(P)})   # lib.core.sweep.collect computes or loads them
    (126, ['apph', 'converged', 'exact', 'fit', 'train'])
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from lib.chapters.rpe_decay.experiments import exact
from lib.chapters.rpe_decay.experiments.apph import AppHPoint, run_apph
from lib.chapters.rpe_decay.experiments.fit import (
    EXACT_MAX,
    N_EXACT,
    N_GEO,
    ConvergedPoint,
    FitPoint,
    Kernel,
    grid,
    kernel_name,
    run_converged,
    run_fit,
)
from lib.chapters.rpe_decay.experiments.train import FAMILIES, TrainPoint, run_train
from lib.core.sweep import Point


# ---------------------------------------------------------------------------------------------- points
def window_of(P: dict, k: Kernel) -> float:
    """Long windows for the decaying kernels, Appendix H's S for its kernels, 6 T for the sparse ones, at least 64 taps
    (more than any H of the grids: with fewer taps than heads the fit is degenerate)."""
    if k.kind in ("spow", "sexp"):
        return float(P["apph_S"])
    if k.kind in ("power", "exp"):
        return float(P["window"])
    return float(max(P["sparse_window_factor"] * k.T, 64))


def fit_spec(P: dict, k: Kernel, family: str, S: float, H_list=None) -> FitPoint:
    return FitPoint(kernel=k, family=family, S=float(S), H=tuple(H_list or P["H_grid"]), restarts=P["restarts"],
                    rounds=P["irls_rounds"], max_nfev=P["max_nfev"], seed=P["seed"], grid=(EXACT_MAX, N_EXACT, N_GEO))


@dataclass(frozen=True)
class ExactPoint:
    """The exact checks 1-6 (Table 1, Thm 4.1, Prop. B.1, Prop. 5.2(B), the folding identity of the proofs)."""
    seed: int                    # seed of the random cases (allocation, folding inputs)
    fold_S: int                  # window of the folding identity


def exact_spec(P: dict) -> ExactPoint:
    return ExactPoint(seed=P["seed"], fold_S=4096)


def run_exact(spec: ExactPoint, device: str) -> dict:
    """Checks 1-6 (`lib.chapters.rpe_decay.experiments.exact.checks`), in numpy whatever the device."""
    return exact.checks(spec.seed, spec.fold_S)


def main_kernels(P: dict) -> list[Kernel]:
    return ([Kernel("power", beta=float(b)) for b in P["betas"]] + [Kernel("exp", tau=float(t)) for t in P["taus"]]
            + [Kernel("bump", T=int(T), w=float(T) * P["rel_bump_frac"]) for T in P["rel_bump_T"]]
            + [Kernel("bump", T=int(T), w=float(P["bump_width"])) for T in P["bump_T"]]
            + [Kernel("delta", T=int(T)) for T in P["delta_T"]])


def train_kernels(P: dict) -> list[Kernel]:
    return [Kernel("power", beta=float(b)) for b in P["train_betas"]] + [Kernel("exp", tau=float(t)) for t in P["train_taus"]]


def apph_kernels(P: dict) -> list[Kernel]:
    """Appendix H's kernels: t^-beta (4a: beta = 0.5) and e^(-beta t) (4b: beta = 5)."""
    return [Kernel("spow", beta=float(b)) for b in P["apph_power"]] + [Kernel("sexp", beta=float(b)) for b in P["apph_exp"]]


def train_spec(P: dict, k: Kernel, S: int) -> TrainPoint:
    return TrainPoint(kernel=k, S=int(S), H=tuple(P["train_H"]), seeds=P["train_seeds"], steps=P["train_steps"],
                      batch=P["train_batch"], lr=P["train_lr"], theta_lr=P["theta_lr"], decay_frac=P["decay_frac"],
                      n_test=P["train_n_test"], checks=P["train_checks"], seed=P["seed"], init=P["train_init"],
                      freeze_frac=P["train_freeze_frac"])


def apph_spec(P: dict, current: str = "free") -> AppHPoint:
    return AppHPoint(kernels=tuple(apph_kernels(P)), S=int(P["apph_S"]), H=tuple(P["apph_H"]), seeds=P["apph_seeds"],
                     steps=P["apph_steps"], batch=P["apph_batch"], lr=P["apph_lr"], theta_lr=P["apph_theta_lr"],
                     decay_frac=P["decay_frac"], n_test=P["apph_n_test"], checks=P["train_checks"], seed=P["seed"],
                     current=current)


def check_params(P: dict) -> list[tuple[str, str]]:
    bad = []
    for key in ("apph_H", "H_grid", "train_H", "context_windows", "delta_T", "bump_T", "rel_bump_T"):
        if list(P[key]) != sorted(set(P[key])):
            bad.append((key, "a strictly increasing list"))
    if P["context_H"] not in P["H_grid"]:
        bad.append(("context_H", f"one of H_grid = {P['H_grid']}"))
    if min(P["context_windows"]) < 64 or P["window"] < 64:
        bad.append(("context_windows" if min(P["context_windows"]) < 64 else "window", "windows of at least 64 taps"))
    if any(b <= 0 for b in list(P["apph_power"]) + list(P["apph_exp"])):
        bad.append(("apph_power" if min(P["apph_power"], default=1) <= 0 else "apph_exp", "exponents > 0"))
    return bad


def fit_specs(P: dict) -> dict[tuple, FitPoint]:
    """Every fit the page reads, by results["fit"] key (kernel name, family, S, H): the main kernels in their
    windows, the context-length sweep, and the optima of the training runs and of Appendix H's runs (at their H);
    longest windows first.
    A fit that two of these ask for (the same key) is listed once."""
    rel = {kernel_name(k) for k in main_kernels(P) if k.kind == "bump" and k.T in P["rel_bump_T"]
           and k.w == float(k.T) * P["rel_bump_frac"]}
    rel_H = sorted(set(P["H_grid"]) | {P["rel_bump_H"]})   # claim 11 is stated at rel_bump_H: never substitute another H
    jobs = [(k, f, window_of(P, k), rel_H if kernel_name(k) in rel else None) for k in main_kernels(P) for f in FAMILIES]
    jobs += [(Kernel("power", beta=float(b)), f, float(S), None) for b in P["context_betas"] for S in P["context_windows"]
             for f in FAMILIES]
    jobs += [(k, f, float(S), P["train_H"]) for k in train_kernels(P) for S in P["train_S"] for f in FAMILIES]
    jobs += [(k, f, float(P["apph_S"]), P["apph_H"]) for k in apph_kernels(P) for f in FAMILIES]
    out = {}
    for k, f, S, Hs in sorted(jobs, key=lambda j: -j[2]):
        spec = fit_spec(P, k, f, S, Hs)
        out.setdefault((kernel_name(k), f, S, spec.H), spec)
    return out


def converged_specs(P: dict) -> dict[tuple, ConvergedPoint]:
    """The fits claims 7-12 read, by results["converged"] key (kernel name, family, S, H), at the H each reads:
    the power laws beta = 1.2 (H = 8, every window of the context sweep) and 3 (log, H <= 8), the exponential
    tau = 10 (lin H = 2, 8, 16, log H = 16), the relative-width bumps (rel_bump_H) and the deltas at T = 2 (lin 4,
    log 2) and T = 8 (H <= 16)."""
    heavy, exp, H0 = Kernel("power", beta=1.2), Kernel("exp", tau=10.0), P["context_H"]
    small = lambda hi: tuple(H for H in P["H_grid"] if H <= hi)
    jobs = [(heavy, f, float(P["window"]), (8,)) for f in FAMILIES]
    jobs += [(heavy, f, float(S), (H0,)) for S in P["context_windows"] for f in FAMILIES if 1.2 in P["context_betas"]]
    jobs += [(exp, "lin", float(P["window"]), (2, 8, 16)), (exp, "log", float(P["window"]), (16,))]
    jobs += [(Kernel("power", beta=3.0), "log", float(P["window"]), small(8))] if 3.0 in P["betas"] else []
    jobs += [(Kernel("bump", T=int(T), w=float(T) * P["rel_bump_frac"]), f, None, (P["rel_bump_H"],))
             for T in P["rel_bump_T"] for f in FAMILIES]
    jobs += [(Kernel("delta", T=2), "lin", None, (4,)), (Kernel("delta", T=2), "log", None, (2,))] if 2 in P["delta_T"] else []
    jobs += [(Kernel("delta", T=8), f, None, small(16)) for f in FAMILIES] if 8 in P["delta_T"] else []
    out = {}
    for k, f, S, Hs in jobs:
        S = window_of(P, k) if S is None else S
        out[(kernel_name(k), f, S, Hs)] = ConvergedPoint(kernel=k, family=f, S=S, H=Hs, restarts=P["converged_starts"],
                                                         rounds=P["irls_rounds"], max_nfev=P["max_nfev"], seed=P["seed"],
                                                         grid=(EXACT_MAX, N_EXACT, N_GEO))
    return out


def points(P: dict) -> list[Point]:
    """results["exact"], results["fit"][(kernel name, family, S, H)], results["converged"][(kernel name, family, S,
    H)][fitter seed], results["train"][(kernel name, S)] and results["apph"][current]. Cost: rough seconds on one CPU thread,
    from the quadrature points times the heads (fits), the sequence positions trained (training) and the head-taps
    and sequence-taps per step (Appendix H)."""
    out = [Point(("exact",), exact_spec(P), run_exact, cost=1.0)]
    out += [Point(("fit", key), spec, run_fit, cost=len(grid(spec.S)[0]) * sum(spec.H) * spec.restarts / 5e4, threads=1)
            for key, spec in fit_specs(P).items()]
    out += [Point(("converged", key, spec.seed + j), replace(spec, seed=spec.seed + j), run_converged, threads=1,
                  cost=len(grid(spec.S)[0]) * sum(spec.H) * spec.restarts * 4 / 5e4)
            for key, spec in converged_specs(P).items() for j in range(P["fitter_seeds"])]
    for k in train_kernels(P):
        for S in sorted(P["train_S"], reverse=True):
            spec = train_spec(P, k, S)
            out.append(Point(("train", (kernel_name(k), int(S))), spec, run_train, threads=1,
                             cost=spec.steps * 2 * len(spec.H) * spec.seeds * spec.batch * spec.S / 2e7))
    for current in (P["apph_current"] if P["apph_power"] or P["apph_exp"] else []):
        a = apph_spec(P, current)
        R, heads = 2 * len(a.kernels) * len(a.H) * a.seeds, 2 * len(a.kernels) * sum(a.H) * a.seeds
        # measured: ~15 ms a step at the paper's 1,524 heads x 1000 taps and 84 runs x 100 sequences, ~5 ms overhead
        out.append(Point(("apph", current), a, run_apph, threads=1,
                         cost=a.steps * (5e-3 + (10 * heads + R * a.batch) * a.S / 1e9)))
    return out


def footprint(P: dict) -> list[tuple[str, float, str]]:
    """The training points' largest allocations in bytes, with the parameters that set them (lib.core.params refuses
    a profile whose point cannot fit the device): a step's sequences and their FFTs, the test sequences, the kernels.
    The fits sum long windows on a grid of at most EXACT_MAX distances, so their size does not grow with the window."""
    Ra = 4 * len(P["apph_H"]) * P["apph_seeds"]
    out = [("apph_H, apph_S, apph_seeds", Ra * max(P["apph_H"]) * P["apph_S"] * 4 * 8, "Appendix H's heads and gradients")]
    if not P["train_S"]:
        return out
    S, H = max(P["train_S"]), max(P["train_H"])
    R = 2 * len(P["train_H"]) * P["train_seeds"]
    return out + [("train_batch, train_S, train_H, train_seeds", R * P["train_batch"] * 2 * S * 4 * 8, "a training step"),
            ("train_n_test, train_S, train_H, train_seeds", R * P["train_n_test"] * 2 * S * 4 * 4, "the test sequences"),
            ("train_H, train_S, train_seeds", R * H * S * 4 * 8, "the runs' kernels and their gradients")]
