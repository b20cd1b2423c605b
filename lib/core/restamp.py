"""Re-stamp stored points with today's lib hash, on evidence that what computed them has not changed.

A stored point records `lib_hash(chapter)`, the hash of every file its chapter's computation imports. An edit that
changes what those files *list* but not what a stored point's run function computes (a new sweep beside the old
ones, a new parameter whose default keeps the old specs) changes that hash too, and would mark every stored point as
made by other code. `restamp` re-stamps them, and only when the evidence holds:

1. **provenance**: every stored point carries the same old hash, and it is `lib_hash(chapter)` of the code at a
   named git revision (so the code that computed them is known and committed);
2. **the code**: between that revision and today, every lib module the computation imports is unchanged as parsed
   code (docstrings and comments aside), except top-level definitions of the chapter's compute module that none of
   the stored points' run functions reaches (through the names it uses, transitively, within the module);
3. **a rerun** (optional, `check`): the cheapest stored points that were computed on this kind of device,
   recomputed now, give the stored result exactly, number for number (wall times aside).

Then each point's `lib_hash` is rewritten (atomically) and `restamps.json` beside the points logs the step: the old
and new hash, the revision, the definitions that changed and the points rerun.

    python -m lib restamp sample_complexity --profile paper --rev 5a87859603 --check 1
"""
from __future__ import annotations

import ast
import importlib
import subprocess
import time
from pathlib import Path

from lib.core.store import ROOT, Store, environment, key_of, lib_hash, lib_modules, read_json, spec_dict, write_json


class RestampRefused(ValueError):
    """The evidence does not hold: nothing was rewritten."""


