"""The chapter contract (lib/chapters/__init__.py), checked for every chapter, and `python -m lib new`, whose
skeleton must meet it, run, build and pass its own test."""
from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from new_chapter import copy_repo, generated

from lib.core import claims, params, runner
from lib.core.rules import Holds
from lib.core.store import ROOT, key_of, lib_modules, spec_dict
from lib.core.sweep import Point

CHAPTERS = params.chapters()


def _module(chapter: str, part: str):
    import importlib

    return importlib.import_module(f"lib.chapters.{chapter}.{part}")


def test_every_chapter_is_in_the_toc_and_every_toc_chapter_has_a_source():
    assert sorted(runner.toc_chapters()) == CHAPTERS


def test_the_toc_is_read_as_yaml(tmp_path):
    """Quoted entries, flow mappings and nested sections are chapters too (a regex over the lines missed quoted ones);
    an entry without a source in book/chapters/ is not."""
    (tmp_path / "_toc.yml").write_text('format: jb-book\nroot: book/intro\nchapters:\n- file: "book/executed/ffn_span"\n'
                                       '  sections:\n  - {file: book/executed/sample_complexity}  # a comment\n'
                                       '- file: book/executed/nope\n- file: book/intro\n')
    assert runner.toc_chapters(tmp_path) == ["ffn_span", "sample_complexity"]


