"""Re-stamp points stamped with the older code hash (the raw bytes of the chapter's modules) with
today's parsed-code hash, where the code at the named revision, parsed, is today's: the same code under a new name.
The command line's `restamp --from-bytes`; lib/core/restamp.py re-stamps across code changes.

    python -m lib restamp sparse_variable_creation --profile paper --from-bytes --rev 64d338a
"""
from __future__ import annotations

import hashlib
import subprocess
import time
from pathlib import Path

from lib.core import restamp as rs
from lib.core.manifest import read_point, write_manifest
from lib.core.store import ROOT, Store, lib_hash, lib_modules, write_json


def _git_bytes(rev: str, rel: str) -> bytes:
    out = subprocess.run(["git", "show", f"{rev}:{rel}"], cwd=ROOT, capture_output=True)
    if out.returncode:
        raise rs.RestampRefused(f"git show {rev}:{rel}: {out.stderr.decode(errors='replace').strip()}")
    return out.stdout


def bytes_hash(chapter: str, rev: str) -> str:
    """The code hash that points were stamped with before the parsed-code hash: the raw bytes of the chapter's modules at git
    revision `rev`, paths included (a docstring edit changed it)."""
    h = hashlib.sha256()
    for rel in lib_modules(chapter, read=lambda rel: rs._git_show(rev, rel)):
        h.update(rel.encode() + b"\0" + _git_bytes(rev, rel))
    return h.hexdigest()[:12]


def rehash(chapter: str, profile: str, rev: str = "HEAD", root: Path | None = None, log=print) -> dict:
    """Re-stamp points that carry the raw-bytes hash (`bytes_hash`) of the code at `rev` with today's parsed-code
    `lib_hash`: the same code under its new name. Done only where that code, parsed, is today's (`hash_at(chapter,
    rev) == lib_hash(chapter)`: what differs since is prose) and every point carries its bytes hash (a point already
    carrying today's hash, re-stamped before, stays as it is); anything else refuses, nothing rewritten. Only
    `lib_hash` moves in a file; restamps.json logs the step.

        python -m lib restamp sparse_variable_creation --profile paper --from-bytes --rev 64d338a
    """
    store = Store(chapter, profile, root=root)
    files = sorted((store.dir / "points").glob("*.json"))
    if not files:
        raise rs.RestampRefused(f"{store.dir}: no stored points")
    commit = subprocess.run(["git", "rev-parse", "--short=10", rev], cwd=ROOT, capture_output=True, text=True)
    if commit.returncode:
        raise rs.RestampRefused(f"git knows no revision {rev!r}")
    rev = commit.stdout.strip()
    modules = lib_modules(chapter, read=lambda rel: rs._git_show(rev, rel))
    if rs.hash_at(chapter, rev) != lib_hash(chapter):
        raise rs.RestampRefused(f"{chapter}'s code at {rev} computes otherwise than today's (its parsed code differs): "
                             "its points are not today's to re-stamp")
    old, new = bytes_hash(chapter, rev), lib_hash(chapter)
    records = {f: read_point(f) for f in files}   # checked against the manifest
    wrong = [f.name for f, r in records.items() if r.get("lib_hash") not in (old, new)]
    if wrong:
        raise rs.RestampRefused(f"{len(wrong)} of {len(files)} points carry neither {old} (the bytes of {chapter}'s code "
                             f"at {rev}) nor today's {new}, e.g. {wrong[0]}: they were computed by other code")
    todo = {f: r for f, r in records.items() if r["lib_hash"] == old}
    if not todo:
        raise rs.RestampRefused(f"every stored point already carries today's lib {new}")
    for f, r in todo.items():
        write_json(f, {**r, "lib_hash": new})
    check = (f"{len(todo)} of {len(files)} points carried {old}, the raw-bytes hash of the {len(modules)} files of "
             f"{chapter}'s code at {rev}, whose parsed code is today's: all matched"
             + (f"; {len(files) - len(todo)} carried {new} already" if len(todo) < len(files) else ""))
    entry = {"from": old, "to": new, "rev": rev, "changed": [], "rerun": [], "points": len(todo), "left": [],
             "check": check, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_json(store.dir / "restamps.json", (store.read("restamps.json") or []) + [entry])
    write_manifest(store.dir)   # the points' new bytes: their sha256 in the manifest (lib.core.manifest)
    log(f"{chapter} {profile}: {len(todo)} points re-stamped {old} -> {new}, the same code hashed as parsed code "
        f"({check})")
    return entry
