"""The results store: results/<chapter>/<profile>/, atomic writes, one file per finished sweep point.

A sweep point (one configuration, all its seeds) is stored under a key that hashes exactly the parameters it
depends on, so a rerun with the same parameters loads it in milliseconds, an interrupted sweep resumes from the
points that finished, and a changed parameter recomputes only what it touches. Every point records the commit and
a hash of the `lib` code the chapter computes with; `is_stale` tells a page which points came from other code than
the current one.

A complete profile's folder also holds manifest.json, the sha256 of each point file, claims.json and provenance.json
({"format": 1, "algorithm": "sha256", "files": {"points/<key>.json": hex, ...}}; lib.core.manifest), written when
the profile completes and committed with it; every load of a stored point checks it.

    >>> from lib.core import params; from lib.chapters.sample_complexity import compute
    >>> spec = compute.points(params.resolve("sample_complexity", "paper"))[0].spec     # panel (a), Transformer, N = 2
    >>> store = Store("sample_complexity", "paper", root=ROOT / "results"); store.point_path(spec).name
    'c954ae4ee0695aa1.json'
    >>> sorted(store.get(spec)["result"])[:4]
    ['D', 'curve_samples', 'curves', 'd_e']
"""
from __future__ import annotations

import ast
import dataclasses
import errno
import hashlib
import json
import os
import platform
import re
import subprocess
from pathlib import Path

import numpy as np

from lib.core.files import _jsonable, atomic_write, read_json, write_json  # noqa: F401  (lib imports them from here)
from lib.core.manifest import forget, read_point

ROOT = Path(__file__).resolve().parents[2]


def results_root() -> Path:
    """Where results live: $BOOK_RESULTS (the tests point it at a temporary directory) or ./results."""
    return Path(os.environ.get("BOOK_RESULTS", ROOT / "results"))


# Errors of the machine rather than of the code: a folder that is read-only or not ours, a full disk or quota, a file
# where a folder should be. A run that meets one says so in one line (environment_fault); any other error is a bug
# and keeps its traceback.
ENV_ERRNOS = {errno.EACCES: "not writable here", errno.EPERM: "not writable here", errno.EROFS: "a read-only file system",
              errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up",
              errno.ENOTDIR: "a file stands where a folder should be", errno.EEXIST: "a file stands where a folder should be"}
_ERRNO = re.compile(r"\[Errno (\d+)\] ([^:]+?)(?:: '(.*)')?(?: -> '.*')?")


def environment_fault(err: OSError | str) -> str | None:
    """'cannot write PATH: WHY (what to do)' for an OSError (or its text, as a notebook's kernel reports it) that the
    machine caused; None for any other error.

        >>> environment_fault("[Errno 28] No space left on device: '/r/x'")
        'cannot write /r/x: No space left on device (the disk is full: free some space)'
    """
    if isinstance(err, OSError):
        code, why, name = err.errno, err.strerror, err.filename
    else:
        m = _ERRNO.fullmatch(str(err).strip())
        code, why, name = (int(m.group(1)), m.group(2), m.group(3)) if m else (None, "", None)
    if code not in ENV_ERRNOS:
        return None
    fix = ("free some space" if code in (errno.ENOSPC, errno.EDQUOT) else "move the file away" if code in
           (errno.ENOTDIR, errno.EEXIST) else "make its folder writable")
    blocker = next((p for p in Path(name).parents if p.is_file()), None) if name and code == errno.ENOTDIR else None
    return (f"cannot write {name or 'the results'}: {why} ("
            + (f"{blocker} is a file where a folder should be" if blocker else ENV_ERRNOS[code]) + f": {fix})")


_TEMP = re.compile(r"^\..+\.(\d+)\.[^.]+\.tmp(\.ipynb)?$")   # .<name>.<pid>.<random>.tmp[.ipynb]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:   # someone else's process: alive
        return True
    return True


def clean_temps(directory: Path) -> int:
    """Remove the temporary files of atomic_write that a killed writer left in `directory` (their pid is gone);
    those of a live writer stay. Returns how many were removed."""
    removed = 0
    for path in Path(directory).glob(".*.tmp*") if Path(directory).is_dir() else []:
        m = _TEMP.match(path.name)
        if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def spec_dict(spec) -> dict:
    """A point spec (a frozen dataclass) as the store keys and records it: its type's name and its fields."""
    return {"point": type(spec).__name__, **dataclasses.asdict(spec)}


def key_of(spec: dict) -> str:
    return hashlib.sha256(json.dumps(_jsonable(spec), sort_keys=True).encode()).hexdigest()[:16]


