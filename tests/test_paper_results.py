"""Committed paper-profile results (results/<chapter>/paper/), complete or in progress.

A complete profile (every sweep point of paper.yaml stored) is gated on honesty, not on all-pass: `python -m lib
verify` (lib.core.verify.audit) on each, its manifest, implementation checks, claims recomputed identically from the
stored points, complete provenance naming paper.yaml's parameters, and today's code hash on every point. A failing
empirical claim is a finding the page shows and explains. A profile in progress (its
points are computed over several sessions, niced in the background, and committed as they accumulate) is never
rendered: its stored points must be readable points of paper.yaml as it is now, and nothing else; the test's id says
"in-progress-k-of-n".

CI never recomputes paper results; `python -m lib book` renders complete ones in place of the quick profile.
The gate itself is tested on a tiny result set computed here.
"""
import importlib
import json

import pytest

from lib.__main__ import paper_status
from lib.chapters.rpe_decay import compute as rd
from lib.chapters.rpe_decay import page as rpage
from lib.core import params, runner, verify
from lib.core.chapter import Chapter
from lib.core.claims import explanations, unsettled
from lib.core.gate import gate
from lib.core.store import ROOT, Store, environment
from lib.core.sweep import collect

STARTED = sorted(p.parent.name for p in (ROOT / "results").glob("*/paper") if (p / "points").is_dir())
PROGRESS = {chapter: verify.progress(chapter, "paper", root=ROOT / "results") for chapter in STARTED}
STORED = [c for c, (k, n, _) in PROGRESS.items() if k == n]
IN_PROGRESS = [pytest.param(c, id=f"{c}-in-progress-{k}-of-{n}") for c, (k, n, _) in PROGRESS.items() if k < n]


def test_discovery_matches_the_runner(monkeypatch):
    monkeypatch.setenv("BOOK_RESULTS", str(ROOT / "results"))
    for chapter in params.chapters():
        assert runner.paper_results_exist(chapter) == (chapter in STORED)


@pytest.mark.parametrize("chapter", IN_PROGRESS)
def test_paper_results_in_progress(chapter, monkeypatch):
    """Points of an unfinished profile: each a readable point of paper.yaml, no strays, and no page made from them."""
    stored, total, strays = PROGRESS[chapter]
    assert strays == [], f"stored points of other parameters than paper.yaml: {strays[:3]}"
    for f in (ROOT / "results" / chapter / "paper" / "points").glob("*.json"):
        record = json.loads(f.read_text())
        assert {"spec", "result", "commit", "lib_hash", "device"} <= set(record), f.name
    assert not (ROOT / "results" / chapter / "paper" / "claims.json").exists(), "an unfinished profile has claims"
    monkeypatch.setenv("BOOK_RESULTS", str(ROOT / "results"))
    assert not runner.paper_results_exist(chapter) and 0 < stored < total


def test_progress_counts_points_and_strays(tmp_path, monkeypatch):
    """Two of the paper profile's points stored (fake results) and one point of other parameters: 2 of n, one stray,
    not rendered, `list`, the intro and the quick page say in progress; every point stored: complete, rendered."""
    from lib.chapters.sample_complexity import compute as sc

    points = sc.points(params.resolve("sample_complexity", "paper"))
    store = Store("sample_complexity", "paper", root=tmp_path)
    env = environment("cpu", "sample_complexity")
    for p in points[:2]:
        store.put(p.spec, {"samples": [[1.0]]}, env)
    (store.dir / "points" / "0123456789abcdef.json").write_text("{}")
    monkeypatch.setenv("BOOK_RESULTS", str(tmp_path))
    assert verify.progress("sample_complexity", "paper") == (2, len(points), ["0123456789abcdef.json"])
    assert not runner.paper_results_exist("sample_complexity")
    assert paper_status("sample_complexity").startswith(f"in progress, 2 of {len(points)} points stored")
    assert paper_status("ffn_span").startswith("none stored")                     # `python -m lib list` says so
    nb = tmp_path / "executed" / "sample_complexity.ipynb"                        # and the intro's summary table
    nb.parent.mkdir()
    nb.write_text(json.dumps({"metadata": {"book": {"profile": "quick", "results": str(tmp_path / "none")}}}))
    assert runner._runs(["sample_complexity"], nb.parent)[0]["shows"] == f"quick; paper: 2 of {len(points)} points computed"
    quick_page = Chapter("sample_complexity", params.resolve("sample_complexity", "quick"))   # and the quick page's note
    assert f"2 of its {len(points)} points are computed so far" in quick_page.profile_note().data
    for p in points[2:]:
        store.put(p.spec, {"samples": [[1.0]]}, env)
    assert verify.progress("sample_complexity", "paper")[:2] == (len(points), len(points))
    assert runner.paper_results_exist("sample_complexity")
    assert paper_status("sample_complexity").startswith(f"complete, {len(points)} points stored")
    assert runner._runs(["sample_complexity"], nb.parent)[0]["shows"] == "quick"
    assert f"Its stored results are complete ({len(points)} points)" in quick_page.profile_note().data
    nb.write_text(json.dumps({"metadata": {"book": {"profile": "paper", "stored_only": True,
                                                    "results": str(tmp_path / "none")}}}))
    run = runner._runs(["sample_complexity"], nb.parent)[0]                        # the intro: one line a chapter
    assert run["short"] == "paper (stored results): the paper's experiment" and run["shows"].startswith(run["short"] + ":")
    assert "the paper's experiment |" in runner.summary_markdown([run])


