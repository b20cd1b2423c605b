"""Re-stamp stored points with today's lib hash, on evidence that what computed them has not changed.

A stored point records `lib_hash(chapter)`, the hash of every file its chapter's computation imports as parsed code
(docstrings and comments aside: prose edits leave it as it is). An edit that changes what those files *list* but not
what a stored point's run function computes (a new sweep beside the old ones, a new parameter whose default keeps the
old specs) changes that hash too, and would mark every stored point as made by other code. `restamp` re-stamps them,
and only when the evidence holds:

1. **provenance**: every stored point carries the same old hash, and it is `lib_hash(chapter)` of the code at a
   named git revision (so the code that computed them is known and committed);
2. **the code**: between that revision and today, nothing that a stored point's run function reaches changed as
   parsed code (docstrings and comments aside): the definitions it uses, transitively, across compute.py and the lib
   modules it imports, each name resolved to the definition it stands for (`signatures`), so that code moved
   verbatim to another module (a chapter's experiments/, lib/science) is the same code at a new address (with
   `partial`, the points whose run function does reach a change are left as they are);
3. **a rerun** (optional, `check`): the cheapest stored points that were computed on this kind of device,
   recomputed now, give the stored result exactly, number for number (wall times aside).

Where the code a point reaches did change (a fix that changes nothing on this device, say), `evidence` names a
store of the same profile that today's code computed (`BOOK_RESULTS=DIR python -m lib compute ...`): each such
point is re-stamped only if that store holds it, stamped with today's hash, computed on the same kind of device and
identical number for number (wall times aside).

    BOOK_RESULTS=/tmp/again python -m lib compute head_lower_bound --profile paper --jobs 2
    python -m lib restamp head_lower_bound --profile paper --rev ddd208b~1 --evidence /tmp/again/head_lower_bound/paper

Then each point's `lib_hash` is rewritten (atomically) and `restamps.json` beside the points logs the step: the old
and new hash, the revision, the definitions that changed and the points rerun.

    python -m lib restamp sample_complexity --profile paper --rev 5a87859603 --check 1

lib/core/rehash.py (`--from-bytes`) renames instead: points stamped with the older raw-bytes hash, of
the very code committed now, get today's parsed-code hash.
"""
from __future__ import annotations

import ast
import copy
import hashlib
import subprocess
import time
from pathlib import Path

from lib.core.manifest import read_point, write_manifest
from lib.core.reach import module
from lib.core.store import (
    ROOT,
    Store,
    code_dump,
    environment,
    key_of,
    lib_hash,
    lib_modules,
    spec_dict,
    write_json,
)


class RestampRefused(ValueError):
    """The evidence does not hold: nothing was rewritten."""


def _kind(device: str) -> str:
    """A device as the points record it, less its thread count: "CPU (x86_64, 2 threads)" -> "CPU"."""
    return device.split(" (")[0]


def _identical_in(evidence: Path, records: dict, new: str) -> list[str]:
    """The names of `records`' point files, each shown by the store `evidence` (a profile's folder) computed by
    today's code (lib hash `new`) on the same kind of device, identical number for number; refuses at the first not."""
    for f, r in records.items():
        again = read_point(evidence / "points" / f.name) if (evidence / "points" / f.name).is_file() else None
        why = ("holds no such point" if again is None else
               f"computed it with lib {again.get('lib_hash')}, not today's {new}" if again.get("lib_hash") != new else
               f"computed it on {again['device']}, not {r['device']}" if _kind(again["device"]) != _kind(r["device"]) else
               "computed other numbers" if not _same(r["result"], again["result"]) else "")
        if why:
            raise RestampRefused(f"{f.name}: its run function reaches what changed, and the evidence {evidence} {why}")
    return sorted(f.name for f in records)


