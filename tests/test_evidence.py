"""Evidence that guards itself (issue 39): the manifest of a result set (lib.core.manifest), `python -m lib verify`, and
one line with its documented exit status for every damaged file and misuse: a tampered, truncated, empty, non-UTF-8,
wrong-shaped or null point (compute, run, diff), another chapter's results given to diff, a paper profile with a
point missing, a cluster whose workers cannot import lib, `new all`, a past --deadline, a non-PDF from Chromium.

Each case runs on a copy of committed paper results under a temporary $BOOK_RESULTS, never on the committed ones.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lib.__main__ import main
from lib.core import manifest
from lib.core.params import ParamError
from lib.core.store import ROOT, lib_hash

CHAPTER, OTHER = "ffn_span", "head_lower_bound"     # small complete paper profiles (12 and 11 points)


def copy_paper(root: Path, chapter: str = CHAPTER) -> Path:
    """results/<chapter>/paper/ copied under root, its points stamped with today's code hash and its manifest written
    (as a committed profile is)."""
    folder = root / chapter / "paper"
    shutil.copytree(ROOT / "results" / chapter / "paper", folder)
    today = lib_hash(chapter)
    for f in (folder / "points").glob("*.json"):
        record = json.loads(f.read_text())
        if record["lib_hash"] != today:
            f.write_text(json.dumps({**record, "lib_hash": today}, indent=1, sort_keys=True) + "\n")
    manifest.write_manifest(folder)
    return folder


def digests(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.fixture
def results(tmp_path, monkeypatch):
    root = tmp_path / "results"
    copy_paper(root)
    monkeypatch.setenv("BOOK_RESULTS", str(root))
    monkeypatch.setenv("BOOK_EXECUTED", str(tmp_path / "executed"))
    return root


def first_point(root: Path) -> Path:
    return sorted((root / CHAPTER / "paper" / "points").glob("*.json"))[0]


def tamper(path: Path) -> None:
    """An edited number that feeds no claim: the point's wall time."""
    record = json.loads(path.read_text())
    record["result"]["wall_s"] = (record["result"].get("wall_s") or 0) + 1.5
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


DAMAGE = {   # kind -> (how, what the line says)
    "tampered": (tamper, "does not match"),
    "truncated": (lambda p: p.write_bytes(p.read_bytes()[:200]), "not JSON (truncated?)"),
    "empty": (lambda p: p.write_bytes(b""), "empty (0 bytes)"),
    "non-UTF-8": (lambda p: p.write_bytes(b"\xff\xfe{}"), "not UTF-8 text (byte 0xff at offset 0)"),
    "a list": (lambda p: p.write_text("[1, 2]\n"), "holds a JSON list"),
    "null": (lambda p: p.write_text("null\n"), "holds null"),
}


def test_the_manifest_lists_the_sha256_of_every_point_claims_power_and_provenance(tmp_path):
    folder = copy_paper(tmp_path)
    data = json.loads((folder / "manifest.json").read_text())
    assert data["format"] == 1 and data["algorithm"] == "sha256"
    points = sorted(f"points/{p.name}" for p in (folder / "points").glob("*.json"))
    assert sorted(data["files"]) == sorted(points + ["claims.json", "power.json", "provenance.json"]) and len(points) == 12
    assert data["files"]["claims.json"] == hashlib.sha256((folder / "claims.json").read_bytes()).hexdigest()
    assert manifest.mismatches(folder) == []
    point = first_point(tmp_path)
    tamper(point)
    (folder / "points" / "fedcba9876543210.json").write_text("{}")
    assert manifest.mismatches(folder) == [f"{point}: does not match manifest.json (edited or damaged since the profile "
                                           "was stored)", f"{folder}/points/fedcba9876543210.json: not in manifest.json"]


@pytest.mark.parametrize("command", ["compute", "diff"])
@pytest.mark.parametrize("kind", list(DAMAGE))
def test_a_damaged_point_stops_compute_and_diff_in_one_line_and_rewrites_nothing(results, kind, command, capsys):
    how, says = DAMAGE[kind]
    point = first_point(results)
    how(point)
    before = digests(results)
    args = (["compute", CHAPTER, "--profile", "paper", "--deadline", "2"] if command == "compute"   # (old code: no compute)
            else ["diff", CHAPTER, "paper", str(results / CHAPTER / "paper")])
    status = main(args)
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith(f"error: {point}: ") and says in err and "nothing was rewritten" in err
    assert digests(results) == before