def test_list_shows_a_further_profile_in_progress(monkeypatch, capsys):
    """`python -m lib list` says how far a further large profile (one beside paper and quick, computed like paper and not
    rendered) has got, and how to resume it."""
    from lib.__main__ import _list
    from lib.core import runner

    real = params.profiles
    monkeypatch.setattr(params, "profiles", lambda c: real(c) + (["further"] if c == "sample_complexity" else []))
    monkeypatch.setattr(runner, "paper_progress", lambda c, profile="paper": (1, 5) if profile == "further" else None)
    _list()
    out = capsys.readouterr().out
    assert "further results: 1 of 5 points stored (python -m lib compute sample_complexity --profile further resumes)" in out


COMMITTED = verify.committed_profiles(root=ROOT / "results")[0]


def test_every_complete_or_rendered_paper_profile_is_verified():
    rendered = [c for c in STARTED if (ROOT / "results" / c / "paper" / "claims.json").is_file()]
    assert sorted(set(STORED) | set(rendered)) == sorted(c for c, p in COMMITTED if p == "paper")


@pytest.mark.parametrize("chapter, profile", COMMITTED, ids=[f"{c}-{p}" for c, p in COMMITTED])
def test_committed_results_verify(chapter, profile):
    """`python -m lib verify`, one complete committed result set at a time (lib.core.verify.audit): its files match
    its manifest, its implementation checks pass, its claims recompute identically from its points, its provenance is
    complete and names the profile's parameters file as it is, and every point carries today's code hash."""
    assert verify.audit(chapter, profile, root=ROOT / "results") == []


@pytest.mark.parametrize("chapter", STORED)
def test_provenance_names_every_machine_its_points_come_from(chapter):
    """A profile computed over several calls (niced on a CPU, then on a GPU) names each machine, not the last."""
    d = ROOT / "results" / chapter / "paper"
    prov = json.loads((d / "provenance.json").read_text())
    points = [json.loads(f.read_text()) for f in (d / "points").glob("*.json")]
    assert [dev for dev in {r["device"] for r in points} if dev not in prov["device"]] == []
    assert prov.get("point_commits", 1) == len({r["commit"] for r in points})


@pytest.mark.parametrize("chapter", STORED)
def test_no_stored_number_names_a_dirty_tree(chapter):
    """Provenance a referee can check: every stored point, compute record and provenance of a committed paper profile
    names a commit (one whose code its code hash matches), never a tree with uncommitted edits."""
    d = ROOT / "results" / chapter / "paper"
    files = sorted((d / "points").glob("*.json")) + [d / f for f in ("compute.json", "provenance.json")]
    dirty = [f.name for f in files if f.is_file() and "+dirty" in json.dumps(
        {k: v for k, v in json.loads(f.read_text()).items() if "commit" in k})]
    assert dirty == []


