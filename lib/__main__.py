"""The book's command line.

    python -m lib list                                   chapters, profiles and parameters
    python -m lib run CHAPTER [--profile P] [--set k=v]  execute one chapter (validated first), rebuild the HTML (--no-build: not)
    python -m lib run all [--profile P]                  every chapter in _toc.yml
    python -m lib build                                  build the HTML from the executed chapters
    python -m lib book [--profile P]                     run all, then build (what `make book` does); the
                                                         default profile `auto` renders committed paper results
                                                         where they exist and runs the quick profile elsewhere
    python -m lib compute CHAPTER [--profile P] [--jobs J]  the chapter's computation through lib alone (no
                                                         Jupyter: torch, numpy, PyYAML; for a GPU machine),
                                                         stored for a later `run` to render; J worker processes
                                                         share the sweep
    python -m lib compute all --cluster tcp://host:8786  the same on a Dask cluster's workers
    python -m lib compute --all --deadline 540           every chapter in dependency order, stopping between
                                                         points before the deadline; exit status 3: unfinished,
                                                         the same command resumes from the stored points
    python -m lib new NAME [--title T]                   a working chapter skeleton (source, compute, page,
                                                         profiles, test, toc line)
    python -m lib pdf                                    the whole book as one PDF (_build/html/book.pdf, linked
                                                         from the intro), printed from the built HTML by headless
                                                         Chromium
    python -m lib diff CHAPTER A B                       what moved between two result sets (a profile, a results
                                                         folder, or REV:PROFILE at a git commit): each claim's
                                                         verdict and measured value on both sides, each changed
                                                         stored number against its seeds' range; exit status 1
                                                         when a verdict changed
    python -m lib decide CHAPTER [--profile P]           recompute a stored profile's claims and their power
                                                         from its points, without the notebook
    python -m lib verify [CHAPTER]                       every committed result set: its manifest, its claims
                                                         recomputed from its points, its parameters and code hash

Exit statuses (EXIT_STATUSES, printed by --help): 0 done; 1 a chapter failed, `diff` found a verdict changed or
`verify` a problem; 2 bad input, or stored results damaged or not matching their manifest (one line on stderr,
nothing rewritten); 3 `compute --deadline` stopped with points left; 4 it finished none.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time

from lib.core import params as params_mod
from lib.core.progress import first_line


def paper_status(chapter: str) -> str:
    """What `list` says of a chapter's paper profile: how many of its points are stored, and what that means."""
    from lib.core.runner import paper_progress

    done = paper_progress(chapter)
    if done is None:
        return f"none stored (python -m lib compute {chapter} --profile paper)"
    if done[0] == done[1]:
        return f"complete, {done[1]} points stored (make book renders them)"
    return (f"in progress, {done[0]} of {done[1]} points stored (python -m lib compute {chapter} --profile paper "
            "resumes; the page shows the quick profile until all are stored)")


def _list() -> None:
    from lib.core.runner import paper_progress, toc_chapters

    in_toc = set(toc_chapters())
    for chapter in params_mod.chapters():
        print(f"{chapter}{'' if chapter in in_toc else '  (not in _toc.yml)'}")
        print(f"  profiles: {', '.join(params_mod.profiles(chapter)) or 'none'}")
        if "paper" in params_mod.profiles(chapter):
            print(f"  paper results: {paper_status(chapter)}")
        for profile in sorted(set(params_mod.profiles(chapter)) - {"paper", "quick"}):   # like paper, not rendered
            if done := paper_progress(chapter, profile):
                print(f"  {profile} results: {done[0]} of {done[1]} points stored"
                      + ("" if done[0] == done[1] else f" (python -m lib compute {chapter} --profile {profile} resumes)"))
        for p in params_mod.load_schema(chapter).values():
            print(f"  {p.name:<16} {str(p.default):<28} {p.form:<30} {p.help}")