def test_a_damaged_point_without_a_manifest_stops_compute(results, capsys):
    """A profile still being computed has no manifest: a point emptied by a crash is still one line, not missing."""
    (results / CHAPTER / "paper" / "manifest.json").unlink()
    first_point(results).write_bytes(b"")
    assert main(["compute", CHAPTER, "--profile", "paper", "--deadline", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{first_point(results)}: empty (0 bytes)" in err


def test_a_tampered_point_stops_run_and_its_claims_are_not_rewritten(results, tmp_path):
    """The issue's first case: an edited number that feeds no claim, then `run --profile paper`, which re-rendered the
    claims and provenance from the edited points and exited 0."""
    tamper(first_point(results))
    before = digests(results)
    env = {**os.environ, "BOOK_RESULTS": str(results), "BOOK_EXECUTED": str(tmp_path / "executed")}
    out = subprocess.run([sys.executable, "-m", "lib", "run", CHAPTER, "--profile", "paper"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr[-3000:]
    assert f"{first_point(results)}: does not match" in out.stderr
    assert digests(results) == before and not (tmp_path / "executed" / f"{CHAPTER}.ipynb").exists()


def test_restamp_refuses_a_tampered_point_and_rewrites_nothing(results, capsys):
    """Re-stamping would launder an edited point into the manifest it rewrites: it stops at the load instead."""
    tamper(first_point(results))
    before = digests(results)
    assert main(["restamp", CHAPTER, "--rev", "HEAD"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{first_point(results)}: does not match" in err and digests(results) == before


def test_diff_refuses_another_chapters_results(results, capsys):
    other = copy_paper(results, OTHER)
    assert main(["diff", CHAPTER, "paper", str(other)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"holds {OTHER}'s results, not {CHAPTER}'s" in err


@pytest.fixture
def one_point_missing(results, monkeypatch):
    """The paper profile with one point gone, and `run`'s execution replaced by a record of what it was asked."""
    from lib.core import runner

    first_point(results).unlink()
    asked = []
    monkeypatch.setattr(runner, "run_chapter", lambda chapter, profile, *a, **k: asked.append((chapter, profile)))
    return asked


def test_auto_says_which_profile_it_renders_and_why(one_point_missing, capsys):
    assert main(["run", CHAPTER, "--profile", "auto"]) == 0
    assert one_point_missing == [(CHAPTER, "quick")]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{CHAPTER}: paper: 11 of 12 points stored, rendering quick")


def test_run_profile_paper_with_a_point_missing_refuses(one_point_missing, capsys):
    assert main(["run", CHAPTER, "--profile", "paper"]) == 2
    err = capsys.readouterr().err
    assert one_point_missing == [] and err.count("\n") == 1
    assert "11 of 12 points stored" in err and f"python -m lib compute {CHAPTER} --profile paper" in err


def test_verify_passes_a_sound_result_set_and_names_each_problem(results, capsys):
    from lib.core.verify import verify_all

    folder = results / CHAPTER / "paper"
    assert main(["verify"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == "verify: 1 committed result set(s) checked, 0 problem(s)"
    claims = json.loads((folder / "claims.json").read_text())
    claims[-1]["measured"] = "better"
    (folder / "claims.json").write_text(json.dumps(claims))
    prov = json.loads((folder / "provenance.json").read_text())
    (folder / "provenance.json").write_text(json.dumps({**prov, "params": {**prov["params"], "seed": 12345}}))
    manifest.write_manifest(folder)          # as if computed so: the manifest matches, the rest does not
    point = first_point(results)
    point.write_text(json.dumps({**json.loads(point.read_text()), "lib_hash": "0123456789ab"}))
    lines = []
    assert verify_all(CHAPTER, log=lines.append) == 1
    assert lines[0] == f"{point}: does not match manifest.json (edited or damaged since the profile was stored)"
    assert any(line.startswith(f"{folder}/provenance.json: its parameters are not parameters/{CHAPTER}/paper.yaml's "
                               "(seed differ)") for line in lines)
    assert any("points: 1 point(s) carry code hash 0123456789ab" in line for line in lines)
    assert lines[-1] == f"verify: 1 committed result set(s) checked, {len(lines) - 1} problem(s)"
    manifest.write_manifest(folder)
    (folder / "provenance.json").write_text(json.dumps(prov))
    manifest.write_manifest(folder)
    lines = []
    assert verify_all(CHAPTER, log=lines.append) == 1
    assert any(f"claim {claims[-1]['id']}: stored" in line and "better" in line for line in lines)


def test_verify_checks_a_rendered_profile_with_a_point_missing(results):
    """A rendered profile (its claims.json) that lacks a point is a problem to say, not a profile in progress to skip."""
    from lib.core.verify import verify_all

    point = first_point(results)
    point.unlink()
    lines = []
    assert verify_all(CHAPTER, log=lines.append) == 1
    assert lines[0] == f"{point}: listed in manifest.json but missing" and "not stored" in lines[1]
    assert lines[-1].startswith("verify: 1 committed result set(s) checked, 2 problem(s)")


def test_compute_and_run_write_the_manifest_when_the_profile_completes(results, capsys):
    (results / CHAPTER / "paper" / "manifest.json").unlink()
    assert main(["compute", CHAPTER, "--profile", "paper"]) == 0      # every point stored: nothing computed
    assert manifest.mismatches(results / CHAPTER / "paper") == []


def test_new_all_is_refused(tmp_path):
    from lib.core.scaffold import new_chapter

    shutil.copy(ROOT / "_toc.yml", tmp_path / "_toc.yml")
    with pytest.raises(ParamError, match="'all' is not a chapter name"):
        new_chapter("all", root=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_toc.yml"]


def test_a_past_deadline_says_so_and_every_exit_status_is_in_help(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BOOK_RESULTS", str(tmp_path))
    assert main(["compute", "sample_complexity", "--profile", "quick", "--deadline", "2020-01-01T00:00:00Z"]) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the deadline 2020-01-01 00:00:00 UTC had passed when this call started" in err
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(f"\n  {code}  " in out for code in range(5)), out


def test_chromium_printing_no_pdf_is_one_line(tmp_path):
    from lib.core.pdf import print_page, read_pdf
    from lib.core.runner import ChapterFailed

    fake = tmp_path / "chromium"   # writes an error page where the PDF should be, and exits 0
    fake.write_text("#!/bin/sh\nfor a; do case $a in --print-to-pdf=*) echo '<html>Aw, snap</html>' > "
                    "\"${a#--print-to-pdf=}\";; esac; done\n")
    fake.chmod(0o755)
    page = tmp_path / "page.html"
    page.write_text("<p>x</p>")
    with pytest.raises(ChapterFailed, match=r"is not a PDF \(it begins b'<html'") as err:
        print_page(str(fake), page, tmp_path / "out.pdf", tmp_path / "profile")
    assert "\n" not in str(err.value)
    (tmp_path / "cut.pdf").write_bytes(b"%PDF-1.4\n1 0 obj\n")     # a PDF cut short
    with pytest.raises(ChapterFailed, match="is not a readable PDF"):
        read_pdf(tmp_path / "cut.pdf", page)


def test_a_cluster_whose_workers_cannot_import_lib_is_one_line(tmp_path):
    pytest.importorskip("distributed")
    script = tmp_path / "cluster.py"   # a scheduler and a worker started outside the checkout, without its PYTHONPATH
    script.write_text("import time\nfrom distributed import LocalCluster\nif __name__ == '__main__':\n"
                      "    c = LocalCluster(n_workers=1, threads_per_worker=1, host='127.0.0.1', dashboard_address=None,"
                      " silence_logs=50)\n    print(c.scheduler_address, flush=True)\n    time.sleep(3600)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    cluster = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True)
    try:
        address = cluster.stdout.readline().strip()
        assert address.startswith("tcp://"), address
        t0 = time.time()
        out = subprocess.run([sys.executable, "-m", "lib", "compute", "sample_complexity", "--profile", "quick",
                              "--cluster", address], cwd=ROOT, env={**os.environ, "BOOK_RESULTS": str(tmp_path / "r")},
                             capture_output=True, text=True, timeout=600)
    finally:
        cluster.terminate()
        cluster.wait(60)
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr[-2000:]
    assert "the cluster could not import the module 'lib'" in out.stderr and f"PYTHONPATH={ROOT} dask worker" in out.stderr
    assert time.time() - t0 < 300   # one failed import, not Dask retrying it (13 s at a load of 10)


def test_run_profile_paper_renders_the_stored_results_and_rewrites_none(results, monkeypatch):
    """`run --profile paper` of a complete committed profile renders it as stored (the claims gated by the stored
    power.json, nothing written); `decide` is what recomputes claims.json and power.json."""
    from lib.core import runner

    asked = []
    monkeypatch.setattr(runner, "run_chapter", lambda chapter, profile, *a, **k: asked.append((profile, k["stored_only"])))
    assert main(["run", CHAPTER, "--profile", "paper", "--no-build"]) == 0
    assert main(["run", CHAPTER, "--profile", "paper", "--no-build", "--set", "seed=1"]) == 0
    assert asked == [("paper", True), ("paper", False)]
