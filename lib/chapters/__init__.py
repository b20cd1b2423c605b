"""One package per chapter. The contract every chapter follows (tests/test_contract.py checks it; `python -m lib
new NAME` writes a skeleton that meets it):

- `book/chapters/<name>.md`: a jupytext MyST notebook. Its one `parameters` cell is the schema (a typed default
  and `# constraint: meaning` per line); it states its theorem in a `prf:theorem` block; it calls
  `ch = Chapter("<name>", globals())`, `results = ch.collect(compute.points(P))`, quotes numbers in prose through
  `ch.glue(...)` and `{glue:text}`, shows its verdict on its first screen ({glue:md}`verdict` under its title,
  glued by `ch.finish`), and ends with `check = ch.finish(page.claims(...))`, showing `check.checks`,
  `check.claims` and `check.provenance`.
- `lib/chapters/<name>/`: six files, one role each, imports running one way (experiments <- compute <- results <-
  claims, figures <- page; no chapter imports another; tests/test_contract.py checks the files, the direction and
  that lib has no import circle):
  - `__init__.py`: what the chapter is (paper, theorem), `READS`, the chapters whose stored results its page reads
    (the runner runs those first), and `PAPER_SCALE`, what its paper profile reproduces (the paper's experiment, a
    subset of it, or this book's scale where the paper has none: lib.core.runner.SCALE_KINDS). It computes nothing.
  - `compute.py`: what the numbers depend on, and nothing else. Point specs are frozen dataclasses (typed fields,
    one line of meaning each); each point's computation is a module-level `run_*(spec, device) -> dict` that sees
    its spec only; `points(P) -> list[lib.core.sweep.Point]` lists the experiment; `check_params(P) -> [(key,
    expected)]` (optional) checks constraints between parameters; `footprint(P) -> [(keys, bytes, what)]` estimates
    the biggest point's largest allocations, so that validation refuses sizes the device cannot hold. Where a
    chapter has several arms, each arm's code is a module of `experiments/` (whose `__init__.py` holds none), which
    compute.py imports and which never imports it. compute.py, experiments/ and the lib.science modules they import
    make the chapter's lib hash.
  - `results.py`: the stored points read into the numbers (tables, fits) that claims and figures use.
  - `claims.py`: `ROWS`, the claim check as declarative `lib.core.claims.Row`s (kind `check` or `claim`, with a
    source, the rule an object of lib.core.rules), `claims(results)` evaluating them, and the rules' power on
    simulated data where the chapter measures it.
  - `figures.py`: the figures. `page.py`: what the notebook calls.
  A role that spans several topics is a package of its name, one module per topic. No computation imports results,
  claims, figures or page, so editing them leaves stored results current. No module has over 400 lines.
- `parameters/<name>/quick.yaml` (2 CPU cores, minutes) and `parameters/<name>/paper.yaml` (the paper's scale).
- an entry `book/executed/<name>` in `_toc.yml`, and `tests/test_<name>.py`.
"""


def points_of(chapter: str, P: dict) -> list:
    """A chapter's sweep points for parameters P, its compute module imported by name: how a page reads another
    chapter's stored results (no chapter imports another's modules; its READS declares the dependency).

    >>> from lib.core import params; len(points_of("ffn_span", params.resolve("ffn_span", "paper")))
    12
    """
    import importlib

    return importlib.import_module(f"lib.chapters.{chapter}.compute").points(P)


def stored(chapter: str, profile: str = "paper") -> tuple[dict, dict]:
    """(P, results): a profile's parameters and its committed results, loaded and never computed (a missing point
    raises lib.core.store.MissingResult). The chapter modules' examples read the paper results this way.

    >>> P, results = stored("ffn_span"); P["profile"], list(results)
    ('paper', ['span', 'visibility', 'readout', 'ffn', 'transformer'])
    """
    from lib.core import params
    from lib.core.store import ROOT, Store
    from lib.core.sweep import collect

    P = params.resolve(chapter, profile)
    store = Store(chapter, profile, root=ROOT / "results", stored_only=True)
    return P, collect(points_of(chapter, P), store, "cpu", log=None)
