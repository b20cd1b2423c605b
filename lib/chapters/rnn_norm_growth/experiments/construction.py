"""The construction arm: Theorem 7's hand-built accumulator (lib.science.rnn_constructions), d_h = q d per direction,
in one point (`ConstructionPoint`, `run_construction`): its MSE on simple-qSTR for every N of the grid (up to 10^4), on
1STR-style qSTR, and the state error of the variant whose transition carries a per-step bias, with and without the
dead-zone rectifier. lib.chapters.rnn_norm_growth.compute lists the point.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from lib.science import qstr
from lib.science.rnn_constructions import accumulate, construction_task, readout, transition
from lib.science.seeds import generator


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
