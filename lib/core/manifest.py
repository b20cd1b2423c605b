"""The manifest of a result set, and the checks every load of a stored point passes.

`results/<chapter>/<profile>/manifest.json` holds the sha256 of every file that is the result set's evidence: each
point file, claims.json, power.json and provenance.json. `compute` and `run` write it when a profile completes (after the last
point, and after claims.json, power.json and provenance.json), `restamp` after it rewrites points; it is committed with them.
Its format (JSON, keys sorted):

    {"format": 1, "algorithm": "sha256",
     "files": {"claims.json": "<64 hex digits>", "points/<key>.json": "<64 hex digits>", "provenance.json": "..."}}

Paths are relative to the profile's folder; the digest is of the file's bytes as stored. A file that did not exist
when the manifest was written is not listed (a point computed later is checked against nothing until the profile
completes again and the manifest is rewritten); a point the store itself overwrites (`--force`) leaves the manifest
first. Every load of a stored point (`read_point`) checks its bytes against the manifest and parses it: a point that
does not match, or is empty, truncated, not UTF-8, not JSON or not a stored point (null, a list, another point's
spec), raises DamagedResult, one line naming the file and what is wrong, before anything is rewritten.
`python -m lib verify` checks the whole manifest (lib.core.verify).

    >>> from lib.core.store import ROOT
    >>> mismatches(ROOT / "results" / "ffn_span" / "paper")     # the committed files match their manifest
    []
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from lib.core.files import write_json

MANIFEST = "manifest.json"
FORMAT = 1
TOPS = ("claims.json", "power.json", "provenance.json")   # the files beside its points that the manifest covers


class DamagedResult(RuntimeError):
    """A stored result that does not match its manifest or cannot be read as what it should be: one line naming the
    file; the command stops (exit status 2) and rewrites nothing."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def evidence(folder: Path) -> list[str]:
    """The files of a result set the manifest covers, as paths relative to it: points/*.json, claims.json,
    power.json, provenance.json (those that exist)."""
    folder = Path(folder)
    points = sorted(f"points/{p.name}" for p in (folder / "points").glob("*.json")) if (folder / "points").is_dir() else []
    return points + [name for name in TOPS if (folder / name).is_file()]


def write_manifest(folder: Path) -> Path:
    """Write folder/manifest.json (atomically) from the files as they are now; returns its path."""

    folder = Path(folder)
    files = {rel: sha256((folder / rel).read_bytes()) for rel in evidence(folder)}
    write_json(folder / MANIFEST, {"format": FORMAT, "algorithm": "sha256", "files": files})
    return folder / MANIFEST


_CACHE: dict[Path, tuple[tuple[int, int], dict]] = {}   # path -> ((mtime_ns, size), files): one read per change


def listed(folder: Path) -> dict[str, str] | None:
    """The manifest's files (relative path -> sha256), or None where the result set has no manifest. A manifest
    that cannot be read as one raises DamagedResult."""
    path = Path(folder) / MANIFEST
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    if path in _CACHE and _CACHE[path][0] == stamp:
        return _CACHE[path][1]
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise DamagedResult(f"{path}: unreadable ({type(err).__name__}: {err}); expected the manifest JSON "
                            f"that `python -m lib compute` or `run` writes; nothing was rewritten") from None
    files = data.get("files") if isinstance(data, dict) else None
    if (not isinstance(files, dict) or data.get("format") != FORMAT or data.get("algorithm") != "sha256"
            or not all(isinstance(v, str) and len(v) == 64 for v in files.values())):
        raise DamagedResult(f"{path}: not a manifest (expected {{\"format\": {FORMAT}, \"algorithm\": \"sha256\", "
                            "\"files\": {path: 64 hex digits}}); nothing was rewritten")
    _CACHE[path] = (stamp, files)
    return files


