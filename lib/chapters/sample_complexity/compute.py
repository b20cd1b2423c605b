"""Figure 1 of Mousavi-Hosseini et al. 2025: samples-to-threshold against N for a Transformer, an FFN and a bidirectional GRU.

Panel (a) trains on 1STR (threshold 0.7); panel (b) on simple-1STR (threshold 0.02). A sweep point is one
(panel, model, N) with all its seeds, trained as one batched computation by `engine.train_to_threshold` and
stored as soon as it finishes, so an interrupted sweep resumes where it stopped.

Panel (a) measures two test sets in the same runs: the authors' (their script evaluates 1STR models on
simple-1STR prompts) and the task's own (1STR prompts); each run has one stopping point per test set.

This module is the computation only (what the stored numbers depend on); what the page shows of the stored points
(results/, claims/, figures.py, page.py beside it) no computation imports.

    >>> from lib.core import params; P = params.resolve("sample_complexity", "paper")
    >>> len(points(P)), sorted({p.name.split()[0] for p in points(P)})   # panels a and b, the wide sweep and the attention point
    (236, ['a', 'attention', 'b', 'wide'])
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from lib.core.sweep import Point
from lib.science import engine, models, qstr
from lib.science.seeds import generator

PANELS = {"a": {"simple": False, "tests": ("authors", "task")}, "b": {"simple": True, "tests": ("task",)}}


@dataclass(frozen=True)
class FigurePoint:
    """One (panel, model, N) of Figure 1, all its seeds: everything its numbers depend on, and nothing else."""
    panel: str               # "a": 1STR, scored on two test sets; "b": simple-1STR
    model: str               # transformer, rnn or ffn
    N: int                   # sequence length
    d: int                   # token dimension
    d_e_rule: str            # floor (the code) or ceil (the caption) of 5 ln N
    encoding: str            # code or paper (with the sqrt(d/q) factor)
    seed: int                # seed of the data streams, initialisations and test sets
    task_seed: int           # seed of u and the position codes
    n_seeds: int             # runs trained as one batch
    n_test: int              # test prompts per run and test set
    threshold: float         # test-MSE threshold
    check_every: int         # steps between test evaluations
    batch_size: int          # fresh prompts per step
    lr: float                # AdamW learning rate
    weight_decay: float      # AdamW decoupled weight decay
    max_samples: int         # a run still above threshold here is censored
    width: int               # the model's width: MLP (transformer), GRU units (rnn) or second hidden layer (ffn)


@dataclass(frozen=True)
class RunPoint(FigurePoint):
    """One run (seed index `run` of n_seeds) of a (panel, model, N) whose seeds are computed one point each
    (`split_rnn_seeds`): a paper-size GRU point trains for hours on one CPU thread, longer than a deadline's
    window, and a point still running at its deadline is abandoned; one seed fits. On the CPU the GRU runs torch's
    fused kernel per run anyway, so splitting costs it no batching. Its test set is run `run`'s of the batched draw,
    so every model is still scored on the same prompts; its training and initialisation streams are its own."""
    run: int                 # which of the n_seeds runs


WIDTH = {"transformer": "mlp_width", "rnn": "rnn_hidden", "ffn": "ffn_width"}


@dataclass(frozen=True)
class AttentionPoint(FigurePoint):
    """Figure 1's panel (a) Transformer at one N, trained as its own point is (the same task, test sets, streams and
    stopping rule), then read: where its attention goes on `n_prompts` fresh 1STR prompts, shared by every run."""
    n_prompts: int           # 1STR prompts the attention is summarised on


def point_spec(P: dict, panel: str, model: str, N: int, draw: int = 0) -> FigurePoint:
    """The point of one (panel, model, N) on task draw `draw` (0: task_seed itself, j: task_seed + j)."""
    return FigurePoint(panel=panel, model=model, N=N, d=P["d"], d_e_rule=P["d_e_rule"], encoding=P["encoding"],
                       seed=P["seed"], task_seed=P["task_seed"] + draw, n_seeds=P["n_seeds"], n_test=P["n_test"],
                       threshold=P[f"threshold_{panel}"], check_every=P[f"check_every_{panel}"],
                       batch_size=P["batch_size"], lr=P["lr"], weight_decay=P["weight_decay"],
                       max_samples=P["max_samples"], width=P[WIDTH[model]])


def run_point(spec: FigurePoint, device: str) -> dict:
    """Train the n_seeds runs of one sweep point as one batched computation (a RunPoint: its one run)."""
    panel, N, R = spec.panel, spec.N, spec.n_seeds
    one = isinstance(spec, RunPoint)
    task = qstr.QSTR(N=N, d=spec.d, simple=PANELS[panel]["simple"], d_e_rule=spec.d_e_rule,
                     encoding=spec.encoding, task_seed=spec.task_seed, device=device)
    width = {WIDTH[spec.model]: spec.width}
    model = models.build(spec.model, N, task.D, spec.d, **width)
    # Test prompts depend on (seed, panel, N) only: the three models are scored on the same prompts.
    test_gen = generator(spec.seed, panel, N, "test", device=device)
    tests = [task.sample(R, spec.n_test, test_gen, simple=True if name == "authors" else None)  # None: the task's own
             for name in PANELS[panel]["tests"]]
    gen = generator(spec.seed, panel, spec.model, N, *(("run", spec.run) if one else ()), device=device)
    if one:
        tests, R = [(z[spec.run:spec.run + 1], y[spec.run:spec.run + 1]) for z, y in tests], 1
    cfg = engine.TrainConfig(lr=spec.lr, weight_decay=spec.weight_decay, batch_size=spec.batch_size,
                             check_every=spec.check_every, max_samples=spec.max_samples)
    params = model.init(R, gen, device)
    runs = engine.train_to_threshold(model.forward, params, task.sample, tests, [spec.threshold] * len(tests), cfg, gen)
    every = max(1, len(runs.check_samples) // 200)  # keep at most ~200 points of each learning curve
    return {"tests": list(PANELS[panel]["tests"]), "samples": runs.samples, "d_e": task.d_e, "D": task.D,
            "n_params": models.n_params(params), "wall_s": runs.wall_s,
            "curve_samples": runs.check_samples[::every], "curves": runs.curves[::every]}


def run_attention(spec: AttentionPoint, device: str) -> dict:
    """Train the Transformer runs of one panel (a) point to the threshold, then summarise their attention on fresh
    1STR prompts (`attention_stats`) and keep the query-key form W_Q^T W_K of each run (the paper's Figure 2 plots
    it: the construction of Eq. A.2 is alpha I in the block of the query's code of t_i against the key's own code)."""
    N, R = spec.N, spec.n_seeds
    task = qstr.QSTR(N=N, d=spec.d, simple=False, d_e_rule=spec.d_e_rule, encoding=spec.encoding,
                     task_seed=spec.task_seed, device=device)
    model = models.build(spec.model, N, task.D, spec.d, **{WIDTH[spec.model]: spec.width})
    # The setup of run_point (which the stored Figure 1 points keep as they are): the same tests, streams and rule,
    # so with n_seeds runs on one device these are Figure 1's own runs at this N.
    test_gen = generator(spec.seed, spec.panel, N, "test", device=device)
    tests = [task.sample(R, spec.n_test, test_gen, simple=True if name == "authors" else None)
             for name in PANELS[spec.panel]["tests"]]
    gen = generator(spec.seed, spec.panel, spec.model, N, device=device)
    cfg = engine.TrainConfig(lr=spec.lr, weight_decay=spec.weight_decay, batch_size=spec.batch_size,
                             check_every=spec.check_every, max_samples=spec.max_samples)
    runs = engine.train_to_threshold(model.forward, model.init(R, gen, device), task.sample, tests,
                                     [spec.threshold] * len(tests), cfg, gen)
    X, T = task.draw(1, spec.n_prompts, generator(spec.seed, "attention", N, "prompts", device=device))
    z = task.encode(X, T)[0]
    params = {k: v.to(device) for k, v in runs.params.items()}
    with torch.no_grad():
        A = torch.cat([model.attention(params, z[i:i + 250].expand(R, -1, -1, -1))
                       for i in range(0, spec.n_prompts, 250)], 1)
    D, d, d_e = task.D, spec.d, task.d_e
    w = runs.params["attn.in_w"]
    qk = w[:, :D].transpose(1, 2) @ w[:, D:2 * D]                    # (R, D, D): rows query, columns key features
    block = qk[:, d + d_e:d + 2 * d_e, d:d + d_e]                     # query's code of t_i x key's own code
    off = ~torch.eye(d_e, dtype=torch.bool)
    return {"tests": list(PANELS[spec.panel]["tests"]), "samples": runs.samples, "wall_s": runs.wall_s, "d_e": d_e,
            "D": D, **attention_stats(A.cpu(), T[0, :, :, 0].cpu(), task.E.cpu()),
            "qk_block_share": (block.pow(2).sum((1, 2)) / qk.pow(2).sum((1, 2))).tolist(),
            "qk_block_diagonal": block.diagonal(dim1=1, dim2=2).mean(1).tolist(),
            "qk_block_off_diagonal": block.abs()[:, off].median(1).values.tolist(), "qk": qk[0].tolist()}


def attention_stats(A: torch.Tensor, t: torch.Tensor, E: torch.Tensor) -> dict:
    """Where attention A (R, B, N, N) (row i: where position i looks) goes on B prompts whose position i retrieves
    token t (B, N), with position codes E (N, d_e): the mass on t_i (`share`, per run; `share_per_prompt`, per run
    and prompt), the positions whose attention peaks at t_i (`peak_k` of `peak_n`), the mean weight on the other keys j
    by the overlap <w_{t_i}, w_j> of the query's code of t_i with the key's own (`by_overlap` at `overlap_levels`,
    1 - 2h/d_e for the codes' Hamming distance h = 0..d_e; NaN where no key has it: level 1 only where another key's
    code is t_i's), and the first prompt's attention (`example`, `example_t`).

        >>> A = torch.full((2, 3, 4, 4), 0.25); E = torch.tensor([[1., 1], [1, -1], [-1, 1], [-1, -1]]) / 2 ** 0.5
        >>> attention_stats(A, torch.zeros(3, 4, dtype=torch.long), E)["share"]      # uniform: 1/N
        [0.25, 0.25]
    """
    R, B, N, _ = A.shape
    d_e = E.shape[1]
    on_t = A.gather(-1, t.expand(R, B, N).unsqueeze(-1)).squeeze(-1)             # (R, B, N)
    overlap = E[t] @ E.T                                                          # (B, N, N): query i, key j
    h = torch.round((1 - overlap) * d_e / 2).long().clamp(0, d_e)
    other = torch.ones(B, N, N, dtype=torch.bool).scatter_(-1, t.unsqueeze(-1), False)
    sums = torch.zeros(R, d_e + 1, dtype=A.dtype).index_add_(1, h[other], A[:, other])
    counts = torch.bincount(h[other], minlength=d_e + 1).to(A.dtype)
    return {"share": on_t.mean((1, 2)).tolist(), "share_per_prompt": on_t.mean(2).tolist(),
            "peak_k": (A.argmax(-1) == t).sum((1, 2)).tolist(), "peak_n": B * N,
            "overlap_levels": (1 - 2 * torch.arange(d_e + 1) / d_e).tolist(),
            "by_overlap": (sums / counts).tolist(), "example": A[:, 0].tolist(), "example_t": t[0].tolist()}


def points(P: dict) -> list[Point]:
    """Every (panel, model, N) of Figure 1 on the task draw task_seed (results[(panel, model, N)] is its record), and
    the task_draw_models' points on the further draws task_seed + j, j < n_task_draws (results[(panel, model, N, j)]);
    results.runs_of reads either layout, split or not. Beyond the figure, the wide_models (those also in models) on panel
    (a)'s task at the further lengths N_wide (results[("wide", model, N)]; a length of N_a is panel (a)'s own point): Theorem 1's
    log N over a range of N that the figure's factor of 3 cannot show. A wide point's spec is a panel (a) spec.
    The authors draw u and the position codes once per N and share them between seeds, so their seeds never average
    over the draw; the further draws measure how much it moves a mean."""
    # One torch thread per point: these models are small enough that a second thread gains little on an idle machine
    # and loses 4x on a busy one (measured: 40 steps of a 64-unit GRU, 13 s on one thread, 52 s on two, at load 13),
    # and a fixed thread count keeps the float sums, and so every stored number, the same. Parallelism: --jobs.
    # With split_rnn_seeds the GRU has one point per run instead: results[(panel, model, N, j, r)], j the draw, r the run.
    def of(panel, model, N, j, name=None):
        name = name or panel   # the label's first key: the panel, or "wide" for the wide sweep's panel (a) points
        label = (name, model, N) + ((j,) if j else ())
        spec, cost = point_spec(P, panel, model, N, j), _cost(P, panel, model, N)
        if not (model == "rnn" and P.get("split_rnn_seeds", False)):   # absent from results stored before it: off
            return [Point((label,), spec, run_point, cost=cost, threads=1)]
        return [Point(((name, model, N, j, r),), RunPoint(**vars(spec), run=r), run_point, cost=cost / P["n_seeds"],
                      threads=1) for r in range(P["n_seeds"])]

    main = [p for panel in ("a", "b") for model in P["models"] for N in P[f"N_{panel}"] for p in of(panel, model, N, 0)]
    wide = [p for model in P.get("wide_models", []) if model in P["models"]   # absent before the wide sweep: none
            for N in P.get("N_wide", []) if N not in P["N_a"] for p in of("a", model, N, 0, "wide")]
    return main + [p for j in range(1, P["n_task_draws"]) for panel in ("a", "b")
                   for model in P["models"] if model in P["task_draw_models"] for N in P[f"N_{panel}"]
                   for p in of(panel, model, N, j)] + wide + attention_points(P)


def attention_points(P: dict) -> list[Point]:
    """The attention point (results[("attention", "transformer", attention_N)]): panel (a)'s Transformer at
    attention_N, attention_seeds runs, read on attention_prompts prompts; none where attention_N is 0 (or absent,
    as in results stored before it)."""
    N = P.get("attention_N", 0)
    if not N:
        return []
    spec = point_spec({**P, "n_seeds": P["attention_seeds"]}, "a", "transformer", N)
    return [Point((("attention", "transformer", N),), AttentionPoint(**vars(spec), n_prompts=P["attention_prompts"]),
                  run_attention, cost=_cost(P, "a", "transformer", N) * P["attention_seeds"] / P["n_seeds"], threads=1)]


def footprint(P: dict) -> list[tuple[str, float, str]]:
    """The biggest point's largest allocations in bytes (float32), each with the parameters that set it: the test
    sets, a training step's activations, and each model's weights with their gradient and AdamW state.
    lib.core.params refuses a profile whose point cannot fit the device's memory."""
    R, B, f = P["n_seeds"], P["batch_size"], 4
    N = max(P["N_a"] + P["N_b"] + P.get("N_wide", []))
    D = P["d"] + 2 * qstr.embed_dim_rule(N, P["d_e_rule"])
    grid = "N_a" if N in P["N_a"] else "N_b" if N in P["N_b"] else "N_wide"
    out = [(f"n_test, n_seeds, {grid}", 2 * R * P["n_test"] * N * (D + 1) * f, "the test sets"),
           (f"batch_size, n_seeds, {grid}", R * min(B, 1000) * N * D * f * 16, "a training step")]
    weights = {"ffn": ("ffn_width", N * D * N * P["d"] + N * P["d"] * P["ffn_width"] + P["ffn_width"] * N),
               "rnn": ("rnn_hidden", 6 * (D + P["rnn_hidden"] + 2) * P["rnn_hidden"]),
               "transformer": ("mlp_width", 4 * D * D + 2 * D * P["mlp_width"])}
    for model in P["models"]:
        key, n = weights[model]
        out.append((f"{key}, n_seeds, {grid}", 4 * R * n * f, f"the {model}'s weights and AdamW state"))
    if "rnn" in P["models"]:
        out.append((f"rnn_hidden, batch_size, {grid}", R * min(B, 1000) * N * P["rnn_hidden"] * 2 * 8 * f,
                    "the GRU's states over a sequence"))
    return out


def _cost(P: dict, panel: str, model: str, N: int) -> float:
    """The point's FLOPs, roughly (the sweep starts the costliest first and predicts deadlines from it): a forward
    pass per prompt times three per training sample plus one per evaluated test prompt, with the samples guessed
    from the authors' Figure 1 (about 600 N^2 in panel (a), 2e5 in panel (b); models differ by 3x at most) and, for
    the Transformer in panel (a), from the wide sweep (about 7000 ln N: 600 N^2 would put N = 256 at 1,000 times its
    cost, and a deadline would never start it)."""
    D = P["d"] + 2 * qstr.embed_dim_rule(N, P["d_e_rule"])
    f = models.forward_flops(model, N, D, P["d"], P[WIDTH[model]])
    samples = (7000 * math.log(N) if model == "transformer" else 600 * N ** 2) if panel == "a" else 2e5
    evaluated = samples / (P["batch_size"] * P[f"check_every_{panel}"]) * P["n_test"] * len(PANELS[panel]["tests"])
    return P["n_seeds"] * f * (3 * samples + evaluated) / 1e12
