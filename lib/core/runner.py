"""Execute chapters (jupytext -> papermill) and build the book (Jupyter Book 1.x), with nothing lost on failure.

A chapter's source is book/chapters/<name>.md; its executed copy is book/executed/<name>.ipynb, written only
after papermill finished without error (temporary file, then rename), so a failed or interrupted run leaves the
last good notebook in place. The sweep points a run finished are in the results store already, so a rerun
resumes from them.

    python -m lib run sample_complexity --profile quick --set n_seeds=3
    python -m lib build
"""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import yaml

from lib.core import params as params_mod
from lib.core.claims import below_scale, censored, tally
from lib.core.manifest import DamagedResult
from lib.core.progress import NOTEBOOK_BEAT_S, Heartbeat, Watch, durations, page_of, relay, seconds, shown, watched_engine
from lib.core.store import ROOT, atomic_write, clean_temps, environment_fault, read_json, results_root, shown_device
from lib.core.tables import markdown_table

EXECUTED = ROOT / "book" / "executed"


def executed_root() -> Path:
    """Where `run` writes executed notebooks: $BOOK_EXECUTED (tests point it at a temporary directory) or
    book/executed."""
    return Path(os.environ.get("BOOK_EXECUTED", EXECUTED))


# papermill re-infers the parameters cell to warn about unknown keys; params.resolve() has already rejected them,
# and papermill's inference misreads our constraint comments, so its warnings are noise here.
logging.getLogger("papermill").setLevel(logging.ERROR)
warnings.filterwarnings("ignore", message="Passed unknown parameter")


class ChapterFailed(RuntimeError):
    pass


def toc_chapters(root: Path = ROOT) -> list[str]:
    """Chapters in _toc.yml order: the entries under book/executed/ that have a source in book/chapters/."""
    def files(node) -> list[str]:   # the `file:` entries in order, however parts, chapters and sections nest
        if isinstance(node, dict):
            own = [node["file"]] if isinstance(node.get("file"), str) else []
            return own + [f for v in node.values() for f in files(v)]
        return [f for item in node for f in files(item)] if isinstance(node, list) else []

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    names = [Path(f).name for f in files(toc) if f.startswith("book/executed/")]
    return [n for n in names if (params_mod.CHAPTERS_DIR / f"{n}.md").is_file()]


def _hide_parameter_cells(nb) -> None:
    """papermill's injected cell and the defaults cell are replaced on the page by the chapter's parameter table."""
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if "parameters" in tags or "injected-parameters" in tags:
            cell.metadata["tags"] = sorted(set(tags) | {"remove-cell"})


@contextmanager
def _kernel_env(**values: str):
    """Environment variables the chapter's kernel inherits (lib.core.chapter and lib.core.store read them), restored after."""
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def paper_progress(chapter: str, profile: str = "paper") -> tuple[int, int] | None:
    """(stored, total) points of the chapter's paper profile (or another) in the results folder; None where none is
    stored."""
    if not (Path(results_root()) / chapter / profile / "points").is_dir():
        return None
    from lib.core.verify import progress

    return progress(chapter, profile)[:2]


def paper_results_exist(chapter: str) -> bool:
    """Every point of the chapter's paper profile is stored: `python -m lib book` renders them instead of the quick
    profile. A profile still being computed (some points stored) is not rendered."""
    done = paper_progress(chapter)
    return done is not None and done[0] == done[1] > 0


def reads(chapter: str) -> tuple[str, ...]:
    """The chapters whose stored results this chapter's page reads (READS in lib/chapters/<chapter>/__init__.py)."""
    from lib.core.reach import module

    return tuple(getattr(module(chapter), "READS", ()))


SCALE_KINDS = {"exact": "the paper's experiment", "subset": "a subset of the paper's experiment",
               "book": "this book's scale (the paper has no experiment)"}


