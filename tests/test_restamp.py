"""Re-stamping stored points with today's lib hash: only on evidence that what computed them is unchanged."""
from __future__ import annotations

import json

import pytest

import lib.core.rehash as rehash
import lib.core.restamp as restamp
from lib.chapters.sample_complexity import compute as sc
from lib.core import params
from lib.core.manifest import write_manifest
from lib.core.store import Store, environment, lib_hash, lib_modules

OLD = '''"""doc"""
import math

from lib.science import qstr

WIDTH = {"a": 1}


def helper(x):
    return math.sqrt(x) * WIDTH["a"]


def run_point(spec, device):
    """Runs."""
    return helper(spec)


def points(P):
    return [1]
'''


OTHER = '''"""another module of the chapter"""
SCALE = 2.0


def twice(x):
    return SCALE * x


def unused():
    return 0
'''


def test_the_reach_of_a_run_function_is_what_it_names_transitively_across_modules():
    texts = {"lib.c.compute": OLD.replace("from lib.science import qstr", "from lib.c import other")
             .replace("return helper(spec)", "return other.twice(helper(spec))"), "lib.c.other": OTHER}
    seen = restamp.reach(texts, {("lib.c.compute", "run_point")})
    assert {n for m, n in seen if m == "lib.c.compute"} == {"run_point", "helper", "WIDTH", "other"}
    assert {n for m, n in seen if m == "lib.c.other"} == {"twice", "SCALE"}          # not `unused`
    assert ("lib.c.compute", "points") not in seen


def test_signatures_see_through_moved_code_but_not_through_a_changed_callee():
    """Issue 40: code moved verbatim to another module (here `helper` and `WIDTH` into an experiments module that
    the compute module imports) keeps the run function's signature, so restamp can re-stamp moved code; a changed
    constant two calls away, or a callee that now resolves elsewhere to other code, changes it."""
    root = ("lib.c.compute", "run_point")
    before = restamp.signatures({"lib.c.compute": OLD}, {root})[root]
    helper = 'import math\n\nWIDTH = {"a": 1}\n\n\ndef helper(x):\n    return math.sqrt(x) * WIDTH["a"]\n'
    compute = OLD.replace(helper.split("\n\n\n")[1] + "\n\n", "").replace('WIDTH = {"a": 1}\n\n\n', "")
    compute = compute.replace("import math\n", "from lib.c.experiments.arm import helper\n")
    moved = {"lib.c.compute": compute, "lib.c.experiments.arm": helper}
    assert "def helper" not in compute and "WIDTH" not in compute
    assert restamp.signatures(moved, {root})[root] == before
    changed = {**moved, "lib.c.experiments.arm": helper.replace('"a": 1', '"a": 2')}
    assert restamp.signatures(changed, {root})[root] != before
    other = {**moved, "lib.c.experiments.arm": helper.replace("math.sqrt(x)", "math.sqrt(x + 1)")}
    assert restamp.signatures(other, {root})[root] != before
    assert restamp._old_root({"lib.c.compute": OLD}, ("lib.c.experiments.arm", "helper")) == ("lib.c.compute", "helper")
    assert restamp.signatures({"lib.c.compute": OLD}, {("lib.c.compute", "nowhere")}) == {("lib.c.compute", "nowhere"): None}


def test_annotations_are_not_computation_but_a_class_the_code_uses_is():
    """A run function annotated with its spec's class keeps its signature when that class gains a field (never
    evaluated under `from __future__ import annotations`); one that tests `isinstance` with the class does not."""
    spec = "from __future__ import annotations\n\n\nclass Spec:\n    n: int\n"
    more = spec + "    precision: str = 'float32'\n"
    annotated = spec + "\n\ndef run(spec: Spec, device: str) -> dict:\n    return {'n': spec.n}\n"
    uses = spec + "\n\ndef run(spec: Spec, device: str) -> dict:\n    return {'n': isinstance(spec, Spec)}\n"
    root = ("lib.c.compute", "run")
    sig = lambda text: restamp.signatures({"lib.c.compute": text}, {root})[root]
    assert sig(annotated) == sig(annotated.replace(spec, more))
    assert sig(uses) != sig(uses.replace(spec, more))


