"""lib.core.store: atomic writes, the point store's round trip, keys, NaN handling and staleness."""
from __future__ import annotations

import ast
import json

import numpy as np
import pytest

import lib.core.store as store
from lib.core import params
from lib.core.store import Store, atomic_write, is_stale, key_of, lib_hash


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
    spec = {"N": 4, "model": "ffn", "lr": 0.001}
    assert s.get(spec) is None
    result = {"samples": np.array([[640.0, np.nan], [1280.0, 320.0]]), "n": np.int64(3), "ok": np.bool_(True)}
    env = {"commit": "abc", "lib_hash": lib_hash()}
    record = s.put(spec, result, env)
    assert record == s.get(spec)
    assert record["spec"] == spec and record["commit"] == "abc"
    assert record["result"] == {"samples": [[640.0, None], [1280.0, 320.0]], "n": 3, "ok": True}
    assert s.get({**spec, "N": 5}) is None
    files = list((tmp_path / "chap" / "prof" / "points").iterdir())
    assert [f.name for f in files] == [f"{key_of(spec)}.json"]


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
    assert is_stale({"lib_hash": lib_hash()}) is False
    assert is_stale({"lib_hash": "000000000000"}) is True
    assert is_stale({}) is True
    assert is_stale({"lib_hash": "abc"}, current="abc") is False and is_stale({"lib_hash": lib_hash()}, current="abc") is True


def test_lib_hash_is_stable():
    assert lib_hash() == lib_hash() and len(lib_hash()) == 12


def test_lib_hash_covers_what_a_chapter_imports():
    mods = store.lib_modules("sample_complexity")
    assert {"sample_complexity", "engine", "models", "qstr", "stats"} <= set(mods)
    # other chapters and code that never changes a number (store, claims, plotting) do not make results stale
    assert not {"head_lower_bound", "ffn_span", "store", "claims", "plotting", "chapter"} & set(mods)
    # nor does what a page shows (lib/<chapter>_page.py: tables, claims, figures), nor another chapter's page
    for chapter in ("sample_complexity", "ffn_span", "rnn_norm_growth"):
        assert not [m for m in store.lib_modules(chapter) if m.endswith("_page")], chapter
    assert "sample_complexity" not in store.lib_modules("ffn_span")       # it only reads that chapter's results
    rnn = store.lib_modules("rnn_norm_growth")       # it computes with Eq. A.2 (lib.science.a2), not with head_lower_bound
    assert "a2" in rnn and "head_lower_bound" not in rnn
    assert lib_hash("sample_complexity") != lib_hash("head_lower_bound") != lib_hash()
    assert is_stale({"lib_hash": lib_hash("ffn_span")}, "ffn_span") is False


def test_commit_override(monkeypatch):
    monkeypatch.setenv("BOOK_COMMIT", "abc1234567")
    assert store.git_commit() == "abc1234567"


def test_claimed_points_are_left_to_their_worker(tmp_path):
    a, b = (Store("ch", "quick", root=tmp_path, stored_only=False) for _ in range(2))
    a.claims = b.claims = tmp_path / "claims"
    a.claims.mkdir()
    rec, done = a.load_or_compute({"N": 1}, lambda: {"v": 1}, {})
    assert done and rec["result"] == {"v": 1} and a.n_computed == 1
    assert b.load_or_compute({"N": 2}, lambda: {"v": 2}, {})[1]       # unclaimed: b computes it
    assert b.load_or_compute({"N": 1}, lambda: 1 / 0, {})[0]["result"] == {"v": 1}   # stored: loaded
    (a.claims / key_of({"N": 3})).touch()                                             # claimed by a third worker
    assert b.load_or_compute({"N": 3}, lambda: 1 / 0, {}) == (None, False) and b.n_computed == 1


def test_load_or_compute_computes_once_then_loads(tmp_path):
    store = Store("ch", "quick", root=tmp_path, stored_only=False)
    calls = []
    rec, computed = store.load_or_compute({"N": 3}, lambda: calls.append(1) or {"x": 1.5}, {"commit": "c"})
    assert computed and rec["result"] == {"x": 1.5}
    rec2, computed2 = store.load_or_compute({"N": 3}, lambda: calls.append(1) or {"x": 9}, {"commit": "c"})
    assert not computed2 and rec2 == rec and len(calls) == 1


def test_stored_only_never_computes(tmp_path, monkeypatch):
    from lib.core.store import MissingResult

    monkeypatch.setenv("BOOK_STORED_ONLY", "1")
    store = Store("ch", "paper", root=tmp_path)
    assert store.stored_only
    with pytest.raises(MissingResult, match="python -m lib compute ch --profile paper"):
        store.load_or_compute({"N": 3}, lambda: pytest.fail("computed"), {})


@pytest.mark.parametrize("chapter", params.chapters())
def test_page_module_is_outside_the_chapter_hash(chapter):
    """lib/<chapter>_page.py (tables, claims, figures) exists, is in no chapter's hash, and no computation imports
    it: rewording a claim or restyling a figure leaves stored results current."""
    assert (store.ROOT / "lib" / f"{chapter}_page.py").is_file()
    assert chapter in store.lib_modules(chapter)
    assert not [m for m in store.lib_modules(chapter) if m.endswith("_page")]
    for module in store.lib_modules(chapter):
        tree = ast.parse((store.ROOT / "lib" / f"{module}.py").read_text())
        names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        names += [a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names]
        assert not [m for m in names if m.endswith("_page")], module
