"""Stored results, checked for honesty rather than for all-pass: a committed result set (results/<chapter>/<profile>/)
is trusted when its files match its manifest, its implementation checks pass, its claims recompute identically from
its stored points, its provenance names everything a reader needs and the profile's parameters file, and every point
carries today's code hash. A failing empirical claim is a finding the page shows; it is not a reason to refuse the
results. `python -m lib verify [CHAPTER]` runs `audit` on every committed profile (`make test` does).

    >>> problems("ffn_span", "paper")       # the committed paper results are sound
    []
    >>> audit("ffn_span", "paper")          # ... and match their manifest, parameters file and today's code hash
    []
    >>> progress("ffn_span")                # (stored, total, strays): all 12 of the paper profile's points, no strays
    (12, 12, [])
"""
from __future__ import annotations

import json
from pathlib import Path

from lib.core import params as params_mod
from lib.core.gate import gate
from lib.core.manifest import DamagedResult, mismatches
from lib.core.reach import module
from lib.core.store import ROOT, MissingResult, Store, _jsonable, lib_hash, read_json, results_root
from lib.core.sweep import collect

PROVENANCE = ("chapter", "profile", "commit", "lib_hash", "device", "torch", "wall_s", "seeds", "params")


def recompute_claims(chapter: str, profile: str, params: dict, root: Path | None = None,
                     folder: Path | None = None) -> list[dict]:
    """The chapter's claim rows, evaluated again from the points stored for `params` (nothing is computed: a missing
    point raises MissingResult) and gated by the stored power.json (lib.core.gate). folder: the result set's own
    folder, where it is not <root>/<chapter>/<profile>."""
    compute, page = module(chapter, "compute"), module(chapter, "page")
    store = Store(chapter, profile, root=root, stored_only=True)
    if folder is not None:
        store.dir = Path(folder)
    results = collect(compute.points(params), store, "cpu", log=None)
    table = store.read("power.json")     # none: power_problems says so, and the rows stay as their rules left them
    return page.claims(params, results) if table is None else gate(page.claims(params, results), table)


def progress(chapter: str, profile: str = "paper", root: Path | None = None) -> tuple[int, int, list[str]]:
    """(stored, total, strays) for a profile being computed: how many of its sweep points are stored, out of how
    many, and the stored point files that belong to no point of the profile as it is now (computed for other
    parameters). A profile is complete when stored == total; until then no page is rendered from it."""
    from lib.core import params as params_mod

    compute = module(chapter, "compute")
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
    except DamagedResult as e:
        return out + [f"the claims cannot be recomputed: {e}"]
    out += power_problems(chapter, store, {r["id"] for r in stored})
    if store.read("power.json") is None:      # the gate cannot be recomputed without it (said above): compare the rest
        stored = [{k: v for k, v in r.items() if k != "undecided"} for r in stored]
    a = {r["id"]: r for r in stored}                                       # read from JSON already
    b = {r["id"]: json.loads(json.dumps(_jsonable(r))) for r in again}     # as it would be stored
    out += [_claim_difference(i, a.get(i), b.get(i)) for i in sorted(set(a) | set(b)) if a.get(i) != b.get(i)]
    return out


def power_problems(chapter: str, store: Store, ids: set) -> list[str]:
    """What is wrong with a result set's power table: missing where the chapter's page computes one (page.power),
    a row it does not have, a world without its shares, or shares that do not add up."""
    page = module(chapter, "page")
    table = store.read("power.json")
    if table is None:
        return [f"{store.dir}: no power.json (the page computes the power of its rules)"] if hasattr(page, "power") else []
    out = []
    for t in table:
        if t.get("row") not in ids:
            out.append(f"power.json: row {t.get('row')!r} is not a claim row of this result set")
        elif not all(isinstance(t.get(k), (int, float)) for k in ("pass", "fail", "censored", "se", "draws")) or \
                abs(t["pass"] + t["fail"] + t["censored"] + t.get("unmeasured", 0) - 1) > 1e-6:
            out.append(f"power.json: row {t['row']} in {t.get('world')!r}: shares missing or not adding up to 1")
    return out


def _claim_difference(i: str, stored: dict | None, again: dict | None) -> str:
    """One line: how a stored claim row differs from the one recomputed from its points (the first field, shortened)."""
    if stored is None or again is None:
        return f"claim {i}: stored {'no row' if stored is None else 'a row'} but recomputed {'none' if again is None else 'one'}"
    keys = [k for k in sorted(set(stored) | set(again)) if stored.get(k) != again.get(k)]
    cut = lambda v: (lambda t: t if len(t) <= 70 else t[:66] + " ...")(json.dumps(v, ensure_ascii=False))
    return (f"claim {i}: stored {keys[0]} {cut(stored.get(keys[0]))} but recomputed {cut(again.get(keys[0]))}"
            + (f" ({', '.join(keys[1:])} differ too)" if len(keys) > 1 else ""))


