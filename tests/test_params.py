"""lib.core.params: the schema parsed from a parameters cell, value checks, profile resolution and the CLI's bad input."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import lib.core.params as params
from lib.core.params import ParamError, check_value, parse_overrides, parse_schema, resolve

ROOT = Path(__file__).resolve().parent.parent

CELL = '''\
n = 5                 # > 0: number of things
rate = 0.5            # in (0, 1]: a rate
lr = 0.001            # > 0: learning rate
sizes = [2, 4]        # >= 2: sequence lengths
names = ["a", "b"]    # one of a, b: some names
mode = "a"            # one of a, b: a mode
flag = True           # just a flag: no constraint here
label = "x"
'''


@pytest.fixture(scope="module")
def schema():
    return parse_schema(CELL)


def one_line_error(fn, *args, needles=(), **kwargs) -> str:
    """Call fn, expect ParamError with a one-line message containing every needle; return the message."""
    with pytest.raises(ParamError) as info:
        fn(*args, **kwargs)
    msg = str(info.value)
    assert "\n" not in msg, msg
    for needle in needles:
        assert needle in msg, f"{needle!r} not in {msg!r}"
    return msg


# ------------------------------------------------------------------------------------------------- schema
def test_parse_schema_types_lists_constraints_and_help(schema):
    assert list(schema) == ["n", "rate", "lr", "sizes", "names", "mode", "flag", "label"]
    n = schema["n"]
    assert (n.type, n.is_list, n.default, n.constraint, n.help) == (int, False, 5, "> 0", "number of things")
    assert schema["rate"].type is float and schema["rate"].constraint == "in (0, 1]"
    assert schema["rate"].help == "a rate"
    sizes = schema["sizes"]
    assert (sizes.type, sizes.is_list, sizes.constraint) == (int, True, ">= 2")
    assert schema["names"].type is str and schema["names"].is_list and schema["names"].constraint == "one of a, b"
    # A comment whose first part is no constraint is all help text.
    assert schema["flag"].type is bool and schema["flag"].constraint == ""
    assert schema["flag"].help == "just a flag: no constraint here"
    assert (schema["label"].constraint, schema["label"].help) == ("", "")
    assert sizes.form == "list of int >= 2" and n.form == "int > 0" and schema["label"].form == "str"


def test_parse_schema_rejects_non_assignments_and_bad_defaults():
    one_line_error(parse_schema, "print(1)\n", needles=("line 1",))
    one_line_error(parse_schema, "x = []  # empty list\n", needles=("x",))
    one_line_error(parse_schema, "x = [1, 'a']\n", needles=("x",))
    one_line_error(parse_schema, "x = None\n", needles=("x",))


def test_chapter_schema_loads():
    schema = params.load_schema("sample_complexity")
    assert schema["n_seeds"].type is int and schema["n_seeds"].constraint == "> 0"
    assert schema["threshold_a"].constraint == "in (0, 1]"
    assert schema["models"].is_list and schema["models"].constraint == "one of transformer, rnn, ffn"
    assert schema["lr"].type is float


# ------------------------------------------------------------------------------------------- check_value
def test_yaml11_exponent_string_becomes_float(schema):
    value = check_value(schema["lr"], "1e-3", "here")
    assert value == 0.001 and type(value) is float


def test_int_for_float_is_coerced(schema):
    value = check_value(schema["lr"], 2, "here")
    assert value == 2.0 and type(value) is float


def test_int_param(schema):
    assert check_value(schema["n"], 3, "here") == 3
    assert type(check_value(schema["n"], 3.0, "here")) is int
    one_line_error(check_value, schema["n"], True, "here", needles=("here", "n", "int > 0"))
    one_line_error(check_value, schema["n"], 2.5, "here", needles=("here", "n", "int > 0", "2.5"))
    one_line_error(check_value, schema["n"], "abc", "here", needles=("'abc'",))
    one_line_error(check_value, schema["n"], 0, "here", needles=("> 0",))


def test_bool_param_takes_only_bools(schema):
    assert check_value(schema["flag"], False, "here") is False
    one_line_error(check_value, schema["flag"], 1, "here", needles=("flag", "bool"))


def test_list_param(schema):
    assert check_value(schema["sizes"], [2, 3.0], "here") == [2, 3]
    one_line_error(check_value, schema["sizes"], [], "here", needles=("sizes", "list of int >= 2"))
    one_line_error(check_value, schema["sizes"], [1, 2], "here", needles=("sizes", "list of int >= 2"))
    one_line_error(check_value, schema["sizes"], [2, "x"], "here", needles=("sizes",))
    one_line_error(check_value, schema["sizes"], 4, "here", needles=("sizes",))  # a scalar is not a list


def test_half_open_interval(schema):
    p = schema["rate"]
    assert check_value(p, 1, "here") == 1.0
    assert check_value(p, 0.25, "here") == 0.25
    for bad in (0, 0.0, 1.5, -0.1):
        one_line_error(check_value, p, bad, "here", needles=("rate", "float in (0, 1]"))


def test_one_of(schema):
    assert check_value(schema["mode"], "b", "here") == "b"
    assert check_value(schema["names"], ["b", "a"], "here") == ["b", "a"]
    one_line_error(check_value, schema["mode"], "c", "here", needles=("mode", "one of a, b"))
    one_line_error(check_value, schema["names"], ["a", "c"], "here", needles=("names", "list of str one of a, b"))


# ------------------------------------------------------------------------------------------------ resolve
def test_resolve_quick_merges_defaults():
    schema = params.load_schema("sample_complexity")
    P = resolve("sample_complexity", "quick")
    assert P["profile"] == "quick"
    assert set(P) == set(schema)
    assert P["n_seeds"] == 2 and P["N_a"] == [2, 4, 6, 8]        # from quick.yaml
    assert P["batch_size"] == schema["batch_size"].default        # not in quick.yaml: the cell's default
    assert P["lr"] == schema["lr"].default


def test_resolve_paper_reads_yaml11_lr_as_float():
    P = resolve("sample_complexity", "paper")
    assert P["profile"] == "paper"
    assert P["lr"] == 0.001 and type(P["lr"]) is float


@pytest.fixture
def pdir(tmp_path, monkeypatch):
    """A copy of parameters/ under tmp_path that lib.core.params reads instead; returns the chapter's folder."""
    shutil.copytree(ROOT / "parameters", tmp_path / "parameters")
    monkeypatch.setattr(params, "PARAMS_DIR", tmp_path / "parameters")
    return tmp_path / "parameters" / "sample_complexity"


