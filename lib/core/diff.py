"""`python -m lib diff CHAPTER A B`: what moved between two result sets of a chapter, claim by claim and number by
number, judged against the spread of each number's own seeds.

A result set is one of
- a profile: results/<chapter>/<profile>/ (under $BOOK_RESULTS where set), e.g. `quick`;
- a results folder: a path to a folder that holds points/ and provenance.json (or compute.json), e.g. a copy of
  results/<chapter>/quick/ made before a change;
- the results stored at a git commit: REV:PROFILE (`HEAD~1:paper`), or REV alone for its paper profile.

Both sides are read, never computed. The parameters that differ between them come first: a verdict or a number may
move for that reason alone. Their claims are recomputed from their stored points by this checkout's page code
(lib.core.verify), so that both sides are judged by one set of rules and the diff shows what the numbers moved; a
side whose points do not cover its claims shows the claims.json it stored, and says so. A verdict is shown as a
page shows it: undecided where the power gate (lib.core.gate) left it so. The report is plain text: the math of a
measured value is written without TeX (`plain_text`). A sweep point is matched by its label (a chapter's point
names, e.g. `a transformer 4`). Its numbers are compared only where it was computed with the same parameters on
both sides (the same spec); elsewhere the diff names the fields that differ. Within it, a list with an axis as long
as the point's seed count (its spec's n_seeds, seeds or tr_seeds) holds one number per seed: the diff compares the
seeds' mean and says whether it moved by more than the seeds' range (max - min, the larger of the two sides'). Because both
sides are judged by this checkout's rules, a change of a rule shows in a second list: the verdicts each side's
claims.json stored, by the rules of the code that wrote it. Exit status 0 when no verdict changed (recomputed or
stored), 1 when one did (a row on one side only counts as changed), 2 for bad input (another chapter's result set
included) or a stored point that does not match its manifest or cannot be read (one line naming the file).

    python -m lib diff sample_complexity quick /tmp/before-my-change
    python -m lib diff rpe_decay HEAD~3:paper paper
"""
from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from lib.core import params as params_mod
from lib.core.plaintext import plain_text
from lib.core.reach import module
from lib.core.store import ROOT, MissingResult, Store, read_json, results_root, spec_dict

LIMIT = 10          # changed numbers shown per point; the rest are counted
REL = 1e-9          # numbers closer than this (relative) are equal: float noise of another machine is no change


@dataclass
class Side:
    name: str                     # as given on the command line
    where: str                    # what it is, for the header
    folder: Path
    params: dict = field(default_factory=dict)
    claims: list = field(default_factory=list)
    claims_from: str = ""
    stored: list | None = None                    # its claims.json: the verdicts by the rules of the code that wrote it
    records: dict = field(default_factory=dict)   # point name -> stored record (missing: not stored)
    seeds: dict = field(default_factory=dict)     # point name -> its seed counts (spec fields named *seeds)
    specs: dict = field(default_factory=dict)     # point name -> its spec's fields (what its numbers depend on)
    n_points: int = 0


