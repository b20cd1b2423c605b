"""lib/core/flatyaml.py, the profile reader that needs no PyYAML: it reads every profile in parameters/ exactly as
PyYAML does, agrees with PyYAML on every line it accepts, and refuses (or hands to PyYAML) everything else."""
import glob
import math
from pathlib import Path

import pytest
import yaml

from lib.core import flatyaml

ROOT = Path(__file__).resolve().parent.parent


def typed(x):
    """A value with its types spelled out: 1, 1.0 and True compare equal in Python, not here."""
    if isinstance(x, dict):
        return {k: typed(v) for k, v in x.items()}
    if isinstance(x, list):
        return [typed(v) for v in x]
    if isinstance(x, float) and math.isnan(x):
        return ("float", "nan")
    return (type(x).__name__, x)


PROFILES = sorted(glob.glob(str(ROOT / "parameters" / "*" / "*.yaml")))


@pytest.mark.parametrize("path", PROFILES, ids=[str(Path(p).relative_to(ROOT)) for p in PROFILES])
def test_every_profile_reads_as_pyyaml_reads_it_without_pyyaml(path):
    text = Path(path).read_text()
    assert typed(flatyaml.load_mapping(text, pyyaml=False)) == typed(yaml.safe_load(text))


# Values the profiles use or might: YAML 1.1's numbers, strings that look like numbers, bools, nulls, lists.
VALUES = ["5", "-3", "+4", "0", "1_000", "0.5", "1.", ".5", "-.5", "1.0e-3", "1.0e3", "1e-3", "1e12", "1E+5", "3.0",
          "-2.5", ".inf", "-.inf", ".nan", "NaN", "inf", "auto", "cuda", "floor", "a b", "x-y_z", "path/to", "~",
          "null", "Null", "", "yes", "No", "on", "OFF", "true", "False", "y", "n", "+", ".", "~x", "0o17",
          "[2, 4, 6]", "[transformer, rnn, ffn]", "[0.125, 0.25, 1.0]", "[1e-3, 2]", "[]", "[ 2 ,4 ]", "[yes, no]",
          "[.inf, 1]", "7   # a comment", "[1, 2]  # c", "# only a comment"]
# Lines outside the subset: PyYAML reads them (or refuses them); without it the reader refuses them.
OUTSIDE = ["007", "'quoted'", '"dq"', "0x1F", "0b101", "1:30", "2002-12-14", "[1, [2]]", "{a: 1}", "&a 1", "*a", "!!str 1",
           "a  b", "[1, , 2]", "[1, 2,]", "[~, 1]", "-", "- a", "|", ">", "@x", "`x", "%x", "a: b", "---", "...", "[1, 2",
           "._", "a#b"]


@pytest.mark.parametrize("value", VALUES)
def test_values_the_reader_takes_are_what_pyyaml_builds(value):
    text = f"key: {value}\n"
    assert typed(flatyaml.load_mapping(text, pyyaml=False)) == typed(yaml.safe_load(text))
    if value.strip() and not value.startswith("#"):
        assert typed(flatyaml.load_value(value.split("  #")[0].strip(), pyyaml=False)) == typed(yaml.safe_load(value))


@pytest.mark.parametrize("value", OUTSIDE)
def test_values_outside_the_subset_go_to_pyyaml_or_are_refused_in_one_line(value):
    text = f"key: {value}\n"
    with pytest.raises(flatyaml.Malformed) as err:
        flatyaml.load_mapping(text, pyyaml=False)
    assert err.value.line == 1 and "\n" not in err.value.problem and "no PyYAML" in err.value.problem
    try:
        expected = ("ok", typed(yaml.safe_load(text)))
    except yaml.YAMLError:
        expected = ("error",)
    try:
        got = ("ok", typed(flatyaml.load_mapping(text, pyyaml=True)))
    except flatyaml.Malformed:
        got = ("error",)
    assert got == expected


@pytest.mark.parametrize("text", ["a: 1\nb: 2\na: 3\n", "- a\n- b\n", "  a: 1\n", "a:\n  b: 1\n", "yes: 1\n",
                                  "a:\t1\n", "\ufeffa: 1\n", "a: 1\r\nb: [2, 3]\r\n", "# c\n\n", "", "a: 1\n---\nb: 2\n"])
def test_whole_files_read_as_the_strict_pyyaml_loader_reads_them(text):
    """The book's PyYAML loader is safe_load, except that a repeated key or a key that is no string is an error."""
    def outcome(**kw):
        try:
            return ("ok", typed(flatyaml.load_mapping(text, **kw)))
        except flatyaml.Malformed as err:
            assert "\n" not in err.problem
            return ("error", err.line)

    expected = outcome(pyyaml=True)
    assert outcome() == expected
    without = outcome(pyyaml=False)
    assert without == expected or without[0] == "error"   # outside the subset, without PyYAML: refused


def test_duplicate_key_names_its_line_without_pyyaml():
    with pytest.raises(flatyaml.Malformed) as err:
        flatyaml.load_mapping("a: 1\n# c\na: 2\n", pyyaml=False)
    assert err.value.line == 3 and err.value.problem == "key 'a' given twice"