def paper_scale(chapter: str, detail: bool = True) -> str:
    """What a chapter's paper profile reproduces, in words (PAPER_SCALE in lib/chapters/<chapter>/__init__.py: a kind
    of SCALE_KINDS and what it leaves out or adds): for the execution report and the chapter's note; the kind alone
    (detail False) for the intro's table."""
    import importlib
    kind, more = getattr(importlib.import_module(f"lib.chapters.{chapter}"), "PAPER_SCALE", ("", ""))
    if kind not in SCALE_KINDS:
        return ""
    return SCALE_KINDS[kind] + (f": {more}" if more and detail else "")


def in_dependency_order(chapters: list[str]) -> list[str]:
    """The chapters in the given (toc) order, except that a chapter runs after every chapter it READS: a
    cross-chapter read is declared, not an accident of toc order."""
    done, out = set(), []

    def visit(name, path=()):
        if name in done:
            return
        if name in path:
            raise ChapterFailed(f"chapters read each other's results in a cycle: {' -> '.join(path + (name,))}")
        for dep in reads(name):
            if dep in chapters:
                visit(dep, path + (name,))
        done.add(name)
        out.append(name)

    for name in chapters:
        visit(name)
    return out


def compute_chapter(chapter: str, profile: str = "paper", overrides: dict | None = None, force: bool = False,
                    log=print, jobs: int = 1, cluster: str | None = None, deadline: float | None = None) -> Path:
    """Run a chapter's computation through lib alone (no Jupyter: the GPU machine has none) and store it.

    Writes every sweep point the notebook needs, plus compute.json (device, torch, commit, wall time, seeds,
    parameters); `python -m lib run CHAPTER --profile PROFILE` then renders the stored results anywhere, in seconds.
    jobs > 1: that many worker processes compute the missing points (lib.core.sweep.collect); cluster: a Dask
    scheduler's address whose workers compute them; every point is computed from its own seeds, so the numbers
    depend on neither. deadline (time.time() seconds): stop between points before it; raises sweep.Unfinished
    when points are left (compute.json and the profile's manifest.json are written only by a call that finished).
    """
    from lib.core.manifest import write_manifest
    from lib.core.reach import module as chapter_module
    from lib.core.store import Store, environment, write_json
    from lib.core.sweep import collect

    values = params_mod.resolve(chapter, profile, overrides)
    module = chapter_module(chapter, "compute")
    store = Store(chapter, profile, stored_only=False)
    t0 = time.perf_counter()
    if cluster and values.get("device", "auto") == "auto":   # the workers' device, not this machine's
        from lib.core.executors import cluster_device

        device, name = cluster_device(cluster)
        env = {**environment("cpu", chapter), "device": name}
    else:
        device = params_mod.resolve_device(values.get("device", "auto"))
        env = environment(device, chapter)
    collect(module.points(values), store, device, jobs=jobs, force=force, log=log, env=env, cluster=cluster,
            deadline=deadline)
    prov = {"chapter": chapter, "profile": profile, "wall_s": round(time.perf_counter() - t0, 2), "jobs": jobs,
            "cluster": cluster, "seeds": {k: v for k, v in values.items() if "seed" in k}, "params": values, **env}
    write_json(store.dir / "compute.json", prov)
    write_manifest(store.dir)                      # the profile is complete: its points' sha256, committed with them
    log(f"{chapter}: finished in {prov['wall_s']} s on {prov['device']} -> {store.dir}")
    return store.dir


