"""What `run` and `compute` say while they work, so that a user is never left in silence: the first line at once
(`first_line`), a line per finished sweep point with an estimate of the time left (lib.core.sweep.collect, with
lib.core.schedule.Estimate), "still working: ..." where a step is silent for long (`Heartbeat`: the running point,
the notebook's cell as papermill starts it (`Watch`), the HTML build), a progress bar on a terminal (`Console`), and
at the end the page rendered (lib.core.runner.after_run, with `page_of`).

    >>> seconds(45), seconds(200), seconds(4000)
    ('45 s', '3 min 20 s', '1 h 06 min')
"""
from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

HEARTBEAT_S = 20.0   # the longest silence while a sweep computes: a line at least this often
# `run`'s own heartbeat (lib.core.runner) waits a little longer, so that during a sweep the kernel's line, which
# names the point, comes first; either way a line comes at least every 30 s
POINT_LINE = re.compile(r"^(?P<chapter>[\w.-]+): \[(?P<done>\d+)/(?P<total>\d+)\] .*?(?:, (?P<eta>about [^(),]* left))?\)?$")


class Heartbeat:
    """A line at least every `every` seconds while a long step works: where nothing else was said for that long, a
    thread says "still working: <what()>". Every other line goes through `say`, so that it counts as said.

        >>> said = []; with_beat = Heartbeat(said.append, lambda: "the claims", every=0.01)
        >>> with with_beat: time.sleep(0.2)
        >>> said[0]
        'still working: the claims'
    """

    def __init__(self, log: Callable[[str], None], what: Callable[[], str], every: float = HEARTBEAT_S):
        self.log, self.what, self.every = log, what, every
        self.last, self.lock, self.stop = time.monotonic(), threading.Lock(), threading.Event()
        self.thread, self.t0 = threading.Thread(target=self._beat, daemon=True), time.monotonic()

    @property
    def elapsed(self) -> float:
        """Seconds since the heartbeat was made."""
        return time.monotonic() - self.t0

    def say(self, line: str) -> None:
        with self.lock:
            self.last = time.monotonic()
            self.log(line)

    def _beat(self) -> None:
        while not self.stop.wait(max(0.01, self.last + self.every - time.monotonic())):
            if time.monotonic() - self.last >= self.every:
                try:
                    what = self.what()
                except Exception as err:   # what is being done could not be told: the heartbeat goes on
                    what = f"({type(err).__name__})"
                self.say(f"still working: {what}")

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        return False


def seconds(t: float) -> str:
    """A duration as a person reads it: 45 s, 3 min 20 s, 1 h 05 min."""
    t = max(0, round(t))
    return f"{t} s" if t < 100 else f"{t // 60} min {t % 60:02d} s" if t < 3600 else f"{t // 3600} h {t % 3600 // 60:02d} min"


class Console:
    """What `run` and `compute` show while they work, on `stream` (stdout): every line as it comes, elsewhere than a
    terminal; on a terminal, a sweep's finished points (collect's "[k/n]" lines) also as a progress bar, redrawn in
    place on the last line with the estimate of the time left (or what a heartbeat says), the other lines above it.

        >>> import io; out = io.StringIO(); show = Console(out)
        >>> show("ch: [1/4] a 2 computed in 1.0 s (1 s elapsed, about 3 s left)"); out.getvalue()
        'ch: [1/4] a 2 computed in 1.0 s (1 s elapsed, about 3 s left)\\n'
    """

    def __init__(self, stream=None, tty: bool | None = None):
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty() if tty is None else tty
        self.bar = None            # (done, total, text) of the bar on the last line, while a sweep runs
        self.lock = threading.Lock()

    def __call__(self, line: str) -> None:
        with self.lock:
            m = POINT_LINE.match(line) if self.tty else None
            if not self.tty or (self.bar is None and not m):
                self.stream.write(line + "\n")
            elif line.startswith("still working: ") and not m:   # in the bar's place, not above it
                self._draw(*self.bar[:2], line[len("still working: "):])
            else:
                self.stream.write("\r\x1b[K" + line + "\n")
                done, total, text = (int(m["done"]), int(m["total"]), m["eta"] or "") if m else self.bar
                if done < total:
                    self._draw(done, total, text)
                else:
                    self.bar = None
            self.stream.flush()

    def _draw(self, done: int, total: int, text: str) -> None:
        import shutil

        full = round(24 * done / max(total, 1))
        self.bar = (done, total, text)
        bar = f"[{'#' * full}{'.' * (24 - full)}] {done}/{total} points{', ' + text if text else ''}"
        self.stream.write("\r\x1b[K" + bar[:shutil.get_terminal_size((100, 20)).columns - 1])


def progress(stream=None) -> Callable[[str], None]:
    """A `log` for collect (Console): every line on `stream`, a progress bar on a terminal."""
    return Console(stream or sys.__stdout__)