def test_a_lazy_import_that_moves_to_the_top_of_its_module_keeps_the_signature():
    """Issue 40: an import made lazy to break a circle (`from lib.c.compute import helper` inside a run function)
    resolves like a module-level one, so the run function moved to an experiments module that imports `helper` at its
    top from where it now lives (and never imports compute) keeps its signature; a change behind the import shows."""
    arm = 'def run_arm(spec, device):\n    from lib.c.compute import helper\n    return helper(spec)\n'
    old_root, root = ("lib.c.arm", "run_arm"), ("lib.c.experiments.arm", "run_arm")
    before = restamp.signatures({"lib.c.compute": OLD, "lib.c.arm": arm}, {old_root})[old_root]
    helper = 'import math\n\nWIDTH = {"a": 1}\n\n\ndef helper(x):\n    return math.sqrt(x) * WIDTH["a"]\n'
    moved = "from lib.c.experiments.fit import helper\n\n\ndef run_arm(spec, device):\n    return helper(spec)\n"
    texts = {"lib.c.experiments.arm": moved, "lib.c.experiments.fit": helper}
    assert restamp.signatures(texts, {root})[root] == before
    texts["lib.c.experiments.fit"] = helper.replace('"a": 1', '"a": 2')
    assert restamp.signatures(texts, {root})[root] != before


def test_only_definitions_that_compute_change_count_and_docstrings_do_not():
    """Parsed code: a docstring or comment edit changes no definition; an edit to a listing function changes it."""
    same = OLD.replace('"""Runs."""', '"""Runs, documented better."""').replace("return [1]", "return [1]  # why")
    assert restamp._definitions(OLD) == restamp._definitions(same)
    new = OLD.replace("return [1]", "return [1, 2]").replace("import math", "import math\nimport os")
    a, b = restamp._definitions(OLD), restamp._definitions(new)
    assert sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n)) == ["os", "points"]
    worse = OLD.replace("math.sqrt(x)", "math.sqrt(x) + 1")
    a, b = restamp._definitions(OLD), restamp._definitions(worse)
    assert [n for n in set(a) | set(b) if a.get(n) != b.get(n)] == ["helper"]


def test_lib_modules_reads_a_revision_like_the_checkout():
    here = lambda rel: (restamp.ROOT / rel).read_text() if (restamp.ROOT / rel).is_file() else None
    assert lib_modules("sample_complexity", read=here) == lib_modules("sample_complexity")


def _store_with_points(tmp_path, hashes):
    P = params.resolve("sample_complexity", "quick")
    store = Store("sample_complexity", "quick", root=tmp_path)
    env = environment("cpu", "sample_complexity")
    for point, h in zip(sc.points(P), hashes):
        store.put(point.spec, {"samples": [[1.0]]}, {**env, "lib_hash": h})
    return store


def test_restamp_rewrites_the_old_hash_and_logs_it(tmp_path, monkeypatch):
    monkeypatch.setattr(restamp, "hash_at", lambda chapter, rev: "old000000000")
    monkeypatch.setattr(restamp, "code_changes", lambda chapter, rev, roots: (["compute.points"], {}))
    store = _store_with_points(tmp_path, ["old000000000", "old000000000", lib_hash("sample_complexity")])
    entry = restamp.restamp("sample_complexity", "quick", "abc", root=tmp_path, log=lambda *_: None)
    hashes = [json.loads(f.read_text())["lib_hash"] for f in (store.dir / "points").glob("*.json")]
    assert hashes == [lib_hash("sample_complexity")] * 3
    assert entry["points"] == 2 and entry["changed"] == ["compute.points"] and entry["from"] == "old000000000"
    assert json.loads((store.dir / "restamps.json").read_text())[-1]["rev"] == "abc"