def run_chapter(chapter: str, profile: str = "quick", overrides: dict | None = None, force: bool = False,
                out_dir: Path | None = None, log=print, stored_only: bool = False) -> Path:
    """Validate, execute and save one chapter. Raises ParamError (bad input) or ChapterFailed (its code failed).

    stored_only: render stored results and never compute (a missing result fails the chapter); claims.json and
    provenance.json of the stored run are left as they are.
    """
    import jupytext
    import nbformat
    import papermill as pm

    values = params_mod.resolve(chapter, profile, overrides)  # every check before anything runs
    out_dir = Path(out_dir or executed_root())
    nb = jupytext.read(params_mod.chapter_source(chapter))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    # Working copies carry this process's pid: a concurrent run of the same chapter has its own, and clean_temps
    # removes those of a killed run.
    src = out_dir / f".{chapter}.{os.getpid()}.source.tmp.ipynb"
    tmp = out_dir / f".{chapter}.{os.getpid()}.running.tmp.ipynb"
    progress_file = out_dir / f".{chapter}.{os.getpid()}.progress.tmp"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        clean_temps(out_dir)
        nbformat.write(nb, src)
    except OSError as err:
        raise ChapterFailed(f"chapter {chapter} failed: cannot write in {out_dir}: {err.strerror or err}; the last "
                            "good notebook and every stored result are unchanged") from None
    t0 = time.perf_counter()
    watch = Watch(chapter, durations(out_dir / f"{chapter}.ipynb", profile))
    log(f"running {chapter} with profile {profile}{' (stored results only)' if stored_only else ''}: starting its kernel")
    try:
        with _kernel_env(BOOK_FORCE="1" if force else "0", BOOK_STORED_ONLY="1" if stored_only else "0",
                         BOOK_PROGRESS=str(progress_file)), Heartbeat(log, watch.what, NOTEBOOK_BEAT_S) as beat, \
                relay(progress_file, beat.say):
            # The kernel logs nothing of its own: its warning that local TCP sockets are unencrypted is noise on one
            # machine, and when a cell fails under load the shutdown that follows can make it log "KeyboardInterrupt
            # caught in kernel" (an ERROR) beside the run's one-line error. A cell's error reaches us through papermill.
            pm.execute_notebook(str(src), str(tmp), parameters=values, cwd=str(ROOT), kernel_name="python3",
                                progress_bar=False, log_output=False, engine_name=watched_engine(watch),
                                extra_arguments=["--IPKernelApp.log_level=CRITICAL"])
        done = nbformat.read(tmp, as_version=4)
    except pm.PapermillExecutionError as err:
        if err.ename == "DamagedResult":             # a stored point that does not match its manifest: one line, exit 2
            raise DamagedResult(err.evalue) from None
        if fault := environment_fault(err.evalue):   # a read-only or full disk: one line, no traceback
            raise ChapterFailed(f"chapter {chapter} failed in cell {err.exec_count}: {fault}; every finished sweep "
                                "point and the last good notebook are kept, and a rerun resumes from them") from None
        raise ChapterFailed(f"chapter {chapter} failed in cell {err.exec_count}: {err.ename}: {err.evalue}\n"
                            + "\n".join(err.traceback)) from None
    except KeyboardInterrupt:
        raise ChapterFailed(f"chapter {chapter} interrupted; the last good notebook and every finished sweep point "
                            "are kept, and a rerun resumes from them") from None
    except Exception as err:  # the kernel died, could not start, ...
        raise ChapterFailed(f"chapter {chapter} failed: {type(err).__name__}: {err}") from None
    finally:
        for path in (src, tmp, progress_file):
            path.unlink(missing_ok=True)
    _hide_parameter_cells(done)
    done.metadata["book"] = {"chapter": chapter, "profile": profile, "wall_s": round(time.perf_counter() - t0, 1),
                             "results": str(Path(results_root()) / chapter / profile), "stored_only": stored_only}
    target = out_dir / f"{chapter}.ipynb"
    try:
        atomic_write(target, nbformat.writes(done))
    except OSError as err:
        raise ChapterFailed(f"chapter {chapter} failed: cannot write {target}: {err.strerror or err}; the last good "
                            "notebook is unchanged") from None
    shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
    log(f"{chapter}: executed in {done.metadata['book']['wall_s']} s -> {shown}")
    return target


