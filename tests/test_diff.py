"""`python -m lib diff`: claims and stored numbers of two result sets side by side, each changed number judged
against its own seeds' range; exit 0 (no verdict changed), 1 (one did) or 2 (bad input, one line)."""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lib.__main__ import main
from lib.core import diff
from lib.core.manifest import write_manifest
from lib.core.params import ParamError

ROOT = Path(__file__).resolve().parent.parent
# nine points (panels a and b, three models, one N each, two seeds, a second task draw for the Transformer, its wide
# sweep at N = 4) in a few seconds, with three claim rows measured; max_samples high enough that no panel (a) run is
# censored, so paper-means passes (a censored mean fails it)
TINY = ["--set", "N_a=[2]", "--set", "N_b=[4]", "--set", "n_seeds=2", "--set", "n_test=64", "--set", "max_samples=25600",
        "--set", "ffn_width=32", "--set", "mlp_width=16", "--set", "rnn_hidden=8", "--set", "N_wide=[4]",
        "--set", "attention_N=0"]


def lib(results: Path, *args):
    env = {**os.environ, "BOOK_RESULTS": str(results), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def cli(monkeypatch, capsys):
    """python -m lib diff ARGS in this process (importing torch once for every test): (status, stdout, stderr)."""
    def run(results: Path, *args):
        monkeypatch.setenv("BOOK_RESULTS", str(results))
        status = main(["diff", *args])
        out = capsys.readouterr()
        return status, out.out, out.err
    return run


def compute(results: Path, *sets: str) -> None:
    """python -m lib compute sample_complexity --profile quick SETS in this process (torch already imported, on one
    thread as the session runs it), storing under `results`."""
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        mp.setenv("BOOK_RESULTS", str(results))
        status = main(["compute", "sample_complexity", "--profile", "quick", *sets])
    assert status == 0, out.getvalue()[-2000:]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    results = tmp_path_factory.mktemp("diff") / "results"
    compute(results, *TINY)
    return results


def tampered(tiny: Path, tmp_path: Path, factor: float) -> Path:
    """A copy of the tiny result set with panel (a)'s Transformer and FFN needing `factor` times the samples (two means
    off: paper-means allows one)."""
    copy = tmp_path / "copy"
    shutil.copytree(tiny / "sample_complexity" / "quick", copy)
    for path in (copy / "points").glob("*.json"):
        rec = json.loads(path.read_text())
        if rec["spec"]["panel"] == "a" and rec["spec"]["model"] in ("transformer", "ffn"):
            rec["result"]["samples"] = [[x and x * factor for x in row] for row in rec["result"]["samples"]]
            path.write_text(json.dumps(rec))
    write_manifest(copy)     # as the run that stored such numbers would have (an edited copy is refused: test_evidence)
    return copy


# ------------------------------------------------------------------------------------------- numbers
def test_a_seed_axis_is_judged_by_the_seeds_range():
    seeds = {3}
    a = {"samples": [[100.0, 1.0], [110.0, 1.0], [120.0, 1.0]], "wall_s": 1.0}
    within = diff.changes("", a, {"samples": [[104.0, 1.0], [114.0, 1.0], [124.0, 1.0]], "wall_s": 9.0}, seeds, seeds)
    assert [(w, b) for w, _, b in within] == [("samples[seeds,0]", False)]      # moved 4, range 20; wall_s ignored
    beyond = diff.changes("", a, {"samples": [[300.0, 1.0], [310.0, 1.0], [320.0, 1.0]]}, seeds, seeds)
    assert [(w, b) for w, _, b in beyond] == [("samples[seeds,0]", True)]
    assert "mean 110 -> 310 (moved +200), range 20 | 20 over 3 seeds" in beyond[0][1]


def test_the_seed_axis_is_found_when_the_seed_count_changes():
    """Curves of 3 checks x seeds: with 2 seeds on A and 3 on B the seed axis is the one whose length changed, not
    the first axis as long as B's seed count."""
    a, b = np.zeros((3, 2, 1)).tolist(), np.ones((3, 3, 1)).tolist()
    found = diff.changes("curves", a, b, {2}, {3})
    assert [w for w, _, _ in found] == ["curves[0,seeds,0]", "curves[1,seeds,0]", "curves[2,seeds,0]"]
    assert "over 2 -> 3 seeds" in found[0][1]


def test_censored_seeds_are_not_judged_and_float_noise_is_no_change():
    a = {"samples": [[100.0], [None]], "x": 0.5}
    found = diff.changes("", a, {"samples": [[200.0], [None]], "x": 0.5 * (1 + 1e-12)}, {2}, {2})
    assert len(found) == 1 and found[0][2] is None and "censored 1 -> 1" in found[0][1]


def test_numbers_without_seeds_strings_and_shapes():
    found = diff.changes("", {"D": 22, "tests": ["task"], "m": [[1, 2], [3, 4]], "r": [1, [2, 3]]},
                         {"D": 23, "tests": ["authors"], "m": [[1, 2], [3, 5]], "r": [1, [2, 3, 4]]}, set(), set())
    assert [(w, b) for w, _, b in found] == [("D", None), ("m[1,1]", None), ("r[1]", None), ("tests[0]", None)]
    assert diff.changes("", {"v": [1, 2]}, {"v": [1, 2, 3]}, set(), set())[0][1] == "shape (2,) -> (3,)"


# ------------------------------------------------------------------------------------------- the command
def test_the_same_results_change_no_verdict(tiny, cli):
    status, out, err = cli(tiny, "sample_complexity", "quick", str(tiny / "sample_complexity" / "quick"))
    assert status == 0, err
    assert "claims recomputed from its points" in out and "0 stored numbers changed" in out
    assert "parameters: the same on both sides" in out.splitlines()[1]
    # compute writes no power.json: where the power gate leaves a claim undecided, its rule's own outcome is shown
    assert re.search(r"= claim paper-means: (◌ undecided \(its rule: )?✓ pass\)? -> (◌ undecided \(its rule: )?✓ pass",
                     out), out


def test_a_changed_verdict_exits_1_and_names_the_numbers_that_moved(tiny, tmp_path):
    out = lib(tiny, "diff", "sample_complexity", "quick", str(tampered(tiny, tmp_path, 100)))
    assert out.returncode == 1, out.stdout + out.stderr[-2000:]
    line = next(x for x in out.stdout.splitlines() if "claim paper-means:" in x)
    assert line.startswith("  ≠ ") and re.search(r"✓ pass\)? -> .*✗ below scale\)?  \(CHANGED\)$", line), line
    assert "samples[seeds,0]: mean 2240 -> 2.24e+05" in out.stdout and "BEYOND its seeds' range" in out.stdout
    assert "summary: 1 of" in out.stdout and "(paper-means)" in out.stdout


def test_a_side_without_its_points_shows_its_stored_claims(tiny, tmp_path, cli):
    copy = tampered(tiny, tmp_path, 1)
    next((copy / "points").glob("*.json")).unlink()
    (copy / "claims.json").write_text(json.dumps([{"id": "paper-means", "kind": "claim", "measured": "x", "passed": False}]))
    status, out, _ = cli(tiny, "sample_complexity", str(copy), "quick")
    assert status == 1 and "claims as stored in its claims.json" in out, out
    assert "8 of its 9 points stored" in out and "stored on B only" in out


@pytest.mark.parametrize("args, needle", [
    (["nochapter", "quick", "quick"], "unknown chapter 'nochapter'"),
    (["sample_complexity", "quick", "nosuch"], "'nosuch': not a result set of sample_complexity"),
    (["sample_complexity", "quick", "./no/such/folder"], "no such results folder"),
    (["sample_complexity", "quick", "0123456789abcdef:paper"], "not a git commit"),
    (["sample_complexity", "quick", "HEAD:../x"], "expected REV:PROFILE"),
])
def test_bad_input_is_one_line_and_exit_2(tiny, args, needle, cli):
    status, out, err = cli(tiny, *args)
    assert status == 2 and not out and len(err.splitlines()) == 1 and needle in err, err


def test_a_folder_without_parameters_is_refused(tmp_path):
    (tmp_path / "points").mkdir()
    with pytest.raises(ParamError, match="no provenance.json or compute.json"):
        diff.load("sample_complexity", str(tmp_path), tmp_path / "scratch")


def test_results_at_a_git_commit_are_read_from_that_commit(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    files = {"compute.json": '{"params": {}}\n', "points/abc.json": '{"result": {"x": [1, 2]}}\n'}
    for name, text in files.items():
        (repo / "results" / "rpe_decay" / "paper" / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / "results" / "rpe_decay" / "paper" / name).write_text(text)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(git + ["init", "-q"], cwd=repo, check=True)
    subprocess.run(git + ["add", "."], cwd=repo, check=True)
    subprocess.run(git + ["commit", "-qm", "results"], cwd=repo, check=True)
    (repo / "results" / "rpe_decay" / "paper" / "compute.json").write_text("changed since\n")
    monkeypatch.setattr(diff, "ROOT", repo)
    for text in ("HEAD:paper", "HEAD"):
        folder, where = diff.locate("rpe_decay", text, tmp_path / text.replace(":", "_"))
        assert {str(p.relative_to(folder)): p.read_text() for p in folder.rglob("*") if p.is_file()} == files
        assert where.startswith("results/rpe_decay/paper/ at commit ")
    with pytest.raises(ParamError, match=r"stores no results/rpe_decay/quick/ \(results committed there: paper\)"):
        diff.locate("rpe_decay", "HEAD:quick", tmp_path / "q")
    assert np.isnan(diff._seed_stats(np.array([np.nan, 1.0]))[1])


def test_a_changed_rule_shows_in_the_stored_verdicts(tiny, tmp_path, cli):
    """Both sides are judged by this checkout's rules, so a rule change shows only in what each side's claims.json
    stored: listed, and the exit status says a verdict moved."""
    a, b = tampered(tiny, tmp_path / "a", 1), tampered(tiny, tmp_path / "b", 1)
    row = {"id": "paper-means", "kind": "claim", "measured": "x", "passed": False, "censored": "TR at N=2"}
    (a / "claims.json").write_text(json.dumps([row]))
    (b / "claims.json").write_text(json.dumps([{**row, "censored": ""}]))
    status, out, _ = cli(tiny, "sample_complexity", str(a), str(b))
    assert status == 1 and "≠ claim paper-means: ◌ censored -> ✗ FAIL" in out and "1 stored verdicts differ" in out


def test_a_pass_that_becomes_undecided_is_a_changed_verdict(tiny, tmp_path, cli):
    a, b = tampered(tiny, tmp_path / "a", 1), tampered(tiny, tmp_path / "b", 1)
    row = {"id": "paper-means", "kind": "claim", "measured": "x", "passed": True}
    (a / "claims.json").write_text(json.dumps([row]))
    (b / "claims.json").write_text(json.dumps([{**row, "undecided": "a faithful rerun passes 59%"}]))
    status, out, _ = cli(tiny, "sample_complexity", str(a), str(b))
    assert status == 1 and "≠ claim paper-means: ✓ pass -> ◌ undecided (its rule: ✓ pass)" in out, out


def test_runs_with_other_parameters_say_so_first_and_judge_no_number_against_seeds(tiny, tmp_path, cli):
    """Two runs that differ in a parameter: which ones comes before any number, and the points computed with other
    parameters are named with what differs, their numbers not judged against their seeds."""
    results = tmp_path / "results"
    compute(results, *TINY[:-2], "--set", "n_test=96", *TINY[-2:])
    status, out, err = cli(tiny, "sample_complexity", "quick", str(results / "sample_complexity" / "quick"))
    lines = out.splitlines()
    assert lines[1].startswith("  the two runs differ in 1 parameter (A -> B)") and lines[2] == "    n_test: 64 -> 96"
    assert "BEYOND" not in out and "within its seeds' range" not in out, out
    assert "9 of them computed with other parameters on each side (their numbers are not judged)" in out
    assert "n_test 64 -> 96" in out and "no point was computed with the same parameters on both sides" in out


@pytest.mark.parametrize("tex, text", [
    (r"max $\lvert z\rvert$ = 2.0 ($N=6$, $n=45$)", "max |z| = 2.0 (N=6, n=45)"),
    (r"$E_{\rm lin}(8)$ 4.9e-08 below $10^{-6}$", "E_lin(8) 4.9e-08 below 10^-6"),
    (r"residual $\lVert\nabla_{\mathbf W}\hat{\mathcal L}+\lambda\mathbf W\rVert_F$", "residual ‖∇_WL+λW‖_F"),
    (r"slope 2.33 in $\log\log T$; $\ln(3(T+1))$; $\frac{a}{b}$, $\sqrt{q}$",
     "slope 2.33 in log log T; ln(3(T+1)); (a)/(b), √(q)"),
    ("no math here: 5 of 6", "no math here: 5 of 6"),
])
def test_measured_values_are_plain_text(tex, text):
    assert diff.plain_text(tex) == text


def test_no_tex_reaches_the_terminal():
    """Every committed claim row's measured value, as diff prints it: no dollar, no backslash command."""
    rows = [r for f in sorted((ROOT / "results").glob("*/paper/claims.json")) for r in json.loads(f.read_text())]
    shown = [diff.plain_text(str(r.get("measured", ""))) for r in rows]
    assert rows and not [t for t in shown if "$" in t or re.search(r"\\[A-Za-z]", t)]