def refuse_partial_paper(chapter: str) -> None:
    """`run CHAPTER --profile paper` renders stored paper results: with a point missing it would compute paper-scale
    points in a notebook (hours), so it refuses in one line (ParamError) and names the command that computes them."""
    from lib.core.verify import stored_points

    stored, total = stored_points(chapter, "paper")
    if stored < total:
        raise params_mod.ParamError(f"run {chapter} --profile paper: {stored} of {total} points stored in results/"
                                    f"{chapter}/paper/, and `run` renders stored paper results without computing "
                                    f"them: python -m lib compute {chapter} --profile paper computes the rest "
                                    "(or run --profile quick)")


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


UNFINISHED = 3   # compute --deadline stopped with points left: rerun the same command to resume
STUCK = 4        # ... and this call finished none: every point left needs longer than the time it was given

EXIT_STATUSES = """exit statuses:
  0  done
  1  a chapter failed (its traceback; a read-only or full disk: one line), `diff`: a verdict changed, `verify`: a
     problem found (one line each)
  2  bad input, or stored results damaged or not matching their manifest: one line on stderr, nothing rewritten
  3  `compute --deadline`: stopped with points left; the same command resumes from the stored points
  4  `compute --deadline`: no point finished in this call (the deadline had passed, or every point left needs
     longer than the time it was given)"""


def deadline_time(text: str, now: float | None = None) -> float:
    """--deadline: seconds from now (540, 90.5) or an ISO 8601 time (2026-11-24T17:30:00Z; UTC unless it names
    its offset), as time.time() seconds."""
    from datetime import datetime, timezone

    now = time.time() if now is None else now
    if re.fullmatch(r"[0-9]{1,9}(\.[0-9]{1,6})?", text or ""):
        return now + float(text)
    try:
        when = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise params_mod.ParamError(f"--deadline: expected seconds from now (e.g. 540) or an ISO 8601 time "
                                    f"(e.g. 2026-11-24T17:30:00Z), got {params_mod.shown(text)}") from None
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()


def cluster_address(text: str | None) -> str | None:
    """--cluster (or $BOOK_CLUSTER): a Dask scheduler's address, tcp://host:port (or host:port)."""
    if not text:
        return None
    if not re.fullmatch(r"((tcp|tls|ws|wss)://)?[A-Za-z0-9._\[\]:-]{1,200}:[0-9]{1,5}", text):
        raise params_mod.ParamError(f"--cluster: expected a Dask scheduler's address such as tcp://10.0.0.5:8786, "
                                    f"got {params_mod.shown(text)}")
    return text


