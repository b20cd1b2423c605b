"""What every chapter notebook does around its experiment: read and check its parameters, pick the device,
open its results store, collect its sweep points, show the parameters used, glue the numbers its prose quotes,
write claims.json and provenance.json, and render the claim check and the provenance line. A chapter notebook's
cells (book/chapters/<name>.md; `python -m lib run <name>` executes them):

    ch = Chapter("sample_complexity", globals())   # right after the parameters cell
    results = ch.collect(compute.points(ch.params))   # every sweep point, loaded or computed
    check = ch.finish(rows)                         # last cells: check.checks, check.claims, check.provenance
"""
from __future__ import annotations

import inspect
import os
import time
from collections import Counter
from typing import NamedTuple

from lib.core import params as params_mod
from lib.core.claims import below_scale, censored, tally, to_markdown, unmeasured, unmeasured_markdown
from lib.core.gate import gate
from lib.core.manifest import write_manifest
from lib.core.power import draws_for
from lib.core.store import Store, environment, is_stale, key_of, shown_device, summary_line
from lib.core.sweep import Point, collect
from lib.core.tables import markdown_table


class ClaimCheck(NamedTuple):
    """What `Chapter.finish` returns: the two claim tables and the provenance line, each displayable, and the power
    of the rules (lib.core.power: the table's rows; [] where the chapter declares none)."""
    checks: object
    claims: object
    provenance: object
    power: list = []

    def power_table(self, ids: list[str] | None = None):
        """The power table of the rows `ids` (all rows: None), displayable."""
        from IPython.display import Markdown

        from lib.core.power import to_markdown as power_markdown
        return Markdown(power_markdown(self.power, ids))


def set_text(key: str, value) -> str:
    """The `--set` argument that gives `key` this value (YAML flow style, as params.parse_overrides reads it back).

        >>> set_text("models", ["transformer", "ffn"]), set_text("lr", 0.001)
        ('models=[transformer,ffn]', 'lr=0.001')
        >>> params_mod.parse_overrides([set_text("N", [2, 4]), set_text("f", False)])
        {'N': [2, 4], 'f': False}
    """
    one = lambda v: "true" if v is True else "false" if v is False else str(v)
    return f"{key}={'[' + ','.join(one(v) for v in value) + ']' if isinstance(value, list) else one(value)}"


def plain(value):
    """A number as Python's own type (numpy's repr, np.float64(0.5), is not a number to myst-nb's glue)."""
    import numpy as np

    return value.item() if isinstance(value, np.generic) else value


