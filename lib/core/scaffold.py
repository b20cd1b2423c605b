"""`python -m lib new NAME`: a working chapter skeleton that follows the chapter contract (lib/chapters/__init__.py).

It writes the chapter's source, its six modules (the shape every chapter has: lib/chapters/__init__.py), its two
profiles, its test, and its line in _toc.yml, from the templates in lib/core/templates/. The skeleton runs, builds
and passes as it is (a stand-in experiment: the mean of n normals); a new chapter replaces the experiment and keeps
the structure.

    python -m lib new my_theorem --title "My theorem"    # new_chapter(...); then: python -m lib run my_theorem
"""
from __future__ import annotations

import re
from pathlib import Path
from string import Template

from lib.core.params import ParamError
from lib.core.store import ROOT, atomic_write

TEMPLATES = Path(__file__).resolve().parent / "templates"
NAME = re.compile(r"^[a-z][a-z0-9_]{1,39}$")


def targets(name: str, root: Path = ROOT) -> dict[str, Path]:
    """Template -> the file it becomes."""
    return {"chapter.md": root / "book" / "chapters" / f"{name}.md",
            "init.py": root / "lib" / "chapters" / name / "__init__.py",
            "compute.py": root / "lib" / "chapters" / name / "compute.py",
            "results.py": root / "lib" / "chapters" / name / "results.py",
            "claims.py": root / "lib" / "chapters" / name / "claims.py",
            "figures.py": root / "lib" / "chapters" / name / "figures.py",
            "page.py": root / "lib" / "chapters" / name / "page.py",
            "quick.yaml": root / "parameters" / name / "quick.yaml",
            "paper.yaml": root / "parameters" / name / "paper.yaml",
            "test_chapter.py": root / "tests" / f"test_{name}.py"}


def toc_entry(toc: str, name: str, title: str) -> str:
    """_toc.yml with a part for the new chapter, before the closing 'About this build' part (else at the end)."""
    part = f'  - caption: "{title}"\n    chapters:\n      - file: book/executed/{name}\n'
    marker = "  - caption: About this build\n"
    return toc.replace(marker, part + marker, 1) if marker in toc else toc.rstrip("\n") + "\n" + part


def new_chapter(name: str, title: str | None = None, root: Path = ROOT) -> list[Path]:
    """Write the skeleton of chapter `name`; refuses a bad name or one that exists (nothing is written then)."""
    if not NAME.match(name or ""):
        raise ParamError(f"new: {name!r}: expected a chapter name of 2-40 lowercase letters, digits and underscores, "
                         "starting with a letter")
    if name == "all":
        raise ParamError("new: 'all' is not a chapter name: `run all` and `compute all` mean every chapter; choose another")
    files = targets(name, Path(root))
    taken = [p for p in [*files.values(), Path(root) / "lib" / "chapters" / name] if p.exists()]
    if taken:
        raise ParamError(f"new: {name}: exists already ({taken[0].relative_to(root)}); choose another name")
    if any(c in (title or "") for c in '"\n\\$'):
        raise ParamError("new: --title: expected one line without quotes, backslashes or dollar signs")
    values = {"name": name, "title": title or name.replace("_", " ").capitalize()}
    for template, path in files.items():
        text = Template((TEMPLATES / f"{template}.tmpl").read_text()).substitute(values)
        atomic_write(path, text)
    toc = Path(root) / "_toc.yml"
    atomic_write(toc, toc_entry(toc.read_text(), name, values["title"]))
    return [*files.values(), toc]
