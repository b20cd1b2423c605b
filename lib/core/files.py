"""Files written whole or not at all: `atomic_write` (a temporary file in the same folder, then a rename) and JSON
through it, with numpy's numbers as JSON's. The store, the manifest and the runner write every result this way, so
an interrupted run leaves the last good file in place.

    >>> import tempfile; from pathlib import Path
    >>> f = Path(tempfile.mkdtemp()) / "x.json"; write_json(f, {"a": float("nan"), "b": 1}); read_json(f)
    {'a': None, 'b': 1}
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write to a temporary file in the same directory, then rename: readers see the old file or the new one. An
    OSError names the file it was writing (a full disk's write() names none)."""
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # The writer's pid is in the name, so a later run can tell a temporary file left by a killed writer
        # (lib.core.store.clean_temps removes it) from one that a concurrent writer is still filling.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; results and notebooks are meant to be read by others
        os.replace(tmp, path)
    except BaseException as err:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError) and err.errno is not None and (not err.filename or
                                                                   Path(err.filename).name.startswith(f".{path.name}.")):
            err.filename = str(path)   # the file meant, not its temporary copy (mkdir's error names its folder)
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
