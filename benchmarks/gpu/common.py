"""What the GPU step scripts share (benchmarks/gpu/step*.py; README.md beside them is the runbook).

A step computes points of one chapter's `paper` profile with `--set` overrides into a scratch store (a temporary
$BOOK_RESULTS: nothing under results/ is written), in one call of at most 10 minutes:

1. seed: the scratch folder <chapter>/paper/points/ gets every committed point of results/<chapter>/paper/ that the
   step's parameters share (same store key), except those the step recomputes on purpose, and every point of an
   earlier call's tarball of the same step (`--resume`; by default benchmarks/gpu/resume/<step>.tar.gz where it
   exists), with its deadline.json, so that the tarballs accumulate;
2. compute: the step's own points, those whose store key the paper profile does not have (the overrides changed
   them) and those it recomputes on purpose, through lib.core.sweep.collect as `python -m lib compute CHAPTER
   --profile paper --set ... --deadline S --jobs J` computes them (costliest first, each stored as it finishes, none
   started that would not end before the deadline). A point of the paper profile itself that is not committed is
   not the step's to compute: it is named, and left out;
3. pack: one tarball, $OUT/<step>.tar.gz, holding <chapter>/paper/ (the scratch folder: the seeded and the computed
   points, deadline.json, and compute.json and manifest.json once every point of the step's parameters is stored:
   then it is a complete result set that `python -m lib diff` reads), <step>.json (device, torch, commit, wall
   times, exit status, the points computed in this call with their wall times) and <step>.log (the output).

Exit status as `compute`'s: 0 every point stored, 3 stopped at the deadline with points left (the same command with
the tarball as --resume goes on), 4 none finished in this call, 1 a failure, 2 bad input; the tarball is written in
every case but bad arguments. `--tiny` shrinks the step to seconds on a CPU (tests/test_gpu_runbooks.py runs every
step so).

The GPU machine gets a copy of the working tree without .git: the commit its points are stamped with is --commit
(or $BOOK_COMMIT), the checkout's `git rev-parse --short=10 HEAD`.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PROFILE = "paper"
MARGIN_S = 25.0     # of --deadline, kept for packing the tarball and the process's exit
SUMMARY = ("device", "exit_status", "points_total", "points_stored", "complete", "computed_here", "compute_wall_s", "wall_s")


def parser(description: str, jobs: int, deadline: float = 540.0) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"), help="where the points train (default cuda)")
    ap.add_argument("--deadline", type=float, default=deadline,
                    help=f"seconds this script may take in all, packing included (default {deadline:.0f}: a 10-minute "
                         "call less Python's start and a margin)")
    ap.add_argument("--jobs", type=int, default=None, help=f"points computed at once (default {jobs} on cuda, 1 on cpu)")
    ap.set_defaults(gpu_jobs=jobs)
    ap.add_argument("--tiny", action="store_true", default=os.environ.get("GPU_STEP_TINY") == "1",
                    help="a grid of seconds on a CPU, for the tests (or GPU_STEP_TINY=1)")
    ap.add_argument("--commit", default=os.environ.get("BOOK_COMMIT"),
                    help="the commit the points are stamped with (default $BOOK_COMMIT; needed where there is no .git)")
    ap.add_argument("--out", default=os.environ.get("OUT"), help="where the tarball goes (default $OUT)")
    ap.add_argument("--resume", default=None,
                    help="an earlier call's tarball of this step to go on from (default benchmarks/gpu/resume/<step>.tar.gz "
                         "where it exists; 'none': the committed points only)")
    ap.add_argument("--scratch", default=None, help="the scratch results root (default: a temporary folder, removed)")
    ap.add_argument("--set", dest="extra", action="append", default=[], metavar="KEY=VALUE",
                    help="a further parameter override, after the step's own")
    ap.add_argument("--plan", action="store_true",
                    help="say which points the step would compute, and stop (no tarball; seconds, on any machine)")
    return ap


def fail(message: str) -> None:
    """Bad input to a step: one line, exit status 2 (as `python -m lib`)."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


class Tee:
    """Writes to a stream and to a log file."""

    def __init__(self, stream, log):
        self.stream, self.log = stream, log

    def write(self, text: str) -> int:
        self.log.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.log.flush()
        self.stream.flush()

    def isatty(self) -> bool:
        return False


def key(spec) -> str:
    from lib.core.store import key_of, spec_dict

    return key_of(spec_dict(spec))


def scratch_root() -> str:
    return tempfile.gettempdir()


def params_error() -> type:
    from lib.core.params import ParamError

    return ParamError