def stored_points(chapter: str, profile: str, overrides: dict | None = None) -> tuple[int, int]:
    """(stored, total) sweep points of a chapter's profile: what `compute --deadline` reports as left."""
    compute = module(chapter, "compute")
    points = compute.points(params_mod.resolve(chapter, profile, overrides))
    store = Store(chapter, profile, stored_only=False)
    return sum(store.has(p.spec) for p in points), len(points)


def kept_by_git(chapter: str, profile: str) -> bool:
    """Whether git keeps results/<chapter>/<profile>/ (the quick and custom profiles are ignored: a run remakes
    them at will), by this checkout's .gitignore; True where git cannot tell."""
    import subprocess

    try:
        out = subprocess.run(["git", "check-ignore", "-q", "--no-index", f"results/{chapter}/{profile}/"], cwd=ROOT,
                             capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return True
    return out.returncode != 0


def committed_profiles(chapter: str | None = None, root: Path | None = None) -> tuple[list, list]:
    """(checked, in_progress): the (chapter, profile) result sets under the results folder that git keeps, those
    to verify (every point stored, or rendered: a claims.json, even where the parameters file now asks for points
    that are not stored) and those still being computed (neither). chapter: that chapter's only."""
    root = Path(root or results_root())
    chapters = [chapter] if chapter else [c for c in params_mod.chapters() if (root / c).is_dir()]
    complete, in_progress = [], []
    for ch in chapters:
        for folder in sorted(p for p in (root / ch).iterdir() if p.is_dir()) if (root / ch).is_dir() else []:
            if not (folder / "points").is_dir() or not kept_by_git(ch, folder.name):
                continue
            if folder.name not in params_mod.profiles(ch):
                complete.append((ch, folder.name))       # audit says that its parameters file is gone
                continue
            stored, total, _ = progress(ch, folder.name, root)
            rendered = (folder / "claims.json").is_file()
            (complete if stored == total > 0 or rendered else in_progress).append((ch, folder.name))
    return complete, in_progress


def audit(chapter: str, profile: str, root: Path | None = None) -> list[str]:
    """Every problem of one complete result set, one line each, prefixed by its folder: the manifest, `problems`
    (implementation checks, claims recomputed, provenance), the provenance's parameters against the profile's
    parameters file, and each point's code hash against today's (one line per hash found). [] when it is sound."""
    folder = Path(root or results_root()) / chapter / profile
    out = mismatches(folder)
    try:      # a point the manifest names as damaged is said once, not again as claims that cannot be recomputed
        out += [f"{folder}: {p}" for p in problems(chapter, profile, root) if not (out and "cannot be recomputed" in p)]
    except Exception as err:   # the page's code fails on them: a problem of this result set, and the others go on
        out.append(f"{folder}: its claims cannot be recomputed by this checkout's page code ({type(err).__name__}: "
                   f"{str(err).splitlines()[0][:160] if str(err) else ''})")
    try:
        prov = read_json(folder / "provenance.json")
        wanted = params_mod.resolve(chapter, profile)
    except params_mod.ParamError as err:
        return out + [f"{folder}: {err}"]
    except (OSError, ValueError):
        prov, wanted = None, None    # problems() said so
    if isinstance(prov, dict) and isinstance(prov.get("params"), dict) and prov["params"] != wanted:
        moved = sorted(k for k in set(prov["params"]) | set(wanted) if prov["params"].get(k) != wanted.get(k))
        out.append(f"{folder}/provenance.json: its parameters are not parameters/{chapter}/{profile}.yaml's "
                   f"({', '.join(moved[:6])}{' ...' if len(moved) > 6 else ''} differ)")
    today, hashes = lib_hash(chapter), {}
    for path in sorted((folder / "points").glob("*.json")):
        try:
            record = read_json(path)
        except (OSError, ValueError):
            continue               # the manifest or the claims said so
        if isinstance(record, dict) and record.get("lib_hash") != today:
            hashes.setdefault(record.get("lib_hash"), []).append(path.name)
    out += [f"{folder}/points: {len(names)} point(s) carry code hash {h}, today's is {today} (e.g. {names[0]}): "
            f"computed by other code, or not re-stamped (python -m lib restamp)" for h, names in sorted(hashes.items(), key=str)]
    return out


def verify_all(chapter: str | None = None, root: Path | None = None, log=print) -> int:
    """`python -m lib verify [CHAPTER]`: `audit` every committed result set that is complete or rendered; each
    problem on its own line, then a one-line summary. Returns the exit status: 0 when none has a problem, 1
    otherwise."""
    if chapter is not None:
        params_mod.chapter_source(chapter)           # an unknown chapter: one line (ParamError), exit 2
    complete, in_progress = committed_profiles(chapter, root)
    found = [line for ch, profile in complete for line in audit(ch, profile, root)]
    for line in found:
        log(line)
    shown = ", ".join(f"{c}/{p}" for c, p in in_progress)
    log(f"verify: {len(complete)} committed result set(s) checked, {len(found)} problem(s)"
        + (f"; in progress, not checked: {shown}" if in_progress else ""))
    return 1 if found else 0
