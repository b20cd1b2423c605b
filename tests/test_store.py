"""lib.core.store and lib.core.sweep: atomic writes, the point store's round trip, keys, NaN handling, staleness,
and the one sweep runner (collect)."""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass

import numpy as np
import pytest

import lib.core.store as store
from lib.core import params
from lib.core.store import MissingResult, Store, atomic_write, is_stale, key_of, lib_hash, spec_dict, summary_line
from lib.core.sweep import Point, collect, nest


@dataclass(frozen=True)
class Spec:
    N: int
    model: str = "ffn"
    lr: float = 0.001


def test_atomic_write_replaces_and_leaves_no_temp_files(tmp_path):
    path = tmp_path / "sub" / "file.txt"
    atomic_write(path, "old")
    atomic_write(path, "new")
    assert path.read_text() == "new"
    atomic_write(path, b"bytes")
    assert path.read_bytes() == b"bytes"
    assert [p.name for p in path.parent.iterdir()] == ["file.txt"]


def test_failed_atomic_write_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "file.txt"
    atomic_write(path, "old")

    def boom(src, dst):
        raise OSError("disk gone")

    monkeypatch.setattr(store.os, "replace", boom)
    with pytest.raises(OSError, match="disk gone"):
        atomic_write(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]


def test_store_put_get_round_trip(tmp_path):
    s = Store("chap", "prof", root=tmp_path)
    spec = Spec(4)
    assert s.get(spec) is None
    result = {"samples": np.array([[640.0, np.nan], [1280.0, 320.0]]), "n": np.int64(3), "ok": np.bool_(True)}
    env = {"commit": "abc", "lib_hash": lib_hash()}
    record = s.put(spec, result, env)
    assert record == s.get(spec)
    assert record["spec"] == {"point": "Spec", "N": 4, "model": "ffn", "lr": 0.001} and record["commit"] == "abc"
    assert record["result"] == {"samples": [[640.0, None], [1280.0, 320.0]], "n": 3, "ok": True}
    assert s.get(Spec(5)) is None
    files = list((tmp_path / "chap" / "prof" / "points").iterdir())
    assert [f.name for f in files] == [f"{key_of(spec_dict(spec))}.json"]


def test_store_write_read(tmp_path):
    s = Store("chap", "prof", root=tmp_path)
    assert s.read("claims.json") is None
    path = s.write("claims.json", [{"id": "x", "passed": True, "value": float("inf")}])
    assert path == tmp_path / "chap" / "prof" / "claims.json"
    assert s.read("claims.json") == [{"id": "x", "passed": True, "value": None}]


def test_store_root_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("BOOK_RESULTS", str(tmp_path))
    assert Store("chap", "prof").dir == tmp_path / "chap" / "prof"


def test_key_of_order_independent_and_value_sensitive():
    a = {"N": 4, "model": "ffn", "lr": 0.001, "extra": {"x": 1, "y": 2}}
    b = {"extra": {"y": 2, "x": 1}, "lr": 0.001, "model": "ffn", "N": 4}
    assert key_of(a) == key_of(b)
    assert key_of(a) != key_of({**a, "N": 5})
    assert key_of(a) != key_of({**a, "lr": 0.002})
    assert key_of(a) != key_of({**a, "extra": {"x": 1, "y": 3}})
    assert key_of({"n": np.int64(4)}) == key_of({"n": 4})


def test_nan_becomes_null_in_json(tmp_path):
    path = tmp_path / "x.json"
    store.write_json(path, {"a": float("nan"), "b": np.float32("nan"), "c": [1.5, np.nan], "d": np.array([np.inf, 2.0])})
    text = path.read_text()
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text) == {"a": None, "b": None, "c": [1.5, None], "d": [None, 2.0]}


def test_is_stale():
    here = lib_hash()          # about half a second: computed once here, and once by each call without `current`
    assert is_stale({"lib_hash": here}) is False
    assert is_stale({"lib_hash": "000000000000"}) is True
    assert is_stale({}) is True
    assert is_stale({"lib_hash": "abc"}, current="abc") is False and is_stale({"lib_hash": here}, current="abc") is True


def test_lib_hash_is_stable():
    assert lib_hash() == lib_hash() and len(lib_hash()) == 12