def resume_path(step: str, arg: str | None) -> Path | None:
    if arg == "none":
        return None
    path = Path(arg) if arg else ROOT / "benchmarks" / "gpu" / "resume" / f"{step}.tar.gz"
    if arg and not path.is_file():
        fail(f"--resume {arg}: no such file")
    return path if path.is_file() else None


def seed(chapter: str, points: list, folder: Path, recompute: Callable[[object], bool], resume: Path | None) -> dict:
    """Copy into folder/points the committed points of results/<chapter>/paper/ that `points` share, except those
    `recompute(point)` names, then every point (and deadline.json) of the tarball `resume` (an earlier call of the
    same step: its points, those of other parameters too, go on into this call's tarball). Returns the counts."""
    dest = folder / "points"
    dest.mkdir(parents=True, exist_ok=True)
    committed = ROOT / "results" / chapter / PROFILE / "points"
    n_committed = 0
    for p in points:
        src = committed / f"{key(p.spec)}.json"
        if src.is_file() and not recompute(p):
            shutil.copyfile(src, dest / src.name)
            n_committed += 1
    n_resume = 0
    if resume is not None:
        prefix = f"{chapter}/{PROFILE}/"
        with tarfile.open(resume) as tar:
            for member in tar.getmembers():
                rel = member.name[len(prefix):] if member.name.startswith(prefix) else ""
                if member.isfile() and (rel == "deadline.json" or (rel.startswith("points/") and rel.count("/") == 1
                                                                   and rel.endswith(".json"))):
                    (folder / rel).write_bytes(tar.extractfile(member).read())
                    n_resume += rel != "deadline.json"
    return {"from_committed": n_committed, "from_resume": n_resume}


def collect_points(chapter: str, points: list, jobs: int, deadline: float, device: str, env: dict) -> tuple[int, int]:
    """collect(points) into the scratch store before `deadline` (time.time()): (exit status, points abandoned)."""
    from lib.core.store import Store
    from lib.core.sweep import Unfinished, collect, progress

    try:
        collect(points, Store(chapter, PROFILE, stored_only=False), device, jobs=jobs, log=progress(sys.stdout),
                env=env, deadline=deadline)
        return 0, 0
    except Unfinished as err:
        return 3, err.abandoned