def bad_profile(pdir: Path, text: str) -> str:
    (pdir / "bad.yaml").write_text(text)
    return "bad"


def test_missing_profile_lists_profiles(pdir):
    one_line_error(resolve, "sample_complexity", "nope", needles=("nope.yaml", "no such profile", "paper, quick"))


def test_missing_profile_message_names_repo_relative_file():
    one_line_error(resolve, "sample_complexity", "nope", needles=("parameters/sample_complexity/nope.yaml",))


def test_malformed_yaml(pdir):
    one_line_error(resolve, "sample_complexity", bad_profile(pdir, "n_seeds: [1, 2\nd: 3\n"),
                   needles=("bad.yaml", "malformed YAML", "line"))
    one_line_error(resolve, "sample_complexity", bad_profile(pdir, "a: b: c\n"), needles=("bad.yaml", "malformed YAML"))


@pytest.mark.parametrize("text, needles", [
    ("N_a: [[2, 4]]\n", ("line 1", "nested too deeply")),
    ("N_a: " + "[" * 30000 + "]" * 30000 + "\n", ("line 1", "nested too deeply")),    # past Python's stack
    ("d: &x 8\nn_test: *x\n", ("line 2", "alias")),
    ("<<: {d: 8}\n", ("line 1", "merge")),
    ("[a, b]: 1\n", ("line 1", "key ['a', 'b']: expected a parameter name")),
    ("7: 1\n", ("line 1", "key 7: expected a parameter name")),
    ("d: 8\n---\nd: 9\n", ("line 2", "another document")),
    ("d: !!python/object:os.system 8\n", ("line 1", "constructor")),
    ("d: \x07\n", ("special characters",)),
])
def test_yaml_beyond_a_profile_is_refused_in_one_line(pdir, text, needles):
    """Profiles are read by PyYAML's safe loader, stricter: no aliases, no nesting beyond a list of values, no key
    that is not a string, one document."""
    one_line_error(resolve, "sample_complexity", bad_profile(pdir, text), needles=("bad.yaml", "malformed YAML", *needles))


