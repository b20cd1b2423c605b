"""Re-deciding a result set's claims from its stored points, without the notebook: the chapter's claim rows
evaluated on the stored points, the power of their rules computed (lib.core.power), the verdicts gated by it
(lib.core.gate), and `claims.json`, `power.json` and the manifest's entries for them rewritten; nothing else is
touched. A tree whose claims code differs from its commit is refused before anything is written, naming the files,
because the stored claims would then come from code no commit holds.

    python -m lib decide ffn_span --profile paper      # seconds; sample_complexity's power takes a few minutes

    >>> rows, table = judged("turing_simulation", "paper")      # what `decide` would write, without writing it
    >>> sorted({r["kind"] for r in rows}), {"row", "world", "role", "pass"} <= set(table[0])
    (['check', 'claim'], True)
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from lib.core import params as params_mod
from lib.core.gate import gate
from lib.core.manifest import write_manifest
from lib.core.power import draws_for
from lib.core.reach import module
from lib.core.store import ROOT, Store
from lib.core.sweep import collect


class DirtyTree(params_mod.ParamError):
    """The claims code or parameters differ from the commit: stored claims would come from uncommitted code."""


# decide trains nothing (a missing point raises) and every stored point it loads is checked against the manifest's
# bytes: the modules that only schedule and run points or notebooks, and print their progress, cannot move a claim.
RUNS_POINTS = ("lib/core/sweep.py", "lib/core/schedule.py", "lib/core/executors.py", "lib/core/runner.py")


def claims_sources(chapter: str) -> list[str]:
    """The files whose code and parameters decide a chapter's claims: every lib module that its page, this module and
    the compute modules of the chapters whose stored points it reads (READS) import, and its parameters."""
    import sys

    module(chapter, "page")
    for c in getattr(module(chapter), "READS", ()):
        module(c, "compute")
    lib = ROOT / "lib"
    files = {Path(m.__file__).resolve() for m in list(sys.modules.values())
             if getattr(m, "__file__", None) and m.__name__.startswith("lib")}
    rel = sorted(str(f.relative_to(ROOT)) for f in files if f.is_relative_to(lib))
    return [f for f in rel if f not in RUNS_POINTS] + [f"parameters/{chapter}"]


def dirty_files(chapter: str) -> list[str]:
    """The files among `claims_sources` that differ from the checkout's commit (or are not in it)."""
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--", *claims_sources(chapter)], cwd=ROOT,
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    # an untracked profile is not the one decided; an untracked module the claims import is
    return [line[3:] for line in out.stdout.splitlines() if line.strip()
            and (not line.startswith("??") or line[3:].startswith("lib/"))]


def judged(chapter: str, profile: str, root: Path | None = None, draws: int | None = None,
           folder: Path | None = None) -> tuple[list[dict], list[dict]]:
    """(rows, power table) of a stored result set, recomputed from its points (nothing is trained: a missing point
    raises MissingResult): the rows gated by the table. draws: per world (default: lib.core.power.draws_for)."""
    compute, page = module(chapter, "compute"), module(chapter, "page")
    P = params_mod.resolve(chapter, profile)
    store = Store(chapter, profile, root=root, stored_only=True)
    if folder is not None:
        store.dir = Path(folder)
    results = collect(compute.points(P), store, "cpu", log=None)
    rows = page.claims(P, results)
    table = page.power(P, results, draws or draws_for(profile)) if hasattr(page, "power") else []
    return gate(rows, table), table


def decide(chapter: str, profile: str = "paper", root: Path | None = None, log=print, check_tree: bool = True) -> int:
    """`python -m lib decide CHAPTER --profile P`: recompute and store claims.json and power.json (and the manifest
    over them) from the stored points. Returns the exit status (0)."""
    if check_tree and (dirty := dirty_files(chapter)):
        raise DirtyTree(f"decide {chapter}: the claims would come from uncommitted code or parameters; commit or "
                        f"revert first: {', '.join(dirty[:8])}{' ...' if len(dirty) > 8 else ''}")
    store = Store(chapter, profile, root=root, stored_only=True)
    log(f"{chapter}/{profile}: recomputing the claims and their power from the stored points ...")
    rows, table = judged(chapter, profile, root)
    store.write("claims.json", rows)
    store.write("power.json", table)
    if (store.dir / "manifest.json").is_file():
        write_manifest(store.dir)
    shown = sum(1 for r in rows if r["kind"] == "claim")
    open_ = sum(1 for r in rows if r["kind"] == "claim" and (r.get("undecided") or r.get("censored")))
    log(f"{chapter}/{profile}: {shown} claim rows ({open_} undecided), {len(table)} power entries -> {store.dir}")
    return 0
