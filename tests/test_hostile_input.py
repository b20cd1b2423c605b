"""Careless and hostile input: every bad input is one line on stderr and exit status 2 (a failing chapter: exit 1
and a 'chapter ... failed' line), with results/ and book/executed/ left byte for byte as they were. The commands run
as `python -m lib` does, each in its own process forked from one that has imported torch (tests/forked.py), on one
torch thread."""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import forked
import pytest

from lib.core import params
from lib.core.store import ROOT, atomic_write, clean_temps, environment_fault
from lib.science import tm_run
from lib.science import tm_transformer as tt
from lib.science import turing as tu

CHAPTER = "sample_complexity"


def tree(path: Path) -> dict:
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.rglob("*"))
            if p.is_file()}


ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def python():
    with forked.Server(ENV) as server:
        yield server


def lib(python, args: list[str], timeout: float = 120, **env) -> subprocess.CompletedProcess:
    """python -m lib ARGS in the repository, with ENV and `env`."""
    return python.run(["-m", "lib", *args], cwd=ROOT, env={**ENV, **env}, timeout=timeout)


@pytest.fixture
def sandbox(tmp_path, monkeypatch, python):
    """A results tree and an executed-notebook tree with something in them, and a scratch profile directory of a
    copy of the chapter's profiles."""
    results, executed = tmp_path / "results", tmp_path / "executed"
    atomic_write(results / CHAPTER / "quick" / "claims.json", "[]\n")
    atomic_write(executed / f"{CHAPTER}.ipynb", "{}\n")
    return {"results": results, "executed": executed, "before": (tree(results), tree(executed)), "tmp": tmp_path,
            "python": python}


def cli(sandbox, *args, profile_text: bytes | None = None):
    """python -m lib ARGS in the repository, writing (if anything) into the sandbox only; a profile_text is put in
    parameters/<chapter>/hostile-<pid>.yaml for the call and removed after."""
    extra = []
    path = ROOT / "parameters" / CHAPTER / f"hostile-{os.getpid()}.yaml"
    if profile_text is not None:
        path.write_bytes(profile_text)
        extra = ["--profile", path.stem]
    try:
        return lib(sandbox["python"], [*args, *extra], BOOK_RESULTS=str(sandbox["results"]),
                   BOOK_EXECUTED=str(sandbox["executed"]))
    finally:
        path.unlink(missing_ok=True)


def assert_refused(sandbox, out, *needles, code=2):
    lines = out.stderr.splitlines()
    assert out.returncode == code, out.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr[-2000:]
    assert len(lines[0]) <= 500, len(lines[0])
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert "running" not in out.stdout
    assert (tree(sandbox["results"]), tree(sandbox["executed"])) == sandbox["before"]


# --------------------------------------------------------------------------------------------- profile files
@pytest.mark.parametrize("text, needles", [
    (b"n_seeds: 2\nd: \xff\xfe\n", ("hostile-", "not valid UTF-8")),
    (b"n_seeds: 2\x00\n", ("hostile-", "NUL byte")),
    (b"[a, b]: 1\n", ("hostile-", "expected a parameter name")),
    (b"? {a: 1}\n: 2\n", ("hostile-", "expected a parameter name")),
    (b"7: 1\n", ("hostile-", "expected a parameter name")),
    (b"", ("hostile-", "no parameters")),
    (b"# only a comment\n", ("hostile-", "no parameters")),
    (b"n_seeds: 2\n" + b"# padding\n" * 20000, ("hostile-", "larger than 64 KiB")),
    (b"N_a: [" + b"4, " * 300000 + b"2]\n", ("hostile-", "larger than 64 KiB")),
    (b"N_a: [4, 2, 4]\n", ("N_a", "without repeats")),
    (b"N_a: [2, 6, 4]\n", ("N_a", "increasing")),
    (b"models: [ffn, ffn]\n", ("models", "without repeats")),
    (b"N_a: [" + b", ".join(str(i).encode() for i in range(2, 4000)) + b", 1]\n", ("N_a", " ...)")),
    (b"N_a: " + b"[" * 30000 + b"]" * 30000 + b"\n", ("hostile-", "line 1", "nested too deeply")),
    (b"N_a: [&a 2, *a]\n", ("hostile-", "line 1", "alias")),
    # ten aliases of ten: a 10^10-element list in 300 bytes (printing it in the error message never ends)
    (b"N_a: [&a0 [1,1,1,1,1,1,1,1,1,1], " + b", ".join(b"&a%d [" % (i + 1) + b",".join([b"*a%d" % i] * 10) + b"]"
                                                       for i in range(9)) + b"]\n", ("hostile-", "line 1")),
    (b"n_seeds: \x07\n", ("hostile-", "malformed YAML", "special characters")),
])
def test_bad_profile_files(sandbox, text, needles):
    t0 = time.perf_counter()
    assert_refused(sandbox, cli(sandbox, "run", CHAPTER, profile_text=text), *needles)
    assert time.perf_counter() - t0 < 60