def test_toc_parts_name_their_papers_in_the_order_the_intro_tells_them():
    """A part's caption is its paper's authors, year and short title (a reader knows no "Seed 000"), and the parts
    come in the order in which book/intro.md cites the papers."""
    import re

    parts = [p for p in yaml.safe_load((ROOT / "_toc.yml").read_text())["parts"] if p["caption"] != "About this build"]
    bib = (ROOT / "book" / "references.bib").read_text()
    intro = (ROOT / "book" / "intro.md").read_text()
    cited = []
    for key in re.findall(r"\{cite:t\}`([^`]+)`", intro):
        if key not in cited:
            cited.append(key)
    keys = []
    for part in parts:
        caption = part["caption"]
        assert not re.search(r"seed", caption, re.I), caption
        m = re.fullmatch(r"(.+) \((\d{4})\): .{10,}", caption)
        assert m, f"expected 'Authors (year): short title', got {caption!r}"
        surname, year = m.group(1).split(",")[0].split(" & ")[0], m.group(2)
        entries = [e for e in bib.split("@")[1:] if re.search(rf"author\s*=\s*\{{{re.escape(surname)},", e)
                   and re.search(rf"year\s*=\s*\{{{year}\}}", e)]       # a paper may have two versions (arXiv, proceedings)
        found = [re.match(r"\w+\{(\w+),", e).group(1) for e in entries]
        assert found, (caption, "no entry of that author and year in references.bib")
        keys.append(next((k for k in cited if k in found), found[0]))
    assert keys == [k for k in cited if k in keys], (keys, cited)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_files(chapter):
    for rel in (f"book/chapters/{chapter}.md", f"lib/chapters/{chapter}/__init__.py",
                f"lib/chapters/{chapter}/compute.py", f"lib/chapters/{chapter}/page.py",
                f"parameters/{chapter}/quick.yaml", f"parameters/{chapter}/paper.yaml", f"tests/test_{chapter}.py"):
        assert (ROOT / rel).is_file(), rel
    for profile in ("quick", "paper"):
        assert params.resolve(chapter, profile)["profile"] == profile


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_cross_chapter_reads_are_declared(chapter):
    """A page that reads another chapter's store says so in READS; the runner then runs that chapter first."""
    reads = runner.reads(chapter)
    assert isinstance(reads, tuple) and set(reads) <= set(CHAPTERS) - {chapter}
    page = "".join(p.read_text() for p in _modules_of(chapter))
    for other in CHAPTERS:
        if other != chapter and (f'Store("{other}"' in page or f'stored("{other}"' in page):
            assert other in reads, f"{chapter}'s page reads {other}'s store without declaring it in READS"
    order = runner.in_dependency_order(list(reversed(CHAPTERS)))
    assert all(order.index(dep) < order.index(chapter) for dep in reads)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_points_are_specs_and_module_level_runs(chapter):
    """A point's computation sees its spec and the device only: the spec is a frozen dataclass (its fields are the
    store key), and its run is a module-level function of (spec, device) (Point rejects closures and lambdas), so
    it cannot read a parameter that is not in its spec."""
    compute = _module(chapter, "compute")
    points = compute.points(params.resolve(chapter, "quick"))
    assert points and all(isinstance(p, Point) for p in points)
    assert len({p.label for p in points}) == len(points)
    for p in points:
        assert dataclasses.is_dataclass(p.spec) and type(p.spec).__dataclass_params__.frozen
        assert spec_dict(p.spec) == {"point": type(p.spec).__name__, **dataclasses.asdict(p.spec)}
        hash(p.spec)                                                      # every field is a value, not a list
        assert list(inspect.signature(p.run).parameters)[:2] == ["spec", "device"], p.run
        assert p.run.__module__.startswith(("lib.chapters.", "lib.science.")) and "<" not in p.run.__qualname__
        assert not [d for d in (p.run.__defaults__ or ()) if isinstance(d, dict)], p.run
    # Points of equal specs share their stored result; other points have other keys.
    assert len({key_of(spec_dict(p.spec)) for p in points}) == len({p.spec for p in points})
    # The module keeps no parameters in globals that a run function could read instead of its spec.
    tree = ast.parse((ROOT / "lib" / "chapters" / chapter / "compute.py").read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Global)], "compute.py assigns globals"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_footprint_names_parameters_and_grows_with_them(chapter):
    """footprint(P): the biggest point's allocations, each named by schema parameters; the paper profile needs at
    least as much as the quick one (validation refuses what the device cannot hold: tests/test_hostile_input.py)."""
    compute, schema = _module(chapter, "compute"), params.load_schema(chapter)
    quick, paper = (compute.footprint(params.resolve(chapter, p)) for p in ("quick", "paper"))
    assert quick and len(quick) == len(paper)
    for keys, size, what in quick:
        assert {k.strip() for k in keys.split(",")} <= set(schema) and size > 0 and what
    assert max(s for _, s, _ in paper) >= max(s for _, s, _ in quick)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_claims_are_rows_with_kinds_and_sources(chapter):
    rows = _module(chapter, "claims").ROWS
    assert rows and all(isinstance(r, claims.Row) for r in rows)
    assert len({r.id for r in rows}) == len(rows)
    assert all(r.kind in claims.KINDS and r.source.strip() and r.statement.strip() for r in rows)
    assert any(r.kind == "claim" for r in rows), "a chapter with no empirical claim tests nothing the paper predicts"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_headlines_name_rows_the_chapter_has(chapter):
    """A headline reads out the rows it names: an id it misspells would drop out of the first screen unseen."""
    mod = _module(chapter, "claims")
    ids = {r.id for r in mod.ROWS}
    heads = getattr(mod, "HEADLINES", ())
    assert heads and all(isinstance(h, claims.Headline) and h.ids for h in heads)
    assert [i for h in heads for i in h.ids if i not in ids] == []


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_claim_row_is_in_exactly_one_headline(chapter):
    """The first screen reads out every claim through its headline: a row in none would drop out of it (a FAIL
    included), a row in two would be counted twice."""
    mod = _module(chapter, "claims")
    named = [i for h in mod.HEADLINES for i in h.ids]
    claims_ = [r.id for r in mod.ROWS if r.kind == "claim"]
    assert {i: named.count(i) for i in claims_ if named.count(i) != 1} == {}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_claim_row_declares_the_worlds_the_gate_needs(chapter):
    """lib.core.gate shows a verdict only where the row's power supports it: every claim row declares a faithful
    world (the stored runs resampled) and one without the theorem's mechanism (claims/power.py's WORLDS); a row
    without them could only ever read undecided."""
    mod, power = _module(chapter, "claims"), _module(chapter, "claims.power")
    roles = {rid: {w.role for w in ws} for rid, ws in power.WORLDS.items()}
    assert {r.id: sorted(roles.get(r.id, ())) for r in mod.ROWS if r.kind == "claim"
            and not {"faithful", "without"} <= roles.get(r.id, set())} == {}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_page_is_outside_the_hash_and_the_source_follows_the_contract(chapter):
    hashed = lib_modules(chapter)
    for path in _modules_of(chapter):                 # results, claims, figures, page: outside the hash
        if ROLES[_role(chapter, path)] > ROLES["compute"]:
            assert str(path.relative_to(ROOT)) not in hashed, path
    source = (ROOT / "book" / "chapters" / f"{chapter}.md").read_text()
    for needle in ("prf:theorem", f'Chapter("{chapter}", globals())', "ch.collect(", "ch.finish(", "check.claims",
                   "check.provenance"):
        assert needle in source, f"{chapter}.md: {needle!r} missing"
    # the verdict on the first screen: under the title, before the theorem
    assert -1 < source.find("{glue:md}`verdict`") < source.find("prf:theorem"), f"{chapter}.md: no verdict line up top"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_paper_profile_says_what_it_reproduces(chapter):
    from lib.core.runner import SCALE_KINDS, paper_scale

    kind = getattr(importlib.import_module(f"lib.chapters.{chapter}"), "PAPER_SCALE", ("", ""))[0]
    assert kind in SCALE_KINDS and paper_scale(chapter).startswith(SCALE_KINDS[kind]), chapter