def check_bytes(folder: Path, rel: str, data: bytes) -> None:
    """Raise DamagedResult if the manifest of `folder` lists `rel` with another digest than `data`'s."""
    files = listed(folder)
    want = files.get(rel) if files else None
    if want is not None and sha256(data) != want:
        raise DamagedResult(f"{Path(folder) / rel}: does not match {Path(folder) / MANIFEST} (sha256 "
                            f"{sha256(data)[:12]}..., the manifest says {want[:12]}...): edited or damaged since the "
                            "profile was stored; restore it (git checkout -- FILE) or recompute it; nothing was rewritten")


def forget(folder: Path, rel: str) -> None:
    """The store is about to overwrite `rel` (a forced recompute): take it out of the manifest first, so that the
    new file is not taken for a damaged one (the manifest is rewritten whole when the profile completes)."""

    files = listed(folder)
    if files and rel in files:
        write_json(Path(folder) / MANIFEST, {"format": FORMAT, "algorithm": "sha256",
                                             "files": {k: v for k, v in files.items() if k != rel}})


def mismatches(folder: Path) -> list[str]:
    """What does not match a result set's manifest, one line each: a listed file changed or missing, an evidence
    file not listed; a missing manifest is one line. [] when everything matches."""
    folder = Path(folder)
    try:
        files = listed(folder)
    except DamagedResult as err:
        return [str(err)]
    if files is None:
        return [f"{folder / MANIFEST}: missing (python -m lib run or compute writes it when the profile completes)"]
    out = []
    for rel, want in sorted(files.items()):
        path = folder / rel
        if not path.is_file():
            out.append(f"{path}: listed in {MANIFEST} but missing")
        elif sha256(path.read_bytes()) != want:
            out.append(f"{path}: does not match {MANIFEST} (edited or damaged since the profile was stored)")
    out += [f"{folder / rel}: not in {MANIFEST}" for rel in evidence(folder) if rel not in files]
    return out


SHAPE = "a stored point (a JSON object with its spec and result)"


def read_point(path: Path, spec: dict | None = None) -> dict:
    """A stored point's record, checked: that it parses as a point (of `spec` where given: spec_dict, through JSON),
    then its bytes against the manifest of its result set (the folder above points/). Raises DamagedResult, one line
    naming the file and what is wrong (a damaged file: how, before that it does not match)."""
    path = Path(path)
    folder = path.parent.parent
    data = path.read_bytes()
    fix = "delete it to recompute the point, or restore it (git checkout -- FILE); nothing was rewritten"
    if not data.strip():
        raise DamagedResult(f"{path}: empty ({len(data)} bytes), expected {SHAPE}: {fix}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise DamagedResult(f"{path}: not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start}), "
                            f"expected {SHAPE}: {fix}") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as err:
        cut = " (truncated?)" if err.pos >= len(text.rstrip()) else ""
        raise DamagedResult(f"{path}: not JSON{cut} ({err.msg} at line {err.lineno} column {err.colno}), "
                            f"expected {SHAPE}: {fix}") from None
    if not isinstance(record, dict) or not isinstance(record.get("spec"), dict) or not isinstance(record.get("result"), dict):
        what = ("null" if record is None else f"a JSON {type(record).__name__}" if not isinstance(record, dict)
                else "an object without " + " and ".join(k for k in ("spec", "result") if not isinstance(record.get(k), dict)))
        raise DamagedResult(f"{path}: holds {what}, expected {SHAPE}: {fix}")
    check_bytes(folder, f"points/{path.name}", data)    # a point that parses: is it the one stored?
    if spec is not None and record["spec"] != spec:
        raise DamagedResult(f"{path}: holds the point {record['spec'].get('point', '?')} of another spec than the one its "
                            f"name keys ({_first_difference(record['spec'], spec)}): {fix}")
    return record


def _first_difference(stored: dict, wanted: dict) -> str:
    key = next(k for k in sorted(set(stored) | set(wanted)) if stored.get(k) != wanted.get(k))
    return f"{key}: {json.dumps(stored.get(key))[:40]}, expected {json.dumps(wanted.get(key))[:40]}"
