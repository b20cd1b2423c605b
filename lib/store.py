"""The results store: results/<chapter>/<profile>/, atomic writes, one file per finished sweep point.

A sweep point (one configuration, all its seeds) is stored under a key that hashes exactly the parameters it
depends on, so a rerun with the same parameters loads it in milliseconds, an interrupted sweep resumes from the
points that finished, and a changed parameter recomputes only what it touches. Every point records the commit and
a hash of `lib`'s code; `is_stale` tells a page which points came from other code than the current one.

    >>> store = Store("sample_complexity", "quick"); store.get({"N": 4}) is None
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import platform
import subprocess
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def results_root() -> Path:
    """Where results live: $BOOK_RESULTS (the tests point it at a temporary directory) or ./results."""
    return Path(os.environ.get("BOOK_RESULTS", ROOT / "results"))


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write to a temporary file in the same directory, then rename: readers see the old file or the new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; results and notebooks are meant to be read by others
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, (np.floating, float)):
        return None if not np.isfinite(x) else float(x)  # JSON has no NaN: None means "not measured"
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def write_json(path: Path, obj) -> None:
    atomic_write(path, json.dumps(_jsonable(obj), indent=1, sort_keys=True) + "\n")


def read_json(path: Path):
    return json.loads(Path(path).read_text())


def key_of(spec: dict) -> str:
    return hashlib.sha256(json.dumps(_jsonable(spec), sort_keys=True).encode()).hexdigest()[:16]


# --------------------------------------------------------------------------------------------- provenance
# Modules that store, check or draw results but never change a number: editing them leaves results current.
NOT_NUMERIC = {"__init__", "__main__", "chapter", "claims", "params", "plotting", "runner", "store"}


def lib_modules(chapter: str | None = None) -> list[str]:
    """The lib modules whose code a chapter's numbers depend on: lib/<chapter>.py and, transitively, every lib
    module it imports (relative imports), less NOT_NUMERIC. The page modules (<chapter>_page.py: tables, claims,
    figures) stay out because no computation imports them; if one ever did, it would count, as it should (a test
    checks that none does). None: every module of lib."""
    names = sorted(f.stem for f in (ROOT / "lib").glob("*.py"))
    if chapter is None:
        return names
    seen, todo = set(), [chapter]
    while todo:
        name = todo.pop()
        if name in seen or name not in names:
            continue
        seen.add(name)
        for node in ast.walk(ast.parse((ROOT / "lib" / f"{name}.py").read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                todo += [node.module] if node.module else [a.name for a in node.names]
    return sorted(seen - NOT_NUMERIC)


def lib_hash(chapter: str | None = None) -> str:
    """Hash of the lib code a chapter's numbers depend on (all of lib if None): points computed by other code are
    marked on the page. Adding a chapter, or editing plotting or the store, leaves other chapters' results current."""
    h = hashlib.sha256()
    for name in lib_modules(chapter):
        h.update(f"lib/{name}.py".encode() + b"\0" + (ROOT / "lib" / f"{name}.py").read_bytes())
    return h.hexdigest()[:12]


def git_commit() -> str:
    """The checkout's commit (+dirty-lib if lib has uncommitted edits); $BOOK_COMMIT where the tree has no .git
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


def environment(device, chapter: str | None = None) -> dict:
    import torch

    return {"commit": git_commit(), "lib_hash": lib_hash(chapter), "device": device_name(device),
            "torch": torch.__version__, "python": platform.python_version()}


# -------------------------------------------------------------------------------------------------- store
class MissingResult(RuntimeError):
    """A stored-only render (paper results on a machine that must not recompute them) found a point missing."""


class Store:
    """Finished sweep points of one chapter and profile, plus the run's claims and provenance.

    stored_only (default: $BOOK_STORED_ONLY == "1"): never compute, only load; a missing point raises
    MissingResult. `python -m lib book` renders committed paper results this way on a CPU.
    """

    def __init__(self, chapter: str, profile: str, root: Path | None = None, stored_only: bool | None = None):
        self.dir = Path(root or results_root()) / chapter / profile
        self.chapter, self.profile = chapter, profile
        self.stored_only = os.environ.get("BOOK_STORED_ONLY") == "1" if stored_only is None else stored_only
        self.used: list[dict] = []  # every record load_or_compute returned: the page's compute time and stale points
        # Set by `python -m lib compute --jobs J` in each of J worker processes that share one sweep: a worker
        # computes a missing point only if it creates its claim file first, and skips points other workers claimed.
        self.claims: Path | None = None
        self.n_computed = 0

    def _point_path(self, spec: dict) -> Path:
        return self.dir / "points" / f"{key_of(spec)}.json"

    def get(self, spec: dict) -> dict | None:
        path = self._point_path(spec)
        return read_json(path) if path.is_file() else None

    def put(self, spec: dict, result: dict, env: dict) -> dict:
        record = _jsonable({"spec": spec, "result": result, **env})  # exactly what a later run will load
        write_json(self._point_path(spec), record)
        return record

    def load_or_compute(self, spec: dict, compute, env: dict, force: bool = False) -> tuple[dict, bool]:
        """(record, computed): the stored record of spec, or compute() stored at once. Every chapter computes
        through this, so a rerun loads, an interrupted run resumes, and a stored-only render never trains.

        In a worker of `compute --jobs` (self.claims set) a point another worker claimed returns (None, False):
        a chapter's compute() must therefore only collect records, and derive numbers from them afterwards."""
        record = None if force else self.get(spec)
        if record is not None:
            self.used.append(record)
            return record, False
        if self.stored_only:
            raise MissingResult(f"{self.dir}: no stored result for {json.dumps(_jsonable(spec), sort_keys=True)[:300]}; "
                                f"these results are rendered, not recomputed here: refresh them with "
                                f"`python -m lib compute {self.chapter} --profile {self.profile}` on a GPU")
        if self.claims is not None and not self._claim(spec):
            return None, False
        record = self.put(spec, compute(), env)
        self.n_computed += 1
        self.used.append(record)
        return record, True

    def _claim(self, spec: dict) -> bool:
        try:
            os.close(os.open(self.claims / key_of(spec), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return True
        except FileExistsError:
            return False

    def write(self, name: str, obj) -> Path:
        write_json(self.dir / name, obj)
        return self.dir / name

    def read(self, name: str):
        path = self.dir / name
        return read_json(path) if path.is_file() else None


def summary_line(records, noun: str = "stored points", work: str = "computation") -> str:
    """One line for a page: how many points it loaded, their compute time, and the machines and commits that made
    them.  >>> summary_line(store.used)"""
    records = list(records)
    envs = sorted({(r["device"], r["commit"]) for r in records})
    return (f"{len(records)} {noun}, {sum(r['result'].get('wall_s') or 0 for r in records):.0f} s of {work} in all, computed on "
            + "; ".join(f"{dev} at commit `{c}`" for dev, c in envs) + ".")


def result_array(record: dict, key: str) -> np.ndarray:
    """A stored result field as a float array: None (how JSON stores NaN) comes back as NaN."""
    return np.array(record["result"][key], dtype=float)


def is_stale(record: dict, chapter: str | None = None, current: str | None = None) -> bool:
    """Whether a stored point was computed by other lib code than `current` (default: lib_hash(chapter); a page
    passes the hash it computed once for the build)."""
    return record.get("lib_hash") != (current or lib_hash(chapter))