def test_profile_values_read_as_yaml_1_1_and_checked(pdir):
    """`1e-3` is a string in YAML 1.1 (PyYAML) and a float to the checks, in a list as alone; comments, a BOM and CRLF
    line ends are read."""
    P = resolve("sample_complexity", bad_profile(pdir, "\ufeff# c\r\nlr: 1e-3  # a comment\r\nn_seeds: 2\r\n"
                                                       "N_a: [2, 4]\r\nthreshold_a: .5\r\n"))
    assert (P["lr"], P["n_seeds"], P["N_a"], P["threshold_a"]) == (0.001, 2, [2, 4], 0.5) and type(P["lr"]) is float
    assert params.load_yaml("x: [1e-3, 2.0e-3]\ny: yes\nz: ~\n", "here") == {"x": ["1e-3", 0.002], "y": True, "z": None}


def test_duplicate_key(pdir):
    one_line_error(resolve, "sample_complexity", bad_profile(pdir, "n_seeds: 3\nd: 4\nn_seeds: 5\n"),
                   needles=("bad.yaml", "line 3", "'n_seeds' given twice"))


def test_top_level_list(pdir):
    one_line_error(resolve, "sample_complexity", bad_profile(pdir, "- n_seeds\n- 3\n"),
                   needles=("bad.yaml", "mapping", "list"))


def test_empty_or_comment_only_profile_is_refused(pdir):
    """It would silently run the schema's defaults, the paper's scale."""
    for text in ("", "# nothing\n", "\n\n"):
        one_line_error(resolve, "sample_complexity", bad_profile(pdir, text), needles=("bad.yaml", "no parameters"))


def test_unknown_key(pdir):
    msg = one_line_error(resolve, "sample_complexity", bad_profile(pdir, "n_seed: 3\n"),
                         needles=("bad.yaml", "n_seed:", "unknown key", "n_seeds"))
    assert "profile" not in msg.partition("known keys")[2].split(", ")


@pytest.mark.parametrize("line, key, form", [
    ("n_seeds: abc", "n_seeds", "int > 0"),
    ("n_seeds: 0", "n_seeds", "int > 0"),
    ("n_seeds: 2.5", "n_seeds", "int > 0"),
    ("threshold_a: 0", "threshold_a", "float in (0, 1]"),
    ("threshold_a: 1.5", "threshold_a", "float in (0, 1]"),
    ("N_a: []", "N_a", "list of int >= 2"),
    ("N_a: [1, 2]", "N_a", "list of int >= 2"),
    ("N_a: 4", "N_a", "list of int >= 2"),
    ("models: [cnn]", "models", "list of str one of transformer, rnn, ffn"),
    ("encoding: fancy", "encoding", "str one of code, paper"),
    ("lr: -1e-3", "lr", "float > 0"),
])
def test_impossible_values(pdir, line, key, form):
    one_line_error(resolve, "sample_complexity", bad_profile(pdir, line + "\n"), needles=("bad.yaml", f"{key}:", form))


def test_unknown_chapter():
    one_line_error(resolve, "nope", "quick", needles=("unknown chapter 'nope'", "sample_complexity"))