def _git_show(rev: str, rel: str) -> str | None:
    out = subprocess.run(["git", "show", f"{rev}:{rel}"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def hash_at(chapter: str, rev: str) -> str:
    """lib_hash(chapter) of the code at git revision `rev` (the same files and bytes it would have hashed then)."""
    import hashlib

    h = hashlib.sha256()
    for rel in lib_modules(chapter, read=lambda rel: _git_show(rev, rel)):
        text = _git_show(rev, rel)
        h.update(rel.encode() + b"\0" + text.encode())
    return h.hexdigest()[:12]


def _definitions(text: str) -> dict[str, str]:
    """Top-level name -> its parsed code (docstrings dropped), for a module's functions, classes and assignments."""
    out = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = _bound(node)
        elif isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant):
            continue    # the module docstring
        else:
            names = [f"statement {ast.dump(node)}"]
        for name in names:
            out[name] = ast.dump(_without_docstrings(node))
    return out


def _bound(node) -> list[str]:
    """The names an import statement binds (`import a.b` binds a; `from m import x as y` binds y)."""
    if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        return ["from __future__"]
    return [a.asname or a.name.split(".")[0] for a in node.names]


def _without_docstrings(node):
    node = ast.parse(ast.unparse(node)).body[0]   # a copy
    for n in ast.walk(node):
        body = getattr(n, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            n.body = body[1:] or [ast.Pass()]
    return node


def _reached(text: str, roots: set[str]) -> set[str]:
    """The top-level names of a module that `roots` reach through the names their code uses, transitively."""
    tree = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            tree[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        tree[n.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            tree.update({name: node for name in _bound(node)})
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in tree:
            continue
        seen.add(name)
        for n in ast.walk(tree[name]):
            if isinstance(n, ast.Name):
                todo.append(n.id)
            elif isinstance(n, ast.ClassDef):
                todo += [b.id for b in n.bases if isinstance(b, ast.Name)]
    return seen


def code_changes(chapter: str, rev: str, run_names: set[str]) -> tuple[list[str], list[str]]:
    """(changed, blocking): the top-level definitions of the chapter's compute module that differ between `rev` and
    today, and what blocks a re-stamp: any of them that a run function in `run_names` reaches, or any other module of
    the computation that is not the same parsed code."""
    compute = f"lib/chapters/{chapter}/compute.py"
    old_files = set(lib_modules(chapter, read=lambda rel: _git_show(rev, rel)))
    new_files = set(lib_modules(chapter))
    blocking = [f"{rel}: imported at one revision only" for rel in sorted(old_files ^ new_files)]
    changed: list[str] = []
    for rel in sorted(old_files & new_files):
        old, new = _git_show(rev, rel), (ROOT / rel).read_text()
        a, b = _definitions(old), _definitions(new)
        diff = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
        if rel != compute:
            blocking += [f"{rel}: {n} changed" for n in diff]
            continue
        changed = diff
        reach = _reached(old, run_names) | _reached(new, run_names)
        blocking += [f"{rel}: {n} changed and a stored point's run function reaches it" for n in diff
                     if n in reach or n.startswith(("statement ", "from __future__"))]
    return changed, blocking


def restamp(chapter: str, profile: str, rev: str, check: int = 0, root: Path | None = None, log=print) -> dict:
    """Re-stamp every stored point of a profile with today's lib hash, if the evidence above holds; returns the log
    entry. Raises RestampRefused (nothing rewritten) when it does not."""
    from lib.core import params as params_mod
    from lib.core.sweep import run_point

    store = Store(chapter, profile, root=root)
    files = sorted((store.dir / "points").glob("*.json"))
    if not files:
        raise RestampRefused(f"{store.dir}: no stored points")
    records = {f: read_json(f) for f in files}
    old = hash_at(chapter, rev)
    new = lib_hash(chapter)
    wrong = [f.name for f, r in records.items() if r.get("lib_hash") not in (old, new)]
    if wrong:
        raise RestampRefused(f"{len(wrong)} of {len(files)} points carry neither lib {old} (the hash at {rev}) nor "
                             f"today's {new}, e.g. {wrong[0]}: re-stamp from the revision that computed them")
    records = {f: r for f, r in records.items() if r["lib_hash"] == old}    # today's own points stay as they are
    if not records:
        raise RestampRefused(f"every stored point already carries today's lib {new}")
    compute = importlib.import_module(f"lib.chapters.{chapter}.compute")
    points = {key_of(spec_dict(p.spec)): p for p in compute.points(params_mod.resolve(chapter, profile))}
    records = {f: r for f, r in records.items() if f.stem in points}      # a stray file (other parameters) stays
    stored = [points[f.stem] for f in records]
    changed, blocking = code_changes(chapter, rev, {p.run.__name__ for p in stored})
    if blocking:
        raise RestampRefused("the computation changed since " + rev + ": " + "; ".join(blocking))
    device = environment("cpu", chapter)["device"].split(" (")[0]
    mine = sorted((p for p in stored if records[store.point_path(p.spec)]["device"].startswith(device)),
                  key=lambda p: p.cost)[:check]
    rerun = []
    for p in mine:
        t0 = time.perf_counter()
        again = run_point(p, "cpu")
        was = records[store.point_path(p.spec)]["result"]
        same = _same(was, json_roundtrip(again))
        log(f"{chapter}: rerun {p.name}: {'identical' if same else 'DIFFERENT'} ({time.perf_counter() - t0:.0f} s)")
        if not same:
            raise RestampRefused(f"{p.name} recomputed today differs from its stored result")
        rerun.append(p.name)
    for f, r in records.items():
        write_json(f, {**r, "lib_hash": new})
    entry = {"from": old, "to": new, "rev": rev, "changed": changed, "rerun": rerun, "points": len(records),
             "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_json(store.dir / "restamps.json", (store.read("restamps.json") or []) + [entry])
    log(f"{chapter} {profile}: {len(records)} points re-stamped {old} -> {new} (changed since {rev}: "
        f"{', '.join(changed) or 'nothing the parse sees'}; rerun: {', '.join(rerun) or 'none'})")
    return entry


def json_roundtrip(result: dict):
    """A result as it would be stored (NaN as None, arrays as lists)."""
    import json

    from lib.core.store import _jsonable
    return json.loads(json.dumps(_jsonable(result)))


def _same(a, b) -> bool:
    """Equal number for number, every key but wall times."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = {k for k in set(a) | set(b) if not k.endswith("wall_s")}
        return all(_same(a.get(k), b.get(k)) for k in keys)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b