# ------------------------------------------------------------------------------------------- result sets
def _git(*args: str, data: bytes | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, input=data, capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as err:
        raise params_mod.ParamError(f"git {args[0]}: {err}") from None


def _commit(rev: str) -> str | None:
    """The full hash of a commit, or None if `rev` names none."""
    if not rev or rev.startswith("-"):
        return None
    out = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    return out.stdout.decode().strip() if out.returncode == 0 else None


def _from_git(chapter: str, rev: str, profile: str, tmp: Path) -> Path:
    """results/<chapter>/<profile>/ as stored at commit `rev`, written out under tmp."""
    commit = _commit(rev)
    if commit is None:
        raise params_mod.ParamError(f"{params_mod.shown(rev)}: not a git commit of this repository "
                                    "(expected REV:PROFILE, e.g. HEAD~1:paper)")
    prefix = f"results/{chapter}/{profile}/"
    names = [n for n in _git("ls-tree", "-r", "-z", "--name-only", commit, "--", prefix).stdout.decode().split("\0") if n]
    if not names:
        raise params_mod.ParamError(f"commit {rev} ({commit[:10]}) stores no {prefix} (results committed there: "
                                    f"{', '.join(_committed(commit, chapter)) or 'none'})")
    out = _git("cat-file", "--batch", data="".join(f"{commit}:{n}\n" for n in names).encode()).stdout
    folder, at = tmp / chapter / profile, 0
    for name in names:   # each object: "<oid> blob <size>\n" + content + "\n"
        end = out.index(b"\n", at)
        size = int(out[at:end].split()[2])
        path = folder / name[len(prefix):]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(out[end + 1:end + 1 + size])
        at = end + 2 + size
    return folder


def _committed(commit: str, chapter: str) -> list[str]:
    out = _git("ls-tree", "--name-only", commit, "--", f"results/{chapter}/").stdout.decode().split()
    return [Path(n).name for n in out]


def locate(chapter: str, text: str, tmp: Path) -> tuple[Path, str]:
    """A result set named on the command line: (its folder, what it is). Raises ParamError (one line) if none."""
    path = Path(text)
    if ":" in text and not path.exists():
        rev, profile = text.rsplit(":", 1)
        profile = profile or "paper"
        if not params_mod.NAME.match(profile):
            raise params_mod.ParamError(f"{params_mod.shown(text)}: expected REV:PROFILE with a profile name, e.g. HEAD~1:paper")
        return _from_git(chapter, rev, profile, tmp), f"results/{chapter}/{profile}/ at commit {_commit(rev)[:10]}"
    if path.is_dir():
        return path, "a results folder"
    if "/" in text or text.startswith("."):
        raise params_mod.ParamError(f"{params_mod.shown(text)}: no such results folder")
    own = Path(results_root()) / chapter
    if params_mod.NAME.match(text) and (own / text).is_dir():
        return own / text, f"profile: {own / text}"
    if params_mod.NAME.match(text) and _commit(text):
        return _from_git(chapter, text, "paper", tmp), f"results/{chapter}/paper/ at commit {_commit(text)[:10]}"
    stored = sorted(p.name for p in own.iterdir() if p.is_dir()) if own.is_dir() else []
    raise params_mod.ParamError(f"{params_mod.shown(text)}: not a result set of {chapter}: expected a profile with results "
                                f"in {own} ({', '.join(stored) or 'none stored'}), a results folder, or a git commit "
                                "(REV or REV:PROFILE)")


def load(chapter: str, text: str, tmp: Path) -> Side:
    """Read one side: its parameters, claims and stored points (nothing is computed)."""
    from lib.core.verify import recompute_claims

    folder, where = locate(chapter, text, tmp)
    prov = _read(folder / "provenance.json") or _read(folder / "compute.json")
    if not prov or not isinstance(prov.get("params"), dict):
        raise params_mod.ParamError(f"{folder}: no provenance.json or compute.json naming its parameters (expected "
                                    f"a result set written by `python -m lib run` or `compute`)")
    if prov.get("chapter") not in (None, chapter):       # another chapter's points would read as all changed
        raise params_mod.ParamError(f"{folder}: holds {prov['chapter']}'s results, not {chapter}'s (its "
                                    f"{'provenance' if (folder / 'provenance.json').is_file() else 'compute'}.json says "
                                    f"chapter {prov['chapter']}): give a result set of {chapter}")
    side = Side(text, where, folder)
    stored = _read(folder / "claims.json")
    side.stored = stored if isinstance(stored, list) else None
    store = Store(chapter, folder.name, stored_only=True)
    store.dir = folder
    compute = module(chapter, "compute")
    # A parameter the stored run did not know yet: its points as the chapter reads parameters stored before it (a
    # compute module gives such a key the value that adds nothing, e.g. no wide sweep), else the schema's default.
    defaults = {k: p.default for k, p in params_mod.load_schema(chapter).items()}
    try:
        points = compute.points(prov["params"])
        side.params = dict(prov["params"])
    except (KeyError, TypeError, ValueError):
        side.params = {**defaults, **prov["params"]}
        try:
            points = compute.points(side.params)
        except (KeyError, TypeError, ValueError) as err:   # parameters of an older chapter this checkout reads otherwise
            raise params_mod.ParamError(f"{folder}: its parameters do not fit this checkout's {chapter} "
                                        f"({type(err).__name__}: {err})") from None
    side.n_points = len(points)
    for p in points:
        side.seeds[p.name] = {v for k, v in vars(p.spec).items() if k.endswith("seeds") and isinstance(v, int) and v > 1}
        side.specs[p.name] = spec_dict(p.spec)
        if (record := store.get(p.spec)) is not None:
            side.records[p.name] = record
    try:
        side.claims = [_plain(r) for r in recompute_claims(chapter, folder.name, side.params, folder=folder)]
        side.claims_from = "recomputed from its points"
    except (MissingResult, KeyError, IndexError, TypeError, ValueError) as err:
        stored = _read(folder / "claims.json")
        if not isinstance(stored, list):
            raise params_mod.ParamError(f"{folder}: its points do not give its claims ({str(err).splitlines()[0][:120]}) "
                                        "and it stores no claims.json") from None
        side.claims, side.claims_from = stored, "as stored in its claims.json (its points do not cover them)"
    return side


def _read(path: Path):
    try:
        return read_json(path) if path.is_file() else None
    except (OSError, ValueError) as err:
        raise params_mod.ParamError(f"{path}: unreadable ({err})") from None


def _plain(row: dict) -> dict:
    import json

    from lib.core.store import _jsonable
    return json.loads(json.dumps(_jsonable(row)))


# ------------------------------------------------------------------------------------------- numbers
def _array(x) -> np.ndarray | None:
    """A stored number or rectangular list of numbers as floats (None, JSON's NaN, is NaN); None if it is not one."""
    def nan(v):
        return [nan(u) for u in v] if isinstance(v, list) else np.nan if v is None else v
    if isinstance(x, str) or isinstance(x, dict):
        return None
    try:
        return np.array(nan(x), dtype=float)
    except (ValueError, TypeError):
        return None


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (np.isnan(a) & np.isnan(b)) | np.isclose(a, b, rtol=REL, atol=0.0)


def _g(x: float) -> str:
    return "n/a" if not np.isfinite(x) else f"{x:.4g}"


def _seed_stats(v: np.ndarray) -> tuple[float, float, int]:
    """(mean, range, censored count) of one number's seeds."""
    ok = v[np.isfinite(v)]
    return (float(ok.mean()) if len(ok) else np.nan, float(ok.max() - ok.min()) if len(ok) > 1 else np.nan,
            int(len(v) - len(ok)))


def changes(path: str, a, b, seeds_a: set, seeds_b: set) -> list[tuple[str, str, bool | None]]:
    """The stored numbers that differ between two records' values at `path`: (where, what, beyond) with beyond True
    where the seeds' mean moved by more than their range, False within it, None where no seed spread is known."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [c for k in sorted(set(a) | set(b)) if not k.endswith("wall_s")
                for c in changes(f"{path}.{k}" if path else k, a.get(k), b.get(k), seeds_a, seeds_b)]
    A, B = _array(a), _array(b)
    if A is None or B is None:
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):   # a ragged list: item by item
            return [c for i, (x, y) in enumerate(zip(a, b)) for c in changes(f"{path}[{i}]", x, y, seeds_a, seeds_b)]
        return [] if a == b else [(path, f"{_short(a)} -> {_short(b)}", None)]
    # the seed axis: as long as the point's seed count on each side, all other axes alike (the first such axis)
    ax_a = next((i for i in range(A.ndim) if A.ndim == B.ndim and A.shape[i] in seeds_a and B.shape[i] in seeds_b
                 and np.delete(A.shape, i).tolist() == np.delete(B.shape, i).tolist()), None)
    if ax_a is not None:
        At, Bt = np.moveaxis(A, ax_a, -1), np.moveaxis(B, ax_a, -1)
        out = []
        for idx in np.ndindex(At.shape[:-1]):
            x, y = At[idx], Bt[idx]
            if len(x) == len(y) and _same(x, y).all():
                continue
            (ma, ra, ca), (mb, rb, cb) = _seed_stats(x), _seed_stats(y)
            where = ",".join([str(i) for i in idx[:ax_a]] + ["seeds"] + [str(i) for i in idx[ax_a:]])
            spread = max((r for r in (ra, rb) if np.isfinite(r)), default=np.nan)
            moved = mb - ma
            # a censored seed (NaN: never reached its threshold) is a bound, not a number: its mean and range are
            # those of the other seeds, and the line says how many were censored
            beyond = None if ca or cb or not (np.isfinite(moved) and np.isfinite(spread)) else bool(abs(moved) > spread)
            seeds = f"{len(x)} seeds" if len(x) == len(y) else f"{len(x)} -> {len(y)} seeds"
            cens = f"; censored {ca} -> {cb} of them, left out of mean and range" if ca or cb else ""
            out.append((f"{path}[{where}]", f"mean {_g(ma)} -> {_g(mb)}"
                        + (f" (moved {moved:+.3g})" if np.isfinite(moved) else "")
                        + f", range {_g(ra)} | {_g(rb)} over {seeds}{cens}", beyond))
        return out
    if A.shape != B.shape:
        return [(path, f"shape {A.shape} -> {B.shape}", None)]
    diff = ~_same(A, B)
    return [(f"{path}[{','.join(str(int(j)) for j in i)}]", f"{_g(A[i])} -> {_g(B[i])}", None)
            for i in zip(*np.nonzero(diff))] if A.ndim else ([(path, f"{_g(A)} -> {_g(B)}", None)] if diff else [])


def _short(x, n: int = 40) -> str:
    text = _value(x)
    return text if len(text) <= n else text[:n - 4] + " ..."


def _value(x) -> str:
    """A parameter's or stored value as a terminal shows it: a list as [2, 4, 6], a string bare."""
    if isinstance(x, list):
        return "[" + ", ".join(_value(v) for v in x) + "]"
    return x if isinstance(x, str) else "—" if x is None else repr(x)


# ------------------------------------------------------------------------------------------- the report
def _verdict(row: dict | None) -> str:
    """A row's verdict as a page shows it: undecided where its power gate (lib.core.gate) did not let its rule's
    outcome stand, with that outcome, which the row keeps (a pass that becomes undecided is a changed verdict, and
    so is an undecided row whose rule's outcome moved)."""
    if row is None:
        return "absent"
    if row.get("undecided"):
        return "◌ undecided (censored)" if row.get("censored") else f"◌ undecided (its rule: {_outcome(row)})"
    return _outcome(row)


def _outcome(row: dict) -> str:
    if row.get("censored"):
        return "◌ censored"
    return "✓ pass" if row.get("passed") else "✗ below scale" if row.get("scale") else "✗ FAIL"


def stored_changes(a: Side, b: Side) -> list[tuple[str, str, str, str]]:
    """(kind, id, verdict in A's claims.json, verdict in B's) for every row whose stored verdict differs: what a rule
    change moved. The recomputed rows judge both sides by this checkout's rules and cannot show it."""
    if a.stored is None or b.stored is None:
        return []
    sa, sb = {r["id"]: r for r in a.stored}, {r["id"]: r for r in b.stored}
    ids = [r["id"] for r in a.stored] + [i for i in sb if i not in sa]
    return [((sa.get(i) or sb.get(i)).get("kind", "claim"), i, _verdict(sa.get(i)), _verdict(sb.get(i))) for i in ids
            if _verdict(sa.get(i)) != _verdict(sb.get(i))]


def _spec_moved(a: dict, b: dict) -> list[str]:
    """The fields of two points' specs that differ, as 'field a -> b' (their numbers depend on every field)."""
    a, b = _plain(a), _plain(b)
    return [f"{k} {_short(a.get(k), 24)} -> {_short(b.get(k), 24)}" for k in sorted(set(a) | set(b))
            if a.get(k) != b.get(k)]


def report(chapter: str, a: Side, b: Side, limit: int = LIMIT) -> tuple[list[str], int]:
    """The diff's lines and the number of rows whose verdict changed. Which parameters differ comes first: a number
    is judged against its seeds' range only at a point computed with the same parameters on both sides."""
    moved = [k for k in sorted(set(a.params) | set(b.params)) if k != "profile" and a.params.get(k) != b.params.get(k)]
    lines = [f"diff {chapter}: A = {a.name}, B = {b.name}"]
    if moved:
        lines += [f"  the two runs differ in {len(moved)} parameter{'s' if len(moved) > 1 else ''} (A -> B); their "
                  "verdicts and numbers may differ for that reason alone:"]
        lines += [f"    {k}: {_short(a.params.get(k), 60)} -> {_short(b.params.get(k), 60)}" for k in moved]
    else:
        lines.append("  parameters: the same on both sides")
    lines += [f"  {k} = {s.name} ({s.where}): {len(s.records)} of its {s.n_points} points stored; claims {s.claims_from}"
              for k, s in (("A", a), ("B", b))]
    ra, rb = {r["id"]: r for r in a.claims}, {r["id"]: r for r in b.claims}
    ids = [r["id"] for r in a.claims] + [i for i in rb if i not in ra]
    changed = [i for i in ids if _verdict(ra.get(i)) != _verdict(rb.get(i))]
    lines += ["", f"claims and checks ({len(ids)} rows; verdict A -> B, then measured value on each side):"]
    for i in ids:
        x, y = ra.get(i), rb.get(i)
        kind = (x or y).get("kind", "claim")
        mark = "CHANGED" if i in changed else "same verdict"
        lines.append(f"  {'≠' if i in changed else '='} {kind} {i}: {_verdict(x)} -> {_verdict(y)}  ({mark})")
        mx, my = (plain_text(str((r or {}).get("measured", "—"))) for r in (x, y))
        lines += [f"      measured: {mx}"] if mx == my else [f"      A: {mx}", f"      B: {my}"]
    moved_rules = stored_changes(a, b)
    if a.stored is not None and b.stored is not None:
        lines += ["", "verdicts as each side stored them (claims.json, by the rules of the code that wrote it): "
                  + (f"{len(moved_rules)} differ" if moved_rules else "the same")]
        lines += [f"  ≠ {kind} {i}: {x} -> {y}" for kind, i, x, y in moved_rules]
    names = list(a.records) + [n for n in b.records if n not in a.records]
    both = [n for n in names if n in a.records and n in b.records]
    alike = [n for n in both if not _spec_moved(a.specs.get(n, {}), b.specs.get(n, {}))]
    other = [n for n in both if n not in alike]
    lines += ["", f"sweep points: {len(both)} stored on both sides"
              + (f", {len(a.records) - len(both)} on A only" if len(a.records) > len(both) else "")
              + (f", {len(b.records) - len(both)} on B only" if len(b.records) > len(both) else "")
              + (f"; {len(other)} of them computed with other parameters on each side (their numbers are not judged)"
                 if other else "")]
    n_moved, n_beyond, n_points = 0, 0, 0
    for name in alike:
        found = changes("", a.records[name]["result"], b.records[name]["result"], a.seeds.get(name, set()),
                        b.seeds.get(name, set()))
        found.sort(key=lambda c: {True: 0, False: 1, None: 2}[c[2]])   # what moved beyond its seeds first
        if not found:
            continue
        n_points, n_moved = n_points + 1, n_moved + len(found)
        n_beyond += sum(c[2] is True for c in found)
        lines.append(f"  {name}: {len(found)} stored number(s) changed")
        for where, what, beyond in found[:limit]:
            tag = {True: "BEYOND its seeds' range", False: "within its seeds' range",
                   None: "no seed range to judge by" if "seeds" not in where else "not judged (censored or one seed)"}[beyond]
            lines.append(f"      {where}: {what}: {tag}")
        if len(found) > limit:
            rest = found[limit:]
            lines.append(f"      ... {len(rest)} more ({sum(c[2] is True for c in rest)} beyond their seeds' range)")
    if other:
        lines.append(f"  computed with other parameters ({len(other)} points; what differs, A -> B):")
        for name in other[:limit]:
            lines.append(f"      {name}: {'; '.join(_spec_moved(a.specs[name], b.specs[name])[:4])}")
        if len(other) > limit:
            lines.append(f"      ... {len(other) - limit} more")
    for side, other_side, label in ((a, b, "A"), (b, a, "B")):
        only = [n for n in side.records if n not in other_side.records]
        if only:
            lines.append(f"  stored on {label} only: {', '.join(only[:6])}{' ...' if len(only) > 6 else ''}")
    numbers = (f"{n_moved} stored numbers changed in {n_points} of the {len(alike)} points computed with the same "
               f"parameters, {n_beyond} of them beyond their seeds' range" if alike else
               "no point was computed with the same parameters on both sides, so no number is judged")
    lines += ["", f"summary: {len(changed)} of {len(ids)} verdicts changed"
              + (f" ({', '.join(changed)})" if changed else "")
              + (f"; {len(moved_rules)} stored verdicts differ ({', '.join(i for _, i, _, _ in moved_rules)})"
                 if moved_rules else "")
              + (f"; the runs differ in {len(moved)} parameters" if moved else "") + f"; {numbers}"]
    return lines, len(changed) + len(moved_rules)


def diff(chapter: str, a: str, b: str, out=print, limit: int = LIMIT) -> int:
    """Print the diff; exit status 0 when no verdict changed, 1 when one did. Bad input raises ParamError."""
    params_mod.chapter_source(chapter)   # an unknown chapter: one line, before anything is read
    with tempfile.TemporaryDirectory(prefix="lib-diff-") as tmp:
        left = load(chapter, a, Path(tmp) / "a")
        right = load(chapter, b, Path(tmp) / "b")
    lines, changed = report(chapter, left, right, limit)
    for line in lines:
        out(line)
    return 1 if changed else 0