# ------------------------------------------------------------------------------------- names, paths, flags
@pytest.mark.parametrize("args, needles", [
    (["run", "../book/intro"], ("unknown chapter", "../book/intro")),
    (["run", "/etc/passwd"], ("unknown chapter",)),
    (["compute", "../intro"], ("unknown chapter",)),
    (["run", "sample\ncomplexity"], ("unknown chapter", "\\n")),
    (["run", CHAPTER, "--profile", "/tmp/quick"], ("--profile", "profile name")),
    (["run", CHAPTER, "--profile", "../quick"], ("--profile", "profile name")),
    (["compute", CHAPTER, "--profile", str(ROOT / "parameters" / CHAPTER / "quick")], ("--profile",)),
    (["compute", CHAPTER, "--jobs", "\u0663"], ("--jobs", "whole number")),
    (["compute", CHAPTER, "--jobs", "100000"], ("--jobs", "the cores here")),
    (["compute", CHAPTER, "--jobs", "0"], ("--jobs",)),
    (["run", CHAPTER, "--set", "seed=1\n2"], ("--set",)),
    (["run", CHAPTER, "--set", "se\ned=1"], ("unknown key", "\\n")),
    (["run", CHAPTER, "--set", "d=" + "9" * 100000], ("--set",)),
    (["run", CHAPTER, "--set", "N_a=[" + ",".join(["x" * 50] * 1900) + "]"], ("--set",)),
    (["run", CHAPTER, "--set", "N_a=[" + ",".join(str(i) for i in range(2, 1900)) + ",1]"], ("N_a", " ...)")),
    (["run", CHAPTER, "--set", "n_seeds=1e300"], ("n_seeds", "below 2^53")),
    (["run", CHAPTER, "--set", "N_a=[&a 2, *a]"], ("--set", "alias")),
    (["run", CHAPTER, "--bogus"], ("unrecognized arguments",)),
    (["frobnicate"], ("invalid choice",)),
    ([], ("required",)),
])
def test_bad_names_and_flags(sandbox, args, needles):
    assert_refused(sandbox, cli(sandbox, *args), *needles)


def test_messages_are_one_line_and_bounded():
    err = params.ParamError("a\nb" + "x" * 10**6)
    assert "\n" not in str(err) and len(str(err)) <= params.MAX_MESSAGE


# ------------------------------------------------------------------------------------------ unwritable output
def test_unwritable_executed_directory_fails_the_chapter_in_one_line(sandbox, tmp_path):
    """book/executed/ that cannot be written (here a file where the directory should be: root ignores permission
    bits) fails the chapter with a 'chapter ... failed' line and changes nothing."""
    blocked = tmp_path / "blocked"
    blocked.write_text("not a directory")
    out = lib(sandbox["python"], ["run", CHAPTER], BOOK_RESULTS=str(sandbox["results"]),
              BOOK_EXECUTED=str(blocked / "executed"))
    assert out.returncode == 1 and out.stderr.startswith(f"error: chapter {CHAPTER} failed: cannot write"), out.stderr
    assert len(out.stderr.splitlines()) == 1 and blocked.read_text() == "not a directory"
    assert (tree(sandbox["results"]), tree(sandbox["executed"])) == sandbox["before"]


# A tiny sweep of the chapter: the tests below fail at its first stored point, a few seconds in
TINY = ["--set", "N_a=[2]", "--set", "N_b=[4]", "--set", "models=[ffn]", "--set", "wide_models=[ffn]", "--set", "N_wide=[2]",
        "--set", "n_seeds=2", "--set", "n_test=64",
        "--set", "max_samples=640", "--set", "ffn_width=16"]


