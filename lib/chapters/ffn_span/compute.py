"""Theorem 6 of Mousavi-Hosseini et al. 2025 (Appendix B): a network whose first layer is fully connected on the
flattened tokens needs about N*d samples to learn simple-1STR, because that layer only ever sees the span of its
training inputs.

Five measurements, each a stored point (see `points`):

- span: one training set, full-batch GD with L2 and AdamW from the same start (and their test MSE); the off-span energy
  ||W_x (I - V^T V)||_F^2 of the first layer's token columns W_x, relative to the span of the n training inputs
  (orthonormal rows V), recorded along the way. Under GD it decays exactly as (1 - lr*l2)^(2t).
- visibility (one per N): the visible fraction nu = E_t ||V P_t u||^2 of the target direction and the risk of the
  oracle E[y | Vx, t, u], by Monte Carlo over training sets, u and test prompts; both against n/(Nd).
- readout (one per N): a learner of the theorem's class that reaches its line, the span-restricted
  least-squares read-out, by Monte Carlo over training sets and u.
- ffn (one per N, and once with rotated prompts): GD-trained FFNs for n = c*N*d, every run with its own u,
  training set and initialisation; test MSE beside the oracle's on the same test prompts.
- transformer: the same learning curve for a one-layer Transformer (AdamW, lib.science.engine) with and without the
  rotation x -> Qx of the token block, Q Haar-distributed on O(Nd).

Each measurement is an arm in experiments/ (its spec and run function, one module each); this module builds their
specs from the parameters and lists the points. What the page shows of them (results.py, claims.py, figures.py,
page.py) no computation imports, so editing it leaves the stored points current.

    >>> from lib.core import params; P = params.resolve("ffn_span", "paper")
    >>> len(points(P)), sorted({p.name.split()[0] for p in points(P)})   # lib.core.sweep.collect runs them
    (12, ['ffn', 'readout', 'span', 'transformer', 'visibility'])
"""
from __future__ import annotations

from lib.chapters.ffn_span.experiments.ffn import FFNPoint, run_ffn
from lib.chapters.ffn_span.experiments.readout import ReadoutPoint, run_readout
from lib.chapters.ffn_span.experiments.span import SpanPoint, run_span
from lib.chapters.ffn_span.experiments.transformer import TransformerPoint, run_transformer
from lib.chapters.ffn_span.experiments.visibility import VisibilityPoint, run_visibility
from lib.core.sweep import Point
from lib.science import qstr


def n_values(N: int, d: int, n_over_Nd) -> list[int]:
    """Training-set sizes n = round(c * N * d), at least 1, for every multiple c of N*d."""
    return [max(1, round(c * N * d)) for c in n_over_Nd]


# ------------------------------------------------------------------------------------------------ specs
def span_spec(P: dict) -> SpanPoint:
    N = P["span_N"]
    n = min(n_values(N, P["d"], [P["span_n_over_Nd"]])[0], N * P["d"] - 1)   # below Nd, or nothing is off the span
    return SpanPoint(N=N, n=n, d=P["d"], seed=P["seed"], task_seed=P["task_seed"], n_seeds=P["n_seeds"],
                     ffn_width=P["ffn_width"], steps=P["gd_steps"], every=P["record_every"], gd_lr=P["gd_lr"],
                     gd_l2=P["gd_l2"], adamw_lr=P["adamw_lr"], adamw_weight_decay=P["adamw_weight_decay"],
                     n_test=P["n_test"])


def visibility_spec(P: dict, N: int) -> VisibilityPoint:
    return VisibilityPoint.at(P, N, n_values)


def readout_spec(P: dict, N: int) -> ReadoutPoint:
    return ReadoutPoint.at(P, N, n_values)


