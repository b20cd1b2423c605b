"""Profiles without PyYAML: a strict reader of the flat YAML subset that parameters/<chapter>/<profile>.yaml use.

The GPU machine has torch and numpy but no PyYAML, and `python -m lib compute` must run there. Profiles are flat:
comment lines, and `key: value  # comment` lines whose value is a plain scalar or a one-line flow list of plain
scalars (`N_a: [2, 4, 6]`, `models: [transformer, rnn]`). This module reads exactly that subset and gives what
PyYAML's safe_load gives for it (YAML 1.1: `1e-3` is a string, `0.5` a float, `yes` a bool; tests/test_flatyaml.py
checks both readers agree on every profile in parameters/ and on a catalogue of tricky lines). Anything outside the
subset (quotes with escapes, nesting, anchors, octal or sexagesimal numbers, dates, tabs, multi-line values...)
goes to PyYAML where it is installed, so its messages stay the same; where it is not, it is refused as malformed
with the line and the reason.

    >>> load_mapping("n_seeds: 5   # runs\\nN_a: [2, 4]\\nlr: 1e-3\\n")
    {'n_seeds': 5, 'N_a': [2, 4], 'lr': '1e-3'}
"""
from __future__ import annotations

import re


class Malformed(ValueError):
    """Text no reader can take: line (1-based, or None) and the problem, for a one-line message."""

    def __init__(self, problem: str, line: int | None = None):
        super().__init__(problem)
        self.problem, self.line = problem, line


class _Outside(Exception):
    """Outside the flat subset: PyYAML decides (or, without it, the text is refused)."""

    def __init__(self, why: str, line: int | None = None):
        super().__init__(why)
        self.why, self.line = why, line


# PyYAML's YAML 1.1 implicit resolvers (yaml/resolver.py), for the plain scalars of the subset.
_BOOL = {"yes": True, "Yes": True, "YES": True, "true": True, "True": True, "TRUE": True, "on": True, "On": True,
         "ON": True, "no": False, "No": False, "NO": False, "false": False, "False": False, "FALSE": False,
         "off": False, "Off": False, "OFF": False}
_NULL = {"", "~", "null", "Null", "NULL"}
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)")
_FLOAT = re.compile(r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?")
_INF_NAN = {"+.inf": float("inf"), ".inf": float("inf"), ".Inf": float("inf"), ".INF": float("inf"),
            "+.Inf": float("inf"), "+.INF": float("inf"), "-.inf": float("-inf"), "-.Inf": float("-inf"),
            "-.INF": float("-inf"), ".nan": float("nan"), ".NaN": float("nan"), ".NAN": float("nan")}
# Forms PyYAML resolves to something this reader does not build (octal, hex, binary and sexagesimal numbers, dates).
_OTHER = re.compile(r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?0x[0-9a-fA-F_]+|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"
                    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*")
# A plain scalar of the subset: words of letters, digits and . _ + - / separated by single spaces, not starting with
# '-' followed by a space (a block list). No character YAML treats as an indicator anywhere (: # , [ ] { } & * ! | > ' " % @ `).
_PLAIN = re.compile(r"[A-Za-z0-9_.+/~-]+(?: [A-Za-z0-9_.+/-]+)*")
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: +(.*))?")


def _scalar(text: str, line: int | None):
    """A plain scalar of the subset as PyYAML's safe_load builds it."""
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    if text in _INF_NAN:
        return _INF_NAN[text]
    if not _PLAIN.fullmatch(text) or text[:2] in ("-", "- ") or text.startswith(("---", "...")):
        raise _Outside(f"value {text[:40]!r} is not a plain scalar", line)
    try:
        if _INT.fullmatch(text):
            return int(text.replace("_", ""))
        if _FLOAT.fullmatch(text):
            return float(text.replace("_", ""))
    except ValueError:                   # '._' matches PyYAML's float pattern and is no number
        raise _Outside(f"value {text[:40]!r} is no number", line) from None
    if _OTHER.fullmatch(text):
        raise _Outside(f"value {text[:40]!r} is a number or date form this reader does not build", line)
    return text


def _strip_comment(text: str) -> str:
    """The value without its trailing comment: '#' starts one at the start or after a space (YAML's rule)."""
    m = re.search(r"(?:^| )#", text)
    return (text[:m.start()] if m else text).rstrip(" ")


def _value(text: str, line: int | None):
    text = _strip_comment(text)
    if "\t" in text:
        raise _Outside("tab character", line)
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip(" ")
        if not inner:
            return []
        items = [t.strip(" ") for t in inner.split(",")]
        if any(not t or t in _NULL for t in items):   # [a, , b], [a,], [~]: PyYAML's business
            raise _Outside("empty or null element in a list", line)
        return [_scalar(t, line) for t in items]
    return _scalar(text, line)


def _flat_mapping(text: str) -> dict | None:
    data: dict = {}
    for n, raw in enumerate(text.split("\n"), 1):
        body = raw[:-1] if raw.endswith("\r") else raw
        stripped = body.strip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        m = _KEY_LINE.fullmatch(body.rstrip(" "))
        if not m:
            raise _Outside("not a 'key: value' line", n)
        key = m.group(1)
        if _scalar(key, n) != key:       # yes:, null:, True: are not string keys in YAML 1.1
            raise _Outside(f"key {key!r} is not a string", n)
        if key in data:
            raise Malformed(f"key {key!r} given twice", n)
        data[key] = _value(m.group(2) or "", n)
    return data or None


def _has_pyyaml() -> bool:
    try:
        import yaml  # noqa: F401
    except ImportError:
        return False
    return True


def _pyyaml_mapping(text: str):
    """PyYAML's safe_load, except that a key given twice or a key that is no string is an error."""
    import yaml

    from lib.core.params import shown

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if not isinstance(key, str):   # a list or mapping as a key is unhashable: say so before Python does
                    raise yaml.constructor.ConstructorError(None, None, f"key {shown(key, 40)}: expected a parameter name",
                                                            key_node.start_mark)
                if key in seen:
                    raise yaml.constructor.ConstructorError(None, None, f"key {key!r} given twice", key_node.start_mark)
                seen.add(key)
            return super().construct_mapping(node, deep)

    try:
        return yaml.load(text, Loader=UniqueKeyLoader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise Malformed(getattr(err, "problem", None) or type(err).__name__, mark.line + 1 if mark else None) from None


def load_mapping(text: str, pyyaml: bool | None = None):
    """A profile's content: a dict, None for a file with no content, or (from PyYAML) whatever else the text holds.
    Raises Malformed. pyyaml: whether text outside the subset may go to PyYAML (default: where it is installed)."""
    try:
        return _flat_mapping(text)
    except _Outside as out:
        if pyyaml if pyyaml is not None else _has_pyyaml():
            return _pyyaml_mapping(text)
        raise Malformed(f"{out.why} (this machine has no PyYAML: profiles are 'key: value' lines with plain values "
                        "or [a, b] lists)", out.line) from None


def load_value(text: str, pyyaml: bool | None = None):
    """One value (a `--set key=value`'s value) as safe_load reads it. Raises Malformed."""
    try:
        if "\n" in text or "\r" in text or text != text.strip(" "):
            raise _Outside("not a one-line value")
        return _value(text, None)
    except _Outside as out:
        if pyyaml if pyyaml is not None else _has_pyyaml():
            import yaml

            try:
                return yaml.safe_load(text)
            except yaml.YAMLError as err:
                raise Malformed(str(err).splitlines()[0]) from None
        raise Malformed(out.why) from None