RULE_MODULES = {"lib/core/claims.py", "lib/core/rules.py", "lib/core/interval_rules.py", "lib/core/bootstrap_rules.py"}


def test_only_the_rule_modules_make_or_edit_a_verdict():
    """The measure measures, the rule decides: outside lib/core's claim and rule modules no code names a Verdict,
    builds one, or rewrites a verdict's passed/censored with dataclasses.replace."""
    bad = []
    for path in sorted((ROOT / "lib").rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        if rel in RULE_MODULES:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Name) and node.id == "Verdict" or \
                    isinstance(node, ast.alias) and node.name == "Verdict":
                bad.append(f"{rel}:{getattr(node, 'lineno', '?')}: Verdict")
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "replace" \
                    and {k.arg for k in node.keywords} & {"passed", "censored"}:
                bad.append(f"{rel}:{node.lineno}: replace(..., passed/censored=)")
    assert not bad, bad


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="kind"):
        claims.Row("x", "identity", "s", "t", Holds("e"), lambda: None)


# ------------------------------------------------------------------------------ a chapter's shape and its imports
ROLES = {"experiments": 0, "compute": 1, "results": 2, "claims": 3, "figures": 3, "page": 4}


def _modules_of(chapter: str) -> list[Path]:
    """The chapter's modules but its __init__.py (a role's package included)."""
    folder = ROOT / "lib" / "chapters" / chapter
    return sorted(p for p in folder.rglob("*.py") if p != folder / "__init__.py" and "__pycache__" not in p.parts)


def _role(chapter: str, path: Path) -> str:
    return path.relative_to(ROOT / "lib" / "chapters" / chapter).parts[0].removesuffix(".py")


def _module_name(path: Path) -> str:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return name.removesuffix(".__init__")


