"""Stored results, checked for honesty rather than for all-pass: a committed result set (results/<chapter>/<profile>/)
is trusted when its implementation checks pass, its claims recompute identically from its stored points, and its
provenance names everything a reader needs. A failing empirical claim is a finding the page shows; it is not a
reason to refuse the results.

    >>> problems("rpe_decay", "paper")      # [] when the committed paper results are sound
    >>> progress("sample_complexity")       # (12, 33, []): 12 of the paper profile's 33 points stored, no strays
"""
from __future__ import annotations

import importlib
import json
from pathlib import Path

from lib.core.store import MissingResult, Store, _jsonable
from lib.core.sweep import collect

PROVENANCE = ("chapter", "profile", "commit", "lib_hash", "device", "torch", "wall_s", "seeds", "params")


def recompute_claims(chapter: str, profile: str, params: dict, root: Path | None = None,
                     folder: Path | None = None) -> list[dict]:
    """The chapter's claim rows, evaluated again from the points stored for `params` (nothing is computed: a missing
    point raises MissingResult). folder: the result set's own folder, where it is not <root>/<chapter>/<profile>."""
    compute = importlib.import_module(f"lib.chapters.{chapter}.compute")
    page = importlib.import_module(f"lib.chapters.{chapter}.page")
    store = Store(chapter, profile, root=root, stored_only=True)
    if folder is not None:
        store.dir = Path(folder)
    results = collect(compute.points(params), store, "cpu", log=None)
    return page.claims(params, results)


def progress(chapter: str, profile: str = "paper", root: Path | None = None) -> tuple[int, int, list[str]]:
    """(stored, total, strays) for a profile being computed: how many of its sweep points are stored, out of how
    many, and the stored point files that belong to no point of the profile as it is now (computed for other
    parameters). A profile is complete when stored == total; until then no page is rendered from it."""
    from lib.core import params as params_mod

    compute = importlib.import_module(f"lib.chapters.{chapter}.compute")
    store = Store(chapter, profile, root=root)
    points = compute.points(params_mod.resolve(chapter, profile))
    keys = {store.point_path(p.spec).name for p in points}
    files = sorted(f.name for f in (store.dir / "points").glob("*.json")) if (store.dir / "points").is_dir() else []
    return sum(f in keys for f in files), len(keys), [f for f in files if f not in keys]


def problems(chapter: str, profile: str, root: Path | None = None) -> list[str]:
    """What is wrong with a stored result set, one line each; [] if nothing is."""
    store = Store(chapter, profile, root=root)
    out = []
    try:
        stored, prov = store.read("claims.json"), store.read("provenance.json")
    except (OSError, ValueError) as e:
        return [f"{store.dir}: unreadable claims.json or provenance.json ({e})"]
    if not stored or not prov:
        return [f"{store.dir}: no claims.json or provenance.json"]
    out += [f"provenance.json: no {k}" for k in PROVENANCE if prov.get(k) in (None, "", {})]
    out += [f"implementation check {c['id']} fails" for c in stored if c.get("kind") == "check" and not c["passed"]]
    out += [f"claim {c['id']} has no source" for c in stored if not str(c.get("source", "")).strip()]
    if "params" not in prov:
        return out
    try:
        again = recompute_claims(chapter, profile, prov["params"], root)
    except MissingResult as e:
        return out + [f"a point the claims read is not stored: {e}"]
    a = {r["id"]: r for r in stored}                                       # read from JSON already
    b = {r["id"]: json.loads(json.dumps(_jsonable(r))) for r in again}     # as it would be stored
    out += [f"claim {i}: stored {a.get(i)} but recomputed {b.get(i)}" for i in sorted(set(a) | set(b)) if a.get(i) != b.get(i)]
    return out