def _git_show(rev: str, rel: str) -> str | None:
    out = subprocess.run(["git", "show", f"{rev}:{rel}"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def hash_at(chapter: str, rev: str) -> str:
    """lib_hash(chapter) of the code at git revision `rev` (the same files, parsed the same way)."""
    return lib_hash(chapter, read=lambda rel: _git_show(rev, rel))


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
            names = [f"statement {code_dump(node)}"]
        for name in names:
            out[name] = code_dump(node)
    return out


def _bound(node) -> list[str]:
    """The names an import statement binds (`import a.b` binds a; `from m import x as y` binds y)."""
    if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        return ["from __future__"]
    return [a.asname or a.name.split(".")[0] for a in node.names]


def _module_name(rel: str) -> str:
    return rel[:-3].replace("/", ".")


def _parse(text: str, mod: str, modules: set[str]) -> tuple[dict, dict]:
    """(defs, links) of one module: its top-level definitions by name, and the names its lib imports bind, each to
    (module, name) where it imports a definition or (module, None) where it imports a module of `modules`."""
    defs, links = {}, {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defs.update({n.id: node for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)})
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "lib":
            for a in node.names:
                full = f"{node.module}.{a.name}"
                links[a.asname or a.name] = (full, None) if full in modules else (node.module, a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in modules:
                    links[a.asname or a.name] = (a.name, None)
    return defs, links


def reach(texts: dict[str, str], roots: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (module, name) definitions that `roots` reach through the names their code uses, across the lib modules
    in `texts` ({module: source}): a name of the same module, an imported definition, or `module.attr` of an imported
    module (a module used otherwise counts whole). Import bindings reached count too, as (module, name)."""
    parsed = {m: _parse(t, m, set(texts)) for m, t in texts.items()}
    seen, todo = set(), list(roots)
    while todo:
        mod, name = todo.pop()
        if (mod, name) in seen or mod not in parsed:
            continue
        defs, links = parsed[mod]
        if name is None:                                     # a whole module
            seen.add((mod, None))
            todo += [(mod, n) for n in defs]
            continue
        if name in links:
            seen.add((mod, name))
            if links[name][1] is not None:          # an imported definition (a module: by its attributes, below)
                todo.append(links[name])
            continue
        if name not in defs:
            continue
        seen.add((mod, name))
        node = defs[name]
        bases = {id(n.value) for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
        for n in ast.walk(node):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and links.get(n.value.id, ("", ""))[1] is None:
                todo += [(mod, n.value.id), (links[n.value.id][0], n.attr)]
            elif isinstance(n, ast.Name) and (id(n) not in bases or links.get(n.id, ("", ""))[1] is not None):
                todo.append((mod, n.id))
                if links.get(n.id, ("", ""))[1] is None and n.id in links:   # a module passed around: all of it
                    todo.append((links[n.id][0], None))
    return seen


def _target(parsed: dict, mod: str, name: str) -> tuple[str, str | None] | None:
    """Where `name`, as module `mod` binds it, is defined: (module, name) of a definition, (module, None) of a lib
    module, or None (a local, a builtin, or a name from outside lib). Re-exports are followed."""
    seen = set()
    while (mod, name) not in seen and mod in parsed:
        seen.add((mod, name))
        defs, links = parsed[mod]
        if name in defs:
            return mod, name
        if name not in links:
            return None
        mod, name = links[name]
        if name is None:
            return mod, None
    return None


def _lazy(node, modules: set[str]) -> tuple[ast.AST, dict]:
    """A definition less the lib imports inside its body, and the names they bind, linked as `_parse` links a module's:
    an import made lazy to break an import circle resolves as it will at the top of its module, once the circle is gone.
    Its functions' annotations go too: under `from __future__ import annotations` they are never evaluated, so a run
    function annotated with its spec's class does not compute with that class (a new spec field is in the key)."""
    lazy = {}

    class Strip(ast.NodeTransformer):
        def visit_arg(self, n):
            n.annotation = None
            return n

        def visit_FunctionDef(self, n):
            n.returns = None
            return self.generic_visit(n)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_ImportFrom(self, n):
            if not (n.module and n.module.split(".")[0] == "lib"):
                return n
            lazy.update({a.asname or a.name: (f"{n.module}.{a.name}", None) if f"{n.module}.{a.name}" in modules
                         else (n.module, a.name) for a in n.names})
    return Strip().visit(copy.deepcopy(node)), lazy


def signatures(texts: dict[str, str], roots: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """What each root definition computes, wherever its code lives: the sha256 of its parsed code (docstrings
    aside), its module's top-level statements, and, for every lib name it uses, that name's own signature, resolved
    through imports to the definition it stands for (a module used whole: all its definitions). Code moved verbatim
    to another module, or re-exported, keeps its signature; a changed constant, operator or callee anywhere it
    reaches changes it. A root absent from `texts` gets None."""
    modules = set(texts)
    parsed = {m: _parse(t, m, modules) for m, t in texts.items()}
    statements = {m: [v for k, v in _definitions(t).items() if k.startswith(("statement ", "from __future__"))]
                  for m, t in texts.items()}
    memo: dict = {}

    def sig(key, stack) -> str:
        if key in memo:
            return memo[key]
        if key in stack:
            return f"<recursion {key[1]}>"
        mod, name = key
        defs, links = parsed[mod]
        if name is None:                                         # a module used whole
            text = "module:" + ";".join(sig((mod, d), stack) for d in sorted(defs))
            return memo.setdefault(key, hashlib.sha256(text.encode()).hexdigest())
        (node, lazy), refs = _lazy(defs[name], modules), {}
        local = {**links, **lazy}                        # a lazy import binds its names inside its definition
        bases = {id(n.value) for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                 and local.get(n.value.id, ("", ""))[1] is None and n.value.id in local}
        for n in ast.walk(node):
            if isinstance(n, ast.Attribute) and id(n.value) in bases:
                label, target = f"{n.value.id}.{n.attr}", _target(parsed, local[n.value.id][0], n.attr)
            elif isinstance(n, ast.Name) and id(n) not in bases:
                m, x = lazy.get(n.id, (mod, n.id))
                label, target = n.id, (m, None) if x is None and m in parsed else _target(parsed, m, x)
            else:
                continue
            if target is not None and target != key:
                refs[label] = target
        parts = [code_dump(node), *statements[mod]]
        parts += [f"{label}={sig(refs[label], stack | {key})}" for label in sorted(refs)]
        return memo.setdefault(key, hashlib.sha256("\n".join(parts).encode()).hexdigest())

    return {r: sig(r, frozenset()) if r[0] in parsed and r[1] in parsed[r[0]][0] else None for r in roots}


def _old_root(old: dict[str, str], root: tuple[str, str]) -> tuple[str, str] | None:
    """The run function `root` (module, name) at the old revision: there, or the one module defining it (moved code)."""
    if root[0] in old and root[1] in _parse(old[root[0]], root[0], set(old))[0]:
        return root
    found = [m for m, t in old.items() if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                                             and n.name == root[1] for n in ast.parse(t).body)]
    return (found[0], root[1]) if len(found) == 1 else None


def code_changes(chapter: str, rev: str, roots: set[tuple[str, str]]) -> tuple[list[str], dict]:
    """(changed, blocking): the definitions of the chapter's computation (compute.py and the lib modules it imports)
    that differ between `rev` and today as parsed code, as "module.name" (a module present at one revision only:
    "module.*"); and the roots (module, run function) whose computation differs: their `signatures` at `rev` and
    today differ (or the function is not found at `rev`), each with what changed that it reaches. Code moved
    verbatim (a new module, a new package) blocks nothing: the signatures see through addresses."""
    old_files = lib_modules(chapter, read=lambda rel: _git_show(rev, rel))
    new_files = lib_modules(chapter)
    old = {_module_name(r): _git_show(rev, r) for r in old_files}
    new = {_module_name(r): (ROOT / r).read_text() for r in new_files}
    changed = {m: ["*"] for m in set(old) ^ set(new)}
    for m in set(old) & set(new):
        a, b = _definitions(old[m]), _definitions(new[m])
        if diff := sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n)):
            changed[m] = diff
    was = {root: _old_root(old, root) for root in roots}
    before = signatures(old, {r for r in was.values() if r})
    after = signatures(new, set(roots))
    blocking = {}
    for root in roots:
        if was[root] is not None and before[was[root]] is not None and before[was[root]] == after[root]:
            continue
        seen = reach(old, {was[root] or root}) | reach(new, {root})
        hit = [f"{m}.{n}" for m, names in sorted(changed.items()) for n in names
               if (m, n) in seen or (n == "*" or n.startswith(("statement ", "from __future__")))
               and any(x == m for x, _ in seen)]
        blocking[root] = hit or [f"{root[0]}.{root[1]} (not found at {rev})"]
    return [f"{m}.{n}" for m, names in sorted(changed.items()) for n in names], blocking


def restamp(chapter: str, profile: str, rev: str, check: int = 0, root: Path | None = None, log=print,
            partial: bool = False, evidence: Path | None = None) -> dict:
    """Re-stamp every stored point of a profile with today's lib hash, if the evidence above holds; returns the log
    entry. Raises RestampRefused (nothing rewritten) when it does not. partial: re-stamp the points whose run function
    reaches nothing that changed and leave the others as they are (computed by other code: recompute them).
    evidence: a store that today's code computed, holding the points whose run function reaches a change."""
    from lib.core import params as params_mod
    from lib.core.sweep import run_point

    store = Store(chapter, profile, root=root)
    files = sorted((store.dir / "points").glob("*.json"))
    if not files:
        raise RestampRefused(f"{store.dir}: no stored points")
    records = {f: read_point(f) for f in files}   # checked against the manifest
    old = hash_at(chapter, rev)
    new = lib_hash(chapter)
    wrong = [f.name for f, r in records.items() if r.get("lib_hash") not in (old, new)]
    if wrong:
        raise RestampRefused(f"{len(wrong)} of {len(files)} points carry neither lib {old} (the hash at {rev}) nor "
                             f"today's {new}, e.g. {wrong[0]}: re-stamp from the revision that computed them")
    records = {f: r for f, r in records.items() if r["lib_hash"] == old}    # today's own points stay as they are
    if not records:
        raise RestampRefused(f"every stored point already carries today's lib {new}")
    compute = module(chapter, "compute")
    points = {key_of(spec_dict(p.spec)): p for p in compute.points(params_mod.resolve(chapter, profile))}
    records = {f: r for f, r in records.items() if f.stem in points}      # a stray file (other parameters) stays
    root_of = lambda p: (p.run.__module__, p.run.__name__)
    changed, blocking = code_changes(chapter, rev, {root_of(points[f.stem]) for f in records})
    left = {f: r for f, r in records.items() if root_of(points[f.stem]) in blocking}
    proven = _identical_in(Path(evidence), left, new) if left and evidence is not None else []
    left = {f: r for f, r in left.items() if f.name not in proven}
    if left and not partial:
        raise RestampRefused("the computation changed since " + rev + ": " + "; ".join(
            f"{run} reaches {', '.join(hit)}" for (_, run), hit in sorted(blocking.items())))
    records = {f: r for f, r in records.items() if f not in left}
    if not records:
        raise RestampRefused(f"every run function of the stored points reaches what changed since {rev}")
    stored = [points[f.stem] for f in records if f.name not in proven]    # (the evidence recomputed those already)
    device = _kind(environment("cpu", chapter)["device"])
    mine = sorted((p for p in stored if _kind(records[store.point_path(p.spec)]["device"]) == device),
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
             "left": sorted(f.name for f in left), **({"evidence": str(evidence), "proven": proven} if proven else {}),
             "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_json(store.dir / "restamps.json", (store.read("restamps.json") or []) + [entry])
    write_manifest(store.dir)   # the points' new bytes: their sha256 in the manifest (lib.core.manifest)
    log(f"{chapter} {profile}: {len(records)} points re-stamped {old} -> {new} (changed since {rev}: "
        f"{', '.join(changed) or 'nothing the parse sees'}; rerun: {', '.join(rerun) or 'none'}"
        + (f"; {len(proven)} shown identical by {evidence}" if proven else "") + ")"
        + (f"; {len(left)} left as they are (their run functions reach what changed: recompute them)" if left else ""))
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