def test_unwritable_results_fail_the_run_in_one_line(sandbox, tmp_path):
    """results/ that cannot be written (a file where the folder should be) fails the chapter in one line naming the
    path and why, not with the notebook's traceback; book/executed/ is left as it was."""
    blocked = tmp_path / "blocked"
    blocked.write_text("not a directory")
    out = lib(sandbox["python"], ["run", CHAPTER, *TINY], timeout=300, BOOK_RESULTS=str(blocked / "results"),
              BOOK_EXECUTED=str(sandbox["executed"]))
    assert out.returncode == 1 and len(out.stderr.splitlines()) == 1, out.stderr[-3000:]
    assert re.match(rf"error: chapter {CHAPTER} failed in cell \d+: cannot write {re.escape(str(blocked))}/results/\S+: "
                    rf"Not a directory \({re.escape(str(blocked))} is a file where a folder should be: move the file "
                    r"away\); every finished sweep point and the last good notebook are kept", out.stderr), out.stderr
    assert blocked.read_text() == "not a directory" and tree(sandbox["executed"]) == sandbox["before"][1]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders: no read-only results/ to test")
def test_read_only_results_fail_compute_in_one_line(sandbox):
    results = sandbox["results"] / CHAPTER / "quick"
    results.chmod(0o555)
    try:
        out = subprocess.run([sys.executable, "-m", "lib", "compute", CHAPTER, "--profile", "quick", *TINY], cwd=ROOT,
                             capture_output=True, text=True, timeout=300,
                             env={**os.environ, "BOOK_RESULTS": str(sandbox["results"])})
    finally:
        results.chmod(0o755)
    assert out.returncode == 1 and len(out.stderr.splitlines()) == 1 and "Permission denied" in out.stderr, out.stderr


def test_a_full_disk_is_one_line_naming_the_file(sandbox, monkeypatch, capsys):
    """ENOSPC while a point is stored: `compute` says which file and why in one line (the point is not stored)."""
    import errno

    from lib.__main__ import main
    from lib.core import store

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setenv("BOOK_RESULTS", str(sandbox["results"]))
    monkeypatch.setattr(store.os, "replace", full)
    assert main(["compute", CHAPTER, "--profile", "quick", *TINY]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and re.match(rf"error: cannot write {re.escape(str(sandbox['results']))}/"
                                                   rf"{CHAPTER}/quick/points/[0-9a-f]{{16}}\.json: No space left on "
                                                   r"device \(the disk is full: free some space\)", err), err
    assert tree(sandbox["results"]) == sandbox["before"][0]


@pytest.mark.parametrize("error, line", [
    ("[Errno 28] No space left on device: '/r/a.json'", "cannot write /r/a.json: No space left on device (the disk is full"),
    ("[Errno 30] Read-only file system: '/r'", "cannot write /r: Read-only file system (a read-only file system"),
    ("[Errno 13] Permission denied: '/r/p'", "cannot write /r/p: Permission denied (not writable here"),
    ("[Errno 2] No such file or directory: '/r'", None),    # a bug (a file the code expected), not the machine
    ("division by zero", None),
])
def test_environment_faults_and_bugs_are_told_apart(error, line):
    fault = environment_fault(error)
    assert fault == line if line is None else fault.startswith(line), fault


# --------------------------------------------------------------------------------------------- kill -9 leftovers
def test_temporary_files_of_a_killed_writer_are_cleaned_and_a_live_one_kept(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])   # killed below, whatever the load
    try:
        stale = tmp_path / f".abc.json.{int(dead.stdout)}.x1y2.tmp"
        busy = tmp_path / f".def.json.{live.pid}.x1y2.tmp"
        stale.write_text("half"), busy.write_text("half")
        atomic_write(tmp_path / "abc.json", "whole")
        assert clean_temps(tmp_path) == 1
        assert not stale.exists() and busy.exists() and (tmp_path / "abc.json").read_text() == "whole"
    finally:
        live.kill()


def test_a_run_killed_with_sigkill_leaves_nothing_the_next_run_does_not_clean(tmp_path):
    """kill -9 of `compute` while it trains: the points that finished are whole JSON, and after a rerun there is no
    temporary file left. The smoke profile: 22 points, the first about a second, the other 21 about 3 s more (the
    kill lands in one of them)."""
    env = {**os.environ, "BOOK_RESULTS": str(tmp_path), "OMP_NUM_THREADS": "1"}
    args = [sys.executable, "-m", "lib", "compute", CHAPTER, "--profile", "smoke"]
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    while (line := proc.stdout.readline()) and " computed in " not in line:   # until the first point is stored
        pass
    proc.kill()
    proc.wait()
    points = tmp_path / CHAPTER / "smoke" / "points"
    import json
    for f in points.glob("*.json"):
        json.loads(f.read_text())
    (points / f".leftover.json.{proc.pid}.k9k9.tmp").write_text("{")     # as a kill during a write leaves it
    rerun = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert not [p for p in (tmp_path / CHAPTER).rglob("*") if p.name.endswith(".tmp")]


