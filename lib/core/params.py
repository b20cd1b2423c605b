"""Chapter parameters: the schema is the chapter's own `parameters` cell.

Each line of that cell is one typed default, optionally followed by a comment whose first part is a
constraint and whose rest describes the parameter:

    n_seeds = 5                 # > 0: independent training runs per sweep point
    threshold = 0.7             # in (0, 1]: test-MSE threshold
    N_grid = [2, 4, 6]          # >= 2: sequence lengths (a list: non-empty, each element checked)
    device = "auto"             # one of auto, cpu, cuda: where to train

A profile is `parameters/<chapter>/<profile>.yaml` holding a subset of those keys; `--set key=value` overrides
go on top. Every problem raises ParamError with a one-line message naming the file, the key and the expected
form, before anything runs.

    >>> params = resolve("sample_complexity", "quick"); params["profile"], params["N_a"]
    ('quick', [2, 4, 6, 8])
    >>> resolve("sample_complexity", "quick", {"n_seeds": 0})
    Traceback (most recent call last):
    ...
    lib.core.params.ParamError: --set: n_seeds: expected int > 0, got 0
"""
from __future__ import annotations

import ast
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS_DIR = ROOT / "book" / "chapters"
PARAMS_DIR = ROOT / "parameters"
RESERVED = ("profile",)  # set by the runner from the profile's file name, never by a file


MAX_MESSAGE = 400        # characters of an error message: a megabyte-long value is cut, never printed whole
MAX_INT = 2 ** 53        # every int parameter is below this (exact as a float, and in JSON)
MAX_PROFILE_BYTES = 64 * 1024   # a profile is a few dozen lines; a larger file is refused before it is parsed
MAX_DEPTH = 3            # YAML nodes deep: a profile is a mapping of values or of lists of values, nothing deeper
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")   # chapter and profile names: never a path


class ParamError(ValueError):
    """A bad parameter, file, chapter or profile. str(err) is the one-line message shown to the user: newlines in
    it (a name or a value that holds one) are escaped, and it is cut at MAX_MESSAGE characters."""

    def __init__(self, message: str):
        message = str(message).replace("\r", "\\r").replace("\n", "\\n").replace("\0", "\\0")
        if len(message) > MAX_MESSAGE:
            tail = f" ... ({len(message):,} characters in all)"
            message = message[:MAX_MESSAGE - len(tail)] + tail
        super().__init__(message)


