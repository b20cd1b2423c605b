"""`python -m lib new NAME`: a working chapter skeleton that follows the chapter contract (lib/chapters/__init__.py).

It writes the chapter's source, its modules (the shape every chapter has: lib/chapters/__init__.py; the claim rows
in claims/__init__.py, their power worlds in claims/power.py), its three profiles (quick, paper, smoke), its test,
and its line in _toc.yml, from the templates in lib/core/templates/. The skeleton runs, builds and passes the
contract tests as it is (a stand-in experiment: the mean of n normals); a new chapter replaces the experiment and
keeps the structure.

The book's table of contents has one part per paper ("Authors (year): short title", in the order book/intro.md cites
them); a skeleton knows no paper yet, so its line joins the last paper's part, with a comment saying to move it to
its own paper's part.

    python -m lib new my_theorem --title "My theorem"    # new_chapter(...); then: python -m lib run my_theorem
"""
from __future__ import annotations

import re
from pathlib import Path
from string import Template

import yaml

from lib.core.params import ParamError
from lib.core.store import ROOT, atomic_write

TEMPLATES = Path(__file__).resolve().parent / "templates"
NAME = re.compile(r"^[a-z][a-z0-9_]{1,39}$")


def targets(name: str, root: Path = ROOT) -> dict[str, Path]:
    """Template -> the file it becomes."""
    chapter = root / "lib" / "chapters" / name
    return {"chapter.md": root / "book" / "chapters" / f"{name}.md",
            "init.py": chapter / "__init__.py",
            "compute.py": chapter / "compute.py",
            "results.py": chapter / "results.py",
            "claims.py": chapter / "claims" / "__init__.py",
            "power.py": chapter / "claims" / "power.py",
            "figures.py": chapter / "figures.py",
            "page.py": chapter / "page.py",
            "quick.yaml": root / "parameters" / name / "quick.yaml",
            "paper.yaml": root / "parameters" / name / "paper.yaml",
            "smoke.yaml": root / "parameters" / name / "smoke.yaml",
            "test_chapter.py": root / "tests" / f"test_{name}.py"}


LAST_PART = "About this build"        # the toc's closing part, which holds no paper's chapters
MOVE_ME = ("  # lib new: move this line to its paper's part ('Authors (year): short title', the paper cited in "
           "book/intro.md)")


def toc_entry(toc: str, name: str, part: str | None = None) -> str:
    """_toc.yml with the new chapter's line. `part`: the caption of the part it joins (a new part with that caption,
    before the closing 'About this build' part, where there is none); by default the last paper's part, the line
    marked to be moved (every part is a paper's: tests/test_contract.py), or a new part where the toc has none.

    >>> toc = 'parts:\\n  - caption: "A (2020): a paper"\\n    chapters:\\n      - file: book/executed/a\\n\\n'
    >>> print(toc_entry(toc + '  - caption: About this build\\n    chapters:\\n      - file: book/x\\n', "b"))
    parts:
      - caption: "A (2020): a paper"
        chapters:
          - file: book/executed/a
          - file: book/executed/b  # lib new: move this line to its paper's part ...
    <BLANKLINE>
      - caption: About this build
        chapters:
          - file: book/x
    <BLANKLINE>
    """
    lines = toc.rstrip("\n").split("\n")
    captions = {i: yaml.safe_load(line.split("caption:", 1)[1]) for i, line in enumerate(lines)
                if re.match(r"^  - caption:", line)}
    papers = [i for i, c in captions.items() if str(c) != LAST_PART]
    at = next((i for i, c in captions.items() if str(c) == part), None) if part else (papers[-1] if papers else None)
    if at is None:                    # a part of its own, before the closing part
        new = [f'  - caption: "{part or name}"', "    chapters:", f"      - file: book/executed/{name}", ""]
        end = next((i for i, c in captions.items() if str(c) == LAST_PART), len(lines))
        return "\n".join(lines[:end] + new + lines[end:]) + "\n"
    end = next((i for i in sorted(captions) if i > at), len(lines))
    last = max(i for i in range(at, end) if re.match(r"^\s+- file:", lines[i]))
    line = lines[last][:lines[last].index("-")] + f"- file: book/executed/{name}" + ("" if part else MOVE_ME)
    return "\n".join(lines[:last + 1] + [line] + lines[last + 1:]) + "\n"


def new_chapter(name: str, title: str | None = None, root: Path = ROOT, part: str | None = None) -> list[Path]:
    """Write the skeleton of chapter `name` (its toc line in `part`: toc_entry); refuses a bad name or one that
    exists (nothing is written then)."""
    if not NAME.match(name or ""):
        raise ParamError(f"new: {name!r}: expected a chapter name of 2-40 lowercase letters, digits and underscores, "
                         "starting with a letter")
    if name == "all":
        raise ParamError("new: 'all' is not a chapter name: `run all` and `compute all` mean every chapter; choose another")
    files = targets(name, Path(root))
    taken = [p for p in [*files.values(), Path(root) / "lib" / "chapters" / name] if p.exists()]
    if taken:
        raise ParamError(f"new: {name}: exists already ({taken[0].relative_to(root)}); choose another name")
    for what, text in (("--title", title), ("part", part)):
        if any(c in (text or "") for c in '"\n\\$'):
            raise ParamError(f"new: {what}: expected one line without quotes, backslashes or dollar signs")
    values = {"name": name, "title": title or name.replace("_", " ").capitalize()}
    for template, path in files.items():
        text = Template((TEMPLATES / f"{template}.tmpl").read_text()).substitute(values)
        atomic_write(path, text)
    toc = Path(root) / "_toc.yml"
    atomic_write(toc, toc_entry(toc.read_text(), name, part))
    return [*files.values(), toc]