# --------------------------------------------------------------------------------------------- provenance
def _lib_imports(text: str) -> set[str]:
    """The lib modules a file's source imports (absolute `lib.` imports, as lib writes them), as dotted names."""
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "lib":
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)   # `from lib.science import qstr`
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "lib")
    return found


def _read_here(rel: str) -> str | None:
    path = ROOT / rel
    return path.read_text() if path.is_file() else None


def lib_modules(chapter: str | None = None, read=_read_here) -> list[str]:
    """The lib files a chapter's numbers depend on: lib/chapters/<chapter>/compute.py and, transitively, every lib
    module it imports (its experiments/ modules, lib.science), less lib/core (which stores, schedules, checks and
    draws, but computes no number). The page side (results, claims, figures, page) stays out because no computation
    imports it; if one ever did, it would count, as it should. None: every module of lib. Paths relative to the
    repository root. `read(path)`: a file's text or None (default: this checkout; lib.core.restamp reads a git
    revision's)."""
    if chapter is None:
        return sorted(str(f.relative_to(ROOT)) for f in (ROOT / "lib").rglob("*.py"))
    seen, todo = {}, [f"lib.chapters.{chapter}.compute"]
    while todo:
        name = todo.pop()
        rel = str(Path(*name.split("."))) + ".py"
        text = None if name in seen or name.startswith("lib.core") else read(rel)
        if text is None:
            continue
        seen[name] = rel
        todo += sorted(_lib_imports(text))
    return sorted(seen.values())


_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _is_docstring(node) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def code_dump(node: ast.AST) -> str:
    """What a parsed piece of code runs, as text: `ast.dump` (no line numbers) with the docstring of every module,
    class and function dropped; comments and layout are not in the tree. Fields that are None or empty are left out,
    as Python 3.13's ast.dump does, so that the same code dumps the same on 3.11 and 3.12 (whose functions gained an
    empty `type_params`): points computed on a GPU machine's Python and rendered on this CPU's carry one hash.

    >>> documented = 'def f(x):\\n    "Doc."\\n    return x + 1  # why'
    >>> code_dump(ast.parse(documented)) == code_dump(ast.parse("def f(x): return (x+1)"))
    True
    >>> code_dump(ast.parse("x = 1")), code_dump(ast.parse("x = 2")) == code_dump(ast.parse("x = 1"))
    ("Module(body=[Assign(targets=[Name(id='x', ctx=Store())], value=Constant(value=1))])", False)
    """
    def dump(x) -> str:
        if isinstance(x, list):
            return "[" + ", ".join(map(dump, x)) + "]"
        if not isinstance(x, ast.AST):
            return repr(x)
        fields = []
        for name, value in ast.iter_fields(x):
            if name == "body" and isinstance(x, _DOCUMENTED) and value and _is_docstring(value[0]):
                value = value[1:]
            if value == [] or (value is None and name != "value"):   # Constant(value=None) is `None` itself
                continue
            fields.append(f"{name}={dump(value)}")
        return f"{type(x).__name__}({', '.join(fields)})"
    return dump(node)


def lib_hash(chapter: str | None = None, read=_read_here) -> str:
    """Hash of the lib code a chapter's numbers depend on (all of lib if None): each module of `lib_modules(chapter)`
    as parsed code (`code_dump`: docstrings, comments and layout aside) with its path. Editing prose, a comment or a
    `>>>` example leaves stored points current; any change to what runs (a constant, an operator, a name, a module
    added to the imports) marks them as made by other code on the page. Adding a chapter, or editing a page,
    plotting or the store, leaves other chapters' results current. read: as for lib_modules (a git revision's code).

    >>> def reworded(rel):      # this checkout's code with every comment reworded
    ...     text = _read_here(rel)
    ...     return text and text.replace("# ", "# reworded: ")
    >>> lib_hash("ffn_span") == lib_hash("ffn_span", read=reworded)
    True
    """
    h = hashlib.sha256()
    for rel in lib_modules(chapter, read=read):
        h.update(rel.encode() + b"\0" + code_dump(ast.parse(read(rel), rel)).encode() + b"\0")
    return h.hexdigest()[:12]