def shown(value, limit: int = 80) -> str:
    """A value as an error message quotes it: its repr, on one line, cut at `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 5] + " ...)"


@dataclass(frozen=True)
class Param:
    name: str
    default: object
    type: type            # bool, int, float or str; for lists the element type
    is_list: bool
    constraint: str       # as written, e.g. "> 0", "in (0, 1]", "one of auto, cpu, cuda", or ""
    help: str

    @property
    def form(self) -> str:
        """The expected form, as shown in error messages and `python -m lib list`."""
        base = f"list of {self.type.__name__}" if self.is_list else self.type.__name__
        return f"{base} {self.constraint}".strip()


# ---------------------------------------------------------------------------------------------- the schema
def chapters() -> list[str]:
    return sorted(p.stem for p in CHAPTERS_DIR.glob("*.md"))


def chapter_source(chapter: str) -> Path:
    """book/chapters/<chapter>.md of a chapter that exists; a name that is a path ('../intro') is no chapter."""
    if not isinstance(chapter, str) or chapter not in chapters():
        raise ParamError(f"unknown chapter {shown(chapter)}; chapters: {', '.join(chapters()) or 'none'}")
    return CHAPTERS_DIR / f"{chapter}.md"


def profiles(chapter: str) -> list[str]:
    return sorted(p.stem for p in (PARAMS_DIR / chapter).glob("*.yaml"))


_CELL = re.compile(r"```\{code-cell\}[^\n]*\n((?::[^\n]*\n)*)\n?(.*?)```", re.S)


def parameters_cell(source: str) -> str:
    """The body of the one code cell tagged `parameters` in a MyST-markdown notebook."""
    cells = [body for opts, body in _CELL.findall(source) if re.search(r"tags:.*\bparameters\b", opts)]
    if len(cells) != 1:
        raise ParamError(f"expected exactly one code cell tagged 'parameters', found {len(cells)}")
    return cells[0]


def parse_schema(cell: str) -> dict[str, Param]:
    schema = {}
    lines = cell.splitlines()
    try:
        body = ast.parse(cell).body
    except SyntaxError as err:
        raise ParamError(f"parameters cell line {err.lineno}: not valid Python ({err.msg})") from None
    for node in body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise ParamError(f"parameters cell line {node.lineno}: expected 'name = literal  # constraint: help'")
        name, default = node.targets[0].id, ast.literal_eval(node.value)
        comment = lines[node.lineno - 1][node.end_col_offset:].partition("#")[2].strip()  # after the value
        head, sep, tail = comment.partition(":")
        constraint, help_ = (head, tail) if sep and (_is_constraint(head) or not head.strip()) else ("", comment)
        is_list = isinstance(default, list)
        elems = default if is_list else [default]
        if not elems or len({type(e) for e in elems}) != 1 or type(elems[0]) not in (bool, int, float, str):
            raise ParamError(f"parameters cell: {name}: default must be a bool, int, float, str or a non-empty list of one "
                             "of them")
        schema[name] = Param(name, default, type(elems[0]), is_list, constraint.strip(), help_.strip())
    return schema


def load_schema(chapter: str) -> dict[str, Param]:
    return parse_schema(parameters_cell(chapter_source(chapter).read_text()))


# ---------------------------------------------------------------------------------------- constraints
_CMP = re.compile(r"^(>=|<=|>|<)\s*(-?[\d.e+-]+)$")
_INTERVAL = re.compile(r"^in\s*([(\[])\s*(-?[\d.e+-]+)\s*,\s*(-?[\d.e+-]+)\s*([)\]])$")


def _is_constraint(text: str) -> bool:
    text = text.strip()
    return bool(_CMP.match(text) or _INTERVAL.match(text) or text.startswith("one of "))


def _satisfies(value, constraint: str) -> bool:
    if not constraint:
        return True
    if constraint.startswith("one of "):
        return str(value) in [c.strip() for c in constraint[len("one of "):].split(",")]
    if m := _CMP.match(constraint):
        op, bound = m.group(1), float(m.group(2))
        return {">": value > bound, ">=": value >= bound, "<": value < bound, "<=": value <= bound}[op]
    m = _INTERVAL.match(constraint)
    lo, hi = float(m.group(2)), float(m.group(3))
    return (value > lo if m.group(1) == "(" else value >= lo) and (value < hi if m.group(4) == ")" else value <= hi)


def _coerce(value, p: Param):
    """Value of the schema's type, or None. YAML 1.1 reads 1e-3 as a string, so numeric strings are accepted."""
    if p.type is bool:
        return value if isinstance(value, bool) else None
    if isinstance(value, bool):
        return None
    if p.type is int:   # whole numbers below 2**53: exact as floats and in JSON (1e300 is no count of anything)
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                return None
        if isinstance(value, float) and value.is_integer() and abs(value) < MAX_INT:
            return int(value)
        return value if isinstance(value, int) and abs(value) < MAX_INT else None
    if p.type is float:
        try:
            f = float(value) if isinstance(value, (int, float, str)) else None
        except ValueError:
            return None
        return f if f is not None and math.isfinite(f) else None
    return value if isinstance(value, str) else None


def check_value(p: Param, value, where: str):
    """The validated value for one key, or ParamError naming `where`, the key and the expected form. A list has no
    repeated element, and a list of numbers is strictly increasing or strictly decreasing (a sweep grid)."""
    def fail(got, why=""):
        raise ParamError(f"{where}: {p.name}: expected {p.form}{why}, got {shown(got)}")

    if p.is_list:
        if not isinstance(value, list) or not value:
            fail(value)
        out = []
        for v in value:
            c = _coerce(v, p)
            if c is None or not _satisfies(c, p.constraint):
                fail(value, " below 2^53" if p.type is int and _huge(v) else "")
            out.append(c)
        if len(set(out)) != len(out):
            fail(value, ", without repeats")
        if p.type in (int, float) and out not in (sorted(out), sorted(out, reverse=True)):
            fail(value, ", in increasing (or decreasing) order")
        return out
    c = _coerce(value, p)
    if c is None or not _satisfies(c, p.constraint):
        fail(value, " below 2^53" if p.type is int and _huge(value) else "")
    return c


