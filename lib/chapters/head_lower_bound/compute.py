"""Mousavi-Hosseini et al. 2025, Prop. 3/21, Thm 4 and Eq. A.2: a one-layer Transformer needs as many heads as relevant tokens.

Five computations, stored as the points of seven kinds (see `points`):

- `calculator`: the Bayes risk of predicting y = (|x|^2 - m)/sqrt(m), x ~ N(0, I_m), from A x is 2(m - rank A)/m;
  checked by Monte Carlo with the exact Bayes predictor and by a fitted MLP regressor that cannot beat it.
- `prop21`, `prop3`, `control`: H-head merged-attention Transformers (H = 1..q+1, one batch) on the Prop. 21 data
  (d = 1, block-diagonal W_QK), the Prop. 3 data (d >> q, unrestricted W_QK) and the sparse-averaging control;
  final error on the query positions i >= N/2 (with its Monte-Carlo standard error) and the singular values of the
  attention onto keys 0..q-1.
- `construction`: the A.2 weights (head h: alpha I from the query's w_{t_h} slot to the key's own w_j slot) on codes
  that satisfy Assumption 3: the off-target attention mass and retrieval error against alpha and N, and alpha*(N)
  and the (2,1) norm for a fixed off-target mass of the worst target.
- `scaling` (one per N): samples-to-threshold for H = q on qSTR (reaches it) and for H = 1 on the Prop. 21 data with
  its block-diagonal W_QK (held above the threshold by Prop. 21).
- `figure2`: the authors' Figure 2 setup (fixed dataset, epochs, AdamW, weight decay 0.2) and |W_Q^T W_K| (the page
  reads its diagonal statistics); in experiments/figure2.py, since it trains a different model on a different task.

This module is the computation only: the chapter's results.py reads these points into tables, claims/ decides its
rows, figures.py draws them and page.py is what the notebook calls; none of them is part of this chapter's lib hash.

    >>> from lib.core import params; P = params.resolve("head_lower_bound", "paper")
    >>> sorted({p.name.split()[0] for p in points(P)})   # lib.core.sweep.collect computes or loads them
    ['calculator', 'construction', 'control', 'figure2', 'prop21', 'prop3', 'scaling']
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from lib.chapters.head_lower_bound.experiments.figure2 import figure2_spec, run_figure2
from lib.core.sweep import Point
from lib.science import a2, engine, models, qstr
from lib.science.seeds import generator
from lib.science.stats import standard_error


def check_params(P: dict) -> list[tuple[str, str]]:
    """Constraints between parameters (lib.core.params.resolve reports a violated one as bad input): (key, expected)."""
    bad = []
    for key in ("p21_q", "p3_q"):
        if 2 * P[key] > P["N"]:
            bad.append((key, f"at most N/2 = {P['N'] // 2} (the queries i >= N/2 read tokens 1..q of the first half)"))
    return bad


# ------------------------------------------------------------------------------------- Bayes-risk calculator
def bayes_risk(A: np.ndarray) -> float:
    """Risk of the best predictor of y = (|x|^2 - m)/sqrt(m), x ~ N(0, I_m), from A x: 2 (m - rank A) / m.

    Given A x, x is Gaussian with mean P x and covariance I - P (P: projector on the rows of A), so |x|^2 - |P x|^2
    is chi-squared with m - rank A degrees of freedom and independent of A x (Lemma 40).

        >>> print(bayes_risk(np.eye(4)[:2]))   # m = 4, rank 2
        1.0
    """
    m = A.shape[1]
    return 2 * (m - np.linalg.matrix_rank(A, tol=1e-8)) / m


def bayes_predict(A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """E[y | A x] = (|P x|^2 - rank A)/sqrt(m), for x (..., m)."""
    m = A.shape[1]
    U, S, Vh = torch.linalg.svd(A.double(), full_matrices=False)
    rows = Vh[S > 1e-8 * max(S.max().item(), 1e-300)] if S.numel() else Vh[:0]
    px = x.double() @ rows.T
    return ((px.pow(2).sum(-1) - rows.shape[0]) / math.sqrt(m)).to(x.dtype)


@dataclass(frozen=True)
class CalculatorPoint:
    """The Bayes-risk calculator: everything its numbers depend on."""
    q: int           # relevant tokens (the dimension m of x); A has H = 0..q rows
    n: int           # Monte-Carlo samples, and test samples of the MLP regressor
    seed: int        # seed of A, x, the regressor's initialisation, data and test set
    width: int       # width of the regressor's two hidden layers
    steps: int       # training steps of the regressor (batches of 256)
    lr: float        # AdamW learning rate of the regressor


def calculator_spec(P: dict) -> CalculatorPoint:
    return CalculatorPoint(q=P["p21_q"], n=P["calc_samples"], seed=P["seed"], width=P["calc_width"],
                           steps=P["calc_steps"], lr=P["lr"])


def run_calculator(spec: CalculatorPoint, device: str) -> dict:
    """For A = a random H x q Gaussian matrix (H = 0..q): the formula, the exact Bayes predictor's Monte-Carlo risk,
    and the test MSE of an MLP regressor fitted to y from A x (all ranks in one batch)."""
    q, n, gen = spec.q, spec.n, generator(spec.seed, "calculator", "x", device=device)
    As = [torch.randn(H, q, generator=generator(spec.seed, "calculator", "A", H)) for H in range(q + 1)]
    x = torch.randn(n, q, generator=gen, device=device)
    y = (x.pow(2).sum(-1) - q) / math.sqrt(q)
    bayes = [(y - bayes_predict(A.to(device), x)).pow(2) for A in As]
    # The regressor sees A x padded to q features (zero rows do not change the information), one run per rank.
    feats = torch.stack([torch.cat([A, torch.zeros(q - A.shape[0], q)]) for A in As]).to(device)  # (R, q, q)

    def sample(R, B, g):
        xs = torch.randn(R, B, q, generator=g, device=device)
        return (xs @ feats[:R].transpose(1, 2)).unsqueeze(2), ((xs.pow(2).sum(-1) - q) / math.sqrt(q)).unsqueeze(2)

    model = models.FFN(N=1, D=q, hidden=(spec.width, spec.width))
    test = sample(len(As), n, generator(spec.seed, "calculator", "test", device=device))
    cfg = engine.TrainConfig(lr=spec.lr, weight_decay=0.0, batch_size=256, check_every=spec.steps,
                             max_samples=spec.steps * 256)
    runs = engine.train_to_threshold(model.forward,
                                     model.init(len(As), generator(spec.seed, "calculator", "init", device=device), device),
                                     sample, [test], [-math.inf], cfg,
                                     generator(spec.seed, "calculator", "data", device=device))
    params = {k: v.to(device) for k, v in runs.params.items()}
    with torch.no_grad():
        fit = (model.forward(params, test[0]) - test[1]).pow(2).squeeze(-1)   # (R, n)
    return {"rank": [int(np.linalg.matrix_rank(A.numpy())) for A in As], "formula": [bayes_risk(A.numpy()) for A in As],
            "bayes": [float(b.mean()) for b in bayes], "bayes_se": [standard_error(b) for b in bayes],
            "mlp": fit.mean(1).tolist(), "mlp_se": [standard_error(f) for f in fit], "n": n}


# --------------------------------------------------------------------------------------- trained H sweeps
SETTINGS = {  # name -> (which parameters, link, W_QK restricted to the block-diagonal form of Prop. 21)
    "prop21": ("p21", "square", True),
    "prop3": ("p3", "square", False),
    "control": ("p21", "mean", True),
}


@dataclass(frozen=True)
class HeadsPoint:
    """One H sweep (every head count and seed in one batch): everything its numbers depend on."""
    setting: str      # prop21, prop3 or control (see SETTINGS: the link and the W_QK mask)
    N: int            # sequence length
    q: int            # relevant tokens per output
    d: int            # token dimension
    encoding: str     # code or paper (with the sqrt(d/q) factor)
    d_e_rule: str     # floor (the code) or ceil (the caption) of 5 ln N
    task_seed: int    # seed of the position codes and of u
    seed: int         # seed of initialisations, data stream and test sets
    n_seeds: int      # runs per head count
    steps: int        # online AdamW steps
    batch_size: int   # fresh prompts per step
    lr: float         # AdamW learning rate
    mlp_width: int    # width of the ReLU network after the attention
    n_test: int       # fresh test prompts for the final error


def heads_spec(P: dict, setting: str) -> HeadsPoint:
    key = SETTINGS[setting][0]
    return HeadsPoint(setting=setting, N=P["N"], q=P[f"{key}_q"], d=P[f"{key}_d"], encoding=P["encoding"],
                      d_e_rule=P["d_e_rule"], task_seed=P["task_seed"], seed=P["seed"], n_seeds=P["n_seeds"],
                      steps=P["steps"], batch_size=P["batch_size"], lr=P["lr"], mlp_width=P["mlp_width"],
                      n_test=P["n_test"])


def block_mask(d: int, D: int) -> torch.Tensor:
    """Prop. 21's form of W_QK: token-to-token and code-to-code blocks only, no data-to-position cross terms."""
    mask = torch.zeros(D, D)
    mask[:d, :d] = 1
    mask[d:, d:] = 1
    return mask


