"""tests/forked.py, the server of forked children that several tests run `python -m lib` and scripts in: each call is
run as a fresh `python` runs it (argv, sys.path[0], cwd, environment, output, exit status, atexit, threads joined),
and a call whose startup variables differ from the server's is refused. No module preloaded here (seconds less):
what the server preloads changes none of this."""
import os
import sys
import textwrap

import forked
import pytest

SCRIPT = textwrap.dedent("""
    import atexit, os, sys, threading, time
    print("argv", sys.argv[1:], "path0", sys.path[0], "cwd", os.getcwd(), "X", os.environ.get("X"))
    print("lib imported before:", "lib" in sys.modules)
    atexit.register(lambda: print("atexit ran"))
    threading.Thread(target=lambda: (time.sleep(0.2), print("thread joined"))).start()
    if sys.argv[1] == "raise":
        raise ValueError("boom")
    if sys.argv[1] == "exit":
        sys.exit(int(sys.argv[2]))
    if sys.argv[1] == "message":
        sys.exit("a message")
    if sys.argv[1] == "stderr":
        print("to stderr", file=sys.stderr)
""")


@pytest.fixture(scope="module")
def python():
    with forked.Server({**os.environ, "OMP_NUM_THREADS": "1"}, preload=()) as server:
        yield server


@pytest.mark.parametrize("args, status, err", [(["ok"], 0, ""), (["exit", "3"], 3, ""), (["message"], 1, "a message\n"),
                                               (["stderr"], 0, "to stderr\n"), (["raise"], 1, "ValueError: boom\n")])
def test_a_script_runs_as_python_runs_it(python, tmp_path, args, status, err):
    (tmp_path / "dir").mkdir()
    script = tmp_path / "dir" / "s.py"
    script.write_text(SCRIPT)
    out = python.run([str(script), *args], cwd=tmp_path, env={**python.env, "X": "y"})
    assert out.returncode == status and out.stderr.endswith(err), out.stderr
    assert "Traceback" in out.stderr if args == ["raise"] else "Traceback" not in out.stderr
    assert out.stdout.splitlines() == [f"argv {args} path0 {tmp_path / 'dir'} cwd {tmp_path} X y",
                                       "lib imported before: False", "thread joined", "atexit ran"]


def test_a_module_runs_as_python_m_runs_it(python, tmp_path):
    from lib.core.store import ROOT

    out = python.run(["-m", "lib", "frobnicate"], cwd=ROOT, env=python.env)
    assert out.returncode == 2 and out.stdout == "" and out.stderr.startswith("error: ") and out.stderr.count("\n") == 1
    bare = python.run(["-m", "json.tool", "--no-such-flag"], cwd=tmp_path, env=python.env)
    assert bare.returncode == 2 and "usage" in bare.stderr


def test_a_call_with_other_startup_variables_is_refused(python, tmp_path):
    for key, value in (("OMP_NUM_THREADS", "2"), ("PYTHONPATH", "/elsewhere")):
        with pytest.raises(ValueError, match=key):
            python.run([sys.executable], cwd=tmp_path, env={**python.env, key: value})