# -------------------------------------------------------------------------------------------- the book
def _runs(chapters: list[str], executed_dir: Path) -> list[dict]:
    """What produced each chapter's page: its notebook's run metadata, its provenance and its claim rows."""
    out = []
    for chapter in chapters:
        meta = json.loads((executed_dir / f"{chapter}.ipynb").read_text())["metadata"]["book"]
        results = Path(meta["results"])
        shows = short = meta["profile"] + (" (stored results)" if meta.get("stored_only") else "")
        if meta["profile"] == "paper" and (scale := paper_scale(chapter)):
            shows += f": {scale}"
            short += f": {paper_scale(chapter, detail=False)}"      # the intro's table: one line a chapter
        done = paper_progress(chapter) if meta["profile"] != "paper" else None
        if done and done[0] < done[1]:                 # a reader learns that the paper's scale is on its way
            shows += f"; paper: {done[0]} of {done[1]} points computed"
            short += f"; paper: {done[0]} of {done[1]} points computed"
        out.append({"chapter": chapter, "meta": meta, "shows": shows, "short": short,
                    "prov": read_json(results / "provenance.json") if (results / "provenance.json").is_file() else {},
                    "claims": read_json(results / "claims.json") if (results / "claims.json").is_file() else []})
    return out


def _counts(claims: list[dict], kind: str) -> str:
    """'✓ 5 · ✗ 2' for a kind of row, or a dash where the chapter has none."""
    ok, bad = tally(claims, kind)
    low, open_ = below_scale(claims, kind), censored(claims, kind)
    out = ("—" if ok + bad == 0 else f"✓ {ok}" if not bad else
           f"✓ {ok} · ✗ {bad}" + (f" ({low} below scale)" if low else ""))
    return out if not open_ else f"◌ {open_} censored" if ok + bad == 0 else f"{out} · ◌ {open_} censored"


def report_markdown(runs: list[dict]) -> str:
    """The execution-report page: for each chapter (runs: `_runs`), its verdicts first, then what produced the page."""
    rows = []
    for r in runs:
        meta, prov = r["meta"], r["prov"]
        rows.append([f"[{r['chapter']}]({r['chapter']}.ipynb)", _counts(r["claims"], "check"), _counts(r["claims"], "claim"),
                     r["shows"], f"{meta['wall_s']} s",
                     shown_device(prov.get("device", "?")), prov.get("torch", "?"), f"`{prov.get('commit', '?')}`",
                     f"`{prov.get('lib_hash', '?')}`"])
    return "\n".join([
        "# Execution report", "",
        "Every chapter page of this build was executed by `python -m lib run`; this table is generated from the "
        "provenance each run wrote (`results/<chapter>/<profile>/provenance.json`) and its claim rows "
        "(implementation checks and claims, passed ✓ and failed ✗; \"below scale\": failed where the page notes that the "
        "effect needs a larger run than this profile).", "",
        markdown_table(["chapter", "implementation checks", "claims", "profile", "wall time", "device", "torch",
                        "commit", "lib"], rows), "",
        "Wall time is the papermill execution of the whole notebook (kernel start included); results loaded from the "
        "store take seconds, trained ones take what their sweep took."]) + "\n"


def summary_markdown(runs: list[dict]) -> str:
    """The intro page's summary: each chapter (runs: `_runs`), the profile its page shows (what it reproduces in a
    few words; the chapter's note and the execution report say the rest) and its verdict counts."""
    rows = [[f"[{r['chapter'].replace('_', ' ')}](executed/{r['chapter']}.ipynb)", r["short"],
             _counts(r["claims"], "check"), _counts(r["claims"], "claim")] for r in runs]
    return markdown_table(["chapter", "profile", "implementation checks", "claims"], rows) + "\n"


MATHJAX_PARTS = ("tex-mml-chtml.js", "output/chtml", "input", "ui", "a11y", "sre")  # the one component we load