def _compute(args, chapters: list[str], log) -> int:
    """compute: validate every chapter, then compute them in dependency order, stopping at the deadline."""
    from lib.core.runner import compute_chapter, in_dependency_order
    from lib.core.sweep import Unfinished
    from lib.core.verify import stored_points

    jobs = jobs_count(args.jobs)
    cluster = cluster_address(args.cluster if args.cluster is not None else os.environ.get("BOOK_CLUSTER"))
    if cluster and jobs > 1:
        raise params_mod.ParamError("--jobs and --cluster: give one (a cluster's workers share its sweep)")
    deadline = deadline_time(args.deadline) if args.deadline is not None else None
    past = deadline is not None and deadline <= time.time()     # no point can start: said so, not "too long"
    if deadline is not None and args.force:
        raise params_mod.ParamError("--force and --deadline: give one (a forced sweep recomputes what the last call "
                                    "stored, so it cannot resume)")
    overrides = params_mod.parse_overrides(args.set)
    missing = {}   # chapter -> the module its computation imports that is not installed here

    def skip(chapter: str, err: ModuleNotFoundError) -> None:
        """A chapter whose computation needs a package not installed here: said once; the other chapters go on."""
        if len(chapters) == 1:
            raise err
        missing[chapter] = err.name
        print(f"error: {chapter}: its computation needs the Python module {err.name!r}, not installed here "
              f"(pip install {err.name}); skipped", file=sys.stderr)

    for chapter in chapters:
        try:
            params_mod.resolve(chapter, args.profile, overrides)
        except ModuleNotFoundError as err:
            skip(chapter, err)
    order = in_dependency_order(chapters)
    if deadline is not None:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(deadline))
        print(f"compute: {len(order)} chapter(s), deadline {stamp} ({deadline - time.time():.0f} s from now)", flush=True)
    before = {c: stored_points(c, args.profile, overrides)[0] for c in order if c not in missing} if deadline else {}
    unfinished, abandoned = False, 0   # whether a chapter stopped with points left; points abandoned at the deadline
    for chapter in order:
        if chapter in missing:
            continue
        if deadline is not None and time.time() >= deadline:
            unfinished = True
            continue
        try:   # a chapter whose points left are all longer than the time left does not hold up the next ones
            compute_chapter(chapter, args.profile, overrides, force=args.force, jobs=jobs, log=log, cluster=cluster,
                            deadline=deadline)
        except Unfinished as err:
            unfinished, abandoned = True, abandoned + err.abandoned
        except ModuleNotFoundError as err:   # a run function's own import (scipy, say)
            skip(chapter, err)
    if unfinished:
        print(f"deadline: stopped between points with points left; every finished point is stored. Points stored "
              f"per chapter ({args.profile} profile):")
        new = 0
        for chapter in order:
            if chapter in missing:
                print(f"  {chapter:<26} skipped: needs {missing[chapter]}")
                continue
            done, total = stored_points(chapter, args.profile, overrides)
            new += done - before[chapter]
            print(f"  {chapter:<26} {done:>5}/{total:<5} (+{done - before[chapter]} in this call)"
                  + ("  done" if done == total else ""))
        if new == 0 and not abandoned:
            why = (f"the deadline {stamp} had passed when this call started" if past else
                   "every point left needs longer than the time it had")
            sys.stdout.flush()
            print(f"error: no point finished in this call: {why}; give a later deadline (exit status 4)", file=sys.stderr)
            return STUCK
        print("rerun the same command to resume from the stored points (exit status 3: unfinished)")
        sys.stdout.flush()
        return UNFINISHED
    return 1 if missing else 0