def setting_task(spec: HeadsPoint, device="cpu") -> tuple[qstr.QSTR, torch.Tensor | None, list[int]]:
    """The task, the W_QK mask and the head counts of one H sweep."""
    _, link, block = SETTINGS[spec.setting]
    q, d = spec.q, spec.d
    task = qstr.QSTR(N=spec.N, d=d, q=q, link=link, lower_bound=True, encoding=spec.encoding,
                     d_e_rule=spec.d_e_rule, task_seed=spec.task_seed, device=device)
    mask = block_mask(d, task.D) if block else None   # no data-to-position cross terms (Prop. 21)
    heads = list(range(1, q + 2)) if spec.setting != "control" else [1, q]
    return task, mask, heads


def label_variance(link: str, q: int) -> float:
    """Var(y_i) on the query positions i >= N/2 of the Prop. 3/21 data (they read the q Gaussian tokens 0..q-1):
    2 for the square link, 1 for the linear one (sum / sqrt q), 1/q for the sparse average (1/q) sum_j <u, x_j>."""
    return {"square": 2.0, "linear": 1.0, "mean": 1.0 / q}[link]


def lower_bound(setting: str, H: int, q: int, d: int) -> float:
    """The floor of the fraction of variance unexplained on the positions i >= N/2 (Prop. 21; Prop. 3 for d > 1)."""
    if setting == "control":
        return 0.0
    if setting == "prop21":  # block-diagonal W_QK: each head carries d of the q d coordinates, for any d
        return max(0.0, 1 - H / q)
    return max(0.0, 1 - H * (q + d) / (q * d))