def test_cuda_without_gpu(pdir):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is visible")
    one_line_error(resolve, "sample_complexity", bad_profile(pdir, "device: cuda\n"), needles=("bad.yaml", "device", "cuda"))


def test_reserved_profile_key(pdir):
    one_line_error(resolve, "sample_complexity", bad_profile(pdir, "profile: paper\n"),
                   needles=("bad.yaml", "profile", "reserved"))
    one_line_error(resolve, "sample_complexity", "quick", {"profile": "x"}, needles=("--set", "profile", "reserved"))


# ------------------------------------------------------------------------------------------------ --set
def test_parse_overrides():
    assert parse_overrides(["N_a=[2,4]"]) == {"N_a": [2, 4]}
    assert parse_overrides(["n_seeds=3", "encoding=paper"]) == {"n_seeds": 3, "encoding": "paper"}
    assert parse_overrides([]) == {} and parse_overrides(None) == {}
    one_line_error(parse_overrides, ["novalue"], needles=("novalue", "key=value"))
    one_line_error(parse_overrides, ["=3"], needles=("key=value",))
    one_line_error(parse_overrides, ["N_a=[2,"], needles=("N_a", "YAML"))


def test_overrides_go_on_top():
    P = resolve("sample_complexity", "quick", parse_overrides(["lr=1e-3", "N_a=[2,4]", "n_seeds=3"]))
    assert P["lr"] == 0.001 and type(P["lr"]) is float
    assert P["N_a"] == [2, 4] and P["n_seeds"] == 3


def test_bad_override_names_set():
    one_line_error(resolve, "sample_complexity", "quick", parse_overrides(["n_seeds=0"]), needles=("--set", "n_seeds", "int > 0"))
    one_line_error(resolve, "sample_complexity", "quick", parse_overrides(["bogus=1"]), needles=("--set", "bogus", "unknown key"))


# --------------------------------------------------------------------------------------------------- CLI
@pytest.mark.parametrize("args, needle", [
    (["run", "sample_complexity", "--set", "n_seeds=0"], "n_seeds"),
    (["run", "no_such_chapter"], "no_such_chapter"),
    (["run", "sample_complexity", "--profile", "no_such_profile"], "no_such_profile"),
    (["run", "sample_complexity", "--set", "novalue"], "novalue"),
])
def test_cli_bad_input_exits_2_with_one_line(tmp_path, args, needle):
    env = {**os.environ, "BOOK_RESULTS": str(tmp_path / "results")}  # nothing is written, but never in results/
    proc = subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ") and needle in lines[0]
    assert "running" not in proc.stdout  # failed before papermill
    assert not (tmp_path / "results").exists()


# ------------------------------------------------------------------------------ known lib bugs (reported)
def test_empty_constraint_help_has_no_leading_colon():
    assert params.load_schema("sample_complexity")["profile"].help == "the parameter file this run used (set by the runner)"


def test_cuda_from_set_is_attributed_to_set():
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is visible")
    msg = one_line_error(resolve, "sample_complexity", "quick", {"device": "cuda"}, needles=("device",))
    assert msg.startswith("--set") and "quick.yaml" not in msg


def test_a_bound_set_by_another_key_says_where_that_value_came_from():
    """eval_every stays in the profile; the bound it breaks, and_iters, came from --set: the one line names both."""
    with pytest.raises(ParamError) as err:
        resolve("sparse_variable_creation", "smoke", {"and_iters": 1})
    assert str(err.value) == ("parameters/sparse_variable_creation/smoke.yaml: eval_every: expected at most and_iters "
                              "(and_iters = 1, from --set), got 10")
    with pytest.raises(ParamError, match=r"^--set: eval_every: expected at most and_iters \(and_iters = 100, from "
                                         r"parameters/sparse_variable_creation/smoke.yaml\), got 100000$"):
        resolve("sparse_variable_creation", "smoke", {"eval_every": 100000})