def import_graph(root: Path = ROOT / "lib") -> dict[str, set[str]]:
    """Every lib module -> the lib modules it imports, at any depth of its code (a lazy import inside a function
    counts); `from a import b` names a.b where a.b is a module, else a."""
    files = {_module_name(p): p for p in root.rglob("*.py") if "__pycache__" not in p.parts}
    graph = {}
    for name, path in files.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "lib":
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    deps.add(full if full in files else node.module)
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name in files}
        graph[name] = {d for d in deps if d in files} - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of a graph: its strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while not comp or comp[-1] != v:
                comp.append(stack.pop())
                on.discard(comp[-1])
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_circle_finder_finds_circles():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_lib_has_no_import_circle():
    assert circles(import_graph()) == []


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_chapter_has_its_six_roles_and_nothing_else(chapter):
    """compute.py, results.py, claims.py, figures.py, page.py and __init__.py, one role each; a role that spans
    topics may be a package of its name (one module per topic); experiments/ (a package, one module per arm) where
    a chapter has several arms. __init__.py says what the chapter is (READS, PAPER_SCALE) and computes nothing, and
    an experiments/__init__.py holds no code (the lib hash reads modules, not packages)."""
    folder = ROOT / "lib" / "chapters" / chapter
    entries = {p.name for p in folder.iterdir() if p.name != "__pycache__"}
    allowed = {"__init__.py"} | {f"{r}.py" for r in ROLES if r != "experiments"} | set(ROLES)
    assert entries <= allowed, f"{chapter}: files outside the chapter's roles: {sorted(entries - allowed)}"
    for role in ROLES:
        kinds = [p for p in (folder / f"{role}.py", folder / role / "__init__.py") if p.is_file()]
        assert len(kinds) == (role != "experiments" or (folder / role).exists()), (chapter, role, kinds)
    for sub in (folder / r for r in ROLES if (folder / r).is_dir()):
        assert not [p for p in sub.iterdir() if p.is_dir() and p.name != "__pycache__"], f"{sub}: nested package"
    init = ast.parse((folder / "__init__.py").read_text()).body
    assert all(isinstance(n, (ast.Expr, ast.Assign, ast.AnnAssign)) for n in init), f"{chapter}/__init__.py computes"
    assert {t.id for n in init if not isinstance(n, ast.Expr)
            for t in ([n.target] if isinstance(n, ast.AnnAssign) else n.targets)} <= {"READS", "PAPER_SCALE"}
    if (folder / "experiments").is_dir():
        body = ast.parse((folder / "experiments" / "__init__.py").read_text()).body
        assert all(isinstance(n, ast.Expr) for n in body), f"{chapter}/experiments/__init__.py holds code"
    assert not [p for p in _modules_of(chapter) if len(p.read_text().splitlines()) > 400], "a module over 400 lines"


def test_no_module_of_lib_is_over_400_lines():
    """lib/core, lib/science and the CLI in flat modules of a few hundred lines, as the chapters are."""
    long = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "lib").glob("*.py")) + sorted((ROOT / "lib" / "core").glob("*.py"))
            + sorted((ROOT / "lib" / "science").glob("*.py")) if len(p.read_text().splitlines()) > 400]
    assert not long, f"modules over 400 lines: {long}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_imports_run_one_way(chapter):
    """Inside a chapter: experiments <- compute <- results <- claims, figures <- page (a module imports modules of
    lower rank, or of its own role's package); no chapter imports another (what two share lives in lib/science or
    lib/core); lib/core and lib/science import no chapter."""
    graph, prefix = import_graph(), f"lib.chapters.{chapter}"
    for path in _modules_of(chapter):
        name, role = _module_name(path), _role(chapter, path)
        for dep in graph[name]:
            other = dep.split(".")[2] if dep.startswith("lib.chapters.") and dep.count(".") >= 2 else None
            assert other in (None, chapter), f"{name} imports {dep}: no chapter imports another"
            if dep.startswith(prefix + "."):
                dep_role = dep[len(prefix) + 1:].split(".")[0]
                assert dep_role == role or ROLES[dep_role] < ROLES[role], f"{name} ({role}) imports {dep} ({dep_role})"
    assert not [d for d in graph[prefix] if d.startswith("lib.")], f"{prefix}/__init__.py imports lib modules"
    for name, deps in graph.items():
        if name.startswith(("lib.core", "lib.science")):
            assert not [d for d in deps if d.startswith("lib.chapters.")], f"{name} imports a chapter: {deps}"


# ------------------------------------------------------------------------------------------ python -m lib new
def _lib(root: Path, *args, env=None):
    return subprocess.run([sys.executable, "-m", "lib", *args], cwd=root, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "BOOK_RESULTS": str(root / "results"), **(env or {})})


def test_new_refuses_bad_and_existing_names(tmp_path):
    copy_repo(tmp_path)
    before = (tmp_path / "_toc.yml").read_text()
    for name in ("../evil", "Bad", "x", CHAPTERS[0]):
        out = _lib(tmp_path, "new", name)
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and "new:" in out.stderr, (name, out.stderr)
    assert (tmp_path / "_toc.yml").read_text() == before


@pytest.fixture(scope="module")
def skeleton(tmp_path_factory) -> dict:
    return generated(tmp_path_factory)


