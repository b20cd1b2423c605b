"""Mousavi-Hosseini et al. 2025, Prop. 8/35, Thm 7 and Thm 9: an RNN learns simple-qSTR at a fixed width, but on
1STR its width d_h or its readout norm must grow with N, because its state is a code with exponentially many words
(the packing argument); a memoriser of n samples costs a norm that does not depend on N, so a min-norm learner prefers it.

Four kinds of point (see `points`), each computed by its module of experiments/ (spec, spec builder, run function):

- construction (one point, experiments/construction.py): Thm 7's hand-built accumulator
  (lib.science.rnn_constructions), d_h = q d per direction. Its MSE on simple-qSTR for N up to 10^4, on 1STR, and
  the state error of the variant whose transition carries a per-step bias, with and without the dead-zone rectifier.
- phase (one point per architecture, task and N, experiments/phase.py): bidirectional RNNs
  (lib.science.models.BiRNN) of every width of the grid, all seeds, one batch (narrower runs are the widest one with
  hidden units masked to zero), trained online with AdamW until each run is decided: its test MSE reached the
  threshold, or it plateaued above it, or (censored) neither by the sample cap. For the Elman RNN, whose readout is
  the theory's f_y = w_2 relu(U s_j + W_y z_j + b), also (L ||U||_op r_h)^2 of every run where it stopped (at the
  threshold), and the packing geometry of the widest runs: states s_j at a fixed position j and token x_j over many
  prompts, their participation ratio, and Phi(s_j) in R^(N-1), the outputs for every candidate index replayed from
  the state.
- a2 (one point, experiments/a2.py): alpha*(N) of the Transformer's A.2 construction, from lib.science.a2.
- memoriser (one point, experiments/memoriser.py): Thm 9's memoriser (lib.science.rnn_constructions) built for n
  point-wise 1STR samples as the Elman network above with U = 0 and no recurrence, evaluated by BiRNN; its training
  error, test MSE and ||vec Theta||^2 against n, for the crossover with the norm of the trained runs that generalise.

What the page shows reads these points: results.py (tables and fits), claims/ (the rows), figures.py, page.py; none
of them is part of this chapter's lib hash.

    >>> from lib.core import params; P = params.resolve("rnn_norm_growth", "paper")
    >>> sorted({p.name.split()[0] for p in points(P)})    # lib.core.sweep.collect computes or loads them
    ['a2', 'construction', 'memoriser', 'phase']
"""
from __future__ import annotations

import math

from lib.chapters.rnn_norm_growth.experiments.a2 import a2_spec, run_a2
from lib.chapters.rnn_norm_growth.experiments.construction import construction_spec, run_construction
from lib.chapters.rnn_norm_growth.experiments.memoriser import memoriser_spec, run_memoriser
from lib.chapters.rnn_norm_growth.experiments.phase import phase_spec, run_phase
from lib.core.sweep import Point
from lib.science import qstr

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
