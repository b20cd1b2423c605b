"""The memoriser arm: Theorem 9's memoriser (Lemmas 36-38, lib.science.rnn_constructions) built for n point-wise
1STR samples as the Elman network of the phase arm with U = 0 and no recurrence, evaluated by BiRNN, in one point
(`MemoriserPoint`, `run_memoriser`): its training error, test MSE and ||vec Theta||^2 (the phase arm's
`param_norm_sq`, the same measure as the trained runs', for the crossover) against n. lib.chapters.rnn_norm_growth.compute
lists the point.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from lib.chapters.rnn_norm_growth.experiments.phase import param_norm_sq
from lib.science import qstr
from lib.science.models import BiRNN, Params
from lib.science.rnn_constructions import lemma37_direction, memoriser_params, relu_interpolant, rounding_scale
from lib.science.seeds import generator


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