@pytest.mark.e2e
def test_new_chapter_runs_builds_and_meets_the_contract(skeleton):
    """The skeleton of `python -m lib new` in a copy of the repository: it runs, its page builds, its own test and the
    contract tests pass on it (tests/new_chapter.py: the copy, and those tests run in it, shared with
    test_scaffold.py; run there before this test runs the chapter, which writes no file they read)."""
    root, out = skeleton["root"], skeleton["new"]
    assert out.returncode == 0, out.stderr
    toc = yaml.safe_load(skeleton["toc"])
    part = next(p for p in toc["parts"] if {"file": "book/executed/demo_theorem"} in p["chapters"])
    assert part["caption"] != "About this build"          # a paper's part (the last one: the line says to move it)
    run = _lib(root, "run", "demo_theorem")
    assert run.returncode == 0, run.stderr[-3000:]
    # Build a book of the new chapter alone (the others are not executed in this copy).
    toc["parts"] = [{**part, "chapters": [{"file": "book/executed/demo_theorem"}]}] + \
        [p for p in toc["parts"] if p["caption"] == "About this build"]
    (root / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
    build = _lib(root, "build")
    assert build.returncode == 0, (build.stdout + build.stderr)[-3000:]
    html = (root / "_build" / "html" / "book" / "executed" / "demo_theorem.html").read_text()
    assert "✓ pass</span>" in html and "Traceback" not in html and "A demo theorem" in html
    tests = skeleton["tests"]
    assert tests.returncode == 0, tests.stdout[-3000:]
    for test in ("test_demo_theorem.py::test_run_mean_is_reproducible_and_near_the_theorem",
                 "test_contract.py::test_chapter_files[demo_theorem]", "test_contract.py::test_chapter_files[ffn_span]"):
        assert f"PASSED tests/{test}" in tests.stdout, test


def test_pyproject_lists_what_lib_imports():
    """Every third-party package that lib imports is a dependency in pyproject.toml (and every dependency is used)."""
    import re
    from importlib.metadata import packages_distributions

    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    declared = {re.split(r"[<>=!\s\[]", d, maxsplit=1)[0].lower().replace("_", "-") for d in deps}
    imported = set()
    for path in (ROOT / "lib").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"lib"}
    dists = packages_distributions()
    needed = {dists[m][0].lower().replace("_", "-") for m in third_party}
    assert needed <= declared, f"imported but not in pyproject.toml: {sorted(needed - declared)}"
    # Build-time dependencies that no module imports: the book's Sphinx extensions, MathJax files, the kernel.
    build_only = {"jupyter-book", "sphinx-proof", "sphinxcontrib-bibtex", "django-static-mathjax", "ipykernel"}
    assert declared - needed <= build_only, f"declared but never imported: {sorted(declared - needed - build_only)}"


def test_new_chapter_rows_hold_rule_objects(tmp_path):
    """The skeleton's rows are rules as data (lib.core.rules): each threshold typed once in its claims.py, the row's
    rule text generated from the object that decides it."""
    from lib.core.scaffold import new_chapter

    (tmp_path / "_toc.yml").write_text((ROOT / "_toc.yml").read_text())
    new_chapter("demo_rules", root=tmp_path)
    path = tmp_path / "lib" / "chapters" / "demo_rules" / "claims" / "__init__.py"
    text = path.read_text()
    assert text.count("1e-12") == 1 and text.count("-1.1") == 1 and text.count("-0.9") == 1
    import lib.chapters

    lib.chapters.__path__.append(str(tmp_path / "lib" / "chapters"))    # claims.py imports its chapter's results.py
    try:
        page = importlib.import_module("lib.chapters.demo_rules.claims")
    finally:
        lib.chapters.__path__.remove(str(tmp_path / "lib" / "chapters"))
        for name in [m for m in sys.modules if m.startswith("lib.chapters.demo_rules")]:
            del sys.modules[name]
    fake = {"mean": {n: {"result": {"mse": 1 / n, "weights_sq": 1 / n}} for n in (10, 100, 1000, 10000)}}
    rows = {r["id"]: r for r in page.claims({}, fake)}
    assert all(r.rule is not None and rows[r.id]["expected"] == r.rule.text for r in page.ROWS)
    assert rows["slope"]["passed"] and "in [-1.1, -0.9]" in rows["slope"]["expected"]
    assert "≤ $10^{-12}$ (exact: float64 rounding of an identity)" in rows["weights"]["expected"]