def _huge(value) -> bool:
    try:
        return abs(float(value)) >= MAX_INT
    except (TypeError, ValueError, OverflowError):
        return False


def resolve_device(device: str) -> str:
    """The device a run uses: "auto" is a GPU where there is one, else the CPU; "cuda" where there is none is refused
    (ParamError, one line)."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    check_device(device, "parameters")
    return device


def check_device(value: str, where: str) -> None:
    if value == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise ParamError(f"{where}: device: 'cuda' asked but no CUDA GPU is visible here; expected one of auto, cpu")


# ------------------------------------------------------------------------------------------- resolving
def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


class _ProfileLoader(yaml.SafeLoader):
    """safe_load, stricter where a profile is concerned: a key given twice or a key that is no string is an
    error, and so are aliases (`*a`: ten nested aliases of ten make a 10^10-element list in a few hundred bytes,
    which an error message would then try to print) and nesting deeper than MAX_DEPTH (`[[[[...` recurses past
    Python's stack). YAML 1.1, as PyYAML reads it: `1e-3` is a string, which the checks below read as a float."""

    depth = 0

    def compose_node(self, parent, index):
        mark = self.peek_event().start_mark
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(None, None, "an alias (*name): expected the value written out", mark)
        if self.depth >= MAX_DEPTH:
            raise yaml.composer.ComposerError(None, None, "nested too deeply: expected 'key: value' or "
                                              "'key: [a, b]'", mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)   # deep: a list key shows its elements
            if not isinstance(key, str):   # a list or mapping as a key is unhashable: say so before Python does
                raise yaml.constructor.ConstructorError(None, None, f"key {shown(key, 40)}: expected a parameter name",
                                                        key_node.start_mark)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"key {key!r} given twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def load_yaml(text: str, where: str):
    """A profile's (or a --set value's) content as _ProfileLoader reads it, or a one-line ParamError naming `where`
    and the line.

    >>> load_yaml("n_seeds: 5   # runs\\nN_a: [2, 4]\\nlr: 1e-3\\n", "here")
    {'n_seeds': 5, 'N_a': [2, 4], 'lr': '1e-3'}
    """
    try:
        return yaml.load(text, Loader=_ProfileLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]   # a ReaderError has no problem
        raise ParamError(f"{where}: malformed YAML{f' at line {mark.line + 1}' if mark else ''}: {problem}") from None


def read_profile(chapter: str, profile: str) -> tuple[dict, str]:
    """The profile file's mapping. Refused, in one line: a profile name that is not a plain name (a path would
    read, and later write, outside parameters/ and results/), a missing, oversized, non-UTF-8, NUL-holding or
    malformed file, a key that is not a name, and a file with no parameters at all (it would silently run the
    schema's defaults, which are the paper's scale)."""
    chapter_source(chapter)
    if not isinstance(profile, str) or not NAME.match(profile):
        raise ParamError(f"--profile {shown(profile)}: expected a profile name (letters, digits, _ and -), one of "
                         f"{', '.join(profiles(chapter)) or 'none'}")
    path = PARAMS_DIR / chapter / f"{profile}.yaml"
    where = _relative(path)
    if not path.is_file():
        raise ParamError(f"{where}: no such profile; profiles of {chapter}: {', '.join(profiles(chapter)) or 'none'}")
    raw = path.open("rb").read(MAX_PROFILE_BYTES + 1)
    if len(raw) > MAX_PROFILE_BYTES:
        raise ParamError(f"{where}: larger than {MAX_PROFILE_BYTES // 1024} KiB; expected a few 'key: value' lines")
    if b"\0" in raw:
        raise ParamError(f"{where}: holds a NUL byte at offset {raw.find(0)}; expected a text file of 'key: value' lines")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ParamError(f"{where}: not valid UTF-8 (byte {err.start}); expected a text file of 'key: value' lines") from None
    data = load_yaml(text, where)
    if data is None:
        raise ParamError(f"{where}: no parameters; expected 'key: value' lines (an empty profile would run the "
                         "schema's defaults, the paper's scale)")
    if not isinstance(data, dict):
        raise ParamError(f"{where}: expected a mapping of 'key: value' lines, got {type(data).__name__}")
    for key in data:
        if not isinstance(key, str):
            raise ParamError(f"{where}: key {shown(key)}: expected a parameter name")
    return data, where


def parse_overrides(items: list[str]) -> dict:
    out = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ParamError(f"--set {shown(item)}: expected key=value (value in YAML, e.g. N_grid=[2,4] or lr=1e-3)")
        if len(item) > 10_000 or "\0" in item:
            raise ParamError(f"--set {shown(item)}: expected a short key=value without NUL characters")
        out[key.strip()] = load_yaml(raw, f"--set {shown(item)}")
    return out


def _compute_module(chapter: str):
    """lib/chapters/<chapter>/compute.py, which may define the checks between keys (`check_params(P)`) and the
    memory estimate (`footprint(P)`); None for a chapter without one."""
    if not (ROOT / "lib" / "chapters" / chapter / "compute.py").is_file():
        return None
    from lib.core.reach import module

    return module(chapter, "compute")


def memory_of(device: str) -> tuple[float, str]:
    """(bytes, name) of the memory a run on `device` can use: the GPU's total memory, or the machine's RAM."""
    if device in ("auto", "cuda"):
        import torch

        if torch.cuda.is_available():   # the properties, not mem_get_info: that would create a CUDA context here
            return float(torch.cuda.get_device_properties(0).total_memory), torch.cuda.get_device_name()
    return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")), "this machine's memory"


def _footprint_checks(module, params: dict, source_of: dict, where: str) -> None:
    """Refuse, before anything is allocated, a sweep whose biggest point cannot fit the device: the chapter's
    `footprint(P)` estimates its largest allocations, each named by the parameters that set it."""
    avail, name = memory_of(params.get("device", "auto"))
    for keys, size, what in module.footprint(params):
        if size > avail:
            sources = [source_of.get(k.strip(), where) for k in keys.split(",")]
            source = "--set" if "--set" in sources else sources[0]
            raise ParamError(f"{source}: {keys}: {what} would need about {size / 2**30:,.3g} GiB, more than the "
                             f"{avail / 2**30:,.3g} GiB of {name}; expected smaller values")


def resolve(chapter: str, profile: str, overrides: dict | None = None) -> dict:
    """Defaults < profile file < overrides, every key checked. Returns a plain dict, `profile` included."""
    schema = load_schema(chapter)
    data, where = read_profile(chapter, profile)
    params = {name: p.default for name, p in schema.items()}
    source_of = {}
    for source, values in ((where, data), ("--set", overrides or {})):
        for key, value in values.items():
            if key in RESERVED:
                raise ParamError(f"{source}: {key}: reserved, set from the profile's file name")
            if key not in schema:
                name = key if isinstance(key, str) and key.isidentifier() else shown(key)
                raise ParamError(f"{source}: {name}: unknown key; known keys: "
                                 f"{', '.join(k for k in schema if k not in RESERVED)}")
            params[key] = check_value(schema[key], value, source)
            source_of[key] = source
    if "device" in params:
        check_device(params["device"], source_of.get("device", where))
    module = _compute_module(chapter)
    for key, expected in module.check_params(params) if hasattr(module, "check_params") else []:
        source = source_of.get(key, where)
        # a bound set by another key that came from elsewhere (--set, the profile) says where that value came from
        others = [k for k in schema if k != key and re.search(rf"\b{re.escape(k)}\b", expected)
                  and source_of.get(k, where) != source]
        given = "".join(f" ({k} = {shown(params[k])}, from {source_of.get(k, where)})" for k in others)
        raise ParamError(f"{source}: {key}: expected {expected}{given}, got {shown(params[key])}")
    if hasattr(module, "footprint"):
        _footprint_checks(module, params, source_of, where)
    if "profile" in schema:
        params["profile"] = profile
    return params
