"""Fresh Python processes for the tests without paying for torch's import in each (about 2.5 s of CPU: torch, and
torch._dynamo, which the first optimizer imports): a server process imports torch, torch._dynamo and numpy once
(PRELOAD), then forks a child per call that runs `python SCRIPT ARGS` or `python -m MODULE ARGS` as the interpreter
would: as __main__, with its own sys.argv, sys.path[0], working directory and environment, stdin from /dev/null,
stdout and stderr captured, its threads joined and atexit handlers run at its end, and its exit status (an uncaught
exception: its traceback and status 1). Nothing of lib is imported before the child runs: each call imports lib
afresh. tests/test_forked.py holds it to that.

What differs from a fresh interpreter: torch is imported already, in the server's environment, so a call must have
the server's value of every variable read while torch and Python start (OMP_*, MKL_*, CUDA_*, PYTORCH_*, TORCH*,
PYTHON*: Server.run refuses another); the children share the server's str hash seed; and what that import wrote on
stderr is written at the start of each child's stderr, as a fresh import writes it. The children's CPU time is the
server's, counted for this process when the server ends (its `with` block, a module fixture's teardown).

    with Server(env) as python:
        out = python.run([str(script), "--flag"], cwd=ROOT, env=env)        # a subprocess.CompletedProcess
        out = python.run(["-m", "lib", "compute", ...], cwd=ROOT, env=env)

Calls may come from several threads at once: each is its own child."""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

FIXED = ("OMP_", "MKL_", "CUDA_", "PYTORCH_", "TORCH", "PYTHON", "KMP_", "OPENBLAS_", "LD_")


def _fixed(env: dict) -> dict:
    return {k: v for k, v in env.items() if k.startswith(FIXED)}


PRELOAD = ("numpy", "torch", "torch._dynamo")


class Server:
    def __init__(self, env: dict, preload: tuple[str, ...] = PRELOAD):
        self.env = dict(env)
        self.proc = subprocess.Popen([sys.executable, __file__, *preload], env=self.env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lock, self.waiting, self.done, self.pids, self.next = threading.Lock(), {}, {}, {}, 0
        ready = self.proc.stdout.readline()
        if ready.strip() != "ready":
            raise RuntimeError(f"forked.Server did not start: {ready!r}")
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            kind, call, value = line.split()
            with self.lock:
                if kind == "started":
                    self.pids[call] = int(value)
                else:
                    self.done[call] = int(value)
                    self.waiting.pop(call).set()
        with self.lock:                      # the server ended: nothing more will finish
            for event in self.waiting.values():
                event.set()

    def run(self, argv: list[str], cwd: Path, env: dict, timeout: float = 600) -> subprocess.CompletedProcess:
        """`python ARGV` in `cwd` with `env`; raises subprocess.TimeoutExpired (the child killed) past `timeout`."""
        if _fixed(env) != _fixed(self.env):
            raise ValueError(f"forked.Server: a call's {sorted(set(_fixed(env).items()) ^ set(_fixed(self.env).items()))} "
                             "differ from the server's, which torch read when it was imported")
        with tempfile.TemporaryDirectory() as tmp:
            out, err, event = Path(tmp) / "stdout", Path(tmp) / "stderr", threading.Event()
            with self.lock:
                call, self.next = str(self.next), self.next + 1
                self.waiting[call] = event
                self.proc.stdin.write(json.dumps({"call": call, "argv": argv, "cwd": str(cwd), "env": env,
                                                  "stdout": str(out), "stderr": str(err)}) + "\n")
                self.proc.stdin.flush()
            if not event.wait(timeout):
                with self.lock:
                    pid = self.pids.get(call)
                if pid:
                    os.kill(pid, 9)
                event.wait(60)
                raise subprocess.TimeoutExpired(argv, timeout)
            if call not in self.done:
                raise RuntimeError("forked.Server ended before the call did")
            read = lambda p: p.read_text(errors="replace") if p.exists() else ""
            return subprocess.CompletedProcess([sys.executable, *argv], self.done.pop(call), read(out), read(err))

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=120)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ------------------------------------------------------------------------------------------------ the server
def _serve() -> None:
    import select

    proto = os.dup(1)                           # the protocol's channel; children's fds 1 and 2 are their files
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    with tempfile.TemporaryFile() as cap:       # what importing torch writes on stderr, replayed in every child
        saved = os.dup(2)
        os.dup2(cap.fileno(), 2)
        try:
            for name in sys.argv[1:]:
                importlib.import_module(name)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        cap.seek(0)
        preload_err = cap.read()
    os.dup2(null, 2)
    start_path = list(sys.path[1:])             # sys.path[0] is this file's folder: each child sets its own
    say = lambda text: os.write(proto, (text + "\n").encode())
    say("ready")
    children, buf = {}, b""
    while True:
        ready, _, _ = select.select([0], [], [], 0.05)
        if ready:
            chunk = os.read(0, 1 << 16)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                req = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    os.close(proto)
                    _child(req, start_path, preload_err, null)
                children[pid] = req["call"]
                say(f"started {req['call']} {pid}")
        _reap(children, say, block=False)
    _reap(children, say, block=True)


def _reap(children: dict, say, block: bool) -> None:
    while children:
        pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
        if pid == 0:
            return
        say(f"done {children.pop(pid)} {os.waitstatus_to_exitcode(status)}")


def _child(req: dict, start_path: list, preload_err: bytes, null: int) -> None:
    import atexit
    import runpy
    import traceback

    code = 1
    try:
        os.dup2(null, 0)
        for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
            f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(f, fd)
            os.close(f)
        os.write(2, preload_err)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        argv = req["argv"]
        if argv[0] == "-m":
            sys.argv = argv[1:]
            sys.path[:] = [os.getcwd(), *start_path]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(argv)
            sys.path[:] = [str(Path(argv[0]).resolve().parent), *start_path]
            runpy.run_path(argv[0], run_name="__main__")
        code = 0
    except SystemExit as err:
        if err.code is None:
            code = 0
        elif isinstance(err.code, int):
            code = err.code & 0xFF
        else:
            print(err.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        try:
            threading._shutdown()               # as the interpreter exits: its threads joined, then atexit
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


if __name__ == "__main__":
    _serve()