@pytest.mark.parametrize("chapter", STORED)
def test_every_unsettled_claim_at_paper_scale_explains_itself(chapter):
    """Each claim whose badge is FAIL or censored at the paper's scale carries its own explanation (`Row.explain`),
    which the page lists under its claim table: a claim that starts failing is explained or this test names it."""
    claims_mod = importlib.import_module(f"lib.chapters.{chapter}.claims")
    page = importlib.import_module(f"lib.chapters.{chapter}.page")
    compute = importlib.import_module(f"lib.chapters.{chapter}.compute")
    P = params.resolve(chapter, "paper")
    results = collect(compute.points(P), Store(chapter, "paper", root=ROOT / "results", stored_only=True), "cpu",
                      log=None)
    rows = page.claims(P, results)
    said = "\n".join(explanations(claims_mod.ROWS, rows, P, results))
    assert [k for k in unsettled(rows) if f"`{k}`:" not in said] == []


# the fits at the smoke profile's effort (one start, no IRLS round, 10 evaluations per head): a result set to gate, in
# 2 s instead of 10
TINY = {"H_grid": [1, 2], "betas": [1.2], "taus": [10.0], "window": 1e4, "rel_bump_T": [16], "rel_bump_H": 2,
        "bump_T": [8], "delta_T": [2], "context_betas": [1.2], "context_windows": [512.0], "context_H": 2, "restarts": 1,
        "converged_starts": 1, "irls_rounds": 0, "max_nfev": 10, "train_betas": [1.2], "train_taus": [10.0],
        "train_S": [16], "train_H": [1], "train_seeds": 1, "train_steps": 10, "train_batch": 2, "train_n_test": 4,
        "train_checks": 1, "apph_S": 64, "apph_H": [1], "apph_seeds": 1, "apph_steps": 10, "apph_batch": 2,
        "apph_n_test": 4}


def test_the_gate_passes_an_honest_result_set_and_names_each_kind_of_tampering(tmp_path):
    P = params.resolve("rpe_decay", "quick", TINY)
    store = Store("rpe_decay", "quick", root=tmp_path)
    env = environment("cpu", "rpe_decay")
    results = collect(rd.points(P), store, "cpu", log=None, env=env)
    power = rpage.power(P, results, 5)
    rows = gate(rpage.claims(P, results), power)      # as Chapter.finish stores them: gated by their power
    prov = {"chapter": "rpe_decay", "profile": "quick", "wall_s": 1.0, "seeds": {"seed": P["seed"]}, "params": P, **env}
    store.write("claims.json", rows)
    store.write("provenance.json", prov)
    assert verify.problems("rpe_decay", "quick", root=tmp_path) == [f"{store.dir}: no power.json (the page computes "
                                                                     "the power of its rules)"]
    store.write("power.json", power)
    assert verify.problems("rpe_decay", "quick", root=tmp_path) == []
    store.write("power.json", [{**power[0], "row": "no-such-row"}] + power[1:])
    found = verify.problems("rpe_decay", "quick", root=tmp_path)      # and the renamed row's gate lost its world
    assert found[0] == "power.json: row 'no-such-row' is not a claim row of this result set"
    assert all(f.startswith(f"claim {power[0]['row']}:") for f in found[1:])
    store.write("power.json", [{**power[0], "pass": power[0]["pass"] + 0.5}] + power[1:])
    assert "shares missing or not adding up to 1" in verify.problems("rpe_decay", "quick", root=tmp_path)[0]
    store.write("power.json", power)

    target = next(r["id"] for r in rows if r["kind"] == "claim")
    store.write("claims.json", [{**r, "measured": "better"} if r["id"] == target else r for r in rows])   # typed by hand
    found = verify.problems("rpe_decay", "quick", root=tmp_path)
    assert len(found) == 1 and found[0].startswith(f"claim {target}: stored") and "better" in found[0]
    store.write("claims.json", [{**r, "passed": False} if r["id"] == "1-t5-buckets" else r for r in rows])
    assert "implementation check 1-t5-buckets fails" in verify.problems("rpe_decay", "quick", root=tmp_path)
    store.write("claims.json", rows)
    store.write("provenance.json", {k: v for k, v in prov.items() if k != "device"})
    assert verify.problems("rpe_decay", "quick", root=tmp_path) == ["provenance.json: no device"]
    store.write("provenance.json", {**prov, "params": {**P, "train_steps": 11}})      # points of other parameters
    assert any("not stored" in p for p in verify.problems("rpe_decay", "quick", root=tmp_path))