def run(step: str, chapter: str, args, sets: list[str], recompute: Callable[[object], bool] = lambda p: False,
        swap: Callable[[list], list] | None = None, note: dict | None = None, env_note: str = "") -> int:
    """Seed, compute and pack one step (the module docstring); its exit status. `sets`: the step's overrides (device
    and --set are appended here); `recompute(point)`: points of the paper profile recomputed on purpose; `swap`,
    where given, maps the points to collect to those actually run (a step that runs them another way);
    `env_note` is appended to the device name the computed points record."""
    t0 = time.time()
    args.jobs = args.jobs or (args.gpu_jobs if args.device == "cuda" else 1)
    if not args.out and not args.plan:
        fail("no $OUT and no --out: where should the tarball go?")
    if args.commit:
        os.environ["BOOK_COMMIT"] = args.commit
    elif not (ROOT / ".git").exists():
        fail("this tree has no .git: give --commit (the checkout's `git rev-parse --short=10 HEAD`) or BOOK_COMMIT, so "
             "the points say which code computed them")
    out = Path(args.out or scratch_root())
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(args.scratch) if args.scratch else Path(tempfile.mkdtemp(prefix=f"{step}-"))
    os.environ["BOOK_RESULTS"] = str(scratch)
    sets = [*sets, f"device={args.device}", *args.extra]
    folder = scratch / chapter / PROFILE
    folder.mkdir(parents=True, exist_ok=True)
    status, record = 1, {}
    with open(scratch / f"{step}.log", "w") as log, contextlib.redirect_stdout(Tee(sys.stdout, log)), \
            contextlib.redirect_stderr(Tee(sys.stderr, log)):
        try:
            status, record = _compute(step, chapter, args, sets, folder, recompute, swap, note, env_note, t0)
        except SystemExit as err:      # fail(): its line is printed
            status = err.code if isinstance(err.code, int) else 2
        except params_error() as err:  # a bad override, or cuda where there is none: one line, as `python -m lib`
            print(f"error: {err}", file=sys.stderr)
            status = 2
        except Exception as err:       # the tarball still holds what was stored; the traceback goes to the log
            import traceback

            traceback.print_exc()
            print(f"error: {step}: {type(err).__name__}: {err}", file=sys.stderr)
            status = 1
        finally:
            record = {**(record or {"step": step, "chapter": chapter}), "exit_status": status,
                      "wall_s": round(time.time() - t0, 1)}
            (scratch / f"{step}.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
            print(f"{step}: exit status {status}; {json.dumps({k: record[k] for k in SUMMARY if k in record})}", flush=True)
    if args.plan:
        shutil.rmtree(scratch, ignore_errors=True)
        return status
    tarball = out / f"{step}.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        for name in (f"{step}.json", f"{step}.log"):
            tar.add(scratch / name, arcname=name)
        tar.add(folder, arcname=f"{chapter}/{PROFILE}")
    print(f"{step}: wrote {tarball} ({tarball.stat().st_size / 1024:.0f} KiB) in {time.time() - t0:.0f} s", flush=True)
    if not args.scratch:
        shutil.rmtree(scratch, ignore_errors=True)
    return status


def _compute(step, chapter, args, sets, folder, recompute, swap, note, env_note, t0) -> tuple[int, dict]:
    from lib.chapters import points_of
    from lib.core import params
    from lib.core.files import write_json
    from lib.core.manifest import write_manifest
    from lib.core.store import environment

    P = params.resolve(chapter, PROFILE, params.parse_overrides(sets))
    points = points_of(chapter, P)
    paper = {key(p.spec) for p in points_of(chapter, params.resolve(chapter, PROFILE))}
    counts = seed(chapter, points, folder, recompute, resume_path(step, args.resume))
    before = {f.stem for f in (folder / "points").glob("*.json")}
    own = [p for p in points if key(p.spec) not in paper or recompute(p)]
    mine = {key(p.spec) for p in own}
    absent = [p for p in points if key(p.spec) not in before | mine]
    todo = [p for p in own if key(p.spec) not in before]
    print(f"{step}: {chapter}, {len(points)} points; {counts['from_committed']} from the committed paper points, "
          f"{counts['from_resume']} from the resumed tarball; {len(todo)} of the step's own {len(own)} to compute on "
          f"{args.device}, {args.jobs} at a time", flush=True)
    print(f"{step}: as `BOOK_RESULTS=<scratch> python -m lib compute {chapter} --profile paper "
          + " ".join(f"--set '{s}'" for s in sets) + f" --jobs {args.jobs} --deadline ...`", flush=True)
    if args.plan:
        for p in todo:
            print(f"  would compute: {p.name} (cost {p.cost:g})")
    if absent:
        print(f"{step}: {len(absent)} point(s) of the paper profile itself are not committed and are not this step's to "
              f"compute: {', '.join(p.name for p in absent[:6])}{', ...' if len(absent) > 6 else ''} (python -m lib "
              f"compute {chapter} --profile paper); the folder is a complete result set only with them", flush=True)
    if args.plan:
        return 0, {"step": step, "chapter": chapter, "points_total": len(points), "computed_here": 0}
    device = params.resolve_device(P["device"])
    env = environment(device, chapter)
    env["device"] += env_note
    t1 = time.time()
    gone = {key(p.spec) for p in absent}
    run_points = [p for p in points if key(p.spec) not in gone]
    status, abandoned = collect_points(chapter, swap(run_points) if swap else run_points, args.jobs,
                                       t0 + args.deadline - MARGIN_S, device, env)
    after = {f.stem for f in (folder / "points").glob("*.json")}
    names = {key(p.spec): p.name for p in points}
    computed = []
    for k in sorted((after - before) & set(names)):
        rec = json.loads((folder / "points" / f"{k}.json").read_text())
        computed.append({"name": names[k], "key": k, "wall_s": rec["result"].get("wall_s"), "device": rec["device"]})
    if status == 3 and not computed and not abandoned:
        status = 4
    complete = set(names) <= after
    if complete:     # as compute writes them when a profile completes
        write_json(folder / "compute.json", {"chapter": chapter, "profile": PROFILE, "wall_s": round(time.time() - t1, 2),
                                             "jobs": args.jobs, "cluster": None, "step": step, "sets": sets,
                                             "seeds": {k: v for k, v in P.items() if "seed" in k}, "params": P, **env})
        write_manifest(folder)
    import torch

    record = {"step": step, "chapter": chapter, "profile": PROFILE, "sets": sets, "tiny": args.tiny, "jobs": args.jobs,
              "device": env["device"], "torch": torch.__version__, "python": platform.python_version(),
              "commit": env["commit"], "lib_hash": env["lib_hash"],
              "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0)), "deadline_s": args.deadline,
              "points_total": len(names), "points_stored": len(after & set(names)), "complete": complete,
              "not_committed": [p.name for p in absent], "seeded": counts, "computed_here": len(computed),
              "abandoned": abandoned, "compute_wall_s": round(time.time() - t1, 1), "computed": computed, **(note or {})}
    return status, record