NOTEBOOK_BEAT_S = 27.0   # `run`'s heartbeat: longer than the sweep's own (sweep.HEARTBEAT_S), under 30 s


def doing(source: str) -> str:
    """What a chapter notebook's cell does, in words, for the line `run` prints while it works."""
    if "Chapter(" in source:
        return "importing the chapter's code and checking its parameters"
    if ".collect(" in source:
        return "the sweep"
    if ".finish(" in source:
        return "the claim check and the power of its rules"
    if "figures." in source or "plot_" in source:
        return "a figure"
    return "the page's tables and numbers"


class Watch:
    """Where a chapter's notebook is while papermill executes it (its kernel starting, then cell i of n) and how long
    the rest took when this page was last executed with the same profile (`before`: each cell's seconds, from that
    notebook's papermill metadata), for the line `run` prints at least every HEARTBEAT_S seconds.

        >>> w = Watch("ch", clock=lambda: 100.0); w.what()
        "ch: starting the notebook's kernel for 0 s"
    """

    def __init__(self, chapter: str, before: list[float] | None = None, clock=time.monotonic):
        self.chapter, self.before, self.clock = chapter, before, clock
        self.t0 = self.since = clock()
        self.cells, self.index, self.now = 0, -1, "starting the notebook's kernel"

    def begin(self, nb) -> None:
        self.cells = len(nb.cells)
        if self.before is not None and len(self.before) != self.cells:   # another notebook: its times do not apply
            self.before = None

    def cell(self, index: int, cell) -> None:
        self.index, self.since, self.now = index, self.clock(), doing(cell.get("source", ""))

    def what(self) -> str:
        ran = self.clock() - self.since
        text = f"{self.chapter}: {self.now}" + (f" (cell {self.index + 1} of {self.cells})" if self.index >= 0 else "")
        text += f" for {seconds(ran)}"
        if self.before and self.index >= 0 and self.now != "the sweep":
            left = max(self.before[self.index] - ran, 0.0) + sum(self.before[self.index + 1:])
            text += f", about {seconds(left)} left going by the last run of this page"
        return text


def durations(notebook: Path, profile: str) -> list[float] | None:
    """Each cell's seconds in a notebook executed earlier with `profile` (papermill's metadata); None if there is none."""
    try:
        nb = json.loads(notebook.read_text())
        if nb["metadata"]["book"]["profile"] != profile:
            return None
        return [float(c.get("metadata", {}).get("papermill", {}).get("duration") or 0.0) for c in nb["cells"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def watched_engine(watch: Watch) -> str:
    """papermill's nbclient engine, telling `watch` when the notebook's cells start; its name for execute_notebook."""
    from papermill.engines import NBClientEngine, papermill_engines

    class Watched(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
            start = nb_man.cell_start
            watch.begin(nb_man.nb)

            def cell_start(cell, cell_index=None, **kw):
                watch.cell(cell_index if cell_index is not None else watch.index + 1, cell)
                return start(cell, cell_index, **kw)

            nb_man.cell_start = cell_start
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)

    papermill_engines.register("book-watched", Watched)
    return "book-watched"


# ------------------------------------------------------------------------------------------- the command's ends
def first_line(args):
    """What `run`, `book` and `compute` say at once (their imports, validation and the notebook's kernel take
    seconds): the command, its chapter and profile; the Console every later line goes through."""
    show = progress(sys.stdout)
    what = "every chapter" if args.cmd == "book" or args.chapter == "all" or getattr(args, "all", False) else args.chapter
    sets = f", {len(args.set)} parameter{'s' if len(args.set) > 1 else ''} set" if args.set else ""
    show(f"{args.cmd} {what} ({args.profile} profile{sets}): checking the parameters")
    return show


def shown(path) -> str:
    """A path as the user can type it: relative to the repository where it is inside it."""
    from lib.core.store import ROOT

    path = Path(path).absolute()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def page_of(chapter: str, root: Path | None = None) -> Path:
    """Where a chapter's page is once the book is built."""
    from lib.core.store import ROOT

    return Path(root or ROOT) / "_build" / "html" / "book" / "executed" / f"{chapter}.html"


@contextmanager
def relay(path: Path, show):
    """Show the sweep's progress lines, which the chapter's kernel appends to `path`, while the notebook runs (a
    thread polls the file; the last lines are shown when the block ends)."""
    stop, offset = threading.Event(), 0

    def drain():
        nonlocal offset
        try:
            with open(path) as f:
                f.seek(offset)
                lines = f.readlines()
                offset = f.tell()
        except FileNotFoundError:
            return
        for line in lines:
            show(line.rstrip("\n"))

    def poll():
        while not stop.wait(0.5):
            drain()

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        drain()