def vendor_mathjax(root: Path) -> Path:
    """Copy MathJax 3 (the pip package django-static-mathjax, files only) into <root>/_build/static/mathjax, which
    _config.yml adds to Sphinx's static path and names as mathjax_path, so the pages show their mathematics
    without a network (Sphinx's default loads MathJax from a CDN). Not <root>/_static: Jupyter Book would add a
    script tag for every .js file there to every page. Copies only what is missing."""
    import shutil
    from importlib.util import find_spec

    spec = find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise ChapterFailed("MathJax is not installed: pip install -r requirements.txt (django-static-mathjax)")
    src = Path(spec.submodule_search_locations[0]) / "static" / "mathjax" / "es5"
    dest = Path(root) / "_build" / "static" / "mathjax"
    for part in MATHJAX_PARTS:
        if not (dest / part).exists():
            (dest / part).parent.mkdir(parents=True, exist_ok=True)
            tmp = dest / f".{Path(part).name}.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            (shutil.copytree if (src / part).is_dir() else shutil.copy2)(src / part, tmp)
            os.replace(tmp, dest / part)
    return dest


def build_book(root: Path = ROOT, log=print) -> Path:
    """Build <root>/_build/html from the executed chapters; root holds _config.yml, _toc.yml and book/."""
    root = Path(root)
    executed = root / "book" / "executed"
    chapters = toc_chapters(root)
    missing = [c for c in chapters if not (executed / f"{c}.ipynb").is_file()]
    if missing:
        raise ChapterFailed(f"not executed yet: {', '.join(missing)}; run: python -m lib run {missing[0]} --profile quick")
    runs = _runs(chapters, executed)                                               # every notebook read once
    atomic_write(executed / "report.md", report_markdown(runs))
    atomic_write(executed / "summary.md", summary_markdown(runs))   # included by book/intro.md
    vendor_mathjax(root)
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb if jb.exists() else "jupyter-book"), "build", str(root), "--warningiserror", "--keep-going"]
    log("building the book: jupyter-book build " + str(root))
    with Heartbeat(log, lambda: f"building the HTML (jupyter-book build) for {seconds(beat.elapsed)}") as beat:
        proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ChapterFailed("jupyter-book build failed:\n" + proc.stdout[-6000:] + proc.stderr[-4000:])
    index = root / "_build" / "html" / "index.html"
    log(f"book built in {seconds(beat.elapsed)}: {index}")
    return index


def run_plan(plan: list[tuple[str, str, bool]], overrides: dict, force: bool, no_build: bool, show) -> None:
    """`run` and `book`: execute each (chapter, profile, stored_only), then `after_run`."""
    for chapter, profile, stored_only in plan:
        run_chapter(chapter, profile, overrides, force=force and not stored_only, stored_only=stored_only, log=show)
    after_run([c for c, _, _ in plan], no_build, show)


def after_run(chapters: list[str], no_build: bool, show) -> None:
    """After `run` (and `book`): rebuild the HTML and name the page, or say where the notebook is and how to render
    it."""
    notebooks = ", ".join(shown(executed_root() / f"{c}.ipynb") for c in chapters)
    if no_build:
        show(f"executed: {notebooks}; python -m lib build renders the HTML ({shown(page_of(chapters[0]))})")
        return
    if executed_root().resolve() != EXECUTED.resolve():
        show(f"executed: {notebooks}; the HTML is not rebuilt: BOOK_EXECUTED puts the notebooks outside "
             f"{shown(EXECUTED)}, which the book is built from")
        return
    missing = [c for c in toc_chapters() if not (EXECUTED / f"{c}.ipynb").is_file()]
    if missing:
        show(f"executed: {notebooks}; the HTML is not rebuilt: the book is built from every chapter, and "
             f"{len(missing)} are not executed yet ({', '.join(missing)}): make book (or python -m lib run all) "
             "executes them and builds it")
        return
    build_book(log=show)
    if len(chapters) == 1:
        show(f"the page: {shown(page_of(chapters[0]))}")
