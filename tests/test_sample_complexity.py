"""lib.sample_complexity and its page module: the page (tables, claims, figures) stays out of the chapter's lib hash.
The chapter's summary and claims are tested in test_claims.py."""
from __future__ import annotations

import ast

from lib import store


def test_page_module_is_outside_the_lib_hash():
    assert (store.ROOT / "lib" / "sample_complexity_page.py").exists()
    mods = store.lib_modules("sample_complexity")
    assert "sample_complexity" in mods and "sample_complexity_page" not in mods
    tree = ast.parse((store.ROOT / "lib" / "sample_complexity.py").read_text())
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names]
    assert not [m for m in imported if m.endswith("_page")], imported