def ffn_spec(P: dict, N: int, rotated: bool) -> FFNPoint:
    return FFNPoint(N=N, rotated=rotated, d=P["d"], n=tuple(n_values(N, P["d"], P["n_over_Nd"])), seed=P["seed"],
                    task_seed=P["task_seed"], n_seeds=P["n_seeds"], n_test=P["n_test"], ffn_width=P["ffn_width"],
                    steps=P["gd_steps"], every=P["record_every"], gd_lr=P["gd_lr"], gd_l2=P["gd_l2"])


def transformer_spec(P: dict) -> TransformerPoint:
    N = P["N_rotation"]
    return TransformerPoint(N=N, d=P["d"], n=tuple(n_values(N, P["d"], P["n_over_Nd"])), seed=P["seed"],
                            task_seed=P["task_seed"], tr_seeds=P["tr_seeds"], n_test=P["n_test"], lr=P["tr_lr"],
                            weight_decay=P["adamw_weight_decay"], steps=P["tr_steps"], batch=P["tr_batch"],
                            mlp_width=P["mlp_width"])


# ---------------------------------------------------------------------------------------------- points
def points(P: dict) -> list[Point]:
    """Every point of the chapter: results["span"], results["visibility"][N], results["readout"][N],
    results["ffn"][(N, rotated)] and results["transformer"]. Cost: training steps, the FFN sweeps (many runs of n
    up to 16 N d) first."""
    N_rot = P["N_rotation"]
    ffn = [(N, False) for N in sorted(set(P["N_grid"]) | {N_rot})] + [(N_rot, True)]
    return ([Point(("span",), span_spec(P), run_span, cost=P["gd_steps"])]
            + [Point(("visibility", N), visibility_spec(P, N), run_visibility, cost=1) for N in P["N_grid"]]
            + [Point(("readout", N), readout_spec(P, N), run_readout, cost=1) for N in P["N_grid"]]
            + [Point(("ffn", key), ffn_spec(P, *key), run_ffn, cost=2 * P["gd_steps"] * (1 + key[0] / 4))
               for key in ffn]
            + [Point(("transformer",), transformer_spec(P), run_transformer, cost=P["tr_steps"])])


def footprint(P: dict) -> list[tuple[str, float, str]]:
    """The biggest points' largest allocations in bytes, each with the parameters that set it (lib.core.params refuses
    a profile whose point cannot fit the device): the GD runs' training and test sets, span projectors and FFN
    weights, the visibility draws, and the Transformers' data. Upper bounds: every n of the grid counted in one band."""
    N, d = max([*P["N_grid"], P["N_rotation"]]), P["d"]
    Nd, D = N * d, d + 2 * qstr.embed_dim_rule(N, "floor")
    n_max = max(n_values(N, d, P["n_over_Nd"]))
    R = P["n_seeds"] * len(P["n_over_Nd"])
    grid = "N_grid, N_rotation, n_over_Nd"
    n_vis = max([n for n in n_values(N, d, P["n_over_Nd"]) if n < Nd], default=1)     # visibility: n < N d only
    return [(f"n_seeds, {grid}", R * (n_max * (N * D + Nd + 1) + 2 * Nd * Nd * 2) * 4,
             "the GD runs' training sets and projectors"),
            (f"n_test, n_seeds, {grid}", R * P["n_test"] * (N * D + 3 * Nd) * 4, "the GD runs' test sets"),
            (f"ffn_width, n_seeds, {grid}", 4 * R * (N * D * Nd + Nd * P["ffn_width"] + P["ffn_width"] * N) * 4,
             "the FFNs' weights, gradients and states"),
            (f"n_draws, {grid}", P["n_draws"] * (n_vis * Nd + 4 * Nd * Nd + 3 * min(P["n_test"], 1000) * Nd) * 4,
             "the visibility draws and projectors"),
            (f"tr_seeds, n_test, {grid}", 2 * P["tr_seeds"] * len(P["n_over_Nd"]) * (n_max + P["n_test"]) * N * (D + 1) * 4,
             "the Transformers' training and test sets")]
