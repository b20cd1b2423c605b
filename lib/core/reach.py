"""The one place lib/core imports a chapter's modules: by the chapter's name, never by a static import, so that
lib/core depends on no chapter (tests/test_contract.py checks it) and a new chapter needs no line here.

    >>> module("ffn_span", "compute").__name__, getattr(module("ffn_span"), "READS")
    ('lib.chapters.ffn_span.compute', ('sample_complexity',))
"""
from __future__ import annotations

import importlib
from types import ModuleType

PARTS = ("", "compute", "claims", "page")     # what lib/core reads of a chapter: its __init__, compute, claims, page


def module(chapter: str, part: str = "") -> ModuleType:
    """lib.chapters.<chapter>[.<part>], imported; part is one of PARTS."""
    if part not in PARTS:
        raise ValueError(f"lib/core reads a chapter's {', '.join(p or '__init__' for p in PARTS)}, not {part!r}")
    return importlib.import_module(f"lib.chapters.{chapter}" + (f".{part}" if part else ""))
