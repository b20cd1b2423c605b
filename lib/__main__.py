"""The book's command line.

    python -m lib list                                   chapters, profiles and parameters
    python -m lib run CHAPTER [--profile P] [--set k=v]  execute one chapter (validated first)
    python -m lib run all [--profile P]                  every chapter in _toc.yml
    python -m lib build                                  build the HTML from the executed chapters
    python -m lib book [--profile P]                     run all, then build (what `make book` does); the
                                                         default profile `auto` renders committed paper results
                                                         where they exist and runs the quick profile elsewhere
    python -m lib compute CHAPTER [--profile P] [--jobs J]  the chapter's computation through lib alone (no
                                                         Jupyter; for a GPU machine), stored for a later `run` to
                                                         render; J worker processes share the sweep
    python -m lib new NAME [--title T]                   a working chapter skeleton (source, compute, page,
                                                         profiles, test, toc line)

Bad input exits with status 2 and one line on stderr; a failing chapter exits 1 and shows its traceback.
"""
from __future__ import annotations

import argparse
import os
import re
import sys

from lib.core import params as params_mod


def _list() -> None:
    from lib.core.runner import toc_chapters

    in_toc = set(toc_chapters())
    for chapter in params_mod.chapters():
        print(f"{chapter}{'' if chapter in in_toc else '  (not in _toc.yml)'}")
        print(f"  profiles: {', '.join(params_mod.profiles(chapter)) or 'none'}")
        for p in params_mod.load_schema(chapter).values():
            print(f"  {p.name:<16} {str(p.default):<28} {p.form:<30} {p.help}")


class _Parser(argparse.ArgumentParser):
    """argparse, except that a usage error is one line on stderr (and exit status 2), like every other bad input."""

    def error(self, message):
        sys.stderr.write(f"error: {params_mod.ParamError(message)} (see: {self.prog} --help)\n")
        sys.exit(2)


def jobs_count(text: str) -> int:
    """--jobs: a whole number in ASCII digits from 1 to the machine's cores (more workers than cores only slow
    every one of them down, and each holds its own copy of torch)."""
    cores = os.cpu_count() or 1
    if not re.fullmatch(r"[0-9]{1,4}", text or "") or not 1 <= int(text) <= cores:
        raise params_mod.ParamError(f"--jobs: expected a whole number from 1 to {cores} (the cores here), "
                                    f"got {params_mod.shown(text)}")
    return int(text)


def main(argv=None) -> int:
    ap = _Parser(prog="python -m lib", description="Run and build the companion book.")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    sub.add_parser("list", help="chapters, profiles and their parameters")
    helps = {"run": "execute chapters", "book": "run every chapter, then build",
             "compute": "a chapter's computation without Jupyter, stored for `run` to render"}
    for name in ("run", "book", "compute"):
        p = sub.add_parser(name, help=helps[name])
        if name != "book":
            p.add_argument("chapter", help="a chapter name, or 'all' for every chapter in _toc.yml")
        default = "auto" if name == "book" else "paper" if name == "compute" else "quick"
        p.add_argument("--profile", default=default, help=f"parameters/<chapter>/<profile>.yaml (default: {default}"
                       + ("; auto: paper where results/<chapter>/paper/ holds results, else quick)" if name == "book" else ")"))
        p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override one parameter (YAML value)")
        p.add_argument("--force", action="store_true", help="recompute sweep points even if stored")
        if name == "compute":
            p.add_argument("--jobs", default="1", metavar="J",
                           help="worker processes sharing the sweep (default 1; on a GPU 8 keeps it busy)")
    sub.add_parser("build", help="build the HTML book from the executed chapters (no execution)")
    new = sub.add_parser("new", help="write a working chapter skeleton that follows the chapter contract")
    new.add_argument("name", help="the chapter's name: lowercase letters, digits and underscores")
    new.add_argument("--title", default=None, help="the chapter's title (default: from the name)")
    args = ap.parse_args(argv)

    # runner imports no Jupyter package at module level: `compute` works on a machine with torch and numpy only
    from lib.core.runner import (
        ChapterFailed,
        build_book,
        compute_chapter,
        in_dependency_order,
        paper_results_exist,
        run_chapter,
        toc_chapters,
    )
    from lib.core.sweep import progress

    try:
        if args.cmd == "list":
            _list()
            return 0
        if args.cmd == "new":
            from lib.core.scaffold import new_chapter

            for path in new_chapter(args.name, args.title):
                print(f"wrote {path.relative_to(params_mod.ROOT)}")
            print(f"next: python -m lib run {args.name}  (then replace the stand-in experiment)")
            return 0
        if args.cmd == "compute":
            jobs = jobs_count(args.jobs)
            overrides = params_mod.parse_overrides(args.set)
            chapters = toc_chapters() if args.chapter == "all" else [args.chapter]
            for chapter in chapters:
                params_mod.resolve(chapter, args.profile, overrides)
            for chapter in in_dependency_order(chapters):
                compute_chapter(chapter, args.profile, overrides, force=args.force, jobs=jobs,
                                log=progress(sys.stdout))
            return 0

        if args.cmd in ("run", "book"):
            chapters = toc_chapters() if args.cmd == "book" or args.chapter == "all" else [args.chapter]
            chapters = in_dependency_order(chapters) if len(chapters) > 1 else chapters
            overrides = params_mod.parse_overrides(args.set)
            plan = []  # (chapter, profile, stored_only)
            for chapter in chapters:
                if args.profile == "auto":
                    stored = paper_results_exist(chapter)
                    plan.append((chapter, "paper" if stored else "quick", stored))
                else:
                    plan.append((chapter, args.profile, False))
            for chapter, profile, _ in plan:  # validate every chapter's input before executing any
                params_mod.resolve(chapter, profile, overrides)
            for chapter, profile, stored_only in plan:
                run_chapter(chapter, profile, overrides, force=args.force and not stored_only, stored_only=stored_only)
        if args.cmd in ("build", "book"):
            build_book()
        return 0
    except params_mod.ParamError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except ChapterFailed as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
