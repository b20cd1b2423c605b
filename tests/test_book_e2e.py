"""End to end, on conftest.py's two session fixtures: `book`, every chapter in _toc.yml rendered from its committed
results as `make book` renders them and the book built from those notebooks (the pages a reader is shown), and `runs`,
every chapter computed and executed once on its smoke profile (what a fresh run writes: claims, provenance, points).

Marked `e2e`: `pytest -m "not e2e"` runs the unit tests alone.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from lib.chapters.sample_complexity import compute
from lib.core import params, runner
from lib.core.store import ROOT, git_commit, read_json
from tests.test_reader_text import shown_problems, visible_text


def reader_problems(text: str) -> list[str]:
    """shown_problems, less "dirty" where this checkout has uncommitted lib edits (a page rendered from them says
    so, as it should)."""
    found = shown_problems(text)
    return [f for f in found if f.lower() != "dirty"] if git_commit().endswith("+dirty-lib") else found

pytestmark = pytest.mark.e2e
OBJECT_REPR = re.compile(r"\s*<[\w.]+ object(?: at 0x[0-9a-f]+)?>\s*")
CHAPTERS = runner.toc_chapters()


def _profile(notebook) -> str:
    return json.loads(notebook.read_text())["metadata"]["book"]["profile"]


def test_every_chapter_executed_without_errors(book, runs):
    for made, profile in ((book, None), (runs, "smoke")):
        for chapter, path in made["notebooks"].items():
            nb = json.loads(path.read_text())
            errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
            assert not errors, f"{chapter}: {errors[0]['ename']}"
            # no output shown as a Python object's repr (an empty Markdown shows "<...Markdown object>")
            shown = [o["data"] for c in nb["cells"] for o in c.get("outputs", []) if "text/plain" in o.get("data", {})]
            reprs = [d["text/plain"] for d in shown if not "".join(d.get("text/markdown", "")).strip()
                     and set(d) <= {"text/plain", "text/markdown"} and OBJECT_REPR.fullmatch("".join(d["text/plain"]))]
            assert not reprs, f"{chapter}: {reprs[0]}"
            # make book: the committed paper results where they are complete, else the quick profile
            expected = profile or ("paper" if runner.paper_results_exist(chapter) else "quick")
            assert nb["metadata"]["book"]["profile"] == expected, chapter


def test_claims_and_provenance_written(runs):
    for chapter in CHAPTERS:
        d = runs["results"] / chapter / "smoke"
        claims = read_json(d / "claims.json")
        assert claims, f"{chapter}: no claims"
        for c in claims:
            assert set(c) >= {"id", "kind", "source", "statement", "expected", "measured", "passed"}
            assert isinstance(c["passed"], bool) and c["measured"] and c["kind"] in ("check", "claim") and c["source"]
        # an implementation check is an exact identity or construction: only a bug breaks it, at any scale
        assert all(c["passed"] for c in claims if c["kind"] == "check"), [c["id"] for c in claims if not c["passed"]]
        prov = read_json(d / "provenance.json")
        assert prov["profile"] == "smoke" and prov["wall_s"] > 0 and prov["torch"] and prov["commit"] and prov["device"]
        assert list((d / "points").glob("*.json")), f"{chapter}: no stored sweep points"


def test_every_chapters_results_pass_the_honesty_gate(runs, monkeypatch):
    """What the paper results are held to (lib.core.verify), on each chapter's smoke run: its claims recompute
    identically from its stored points (a row whose text depends on a reload's key order, or a number typed on the
    page, fails here), its checks pass and its provenance is complete."""
    from lib.core import verify

    monkeypatch.setenv("BOOK_RESULTS", str(runs["results"]))     # ffn_span's page reads sample_complexity's points
    for chapter in CHAPTERS:
        assert verify.problems(chapter, "smoke", root=runs["results"]) == [], chapter


def test_html_pages_have_figures_claims_and_no_traceback(book):
    html = book["html"]
    for page in ("index.html", "book/intro.html", "book/bibliography.html", "book/executed/report.html"):
        assert (html / page).is_file(), page
    for chapter in CHAPTERS:
        text = (html / "book" / "executed" / f"{chapter}.html").read_text()
        profile = _profile(book["notebooks"][chapter])
        assert len(re.findall(r"<img [^>]*src=\"[^\"]+\.png\"", text)) >= 2, f"{chapter}: figures missing"
        verdicts = "✓ pass</span>" in text or "✗ FAIL</span>" in text
        assert "Claim check" in text and verdicts, f"{chapter}: claim table missing"
        assert "Provenance" in text and profile in text
        # the run summary, whatever the numbers' size and format (a slow machine prints "1,855 s")
        summary = re.search(r"[\d,]+ (stored|sweep) points, [\d,.]+ s of \w+ in all, computed on", text)
        assert summary, f"{chapter}: run summary missing"
        assert "prf:theorem" in text or "proof theorem" in text, f"{chapter}: theorem block missing"
        assert "Traceback" not in text, f"{chapter}: a traceback is rendered"
        # the reader's way to re-run it: the command, and the chapter's source as a download that exists
        words = re.sub(r"</?(span|code|strong)[^>]*>", "", text)    # the words inside inline markup
        assert f"python -m lib run {chapter} --profile {profile}" in words, f"{chapter}: no re-run command"
        link = re.search(rf'class="reference download internal" download="" href="([^"]+/{chapter}\.md)"', text)
        assert link and (html / "book" / "executed" / link.group(1)).resolve().is_file(), f"{chapter}: no source download"
        assert "The code that computed these numbers" in words and "def run_" in words, f"{chapter}: no code shown"
        assert "injected-parameters" not in text, f"{chapter}: papermill's cell is shown"
        # MathJax is served with the book, so the math renders offline
        assert re.search(r'<script[^>]*src="\.\./\.\./_static/mathjax/tex-mml-chtml\.js', text) and "cdn." not in text, chapter
    assert (html / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2" / "MathJax_Main-Regular.woff").is_file()
    report = (html / "book" / "executed" / "report.html").read_text()
    for chapter in CHAPTERS:
        assert chapter in report
    for page in ["book/intro.html", "book/executed/report.html"] + [f"book/executed/{c}.html" for c in CHAPTERS]:
        assert not reader_problems(visible_text((html / page).read_text())), (page, reader_problems(
            visible_text((html / page).read_text())))
    assert "Mousavi-Hosseini" in (html / "book" / "bibliography.html").read_text()


def test_rerun_reuses_stored_points(runs, tmp_path):
    """Same parameters: every sweep point comes from the store, nothing is retrained."""
    code = ("from lib.chapters.sample_complexity import compute; from lib.core import params; "
            "from lib.core.store import Store; from lib.core.sweep import collect; "
            "P = params.resolve('sample_complexity', 'smoke'); "
            "collect(compute.points(P), Store('sample_complexity', 'smoke'), 'cpu')")
    env = dict(os.environ, BOOK_RESULTS=str(runs["results"]))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    n = len(compute.points(params.resolve("sample_complexity", "smoke")))
    assert " computed in " not in out.stdout and f"{n} of {n} points loaded" in out.stdout


def test_bad_input_leaves_outputs_untouched(runs):
    nb = runs["notebooks"][CHAPTERS[0]]
    before = nb.read_bytes()
    claims = runs["results"] / CHAPTERS[0] / "smoke" / "claims.json"
    claims_before = claims.read_bytes()
    env = dict(os.environ, BOOK_RESULTS=str(runs["results"]), BOOK_EXECUTED=str(nb.parent))
    out = subprocess.run([sys.executable, "-m", "lib", "run", CHAPTERS[0], "--profile", "smoke", "--set", "threshold_a=2"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "threshold_a" in out.stderr
    assert nb.read_bytes() == before and claims.read_bytes() == claims_before


def _copy_results(runs, tmp_path):
    results = tmp_path / "results"
    shutil.copytree(runs["results"], results)
    return results


def test_compute_without_jupyter_writes_compute_provenance(runs, tmp_path):
    """`python -m lib compute` (the GPU path: no Jupyter) fills the store and records where it computed."""
    results = _copy_results(runs, tmp_path)
    env = dict(os.environ, BOOK_RESULTS=str(results))
    out = subprocess.run([sys.executable, "-m", "lib", "compute", CHAPTERS[0], "--profile", "smoke"], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    comp = read_json(results / CHAPTERS[0] / "smoke" / "compute.json")
    assert comp["profile"] == "smoke" and comp["device"] and comp["torch"] and comp["wall_s"] >= 0 and comp["params"]


def test_stored_only_render_loads_and_changes_nothing(runs, tmp_path, monkeypatch):
    """How `make book` shows committed paper results: stored results only, store untouched, page says so."""
    results = _copy_results(runs, tmp_path)
    monkeypatch.setenv("BOOK_RESULTS", str(results))
    d = results / CHAPTERS[0] / "smoke"
    before = {p: p.read_bytes() for p in d.rglob("*.json")}
    nb = runner.run_chapter(CHAPTERS[0], "smoke", out_dir=tmp_path / "executed", stored_only=True)
    assert {p: p.read_bytes() for p in d.rglob("*.json")} == before
    text = nb.read_text()
    assert "stored results" in text and "Traceback" not in text
    # A result the store does not hold is an error, never a silent recomputation.
    with pytest.raises(runner.ChapterFailed, match="no stored result"):
        runner.run_chapter(CHAPTERS[0], "smoke", {"seed": 7}, out_dir=tmp_path / "executed", stored_only=True)
    assert nb.read_text() == text