class Chapter:
    def __init__(self, name: str, namespace: dict):
        self.name = name
        self.t0 = time.perf_counter()
        schema = params_mod.load_schema(name)
        # Values as papermill injected them, checked again so that a notebook run by hand is checked too.
        self.params = {k: params_mod.check_value(p, namespace[k], "parameters cell") for k, p in schema.items()}
        self.profile = self.params.get("profile", "custom")
        self.device = params_mod.resolve_device(self.params.get("device", "auto"))
        self.store = Store(name, self.profile)  # stored-only when the runner renders committed results
        self.force = os.environ.get("BOOK_FORCE") == "1"
        self.env = environment(self.device, name)
        # Where the results were computed: compute.json when `python -m lib compute` ran them (on a GPU), if it
        # was for exactly these parameters; in a stored-only render, the provenance the stored run wrote.
        computed = self.store.read("compute.json")
        self.computed = computed if computed and computed.get("params") == self.params else None
        self.stored = self.store.read("provenance.json") if self.store.stored_only else None
        self.used: list[dict] = []   # what the last `collect` loaded or computed

    def collect(self, points: list[Point]) -> dict:
        """Every sweep point of this page, through the one sweep runner (lib.core.sweep.collect)."""
        # `python -m lib run` names a file in BOOK_PROGRESS and shows what is appended to it on its terminal: the
        # kernel's own output would land on the page.
        path = os.environ.get("BOOK_PROGRESS")
        if not path:
            results = collect(points, self.store, self.device, force=self.force, log=None, env=self.env)
        else:
            with open(path, "a", buffering=1) as stream:
                results = collect(points, self.store, self.device, force=self.force, env=self.env,
                                  log=lambda line: print(line, file=stream))
        self.used = results.used   # the records of the last collect: the page's compute time, machines and commits
        return results

    def glue(self, **values) -> None:
        """Name numbers for the prose: `{glue:text}`name:,.0f`` in the chapter's markdown shows the value this run
        computed (myst-nb's glue), so a number in a sentence is never assembled by hand."""
        from myst_nb import glue

        for name, value in values.items():
            glue(name, plain(value), display=False)

    def profile_note(self):
        """An admonition that says which profile the page shows, where its numbers were computed, and how a reader
        re-runs the chapter (the command, and the chapter's source to download)."""
        from IPython.display import Markdown

        src = self.stored or self.computed
        if self.profile == "paper" and src:
            from lib.core.runner import paper_scale

            scale = paper_scale(self.name)
            # The machines and commits come from the points themselves (the run summary and the provenance): the last
            # compute call's (compute.json) may have found every point stored and computed nothing.
            text = ("This page shows **paper-profile** results" + (f", {scale}" if scale else "") + ", stored in "
                    f"`results/{self.name}/paper/`; this build rendered them without recomputing anything. The run "
                    "summary below names the machines and commits that computed them.")
        elif self.profile == "quick":
            text = ("This page shows the **quick** profile: the paper's experiment at a scale a 2-core CPU runs in a "
                    "few minutes. The claim check says which claims depend on scale; the `paper` profile runs the "
                    f"paper's scale (`python -m lib compute {self.name} --profile paper`, on a GPU or, niced in the "
                    f"background and resumed in pieces, on a CPU).{self._paper_state()}")
        else:
            text = f"This page ran the `{self.profile}` profile."
        rerun = (f"**Re-run it** from a checkout of the book's repository: `make setup`, then `.venv/bin/python -m lib "
                 f"run {self.name} --profile {self.profile}` (add `--set key=value` to change a parameter of the table "
                 f"below). The chapter's source: {{download}}`{self.name}.md <../chapters/{self.name}.md>`; the executed "
                 "notebook: the download button at the top of the page.")
        return Markdown(f"```{{note}}\n{text}\n\n{rerun}\n```")

    def _paper_state(self) -> str:
        """A sentence on the chapter's stored paper results, for a page that shows another profile ("" if none)."""
        from lib.core.runner import paper_progress

        done = paper_progress(self.name)
        if done is None:
            return ""
        if done[0] == done[1]:
            return f" Its stored results are complete ({done[1]} points): `make book` renders them."
        return f" {done[0]} of its {done[1]} points are computed so far; this page shows them once all are."

    def run_summary(self, noun: str = "stored points", work: str = "computation", detail: str = ""):
        """One line: the points this page loaded or computed (`used`), their compute time, and the
        machines and commits that made them; then `detail`, a sentence about them."""
        from IPython.display import Markdown

        line, *fold = summary_line(self.used, noun, work).split("\n\n", 1)   # the commit list's fold stays last
        return Markdown("\n\n".join([" ".join(filter(None, [line, detail])), *fold]))

    def parameters_table(self):
        """The parameters this run used (papermill's injected cell is hidden), folded: a table of 27 to 48 rows open
        near the top of the page pushed its findings a few screens down."""
        from IPython.display import Markdown

        schema = params_mod.load_schema(self.name)
        table = markdown_table(["parameter", "value", "meaning"],
                               [[f"`{k}`", f"`{v}`", schema[k].help] for k, v in self.params.items()])
        return Markdown(f":::{{dropdown}} The {len(self.params)} parameters of this run (profile `{self.profile}`)\n"
                        f"{table}\n:::")

    def finish(self, rows: list[dict], extra: dict | None = None, power=None, headlines: tuple = ()) -> ClaimCheck:
        """Write claims.json and provenance.json for this run (a stored-only render writes nothing); return the
        implementation-check table, the claim table and the provenance line, with a warning when results made by
        other lib code were loaded. rows: lib.core.claims.evaluate(...). power: power(draws), the power table of the
        rules (lib.core.power.power_table) with `draws` simulated results per world (lib.core.power.draws_for the
        profile): called once, when the claims are computed, and stored as power.json; a stored-only render reads
        power.json (and computes it, without storing, where there is none). headlines: the chapter's
        lib.core.claims.Headline list, which the verdict sentence reads out. The rows are gated in place by their
        power (lib.core.gate: `undecided` where it does not let the rule's outcome stand), so the cells after this
        one read the verdicts the page shows."""
        from IPython.display import Markdown

        wall = time.perf_counter() - self.t0
        used = self.used
        if self.stored is not None:  # the claims are recomputed from the stored results; the store is not touched
            prov = self.stored
            table = (self.store.read("power.json") or power(draws_for(self.profile))) if power else []
            rows[:] = gate(rows, table)
        else:
            prov = {"chapter": self.name, "profile": self.profile, "wall_s": round(wall, 2),
                    "seeds": {k: v for k, v in self.params.items() if "seed" in k}, "params": self.params, **self.env,
                    "compute_s": round(sum(r["result"].get("wall_s") or 0 for r in used), 1), **(extra or {})}
            if self.computed:  # the numbers came from `python -m lib compute` (a GPU): name that machine
                prov.update({k: self.computed[k] for k in ("commit", "lib_hash", "device", "torch", "python")},
                            compute_wall_s=self.computed["wall_s"], rendered_commit=self.env["commit"])
            # Points computed over several calls (niced on a CPU, then on a GPU): name every machine, not the
            # last call's alone, and say how many commits the points come from (the run summary lists them).
            machines = Counter((r["device"], r.get("torch", "?")) for r in used)
            if len(machines) > 1:
                prov["device"] = ", ".join(f"{d} ({n} points)" for (d, _), n in machines.most_common())
                prov["torch"] = ", ".join(sorted({t for _, t in machines}))
            prov["point_commits"] = len({r["commit"] for r in used})
            table = power(draws_for(self.profile)) if power else []
            rows[:] = gate(rows, table)
            self.store.write("claims.json", rows)
            if power:
                self.store.write("power.json", table)
            self.store.write("provenance.json", prov)
            write_manifest(self.store.dir)   # every point was loaded (checked) or computed: the profile is complete
        checks_ok, checks_bad = tally(rows, "check")
        passed, failed = tally(rows, "claim")
        low, open_ = below_scale(rows), censored(rows)
        rendered = self.stored is not None or "compute_wall_s" in prov
        # One line a reader reads (profile, machines, the verdict counts); the commits, hashes, seeds and times that
        # make it reproducible folded beneath it.
        line = (f"**Provenance.** profile `{self.profile}`{', stored results' if self.stored is not None else ''} · "
                f"device {shown_device(prov['device'])} · implementation checks {checks_ok} passed, {checks_bad} failed · claims "
                f"{passed} passed, {failed} failed" + (f" ({low} of them below the scale their effect needs)" if low else "")
                + (f", {open_} undecided" if open_ else "") + ".")
        detail = (f"computed at commit `{prov['commit']}`"
                  + (f" (the last of {prov['point_commits']} commits its points come from)"
                     if prov.get("point_commits", 1) > 1 else "") + f" · lib `{prov['lib_hash']}` · "
                  f"torch {prov['torch']} · seeds " + ", ".join(f"`{k}={v}`" for k, v in prov["seeds"].items())
                  + (f" · computation {prov.get('compute_s', 0):,.0f} s summed over its points, last compute call "
                     f"{prov.get('compute_wall_s', prov['wall_s'])} s of wall time · rendered at commit "
                     f"`{self.env['commit']}` in {wall:.1f} s" if rendered else f" · wall time {wall:.1f} s"))
        line += f"\n\n:::{{dropdown}} Commits, code hash, seeds and times\n{detail}\n:::"
        stale = [r for r in used if is_stale(r, current=self.env["lib_hash"])]   # env holds lib_hash(chapter)
        if stale:
            line = (f"```{{warning}}\n{len(stale)} of the {len(used)} stored results this page loaded were computed with "
                    f"other `lib` code than this build's (points {', '.join(key_of(r['spec']) for r in stale[:6])}"
                    f"{', ...' if len(stale) > 6 else ''}). Rerun with `--force` to recompute them.\n```\n\n" + line)
        self.glue_verdict(rows, headlines)
        table_md = to_markdown(rows, "claim", table)
        left = unmeasured_markdown(self.spec_rows(), rows)
        if left:
            table_md += f"\n\nClaims this run could not measure, and why:\n\n{left}"
        return ClaimCheck(Markdown(to_markdown(rows, "check")), Markdown(table_md), Markdown(line), table)

    def glue_verdict(self, rows: list[dict], headlines: tuple = ()) -> None:
        """Glue `verdict`, the page's verdict (verdict_line), for the first screen of the chapter: `{glue:md}`verdict``
        directly under its title."""
        from myst_nb import glue

        glue("verdict", verdict_line(rows, self.profile, headlines, self.unmeasured(rows), self.made_by()),
             display=False)

    def overrides(self) -> dict:
        """{key: value} of the parameters this run set beyond its profile's file (`--set`, or a notebook edited by
        hand): what the page must say made it."""
        try:
            base = params_mod.resolve(self.name, self.profile)
        except params_mod.ParamError:
            return {}
        return {k: v for k, v in self.params.items() if k in base and base[k] != v}

    def made_by(self) -> str:
        """"" for a run of its profile as the file sets it; otherwise which parameters it overrode and the one command
        that reproduces this page."""
        moved = self.overrides()
        if not moved:
            return ""
        sets = " ".join(f"--set {set_text(k, v)}" for k, v in moved.items())
        shown = ", ".join(f"<code>{k}</code> = <code>{set_text(k, v).split('=', 1)[1]}</code>"
                          for k, v in moved.items())
        return (f"This page ran the <code>{self.profile}</code> profile with {shown}; to reproduce it: "
                f"<code>python -m lib run {self.name} --profile {self.profile} {sets}</code>")

    def spec_rows(self) -> list:
        """The chapter's claim rows as declared (its claims module's ROWS, imported by name; [] without one)."""
        from lib.core.reach import module

        try:
            return list(module(self.name, "claims").ROWS)
        except (ImportError, AttributeError):
            return []

    def unmeasured(self, rows: list[dict]) -> dict[str, str]:
        """{id: reason} of the chapter's claim rows this run could not measure (lib.core.claims.unmeasured)."""
        return unmeasured(self.spec_rows(), rows)


