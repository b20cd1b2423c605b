"""Every chapter's `smoke` profile (parameters/<chapter>/smoke.yaml: the smallest parameters that still run every
arm) through what its page does, without the notebook: its points collected into a temporary store, its claims,
its power table on 2 draws, and every figure its notebook draws, called as the notebook calls it. All seven
chapters in well under a minute of CPU: a change that breaks a page's claims, power or figures fails here, in
seconds, before the quick book build. (`python -m lib run all --profile smoke` runs the notebooks themselves.)"""
from __future__ import annotations

import importlib
import re
from functools import partial

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from lib.core import params, runner  # noqa: E402
from lib.core.store import ROOT, Store  # noqa: E402
from lib.core.sweep import collect  # noqa: E402


def drawn_in_notebook(chapter: str) -> set[str]:
    """The figures.plot_* functions the chapter's notebook calls."""
    return set(re.findall(r"\bfigures\.(plot_\w+)\(", (ROOT / "book" / "chapters" / f"{chapter}.md").read_text()))


def figure_calls(chapter: str, P: dict, results: dict) -> dict:
    """{name: a call drawing it as the notebook does}: figures.plot_x(P, results), but where the notebook passes
    something else (the tables page.py makes, the results alone) or draws a figure only on a condition."""
    figures = importlib.import_module(f"lib.chapters.{chapter}.figures")
    page = importlib.import_module(f"lib.chapters.{chapter}.page")
    calls = {name: partial(getattr(figures, name), P, results) for name in drawn_in_notebook(chapter)}
    if chapter == "sample_complexity":
        table = page.summarize(P, results)
        calls.update(plot_prompt=lambda: figures.plot_prompt(N=8, d=P["d"], task_seed=P["task_seed"], seed=P["seed"]),
                     plot_figure1=lambda: figures.plot_figure1(P, table),
                     plot_curves=lambda: figures.plot_curves(P, results, "a"),
                     plot_comparison=lambda: figures.plot_comparison(P, table),
                     plot_wide=lambda: figures.plot_wide(P, table))
    elif chapter == "ffn_span":
        table, ref = page.ffn_table(P, results), page.adamw_reference(P["profile"])
        calls.update(plot_visibility=lambda: figures.plot_visibility(P, results, table),
                     plot_samples=lambda: figures.plot_samples(P, table, ref))
    elif chapter == "head_lower_bound":
        calls.update(plot_calculator=lambda: figures.plot_calculator(results))
    elif chapter == "sparse_variable_creation":
        calls.update({name: partial(getattr(figures, name), results)
                      for name in ("plot_minimal_R", "plot_and", "plot_curves", "plot_norms", "plot_parity")})
        if "capacity" not in next(iter(results["and"].values()))["result"]:    # the notebook's own conditions
            calls["plot_norms"] = lambda: None
        if not results.get("parity"):
            calls["plot_parity"] = lambda: None
    return calls


@pytest.mark.parametrize("chapter", runner.toc_chapters())
def test_smoke_profile_runs_the_page_without_the_notebook(chapter, tmp_path, monkeypatch):
    monkeypatch.setenv("BOOK_RESULTS", str(tmp_path))    # a page that reads another chapter's store reads here
    compute = importlib.import_module(f"lib.chapters.{chapter}.compute")
    page = importlib.import_module(f"lib.chapters.{chapter}.page")
    P = params.resolve(chapter, "smoke")
    results = collect(compute.points(P), Store(chapter, "smoke", root=tmp_path), "cpu", log=None)
    rows = page.claims(P, results)
    assert rows and {r["kind"] for r in rows} <= {"check", "claim"}
    power = page.power(P, results, 2)
    assert {t["row"] for t in power} <= {r["id"] for r in rows}
    calls = figure_calls(chapter, P, results)
    assert set(calls) == drawn_in_notebook(chapter)       # a figure the notebook draws that this test does not: add it
    try:
        for call in calls.values():
            plt.close("all")
            call()
            for number in plt.get_fignums():              # rendered, as the notebook renders it: some errors wait
                plt.figure(number).canvas.draw()          # for the drawing (a log axis with nothing positive on it)
    finally:
        plt.close("all")
