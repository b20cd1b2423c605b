"""The book's command line.

    python -m lib list                                   chapters, profiles and parameters
    python -m lib run CHAPTER [--profile P] [--set k=v]  execute one chapter (validated first)
    python -m lib run all [--profile P]                  every chapter in _toc.yml
    python -m lib build                                  build the HTML from the executed chapters
    python -m lib book [--profile P]                     run all, then build (what `make book` does)

Bad input exits with status 2 and one line on stderr; a failing chapter exits 1 and shows its traceback.
"""
from __future__ import annotations

import argparse
import sys

from . import params as params_mod


def _list() -> None:
    from .runner import toc_chapters

    in_toc = set(toc_chapters())
    for chapter in params_mod.chapters():
        print(f"{chapter}{'' if chapter in in_toc else '  (not in _toc.yml)'}")
        print(f"  profiles: {', '.join(params_mod.profiles(chapter)) or 'none'}")
        for p in params_mod.load_schema(chapter).values():
            print(f"  {p.name:<16} {str(p.default):<28} {p.form:<30} {p.help}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lib", description="Run and build the companion book.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="chapters, profiles and their parameters")
    for name in ("run", "book"):
        p = sub.add_parser(name, help="execute chapters" if name == "run" else "run every chapter, then build")
        if name == "run":
            p.add_argument("chapter", help="a chapter name, or 'all' for every chapter in _toc.yml")
        p.add_argument("--profile", default="quick", help="parameters/<chapter>/<profile>.yaml (default: quick)")
        p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override one parameter (YAML value)")
        p.add_argument("--force", action="store_true", help="recompute sweep points even if stored")
    sub.add_parser("build", help="build the HTML book from the executed chapters (no execution)")
    args = ap.parse_args(argv)

    from .runner import ChapterFailed, build_book, run_chapter, toc_chapters

    try:
        if args.cmd == "list":
            _list()
            return 0
        if args.cmd in ("run", "book"):
            chapters = toc_chapters() if args.cmd == "book" or args.chapter == "all" else [args.chapter]
            overrides = params_mod.parse_overrides(args.set)
            for chapter in chapters:  # validate every chapter's input before executing any
                params_mod.resolve(chapter, args.profile, overrides)
            for chapter in chapters:
                run_chapter(chapter, args.profile, overrides, force=args.force)
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
