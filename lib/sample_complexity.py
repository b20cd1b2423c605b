"""Figure 1 of seed 000: samples-to-threshold against N for a Transformer, an FFN and a bidirectional GRU.

Panel (a) trains on 1STR (threshold 0.7); panel (b) on simple-1STR (threshold 0.02). A sweep point is one
(panel, model, N) with all its seeds, trained as one batched computation by `engine.train_to_threshold` and
stored as soon as it finishes, so an interrupted sweep resumes where it stopped.

Panel (a) measures two test sets in the same runs: the authors' (their script evaluates 1STR models on
simple-1STR prompts) and the task's own (1STR prompts); each run has one stopping point per test set.

This module is the computation only (what the stored numbers depend on); the page's tables, claims and figures
are in lib/sample_complexity_page.py, which no computation imports.

    >>> records = compute(params, Store("sample_complexity", "quick"), device="cpu")
    >>> table = lib.sample_complexity_page.summarize(params, records)
"""
from __future__ import annotations

from . import engine, models, qstr
from .stats import generator
from .store import Store, environment

PANELS = {"a": {"simple": False, "tests": ("authors", "task")}, "b": {"simple": True, "tests": ("task",)}}


def point_spec(P: dict, panel: str, model: str, N: int) -> dict:
    """Everything a sweep point's numbers depend on (and nothing else): the store's key."""
    spec = {"panel": panel, "model": model, "N": N, "d": P["d"], "d_e_rule": P["d_e_rule"], "encoding": P["encoding"],
            "seed": P["seed"], "task_seed": P["task_seed"], "n_seeds": P["n_seeds"], "n_test": P["n_test"],
            "threshold": P[f"threshold_{panel}"], "check_every": P[f"check_every_{panel}"], "batch_size": P["batch_size"],
            "lr": P["lr"], "weight_decay": P["weight_decay"], "max_samples": P["max_samples"]}
    spec |= {"transformer": {"mlp_width": P["mlp_width"]}, "rnn": {"rnn_hidden": P["rnn_hidden"]},
             "ffn": {"ffn_width": P["ffn_width"]}}[model]
    return spec


def run_point(spec: dict, device: str) -> dict:
    """Train the n_seeds runs of one sweep point as one batched computation."""
    panel, N, R = spec["panel"], spec["N"], spec["n_seeds"]
    task = qstr.QSTR(N=N, d=spec["d"], simple=PANELS[panel]["simple"], d_e_rule=spec["d_e_rule"],
                     encoding=spec["encoding"], task_seed=spec["task_seed"], device=device)
    model = models.build(spec["model"], N, task.D, spec["d"], ffn_width=spec.get("ffn_width", 1000),
                         rnn_hidden=spec.get("rnn_hidden", 500), mlp_width=spec.get("mlp_width", 100))
    # Test prompts depend on (seed, panel, N) only: the three models are scored on the same prompts.
    test_gen = generator(spec["seed"], panel, N, "test", device=device)
    tests = [task.sample(R, spec["n_test"], test_gen, simple=True if name == "authors" else None)  # None: the task's own
             for name in PANELS[panel]["tests"]]
    gen = generator(spec["seed"], panel, spec["model"], N, device=device)
    cfg = engine.TrainConfig(lr=spec["lr"], weight_decay=spec["weight_decay"], batch_size=spec["batch_size"],
                             check_every=spec["check_every"], max_samples=spec["max_samples"])
    params = model.init(R, gen, device)
    runs = engine.train_to_threshold(model.forward, params, task.sample, tests, [spec["threshold"]] * len(tests), cfg, gen)
    every = max(1, len(runs.check_samples) // 200)  # keep at most ~200 points of each learning curve
    return {"tests": list(PANELS[panel]["tests"]), "samples": runs.samples, "d_e": task.d_e, "D": task.D,
            "n_params": models.n_params(params), "wall_s": runs.wall_s,
            "curve_samples": runs.check_samples[::every], "curves": runs.curves[::every]}


def sweep(P: dict) -> list[tuple[str, str, int]]:
    return [(panel, m, N) for panel in ("a", "b") for m in P["models"] for N in P[f"N_{panel}"]]


def compute(P: dict, store: Store, device: str, force: bool = False, log=print) -> dict:
    """Every sweep point of the chapter: loaded from the store when present, else trained and stored at once."""
    env = environment(device, store.chapter)
    records = {}
    for panel, model, N in sorted(sweep(P), key=_cost, reverse=True):  # longest first: parallel workers end together
        spec = point_spec(P, panel, model, N)
        record, trained = store.load_or_compute(spec, lambda: run_point(spec, device), env, force)
        log(f"panel {panel} {model:<11} N={N:<3} " + (f"trained in {record['result']['wall_s']:6.1f} s" if trained
                                                        else "loaded from the store"))
        records[(panel, model, N)] = record
    return {point: records[point] for point in sweep(P)}


def _cost(point) -> tuple:
    """A rough order of a point's training time: panel (b) trains longest, the Transformer least, larger N longer."""
    panel, model, N = point
    return panel == "b", model != "transformer", model == "rnn", N