def git_commit() -> str:
    """The checkout's commit, marked as not clean where lib has uncommitted edits; $BOOK_COMMIT where the tree has no .git
    (the GPU machine receives a copy of the working tree without its history)."""
    if os.environ.get("BOOK_COMMIT"):
        return os.environ["BOOK_COMMIT"]
    try:
        out = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10)
        commit = out.stdout.strip() or "uncommitted"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "lib"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return commit + ("+dirty-lib" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def device_name(device) -> str:
    import torch

    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return f"CPU ({platform.machine()}, {torch.get_num_threads()} threads)"


def shown_device(device: str) -> str:
    """A device as a page shows it: the provenance string as stored, with "1 threads" and "(1 points)" in the singular.

        >>> shown_device("CPU (x86_64, 2 threads) (10 points), CPU (x86_64, 1 threads) (1 points)")
        'CPU (x86_64, 2 threads) (10 points), CPU (x86_64, 1 thread) (1 point)'
    """
    return re.sub(r"(?<![\d.,])1 (thread|point)s\b", r"1 \1", device)


def environment(device, chapter: str | None = None) -> dict:
    import torch

    return {"commit": git_commit(), "lib_hash": lib_hash(chapter), "device": device_name(device),
            "torch": torch.__version__, "python": platform.python_version()}


# -------------------------------------------------------------------------------------------------- store
class MissingResult(RuntimeError):
    """A stored-only render (paper results on a machine that must not recompute them) found a point missing."""


class Store:
    """Finished sweep points of one chapter and profile, plus the run's claims and provenance.

    Points are read and written by `lib.core.sweep.collect`, keyed by their spec (a frozen dataclass).
    stored_only (default: $BOOK_STORED_ONLY == "1"): never compute, only load; `collect` raises MissingResult for
    a missing point. `python -m lib book` renders committed paper results this way on a CPU.
    """

    def __init__(self, chapter: str, profile: str, root: Path | None = None, stored_only: bool | None = None):
        self.dir = Path(root or results_root()) / chapter / profile
        self.chapter, self.profile = chapter, profile
        self.stored_only = os.environ.get("BOOK_STORED_ONLY") == "1" if stored_only is None else stored_only

    def point_path(self, spec) -> Path:
        return self.dir / "points" / f"{key_of(spec_dict(spec))}.json"

    def has(self, spec) -> bool:
        return self.point_path(spec).is_file()

    def get(self, spec) -> dict | None:
        """The stored record of `spec`, None if none is stored; checked against the manifest and parsed
        (lib.core.manifest.read_point raises DamagedResult, one line, for a point that does not match or is not one)."""
        path = self.point_path(spec)
        return read_point(path, json.loads(json.dumps(_jsonable(spec_dict(spec))))) if path.is_file() else None

    def put(self, spec, result: dict, env: dict) -> dict:
        record = _jsonable({"spec": spec_dict(spec), "result": result, **env})  # exactly what a later run loads
        forget(self.dir, f"points/{self.point_path(spec).name}")   # a forced recompute: out of the manifest first
        write_json(self.point_path(spec), record)
        return record

    def write(self, name: str, obj) -> Path:
        write_json(self.dir / name, obj)
        return self.dir / name

    def read(self, name: str):
        path = self.dir / name
        return read_json(path) if path.is_file() else None


def summary_line(records, noun: str = "stored points", work: str = "computation") -> str:
    """One line for a page: how many points it loaded, their compute time, the machines that made them (with their
    share where there are several), and the commit they were computed at; where there are several commits, their
    count, with the list per machine folded beneath (`collect(...).used`, the records a page's points come from).

        >>> summary_line([{"device": "CPU", "commit": "abc", "result": {"wall_s": 2.5}}] * 2)
        '2 stored points, 5 s of computation in all, computed on CPU at commit `abc`.'
    """
    records = list(records)
    commits: dict[str, list[str]] = {}    # device -> the commit of each of its records
    for r in records:
        commits.setdefault(r["device"], []).append(r["commit"])
    every = sorted({c for cs in commits.values() for c in cs})
    machines = ", ".join(shown_device(dev) + (f" ({len(c)} point{'s' if len(c) > 1 else ''})" if len(commits) > 1 else "")
                         for dev, c in sorted(commits.items()))
    line = (f"{len(records)} {noun}, {sum(r['result'].get('wall_s') or 0 for r in records):,.0f} s of {work} in all, "
            f"computed on {machines}")
    if len(every) == 1:
        return f"{line} at commit `{every[0]}`."
    listed = "; ".join(f"{shown_device(dev)}: " + ", ".join(f"`{x}`" for x in sorted(set(c)))
                       for dev, c in sorted(commits.items()))
    return f"{line} at {len(every)} commits.\n\n```{{dropdown}} The commits\n{listed}\n```"


def result_array(record: dict, key: str) -> np.ndarray:
    """A stored result field as a float array: None (how JSON stores NaN) comes back as NaN."""
    return np.array(record["result"][key], dtype=float)


def is_stale(record: dict, chapter: str | None = None, current: str | None = None) -> bool:
    """Whether a stored point was computed by other lib code than `current` (default: lib_hash(chapter); a page
    passes the hash it computed once for the build)."""
    return record.get("lib_hash") != (current or lib_hash(chapter))