@pytest.mark.parametrize("case", ["other hash", "blocking change"])
def test_restamp_refuses_and_rewrites_nothing(tmp_path, monkeypatch, case):
    monkeypatch.setattr(restamp, "hash_at", lambda chapter, rev: "old000000000")
    def blocking(roots):
        return {root: ["compute.run_point"] for root in roots} if case == "blocking change" else {}
    monkeypatch.setattr(restamp, "code_changes", lambda chapter, rev, r: (["compute.run_point"], blocking(r)))
    store = _store_with_points(tmp_path, ["old000000000", "other0000000" if case == "other hash" else "old000000000"])
    before = {f.name: f.read_text() for f in (store.dir / "points").glob("*.json")}
    with pytest.raises(restamp.RestampRefused, match="neither lib|computation changed"):
        restamp.restamp("sample_complexity", "quick", "abc", root=tmp_path, log=lambda *_: None)
    assert {f.name: f.read_text() for f in (store.dir / "points").glob("*.json")} == before
    assert not (store.dir / "restamps.json").exists()


def test_the_cli_refuses_in_one_line(capsys):
    from lib.__main__ import main

    assert main(["restamp", "nope", "--rev", "HEAD"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_partial_restamp_leaves_the_points_whose_run_function_reaches_a_change(tmp_path, monkeypatch):
    """Two kinds of point, one whose run function reaches what changed: with partial, only the other is re-stamped,
    and the log names what was left."""
    monkeypatch.setattr(restamp, "hash_at", lambda chapter, rev: "old000000000")
    P = params.resolve("sample_complexity", "quick")
    kinds = {(p.run.__module__, p.run.__name__) for p in sc.points(P)[:2]}   # the two points stored below
    assert len(kinds) == 1                     # one run function here: every point blocked, or none
    monkeypatch.setattr(restamp, "code_changes", lambda chapter, rev, roots: (["x"], {r: ["x"] for r in roots}))
    store = _store_with_points(tmp_path, ["old000000000", "old000000000"])
    with pytest.raises(restamp.RestampRefused, match="reaches what changed"):
        restamp.restamp("sample_complexity", "quick", "abc", root=tmp_path, log=lambda *_: None, partial=True)
    assert {json.loads(f.read_text())["lib_hash"] for f in (store.dir / "points").glob("*.json")} == {"old000000000"}


@pytest.mark.parametrize("case", ["identical", "other numbers", "other code", "missing"])
def test_evidence_recomputed_by_todays_code_re_stamps_points_that_reach_a_change(tmp_path, monkeypatch, case):
    """A change every stored point's run function reaches (a fix that changes nothing on this device): the points
    are re-stamped only where a store computed by today's code holds them identical; anything else refuses and
    rewrites nothing."""
    monkeypatch.setattr(restamp, "hash_at", lambda chapter, rev: "old000000000")
    monkeypatch.setattr(restamp, "code_changes", lambda chapter, rev, roots: (["x"], {r: ["x"] for r in roots}))
    store = _store_with_points(tmp_path, ["old000000000", "old000000000"])
    today = lib_hash("sample_complexity")
    again = _store_with_points(tmp_path / "again", [today if case != "other code" else "new000000000"] * 2)
    if case == "other numbers":
        f = sorted((again.dir / "points").glob("*.json"))[1]
        f.write_text(json.dumps({**json.loads(f.read_text()), "result": {"samples": [[1.5]]}}))
        write_manifest(again.dir)
    if case == "missing":
        sorted((again.dir / "points").glob("*.json"))[0].unlink()
        write_manifest(again.dir)
    before = {f.name: f.read_text() for f in (store.dir / "points").glob("*.json")}
    call = lambda: restamp.restamp("sample_complexity", "quick", "abc", root=tmp_path, log=lambda *_: None,
                                   evidence=again.dir)
    if case != "identical":
        with pytest.raises(restamp.RestampRefused, match={"other numbers": "other numbers", "other code": "not today's",
                                                          "missing": "holds no such point"}[case]):
            call()
        assert {f.name: f.read_text() for f in (store.dir / "points").glob("*.json")} == before
        return
    entry = call()
    assert {json.loads(f.read_text())["lib_hash"] for f in (store.dir / "points").glob("*.json")} == {today}
    assert entry["proven"] == sorted(before) and entry["points"] == 2 and entry["evidence"] == str(again.dir)


def test_the_chapters_changes_since_head_block_nothing():
    """A clean checkout against its own HEAD: no definition differs, so no run function is blocked."""
    changed, blocking = restamp.code_changes("sample_complexity", "HEAD", {("lib.chapters.sample_complexity.compute",
                                                                            "run_point")})
    assert blocking == {} or changed      # a dirty tree may differ; a clean one has neither


def test_hash_at_is_lib_hash_of_that_revision(monkeypatch):
    """A revision whose code differs from the checkout's in a docstring alone has the checkout's hash: hash_at and
    lib_hash parse code one way."""
    def show(rev, rel):
        path = restamp.ROOT / rel
        return path.read_text().replace('"""', '"""Reworded. ', 1) if path.is_file() else None
    monkeypatch.setattr(restamp, "_git_show", show)
    assert restamp.hash_at("ffn_span", "reworded") == lib_hash("ffn_span")


def _revision_of_prose_edits(monkeypatch, edit=("", "")):
    """git's revision "r": this checkout's code with its first docstring reworded (and `edit` made)."""
    def show(rev, rel):
        path = restamp.ROOT / rel
        return path.read_text().replace('"""', '"""Old words. ', 1).replace(*edit) if path.is_file() else None
    monkeypatch.setattr(restamp, "_git_show", show)
    monkeypatch.setattr(rehash, "_git_bytes", lambda rev, rel: show(rev, rel).encode())
    monkeypatch.setattr(restamp.subprocess, "run", lambda *a, **k: type("R", (), {"returncode": 0, "stdout": "r\n"}))


def test_rehash_gives_points_of_todays_bytes_todays_parsed_hash(tmp_path, monkeypatch):
    """Points stamped with the raw-bytes hash of code that differs from today's in prose get today's hash; only
    lib_hash moves in a file; restamps.json says what was checked; a point already re-stamped stays; run again,
    nothing is left to do."""
    store = _store_with_points(tmp_path, ["x", "x", lib_hash("sample_complexity")])
    _revision_of_prose_edits(monkeypatch)
    old, new = rehash.bytes_hash("sample_complexity", "r"), lib_hash("sample_complexity")
    assert old != new
    for f in sorted((store.dir / "points").glob("*.json"))[:2]:
        f.write_text(f.read_text().replace('"lib_hash": "x"', f'"lib_hash": "{old}"'))
    before = {f.name: f.read_text() for f in (store.dir / "points").glob("*.json")}
    entry = rehash.rehash("sample_complexity", "quick", "r", root=tmp_path, log=lambda *_: None)
    after = {f.name: f.read_text() for f in (store.dir / "points").glob("*.json")}
    assert {n: t.replace(old, new) for n, t in before.items()} == after
    assert entry["points"] == 2 and (entry["from"], entry["to"], entry["rev"]) == (old, new, "r")
    assert "2 of 3 points carried" in entry["check"] and "all matched" in entry["check"]
    assert json.loads((store.dir / "restamps.json").read_text()) == [entry]
    with pytest.raises(restamp.RestampRefused, match="already carries today's"):
        rehash.rehash("sample_complexity", "quick", "r", root=tmp_path, log=lambda *_: None)


@pytest.mark.parametrize("case", ["other hash", "code changed"])
def test_rehash_refuses_other_code_and_rewrites_nothing(tmp_path, monkeypatch, case):
    store = _store_with_points(tmp_path, ["x", "x"])
    _revision_of_prose_edits(monkeypatch, ("import math", "import math, os") if case == "code changed" else ("", ""))
    old = rehash.bytes_hash("sample_complexity", "r")
    for i, f in enumerate(sorted((store.dir / "points").glob("*.json"))):
        f.write_text(f.read_text().replace('"x"', f'"{old}"' if i == 0 or case == "code changed" else '"other"'))
    before = {f.name: f.read_text() for f in (store.dir / "points").glob("*.json")}
    with pytest.raises(restamp.RestampRefused, match="neither|computes otherwise"):
        rehash.rehash("sample_complexity", "quick", "r", root=tmp_path, log=lambda *_: None)
    assert {f.name: f.read_text() for f in (store.dir / "points").glob("*.json")} == before
    assert not (store.dir / "restamps.json").exists()


def test_the_cli_needs_a_revision_or_from_bytes(capsys):
    from lib.__main__ import main

    assert main(["restamp", "ffn_span"]) == 2
    assert "--rev REV is required" in capsys.readouterr().err