def main(argv=None) -> int:
    ap = _Parser(prog="python -m lib", description="Run and build the companion book.", epilog=EXIT_STATUSES,
                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    sub.add_parser("list", help="chapters, profiles and their parameters")
    helps = {"run": "execute chapters", "book": "run every chapter, then build",
             "compute": "a chapter's computation without Jupyter, stored for `run` to render"}
    for name in ("run", "book", "compute"):
        p = sub.add_parser(name, help=helps[name])
        if name == "compute":
            p.add_argument("chapter", nargs="?", help="a chapter name, or 'all' for every chapter in _toc.yml")
            p.add_argument("--all", action="store_true", help="every chapter in _toc.yml (the same as chapter 'all')")
        elif name != "book":
            p.add_argument("chapter", help="a chapter name, or 'all' for every chapter in _toc.yml")
        default = "auto" if name == "book" else "paper" if name == "compute" else "quick"
        p.add_argument("--profile", default=default, help=f"parameters/<chapter>/<profile>.yaml (default: {default}"
                       + ("; auto: paper where results/<chapter>/paper/ holds results, else quick)" if name == "book" else ")"))
        p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override one parameter (YAML value)")
        p.add_argument("--force", action="store_true", help="recompute sweep points even if stored")
        if name == "run":
            p.add_argument("--no-build", action="store_true", help="leave the HTML as it is (lib build renders it later)")
        if name == "compute":
            p.add_argument("--jobs", default="1", metavar="J",
                           help="worker processes sharing the sweep (default 1; on a GPU 8 keeps it busy)")
            p.add_argument("--cluster", default=None, metavar="ADDRESS",
                           help="a Dask scheduler (tcp://host:8786; default $BOOK_CLUSTER): its workers compute the points")
            p.add_argument("--deadline", default=None, metavar="SECONDS|TIME",
                           help="stop between points before this (seconds from now, or an ISO 8601 time); "
                                "exit status 3 if points are left, and the same command resumes")
    sub.add_parser("build", help="build the HTML book from the executed chapters (no execution)")
    new = sub.add_parser("new", help="write a working chapter skeleton that follows the chapter contract")
    new.add_argument("name", help="the chapter's name: lowercase letters, digits and underscores")
    new.add_argument("--title", default=None, help="the chapter's title (default: from the name)")
    pdf_cmd = sub.add_parser("pdf", help="the whole book as one PDF, printed from the built HTML by headless Chromium")
    pdf_cmd.add_argument("--paper", default="letter", help="paper size: letter (default, book.pdf) or a4 (book-a4.pdf)")
    dec = sub.add_parser("decide", help="recompute a stored profile's claims.json and power.json from its points, "
                         "without the notebook (refuses a tree whose claims code differs from its commit)")
    dec.add_argument("chapter", help="a chapter name, or 'all'")
    dec.add_argument("--profile", default="paper", help="parameters/<chapter>/<profile>.yaml (default: paper)")
    ver = sub.add_parser("verify", help="check every committed result set: manifest, claims, parameters, code hash "
                         "(exit 1: a problem, one line each)")
    ver.add_argument("chapter", nargs="?", help="a chapter name (default: every chapter)")
    dif = sub.add_parser("diff", help="what moved between two result sets of a chapter (exit 1: a verdict changed)")
    dif.add_argument("chapter", help="a chapter name")
    for side in ("A", "B"):
        dif.add_argument(side.lower(), metavar=side, help="a profile (results/<chapter>/<profile>/), a results folder, "
                         "or REV:PROFILE (the results stored at a git commit; REV alone: its paper profile)")
    dif.add_argument("--limit", type=int, default=10, help="changed numbers shown per sweep point (default 10)")
    res = sub.add_parser("restamp", help="re-stamp a profile's stored points with today's lib hash, where the code "
                         "that computed them is shown unchanged (exit 2: refused, nothing rewritten)")
    res.add_argument("chapter", help="a chapter name")
    res.add_argument("--profile", default="paper", help="parameters/<chapter>/<profile>.yaml (default: paper)")
    res.add_argument("--rev", help="the git revision whose code computed the stored points (required; with "
                     "--from-bytes, default HEAD)")
    res.add_argument("--check", type=int, default=0, metavar="K",
                     help="recompute the K cheapest points stored from this kind of device and require them identical")
    res.add_argument("--partial", action="store_true",
                     help="re-stamp the points whose run function reaches nothing that changed; leave the others")
    res.add_argument("--evidence", metavar="DIR", help="a store of this profile that today's code computed "
                     "(BOOK_RESULTS=ROOT python -m lib compute ...; DIR: ROOT/<chapter>/<profile>): points whose run "
                     "function reaches a change are re-stamped where DIR holds them identical")
    res.add_argument("--from-bytes", action="store_true",
                     help="points stamped with the older raw-bytes hash, of the code at --rev whose "
                     "parsed code is today's: give them today's hash (the same code)")
    args = ap.parse_args(argv)
    show = first_line(args) if args.cmd in ("run", "book", "compute") else None   # before anything slow (the kernel)

    # runner imports no Jupyter package at module level: `compute` works on a machine with torch, numpy and PyYAML
    from lib.core.executors import ClusterError
    from lib.core.manifest import DamagedResult
    from lib.core.runner import (
        ChapterFailed,
        build_book,
        in_dependency_order,
        paper_progress,
        paper_results_exist,
        run_plan,
        toc_chapters,
    )

    try:
        if args.cmd == "list":
            _list()
            return 0
        if args.cmd == "pdf":
            from lib.core.pdf import build_pdf

            build_pdf(paper=args.paper)
            return 0
        if args.cmd == "verify":
            from lib.core.verify import verify_all

            return verify_all(args.chapter)
        if args.cmd == "decide":
            from lib.core.decide import decide

            for chapter in (toc_chapters() if args.chapter == "all" else [args.chapter]):
                params_mod.resolve(chapter, args.profile)    # an unknown chapter or profile: one line, exit 2
                decide(chapter, args.profile)
            return 0
        if args.cmd == "diff":
            from lib.core.diff import diff

            return diff(args.chapter, args.a, args.b, limit=max(args.limit, 0))
        if args.cmd == "restamp":
            from lib.core.rehash import rehash
            from lib.core.restamp import RestampRefused, restamp

            params_mod.resolve(args.chapter, args.profile)   # an unknown chapter or profile: one line, exit 2
            if not args.rev and not args.from_bytes:
                raise params_mod.ParamError("restamp: --rev REV is required (the git revision whose code computed the "
                                            "stored points), or --from-bytes")
            try:
                if args.from_bytes:
                    rehash(args.chapter, args.profile, args.rev or "HEAD")
                else:
                    restamp(args.chapter, args.profile, args.rev, check=max(args.check, 0), partial=args.partial,
                            evidence=args.evidence)
            except RestampRefused as err:
                raise params_mod.ParamError(f"restamp {args.chapter} {args.profile}: refused, nothing rewritten: {err}") from None
            return 0
        if args.cmd == "new":
            from lib.core.scaffold import new_chapter

            for path in new_chapter(args.name, args.title):
                print(f"wrote {path.relative_to(params_mod.ROOT)}")
            print(f"next: python -m lib run {args.name}  (then replace the stand-in experiment)")
            return 0
        if args.cmd == "compute":
            if args.all == (args.chapter is not None):
                raise params_mod.ParamError("compute: expected a chapter name, 'all' or --all (one of them)")
            chapters = toc_chapters() if args.all or args.chapter == "all" else [args.chapter]
            return _compute(args, chapters, show)

        if args.cmd in ("run", "book"):
            chapters = toc_chapters() if args.cmd == "book" or args.chapter == "all" else [args.chapter]
            chapters = in_dependency_order(chapters) if len(chapters) > 1 else chapters
            overrides = params_mod.parse_overrides(args.set)
            plan = []  # (chapter, profile, stored_only)
            for chapter in chapters:
                if args.profile == "auto":
                    stored = paper_results_exist(chapter)
                    if not stored and (done := paper_progress(chapter)):   # never a silent fall back to quick
                        print(f"{chapter}: paper: {done[0]} of {done[1]} points stored, rendering quick (python -m lib "
                              f"compute {chapter} --profile paper computes the rest)", file=sys.stderr)
                    plan.append((chapter, "paper" if stored else "quick", stored))
                else:   # committed paper results are rendered as they are stored: a run rewrites none of them
                    plan.append((chapter, args.profile, args.profile == "paper" and not overrides and not args.force
                                 and paper_results_exist(chapter)))
            for chapter, profile, _ in plan:  # validate every chapter's input before executing any
                params_mod.resolve(chapter, profile, overrides)
                if profile == "paper" and args.profile == "paper" and not overrides:
                    refuse_partial_paper(chapter)
            run_plan(plan, overrides, args.force, getattr(args, "no_build", False), show)
        if args.cmd == "build":
            build_book()
        return 0
    except (params_mod.ParamError, DamagedResult) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except ChapterFailed as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except OSError as err:   # a read-only or full disk met by `compute` (a run's notebook reports its own)
        from lib.core.store import environment_fault

        if not (fault := environment_fault(err)):
            raise
        print(f"error: {fault}; every finished sweep point is kept, and a rerun resumes from them", file=sys.stderr)
        return 1
    except (ClusterError, ModuleNotFoundError) as err:   # compute where a package (or the cluster) is missing
        print(f"error: {str(err).splitlines()[0] if str(err) else type(err).__name__}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