# ------------------------------------------------------------------------------------------- Turing machines
def _parity_delta():
    return {z: dict(row) for z, row in tu.catalogue()["parity"].delta.items()}


@pytest.mark.parametrize("make, needle", [
    (lambda d: d[0].__setitem__(1, (1, 1, 0)), "move -1 or +1"),
    (lambda d: d[0].__setitem__(1, (1, 1, 2)), "move -1 or +1"),
    (lambda d: d[0].__setitem__(1, (9, 1, 1)), "state in 0..3"),
    (lambda d: d[0].__setitem__(1, (1, 7, 1)), "symbol in 0..2"),
    (lambda d: d[0].__setitem__(1, (1.5, 1, 1)), "state in 0..3"),
    (lambda d: d[0].pop(2), "a transition for each symbol"),
    (lambda d: d.pop(1), "delta[1]"),
])
def test_bad_transitions_are_refused(make, needle):
    delta = _parity_delta()
    make(delta)
    with pytest.raises(tu.TMError, match=re.escape(needle)):
        tu.TM("bad", 4, 3, delta, 0, (2,), (3,))


@pytest.mark.parametrize("kwargs, needle", [
    ({"accept": (2,), "reject": (2,)}, "both accepting and rejecting"),
    ({"init": 4}, "init"),
    ({"accept": (7,)}, "accept"),
    ({"n_sym": 1}, "n_sym"),
])
def test_bad_state_sets_are_refused(kwargs, needle):
    base = {"name": "bad", "n_states": 4, "n_sym": 3, "delta": _parity_delta(), "init": 0, "accept": (2,), "reject": (3,)}
    with pytest.raises(tu.TMError, match=needle):
        tu.TM(**{**base, **kwargs})


@pytest.mark.parametrize("side", ["interpreter", "transformer"])
def test_bad_runs_are_the_same_error_on_both_sides(side):
    parity = tu.catalogue()["parity"]
    left = tu.TM("left", 2, 2, {0: {0: (0, 0, -1), 1: (0, 1, -1)}}, 0, (1,), ())

    def go(tm, x, T):
        if side == "interpreter":
            return tu.run(tm, x, T)
        return tm_run.rollout(tt.build(tm, T, m_max=max(1, len(x))), [x])

    for tm, x, T, needle in ((parity, [1, 3], 8, "input symbol 3"), (parity, [1, 0], 8, "input symbol 0"),
                             (parity, [1], -1, "T: expected a whole number"), (parity, [1], 2.5, "T: expected"),
                             (left, [1], 5, "moves left of cell 0")):
        with pytest.raises(tu.TMError, match=needle):
            go(tm, x, T)


def test_the_catalogue_and_random_machines_are_valid():
    for tm in [*tu.catalogue().values(), *(tu.random_tm(s) for s in range(20))]:
        assert tu.validate(tm) is tm


# ------------------------------------------------------------------------------------ sizes no machine holds
@pytest.mark.parametrize("setting, needles", [
    ("N_a=[1000000000]", ("N_a", "GiB", "the test sets")),
    ("ffn_width=1e8", ("ffn_width", "GiB", "weights")),
    ("n_test=1e15", ("n_test", "GiB")),
    ("n_test=1e18", ("n_test", "below 2^53")),
    ("n_seeds=1e300", ("n_seeds", "below 2^53")),
    ("rnn_hidden=1000000", ("rnn_hidden", "GiB")),
])
def test_sizes_that_do_not_fit_are_refused_before_anything_runs(sandbox, setting, needles):
    assert_refused(sandbox, cli(sandbox, "run", CHAPTER, "--set", setting), *needles)
    assert_refused(sandbox, cli(sandbox, "compute", CHAPTER, "--profile", "quick", "--set", setting), *needles)


@pytest.mark.parametrize("chapter, setting, needle", [
    ("ffn_span", "ffn_width=1e9", "ffn_width"),
    ("head_lower_bound", "n_test=1e12", "n_test"),
    ("rnn_norm_growth", "widths=[2, 4, 1000000]", "widths"),
    ("rpe_decay", "train_S=[256, 100000000]", "train_S"),
    ("turing_simulation", "T_list=[16, 10000000]", "T_list"),
])
def test_every_chapter_refuses_what_its_device_cannot_hold(sandbox, chapter, setting, needle):
    assert_refused(sandbox, cli(sandbox, "compute", chapter, "--profile", "quick", "--set", setting), needle, "GiB")