MARKS = {"borne out": "✓", "not borne out": "✗", "below scale": "✗", "undecided": "◌"}


def verdict_line(rows: list[dict], profile: str, headlines: tuple = (), unmeasured: dict | None = None,
                 made_by: str = ""):
    """The verdict of a claim check, as Markdown for the first screen of a phone: what made the page where a run set
    parameters beyond its profile (`made_by`), then one line per headline claim of the paper (`headlines`), each with
    a mark a reader takes in at a glance (✓ borne out, ✗ not borne out or below scale, ◌ undecided) and its counts;
    without headlines, how many claims are borne out, fail and are undecided; how many claims this run could test
    where some could not be measured (`unmeasured`, {id: reason}: listed under the claim table); then, on a line of
    its own (book.css), the ids of the rows that did not pass and where the words are defined.

        >>> from lib.chapters import stored; from lib.chapters.ffn_span import page; P, results = stored("ffn_span")
        >>> print(verdict_line(page.claims(P, results), "paper").data.split(" <span")[0])
        **Verdict (paper profile)**
    """
    from IPython.display import Markdown

    unmeasured = unmeasured or {}
    checks_ok, checks_bad = tally(rows, "check")
    passed, failed = tally(rows, "claim")
    low, open_ = below_scale(rows), censored(rows)
    claims = [r for r in rows if r["kind"] == "claim"]
    settled = [r for r in claims if not r.get("censored") and not r.get("undecided")]
    bad = [r["id"] for r in settled if not r["passed"] and not r.get("scale")]
    under = [r["id"] for r in settled if not r["passed"] and r.get("scale")]
    cen = [r["id"] for r in claims if r.get("censored") or r.get("undecided")]
    n = passed + failed + open_
    counts = [f"{passed} of {n} claim{'s' if n > 1 else ''} borne out" if n else "no claim measured on this run"]
    if failed:
        counts.append(f"{failed} fail{'s' if failed == 1 else ''}"
                      + (" below scale" if low == failed else f" ({low} below scale)" if low else ""))
    if open_:
        counts.append(f"{open_} undecided")
    checks = ("" if not checks_ok + checks_bad else "every implementation check passes" if not checks_bad else
              f"{checks_bad} of {checks_ok + checks_bad} implementation check{'s' if checks_ok + checks_bad > 1 else ''} "
              f"fail{'s' if checks_bad == 1 else ''}")
    item = lambda mark, text: f'<span class="verdict-item">{mark} {text}</span>'
    lines = []
    for h in headlines:
        said = h.says(rows)
        if said:
            word = h.state(rows)[0]          # "" for a headline of implementation checks only
            lines.append(item(MARKS[word] if word else "✓" if ": checked" in said else "✗", said))
    if not lines:
        lines.append(item("·", ", ".join(counts)))
    if unmeasured:
        total = n + len(unmeasured)
        lines.append(item("·", f"{n} of {total} claims testable at this run's parameters; the other "
                               f"{len(unmeasured)} are listed under the claim check"))
    if checks:
        lines.append(item("✓" if not checks_bad else "✗", checks))
    ids = lambda xs: ", ".join(f"<code>{x}</code>" for x in xs)
    named = "; ".join(([", ".join(counts)] if headlines else []) + [
        f"{what}: {ids(xs)}" for what, xs in (("fails", bad), ("below scale", under), ("undecided", cen)) if xs])
    # a glued Markdown is parsed inline without Sphinx's roles: the lines, the link to the definitions and the span
    # that sets the ids apart (book.css) are plain HTML
    more = ((named[0].upper() + named[1:] + ". ") if named else "") + (
        'Each row is in the claim check at the end of the page (<a href="../intro.html#verdicts">what a verdict '
        "means</a>).")
    made = f'<span class="verdict-made">{made_by}</span> ' if made_by else ""
    return Markdown(f"{made}**Verdict ({profile} profile)** {' '.join(lines)} "
                    f'<span class="verdict-more">{more}</span>')


def source_lines(func, first: str, last: str):
    """The lines of `func`'s source from the first that contains `first` to the next that contains `last`, dedented,
    as a Python code block (IPython Markdown): a page shows the heart of its experiment as lib's own code, which
    cannot drift from what ran.

        >>> from lib.core.store import key_of
        >>> print(source_lines(key_of, "return", "return").data.splitlines()[1][:6])
        return
    """
    from IPython.display import Markdown

    lines = inspect.getsource(func).splitlines()
    i = next(k for k, line in enumerate(lines) if first in line)
    j = next(k for k in range(i, len(lines)) if last in lines[k])
    indent = min(len(x) - len(x.lstrip()) for x in lines[i:j + 1] if x.strip())
    return Markdown("```python\n" + "\n".join(x[indent:] for x in lines[i:j + 1]) + "\n```")
