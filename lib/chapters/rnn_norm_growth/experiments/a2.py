"""The Transformer's arm: alpha*(N), the attention scale of Eq. A.2's construction (lib.science.a2), in one point
(`A2Point`, `run_a2`), with the fits of ln N against powers of N. No training enters it. lib.chapters.rnn_norm_growth.compute
lists the point.
"""
from __future__ import annotations

from dataclasses import dataclass

from lib.science import a2


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