def test_lib_hash_covers_what_a_chapter_imports():
    mods = store.lib_modules("sample_complexity")
    assert {"lib/chapters/sample_complexity/compute.py", "lib/science/engine.py", "lib/science/models.py",
            "lib/science/qstr.py", "lib/science/seeds.py"} <= set(mods)
    # other chapters, pages and lib/core (store, sweep, claims, plotting: no number) do not make results stale
    assert all(m.startswith(("lib/science/", "lib/chapters/sample_complexity/compute.py")) for m in mods), mods
    for chapter in params.chapters():
        assert not [m for m in store.lib_modules(chapter) if m.startswith("lib/core") or m.endswith("page.py")], chapter
    assert not [m for m in store.lib_modules("ffn_span") if "sample_complexity" in m]  # it only reads its results
    rnn = store.lib_modules("rnn_norm_growth")       # it computes with Eq. A.2 (lib.science.a2), not with head_lower_bound
    assert "lib/science/a2.py" in rnn and not [m for m in rnn if "head_lower_bound" in m]
    assert lib_hash("sample_complexity") != lib_hash("head_lower_bound") != lib_hash()
    assert is_stale({"lib_hash": lib_hash("ffn_span")}, "ffn_span") is False


def _lib_copy(tmp_path, monkeypatch):
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(store.ROOT / "lib", root / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(store, "ROOT", root)
    return root


def test_lib_hash_follows_an_edit_of_what_the_chapter_imports(tmp_path, monkeypatch):
    """A copy of lib in which one science module changes: the hash of a chapter that imports it changes, the hash of
    a chapter that does not import it stays."""
    root = _lib_copy(tmp_path, monkeypatch)
    before = {c: lib_hash(c) for c in ("sample_complexity", "turing_simulation")}
    with open(root / "lib" / "science" / "qstr.py", "a") as f:
        f.write("\nAN_EDIT = 1\n")
    assert lib_hash("sample_complexity") != before["sample_complexity"]
    assert lib_hash("turing_simulation") == before["turing_simulation"]


def test_lib_hash_is_of_what_runs_not_of_how_it_is_written(tmp_path, monkeypatch):
    """Docstrings (module, class, function, `>>>` examples among them), comments and layout leave the hash as it is;
    a changed constant, operator or name, or a module added to the imports, changes it."""
    root = _lib_copy(tmp_path, monkeypatch)
    qstr = root / "lib" / "science" / "qstr.py"
    text = qstr.read_text()
    before = lib_hash("sample_complexity")
    prose = (text.replace('"""q-sparse token regression', '"""Reworded. q-sparse token regression', 1)
             .replace("    >>> task = QSTR(", "    >>> task2 = QSTR(", 1)
             .replace("def embed_dim_rule(N: int, rule: str = \"floor\") -> int:\n",
                      "def embed_dim_rule(N: int, rule: str = \"floor\") -> int:  # a comment\n\n", 1))
    first = ast.parse(text).body[-1]                 # a class or function: its docstring reworded too
    doc = ast.get_docstring(first, clean=False)
    assert doc and prose != text
    qstr.write_text(prose.replace(doc, doc + " More words.", 1))
    assert lib_hash("sample_complexity") == before
    for edit in [("import math\n", "import math as math\nimport os\n"),      # a name bound
                 ("N: int, rule: str = \"floor\"", "N: int, rule: str = \"ceil\""),  # a constant
                 ("value = 5 * math.log(N)", "value = 5 / math.log(N)")]:        # an operator
        qstr.write_text(text.replace(*edit))
        assert lib_hash("sample_complexity") != before, edit
    qstr.write_text(text)
    compute = root / "lib" / "chapters" / "sample_complexity" / "compute.py"
    (root / "lib" / "science" / "extra.py").write_text('"""A new module."""\n')
    compute.write_text(compute.read_text() + "\nfrom lib.science import extra  # noqa\n")
    assert "lib/science/extra.py" in store.lib_modules("sample_complexity") and lib_hash("sample_complexity") != before


def test_code_dump_is_the_same_for_the_same_code_on_another_python():
    """Python 3.12 gave every function an empty `type_params` (3.13 dumps without empty fields): a 3.12 tree, made
    here by a FunctionDef with that field, dumps as this one does, so a point computed on the lent GPU's Python is
    current on this CPU's. A docstring alone is no code; `None` stays a value."""
    tree = ast.parse("def f(x=None):\n    'Doc.'\n    return x")
    fn = tree.body[0]
    Py312 = type("FunctionDef", (ast.FunctionDef,), {"_fields": ast.FunctionDef._fields + ("type_params",)})
    later = Py312(**{k: getattr(fn, k) for k in ast.FunctionDef._fields}, type_params=[])
    assert store.code_dump(ast.Module(body=[later], type_ignores=[])) == store.code_dump(tree)
    assert store.code_dump(ast.parse("def f(x=None): return x")) == store.code_dump(tree)
    assert store.code_dump(ast.parse("def f(x=0): return x")) != store.code_dump(tree)
    assert store.code_dump(ast.parse("x = None")) != store.code_dump(ast.parse("x = ..."))


def test_commit_override(monkeypatch):
    monkeypatch.setenv("BOOK_COMMIT", "abc1234567")
    assert store.git_commit() == "abc1234567"


# --------------------------------------------------------------------------------------------- the sweep
def square(spec: Spec, device: str) -> dict:
    return {"x": spec.N ** 2, "device": device}


def boom(spec: Spec, device: str) -> dict:
    raise AssertionError("computed, but the point was stored")


def test_collect_computes_once_then_loads_and_nests(tmp_path):
    s = Store("ch", "quick", root=tmp_path, stored_only=False)
    pts = [Point(("grid", n), Spec(n), square, cost=n) for n in (2, 3)] + [Point(("single",), Spec(7), square)]
    lines = []
    out = collect(pts, s, "cpu", log=lines.append)
    assert out["grid"][3]["result"]["x"] == 9 and out["single"]["result"]["x"] == 49
    done = [line for line in lines if " computed in " in line]     # the lines of finished points (after the plan)
    assert len(done) == 3 and "[1/3] grid 3" in done[0]                 # costliest first
    again = collect([Point(p.label, p.spec, boom) for p in pts], s, "cpu", log=None)
    assert again == out and again.used == [out["grid"][2], out["grid"][3], out["single"]]
    forced = collect(pts[:1], s, "cpu", force=True, log=None)
    assert forced["grid"][2]["result"]["x"] == 4
    assert len(list((tmp_path / "ch" / "quick" / "points").iterdir())) == 3


def test_collect_computes_equal_specs_once(tmp_path):
    s = Store("ch", "quick", root=tmp_path, stored_only=False)
    lines = []
    out = collect([Point(("a",), Spec(2), square), Point(("b",), Spec(2), square)], s, "cpu", log=lines.append)
    assert out["a"] == out["b"] and sum(" computed in " in line for line in lines) == 1


def test_stored_only_never_computes(tmp_path, monkeypatch):
    monkeypatch.setenv("BOOK_STORED_ONLY", "1")
    s = Store("ch", "paper", root=tmp_path)
    assert s.stored_only
    with pytest.raises(MissingResult, match="python -m lib compute ch --profile paper"):
        collect([Point(("a",), Spec(3), boom)], s, "cpu", log=None)


def test_points_take_frozen_specs_and_module_level_runs():
    @dataclass
    class Loose:
        N: int

    with pytest.raises(TypeError, match="frozen dataclass"):
        Point(("a",), Loose(1), square)
    with pytest.raises(TypeError, match="frozen dataclass"):
        Point(("a",), {"N": 1}, square)
    P = {"N": 1, "secret": 2}
    with pytest.raises(TypeError, match="module-level"):
        Point(("a",), Spec(1), lambda spec, device: {"x": P["secret"]})

    def closure(spec, device):
        return {"x": P["secret"]}

    with pytest.raises(TypeError, match="module-level"):
        Point(("a",), Spec(1), closure)
    with pytest.raises(ValueError, match="share a label"):
        collect([Point(("a",), Spec(1), square), Point(("a",), Spec(2), square)], Store("ch", "q", root="/nonexistent"),
                "cpu")


def test_nest():
    assert nest([(("a", 1), "x"), (("a", 2), "y"), (("b",), "z"), ((("p", "m", 4),), "w")]) == {
        "a": {1: "x", 2: "y"}, "b": "z", ("p", "m", 4): "w"}


@pytest.mark.parametrize("chapter", params.chapters())
def test_page_module_is_outside_the_chapter_hash(chapter):
    """lib/chapters/<chapter>/page.py (tables, claims, figures) exists, is in no chapter's hash, and no computation
    imports it: rewording a claim or restyling a figure leaves stored results current."""
    assert (store.ROOT / "lib" / "chapters" / chapter / "page.py").is_file()
    mods = store.lib_modules(chapter)
    assert f"lib/chapters/{chapter}/compute.py" in mods
    for module in mods:
        tree = ast.parse((store.ROOT / module).read_text())
        names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        names += [f"{n.module}.{a.name}" if isinstance(n, ast.ImportFrom) else a.name
                  for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names]
        assert not [m for m in names if m.endswith("page") or ".page." in m], module


def test_summary_line_groups_points_by_machine():
    """A page's run summary: one line (points, time, machines with their share, the commit or the number of
    commits), the commits of each machine folded beneath it where there are several."""
    def rec(device, commit):
        return {"device": device, "commit": commit, "result": {"wall_s": 1000.5}}

    line = summary_line([rec("CPU", "b"), rec("CPU", "a"), rec("CPU", "a"), rec("H200", "c")], "stored points")
    assert line == ("4 stored points, 4,002 s of computation in all, computed on CPU (3 points), H200 (1 point) at 3 "
                    "commits.\n\n```{dropdown} The commits\nCPU: `a`, `b`; H200: `c`\n```")
    assert summary_line([rec("CPU", "a")]).endswith("computed on CPU at commit `a`.")