def run_heads(spec: HeadsPoint, device: str) -> dict:
    t0 = time.perf_counter()
    task, mask, heads = setting_task(spec, device)
    q, d, half = task.q, task.d, task.N // 2
    var = label_variance(task.link, q)                    # Var(y_i) on the positions i >= N/2
    per_run = [H for H in heads for _ in range(spec.n_seeds)]
    model = models.MergedAttention(D=task.D, H=max(heads), m=spec.mlp_width, qk_mask=mask)
    params = model.init(len(per_run), generator(spec.seed, spec.setting, "init", device=device), device, heads=per_run)
    gen = generator(spec.seed, spec.setting, "data", device=device)
    test_small = task.sample(len(per_run), 1000, generator(spec.seed, spec.setting, "check", device=device))

    def upper_fvu(pred, y):  # the bound's quantity: error on the positions i >= N/2, over Var(y_i)
        return (pred - y)[..., half:].pow(2).flatten(1).mean(1) / var

    cfg = engine.TrainConfig(lr=spec.lr, weight_decay=0.0, batch_size=spec.batch_size,
                             check_every=max(1, spec.steps // 20), max_samples=spec.steps * spec.batch_size)
    runs = engine.train_to_threshold(model.forward, params, task.sample, [test_small], [-math.inf], cfg, gen,
                                     metric=upper_fvu)
    p = {k: v.to(device) for k, v in runs.params.items()}
    # Final error on a large fresh test set, per prompt, so the page can give a standard error.
    X, T = task.draw(len(per_run), spec.n_test, generator(spec.seed, spec.setting, "test", device=device))
    z, y = task.encode(X, T), task.labels(X, T)
    with torch.no_grad():
        pred = torch.cat([model.forward(p, z[:, i:i + 2000]) for i in range(0, z.shape[1], 2000)], 1)
        attn = torch.cat([model.attention(p, z[:, i:i + 500]) for i in range(0, min(z.shape[1], 2000), 500)], 1)
    per_prompt = (pred - y)[..., half:].pow(2).mean(-1) / var                       # (R, n)
    full = (pred - y).pow(2).mean(-1)                                                # (R, n): the Prop.'s risk
    # Attention of each live head from the query positions i >= N/2 onto the relevant keys 0..q-1: A (H x q).
    A = attn[:, :, :, half:, :q]                                                     # (R, B, H, N/2, q)
    svals = []
    for r, H in enumerate(per_run):
        s = torch.linalg.svdvals(A[r, :, :H].permute(0, 2, 1, 3).reshape(-1, H, q).double())   # (B*N/2, min(H,q))
        s = torch.cat([s, s.new_zeros(s.shape[0], q - s.shape[1])], 1) if s.shape[1] < q else s
        svals.append(s.median(0).values.tolist())
    return {"heads": per_run, "bound": [lower_bound(spec.setting, H, q, d) for H in per_run],
            "fvu": per_prompt.mean(1).tolist(), "fvu_se": [standard_error(v) for v in per_prompt],
            "mse_all": full.mean(1).tolist(), "mse_all_se": [standard_error(v) for v in full],
            "svals": svals, "D": task.D, "d_e": task.d_e, "n_params": models.n_params(runs.params),
            "curve_samples": runs.check_samples, "curves": runs.curves[:, :, 0], "wall_s": time.perf_counter() - t0}


# --------------------------------------------------------------------------------------- the A.2 construction
@dataclass(frozen=True)
class ConstructionPoint:
    """The A.2 sweep over alpha and N: everything its numbers depend on."""
    q: int                  # heads = relevant tokens (sets the paper encoding's d/q scale)
    d: int                  # token dimension (the same d as Figure 2)
    off_target: float       # off-target attention mass of the worst target that defines alpha*
    encoding: str           # code (scale 1) or paper (scores times d/q)
    N: tuple[int, ...]      # sequence lengths
    d_e_rule: str           # floor or ceil of 5 ln N
    task_seed: int          # seed of the position-code draws
    draws: int              # independent draws of the codes (under Assumption 3) per N


def construction_spec(P: dict) -> ConstructionPoint:
    return ConstructionPoint(q=P["p21_q"], d=P["figure2_d"], off_target=P["off_target"], encoding=P["encoding"],
                             N=tuple(P["a2_N"]), d_e_rule=P["d_e_rule"], task_seed=P["task_seed"], draws=P["a2_draws"])


def run_construction(spec: ConstructionPoint, device: str) -> dict:
    """alpha*(N) of the worst target (Lemma 11 is uniform over targets) on codes that satisfy Assumption 3, one per
    draw, its (2,1) norm alpha* d_e, the bounds every such code obeys, and the worst and median target's off-target
    mass and retrieval error against alpha (exact, on the CPU: `device` is not used)."""
    scale = spec.d / spec.q if spec.encoding == "paper" else 1.0
    alphas = np.geomspace(0.5, 100, 30) / scale
    out = a2.sweep(spec.task_seed, spec.N, spec.off_target, spec.draws, scale, spec.d_e_rule, alphas)
    return out | {"alpha": alphas.tolist(), "scale": scale, "compare": a2.compare_fits(list(spec.N), out["alpha_star"])}


# ------------------------------------------------------------------------------ samples-to-threshold against N
@dataclass(frozen=True)
class ScalingPoint:
    """One N of the samples-to-threshold sweep, H = 1 and H = q with all seeds in one batch."""
    N: int              # sequence length
    q: int              # relevant tokens per output (the H = q runs)
    d: int              # token dimension
    encoding: str       # code or paper
    d_e_rule: str       # floor or ceil of 5 ln N
    task_seed: int      # seed of the position codes
    seed: int           # seed of initialisations, data stream and check set
    n_seeds: int        # runs per head count
    threshold: float    # unexplained-variance threshold (below Prop. 21's floor 1 - 1/q for H = 1)
    check_every: int    # steps between test evaluations
    max_samples: int    # cap: a run still above the threshold there is censored
    batch_size: int     # fresh prompts per step
    lr: float           # AdamW learning rate
    mlp_width: int      # width of the ReLU network after the attention


def scaling_spec(P: dict, N: int) -> ScalingPoint:
    return ScalingPoint(N=N, q=P["scale_q"], d=P["scale_d"], encoding=P["encoding"], d_e_rule=P["d_e_rule"],
                        task_seed=P["task_seed"], seed=P["seed"], n_seeds=P["n_seeds"], threshold=P["scale_threshold"],
                        check_every=P["scale_check_every"], max_samples=P["scale_max_samples"],
                        batch_size=P["batch_size"], lr=P["lr"], mlp_width=P["mlp_width"])


def run_scaling(spec: ScalingPoint, device: str) -> dict:
    """Samples until the unexplained variance is below the threshold, for H = q and H = 1:

    - H = q on qSTR itself (square link, every position reads q random tokens, free W_QK), Theorem 4's setting;
    - H = 1 on the Prop. 21 data with its block-diagonal W_QK, measured where Prop. 21 bounds it (positions
      i >= N/2, floor 1 - 1/q): a threshold under the floor is out of reach, so these runs go to the cap.
    """
    t0 = time.perf_counter()
    out = {"heads": [], "samples": [], "best_fvu": []}
    for H, lower in ((spec.q, False), (1, True)):
        task = qstr.QSTR(N=spec.N, d=spec.d, q=spec.q, link="square", lower_bound=lower, encoding=spec.encoding,
                         d_e_rule=spec.d_e_rule, task_seed=spec.task_seed, device=device)
        model = models.MergedAttention(D=task.D, H=H, m=spec.mlp_width, qk_mask=block_mask(task.d, task.D) if lower else None)
        tag = ("scaling", "lower" if lower else "qstr")
        params = model.init(spec.n_seeds, generator(spec.seed, *tag, "init", spec.N, device=device), device)
        test = task.sample(spec.n_seeds, 1000, generator(spec.seed, *tag, "check", spec.N, device=device))
        first = spec.N // 2 if lower else 0

        def fvu(pred, y, first=first):   # Var(y_i) = 2 on qSTR and on the Prop. 21 queries i >= N/2
            return (pred - y)[..., first:].pow(2).flatten(1).mean(1) / 2.0

        cfg = engine.TrainConfig(lr=spec.lr, weight_decay=0.0, batch_size=spec.batch_size,
                                 check_every=spec.check_every, max_samples=spec.max_samples)
        runs = engine.train_to_threshold(model.forward, params, task.sample, [test], [spec.threshold], cfg,
                                         generator(spec.seed, *tag, "data", spec.N, device=device), metric=fvu)
        out["heads"] += [H] * spec.n_seeds
        out["samples"] += runs.samples[:, 0].tolist()
        out["best_fvu"] += np.nanmin(runs.curves[:, :, 0], axis=0).tolist()   # best checked error of each run
    return out | {"samples": np.array(out["samples"]), "best_fvu": np.array(out["best_fvu"]), "wall_s": time.perf_counter() - t0}


# ------------------------------------------------------------------------------------------------- the sweep
def points(P: dict) -> list[Point]:
    """Every result of the chapter: results["calculator"], results[setting] for each of SETTINGS,
    results["construction"], results["scaling"][N] for each N of scale_N, and results["figure2"]."""
    return ([Point(("calculator",), calculator_spec(P), run_calculator, cost=_cost(P, "calculator"))]
            + [Point((s,), heads_spec(P, s), run_heads, cost=_cost(P, s)) for s in SETTINGS]
            + [Point(("construction",), construction_spec(P), run_construction, cost=_cost(P, "construction"))]
            + [Point(("scaling", N), scaling_spec(P, N), run_scaling, cost=_cost(P, "scaling", N)) for N in P["scale_N"]]
            + [Point(("figure2",), figure2_spec(P), run_figure2, cost=_cost(P, "figure2"))])


def _cost(P: dict, what: str, N: int | None = None) -> float:
    """A rough relative time, so the longest points start first: prompts x positions x features that training
    processes (the censored H = 1 scaling runs go to the cap), in millions."""
    size = lambda n, q, d: n * (d + (q + 1) * qstr.embed_dim_rule(n, P["d_e_rule"]))   # positions x features
    if what in SETTINGS:
        key = SETTINGS[what][0]
        q = P[f"{key}_q"]
        runs = P["n_seeds"] * (2 if what == "control" else q + 1)
        return P["steps"] * P["batch_size"] * runs * size(P["N"], q, P[f"{key}_d"]) / 1e6
    if what == "scaling":
        return P["scale_max_samples"] * 2 * P["n_seeds"] * size(N, P["scale_q"], P["scale_d"]) / 1e6
    if what == "figure2":
        return P["figure2_epochs"] * P["figure2_train"] * size(P["figure2_N"], 1, P["figure2_d"]) / 1e6
    if what == "calculator":
        return P["calc_steps"] * 256 * (P["p21_q"] + 1) * P["calc_width"] / 1e6
    # the construction: repairing the codes (about N^2 d_e per draw) dominates
    return sum(P["a2_draws"] * n * n * qstr.embed_dim_rule(n, P["d_e_rule"]) for n in P["a2_N"]) / 1e8


def footprint(P: dict) -> list[tuple[str, float, str]]:
    """The largest allocations of the biggest points in bytes, each with the parameters that set it (lib.core.params
    refuses a profile whose point cannot fit the device): test sets and a training step of the H sweeps, the
    calculator's samples, the A.2 Gram matrices, the scaling runs' test sets and Figure 2's training set."""
    f = 4
    width = lambda n, q, d: d + (q + 1) * qstr.embed_dim_rule(n, P["d_e_rule"])       # features D of a position
    out = []
    for key in ("p21", "p3"):
        q, d, N = P[f"{key}_q"], P[f"{key}_d"], P["N"]
        R = P["n_seeds"] * (q + 1)
        out += [(f"n_test, n_seeds, N, {key}_d", R * P["n_test"] * N * (d + width(N, q, d) + 2) * f,
                 "the H sweep's test set (tokens, encoded prompts, labels)"),
                (f"batch_size, n_seeds, N, mlp_width, {key}_d",
                 8 * R * P["batch_size"] * N * (width(N, q, d) + P["mlp_width"] + (q + 1) * N) * f, "a training step")]
    out.append(("calc_samples, p21_q, calc_width",
                (P["p21_q"] + 3) * P["calc_samples"] * (P["p21_q"] + P["calc_width"]) * f, "the calculator's samples"))
    N = max(P["a2_N"])
    out.append(("a2_N", 3 * 512 * N * 8, "the A.2 codes' overlaps, 512 targets at a time"))
    N = max(P["scale_N"])
    out.append(("scale_N, n_seeds",
                2 * P["n_seeds"] * (1000 + 8 * P["batch_size"]) * N * width(N, P["scale_q"], P["scale_d"]) * f,
                "a scaling run's test set and step"))
    out.append(("figure2_train, figure2_N, figure2_d", 2 * P["figure2_train"] * P["figure2_N"] * (P["figure2_d"] + 1) * f,
                "Figure 2's training set"))
    return out
