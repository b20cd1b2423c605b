"""`python -m lib pdf`: the whole book as one PDF, printed offline from the built HTML by the distribution's headless
Chromium (Debian: apt-get install chromium) and merged with pypdf.

Every page of _toc.yml (the intro, each chapter, the execution report, the bibliography) is printed on its own (two
at a time, merged in the table of contents' order), so each starts on a new page; Chromium runs with no network and
waits until MathJax has typeset the equations (a virtual-time budget: the page's timers run to completion before it
prints); a part's
trailing blank pages (what Chromium emits when a page's content ends right at its foot) are dropped. The PDF opens on
a title page (the book's title, the commit it was built from and the build date), has a page number at the foot of
every other page (stamped from one more printed page of numbers, merged with pypdf), one bookmark per page of the
book, and is written atomically to _build/html/book.pdf, next to the HTML, where the intro's link finds it. Jupyter
Book's own `pdfhtml` builder downloads a Chromium at build time, which an offline machine cannot.

    python -m lib build && python -m lib pdf      # or: make pdf
"""
from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lib.core.params import ParamError
from lib.core.runner import ChapterFailed
from lib.core.store import ROOT, atomic_write

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run", "--disable-sync", "--disable-quic", "--no-default-browser-check", "--hide-scrollbars",
         "--no-pdf-header-footer", "--run-all-compositor-stages-before-draw")
BUDGET_MS = 30000    # virtual time for MathJax to typeset a page (virtual: a page that is done prints at once)
TIMEOUT_S = 300      # wall-clock limit per page, on a busy two-core machine
PRINTERS = 2         # pages printed at once


def chromium() -> str:
    """The headless browser that prints the pages; ParamError (one line) where there is none."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if path := shutil.which(name):
            return path
    raise ParamError("pdf: no Chromium here to print the pages with: apt-get install chromium (Debian's; Jupyter "
                     "Book's pdfhtml downloads its own and cannot work offline)")


def toc_pages(root: Path = ROOT) -> list[str]:
    """Every page of the book in _toc.yml's order (root first), as paths without suffix: book/intro, ..."""
    text = (Path(root) / "_toc.yml").read_text()
    first = re.search(r"^root:[ \t]*([^\s#]+)", text, re.M)
    files = re.findall(r"^[ \t]*(?:-[ \t]+)?file:[ \t]*([^\s#]+)", text, re.M)
    return ([first.group(1)] if first else []) + files


def title_of(page: Path) -> str:
    m = re.search(r"<title>(.*?)</title>", page.read_text(errors="replace"), re.S)
    title = html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip() if m else page.stem
    title = re.sub(r"\\([A-Za-z]+)", r"\1", re.sub(r"\\[()\[\]]|\$", "", title))   # a bookmark shows no TeX: \(\log T\) -> log T
    return re.sub(r"\s+[—–-]+\s+[^—–-]*$", "", title) or page.stem   # "Chapter — Book title": the chapter's


def print_page(browser: str, page: Path, out: Path, profile: Path) -> None:
    """One HTML page to one PDF file, by headless Chromium."""
    cmd = [browser, *FLAGS, f"--user-data-dir={profile}", f"--virtual-time-budget={BUDGET_MS}",
           f"--print-to-pdf={out}", page.as_uri()]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ChapterFailed(f"pdf: Chromium took more than {TIMEOUT_S} s to print {page}") from None
    if proc.returncode != 0 or not out.is_file() or out.stat().st_size == 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1][:200]
        raise ChapterFailed(f"pdf: Chromium could not print {page} (exit status {proc.returncode}: {last})")
    with open(out, "rb") as f:
        head = f.read(5)
    if head != b"%PDF-":     # an error page or a crash report written where the PDF should be
        raise ChapterFailed(f"pdf: Chromium printed {page} to a file that is not a PDF (it begins {head!r}, not "
                            f"b'%PDF-'); {browser} --version says which browser ran; nothing was written")


def read_pdf(path: Path, page: Path):
    """A printed part as pypdf's reader, its pages counted; ChapterFailed (one line) where pypdf cannot read it."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(path)
        len(reader.pages)
        return reader
    except (PyPdfError, ValueError, KeyError, OSError) as err:
        raise ChapterFailed(f"pdf: Chromium's print of {page} is not a readable PDF ({type(err).__name__}: "
                            f"{str(err)[:160]}); nothing was written") from None


def blank(page) -> bool:
    """A printed page with no text and no image: what Chromium emits after a page whose content ended right at its
    foot (the page's footer or a margin spilling over). Whether that happens depends on the lengths of the numbers
    printed before it, so a build must not depend on it."""
    try:
        return not page.extract_text().strip() and not list(page.images)
    except Exception:     # a page pypdf cannot read through is not known to be blank: keep it
        return False


def kept_pages(reader) -> int:
    """How many pages of a printed part to keep: all but its trailing blank ones (at least one)."""
    n = len(reader.pages)
    while n > 1 and blank(reader.pages[n - 1]):
        n -= 1
    return n


def _print_html(browser: str, text: str, tmp: Path, name: str) -> Path:
    """A generated HTML page (the title page, the page numbers) printed by the same browser, to tmp/<name>.pdf."""
    page, out = tmp / f"{name}.html", tmp / f"{name}.pdf"
    page.write_text(text)
    print_page(browser, page, out, tmp / "profile")
    return out


def title_html(title: str, commit: str, date: str) -> str:
    """The PDF's first page: the title, the commit the book was built from, and the build date."""
    return (f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title><body style='font-family: sans-serif;"
            f" margin: 6cm 2cm'><h1 style='font-size: 28pt'>{html.escape(title)}</h1><p style='font-size: 13pt'>Built "
            f"from commit <code>{html.escape(commit)}</code> on {html.escape(date)}.</p><p style='font-size: 11pt'>Every "
            "number in it comes from a run recorded in its chapter's provenance line.</p></body>")


def numbers_html(first: int, last: int) -> str:
    """One page per number from `first` to `last`, each blank but for its number at the foot, to stamp on the book."""
    foot = ("<div style='break-after: page; height: 100vh; position: relative'><div style='position: absolute; bottom: "
            "0.5cm; width: 100%; text-align: center; font: 9pt sans-serif; color: #444'>{} / {}</div></div>")
    return ("<!doctype html><meta charset='utf-8'><style>@page { margin: 0 } body { margin: 0 }</style><body>"
            + "".join(foot.format(k, last) for k in range(first, last + 1)) + "</body>")


PAPERS = {"letter": "", "a4": "A4"}   # paper sizes: Chromium's default (US Letter), or CSS's name for another


def _sized(page: Path, paper: str) -> Path:
    """The page to print on `paper`: itself for Letter, else a sibling copy (so that its relative links still
    resolve) whose CSS asks for that size; the caller deletes the copy."""
    if not PAPERS[paper]:
        return page
    copy = page.with_name(f"{page.stem}.print-{paper}.html")
    text = page.read_text(errors="replace")
    style = f"<style>@page {{ size: {PAPERS[paper]} }}</style>"
    copy.write_text(text.replace("</head>", style + "</head>", 1) if "</head>" in text else style + text)
    return copy


def build_pdf(root: Path = ROOT, log=print, paper: str = "letter") -> Path:
    """Print every page of the built book on `paper` (letter or a4) and merge them into <root>/_build/html/book.pdf
    (book-a4.pdf on A4); returns its path. The page breaks fall elsewhere on A4, as they would with other content."""
    if paper not in PAPERS:
        raise ParamError(f"pdf: --paper {paper!r} is not a paper size this book prints on; expected one of "
                         f"{', '.join(PAPERS)}")
    try:
        from pypdf import PdfWriter
    except ModuleNotFoundError:
        raise ParamError("pdf: the Python package pypdf is not installed: pip install -r requirements.txt") from None
    root = Path(root)
    html_dir = root / "_build" / "html"
    pages = [html_dir / f"{p}.html" for p in toc_pages(root)]
    missing = [p for p in pages if not p.is_file()]
    if missing:
        raise ParamError(f"pdf: the HTML is not built ({missing[0].relative_to(root)} is missing): python -m lib build")
    browser = chromium()
    target = html_dir / ("book.pdf" if paper == "letter" else f"book-{paper}.pdf")
    meta = "<meta charset='utf-8'>"    # the generated pages' own head, where the paper size goes
    sized = lambda text: text.replace(meta, meta + f"<style>@page {{ size: {PAPERS[paper]} }}</style>", 1) \
        if PAPERS[paper] else text
    writer = PdfWriter()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lib-pdf-") as tmp:
        from lib.core.store import git_commit

        title = title_of(pages[0]) if pages else "book"
        writer.append(read_pdf(_print_html(browser, sized(title_html(title, git_commit(), time.strftime("%Y-%m-%d"))),
                                           Path(tmp), "title"), Path("the title page")), pages=[0])
        def print_part(i: int) -> Path:
            part, printed = Path(tmp) / f"{i:03d}.pdf", _sized(pages[i], paper)
            try:   # a profile per page: two Chromiums at once must not share one
                print_page(browser, printed, part, Path(tmp) / f"profile-{i:03d}")
            finally:
                if printed != pages[i]:
                    printed.unlink(missing_ok=True)
            return part

        # Two pages at a time (a Chromium prints on about one core; the parts are merged in the book's order). The
        # first failure stops the rest and is raised: nothing is written.
        with ThreadPoolExecutor(PRINTERS) as pool:
            parts = [pool.submit(print_part, i) for i in range(len(pages))]
            try:
                parts = [f.result() for f in parts]
            except BaseException:
                for f in parts:
                    f.cancel()
                raise
        starts = []
        for i, (page, part) in enumerate(zip(pages, parts)):
            start = len(writer.pages)
            starts.append(start)
            reader = read_pdf(part, page)
            kept = kept_pages(reader)
            writer.append(reader, pages=list(range(kept)))
            named_to_pages(writer, reader, start, kept)
            writer.add_outline_item(title_of(page), start)
            log(f"pdf: [{i + 1}/{len(pages)}] {page.relative_to(html_dir)}: {len(writer.pages) - start} page(s)")
        relink(writer, html_dir, dict(zip(pages, starts + [len(writer.pages)])), len(writer.pages))
        numbers = read_pdf(_print_html(browser, sized(numbers_html(2, len(writer.pages))), Path(tmp), "numbers"),
                           Path("the page numbers"))
        for page, stamp in zip(writer.pages[1:], numbers.pages):
            page.merge_page(stamp)
        writer.add_metadata({"/Title": title, "/Creator": "python -m lib pdf"})
        with open(Path(tmp) / "book.pdf", "wb") as f:
            writer.write(f)
        atomic_write(target, (Path(tmp) / "book.pdf").read_bytes())
    link_from_intro(root)
    log(f"pdf: {len(writer.pages)} pages in {time.perf_counter() - t0:.0f} s -> {target}")
    return target


# ------------------------------------------------------------------------------------------- links
def citations(bibliography: Path) -> dict[str, str]:
    """{entry id: the paper's public address} of the book's bibliography page (sphinxcontrib-bibtex writes each entry
    as an element with an id, its `url` field as the entry's first external link)."""
    text = bibliography.read_text(errors="replace") if bibliography.is_file() else ""
    out = {}
    for m in re.finditer(r"<(div|dd|li)\b([^>]*)>", text):   # an entry's tag, then its text up to its end
        entry, ident = m.group(2), re.search(r"""\bid=["']([^"']+)["']""", m.group(2))
        if ident and (re.search(r"""class=["']citation["']""", entry) or "doc-biblioentry" in entry):
            body = text[m.end():text.find(f"</{m.group(1)}>", m.end())]
            if url := re.search(r"""href=["'](https?://[^"']+)["']""", body):
                out[ident.group(1)] = html.unescape(url.group(1))
    return out


def named_to_pages(writer, reader, start: int, kept: int) -> int:
    """The links inside one printed page of the book (Chromium's named destinations: `#section` on the same page),
    pointed at their page in the merged PDF: names repeat from one part to the next (id1, id2, ...), so a name the
    merge keeps would lead into another part. writer's pages start..start+kept are the part's; returns how many."""
    from pypdf.generic import ArrayObject, NameObject, NullObject

    names, done = reader.named_destinations, 0
    for i in range(start, start + kept):
        for ref in writer.pages[i].get("/Annots") or []:
            link = ref.get_object()
            dest = link.get("/Dest")
            action = link.get("/A").get_object() if link.get("/A") is not None else {}
            if dest is None and action.get("/S") == "/GoTo":
                dest = action.get("/D")
            if not isinstance(dest, str) or str(dest).lstrip("/") not in names and str(dest) not in names:
                continue
            target = names.get(str(dest)) or names[str(dest).lstrip("/")]
            number = reader.get_destination_page_number(target)
            page = writer.pages[start + (number if 0 <= number < kept else 0)].indirect_reference
            link.pop("/A", None)
            link[NameObject("/Dest")] = ArrayObject([page, NameObject("/XYZ"), NullObject(), NullObject(), NullObject()])
            done += 1
    return done


def heading(page: Path, fragment: str) -> str:
    """The text of the heading a fragment names on a page (a section's id, or a heading's own), "" if it names none."""
    text = page.read_text(errors="replace")
    m = re.search(r"""<(section|h[1-6])[^>]*\bid=["']""" + re.escape(fragment) + r"""["'][^>]*>(.*?)</h[1-6]>""", text,
                  re.S)
    if not m:
        return ""
    words = html.unescape(re.sub(r"<[^>]+>", " ", m.group(2))).replace("#", " ").replace("¶", " ").split()
    return " ".join(words)


def relink(writer, html_dir: Path, parts: dict[Path, int], end: int) -> dict[str, int]:
    """Every link Chromium printed to a file of this machine (file://...), rewritten so that it works in the PDF
    anywhere: to another page of the book, a link inside the PDF (to the page of the heading it names, else to the
    page's first); to the bibliography's entry of a citation, the paper's public address (the entry's url); to
    anything else the HTML holds (a figure's full-size image, a download), its address relative to the PDF, which
    sits in _build/html next to them. parts: {the HTML page: its first page in the PDF} in order, `end` after the
    last. Returns how many links went each way."""
    from urllib.parse import unquote, urlparse

    from pypdf.generic import ArrayObject, DictionaryObject, NameObject, NullObject, TextStringObject

    html_dir = Path(html_dir).resolve()
    order = sorted(parts.items(), key=lambda kv: kv[1])
    span = {page.resolve(): (first, nxt) for (page, first), (_, nxt) in zip(order, order[1:] + [(None, end)])}
    bib = next((p for p in span if p.name == "bibliography.html"), None)
    cites = citations(bib) if bib else {}
    texts: dict[int, str] = {}
    counts = {"inside": 0, "citation": 0, "relative": 0}

    def page_text(i: int) -> str:
        if i not in texts:
            try:
                texts[i] = "".join(writer.pages[i].extract_text().split())
            except Exception:   # a page pypdf cannot read through: its heading is not found there
                texts[i] = ""
        return texts[i]

    def target_page(path: Path, fragment: str) -> int:
        first, nxt = span[path]
        title = "".join(heading(path, fragment).split()) if fragment else ""
        return next((i for i in range(first, nxt) if title and title in page_text(i)), first)

    for page in writer.pages:
        for ref in page.get("/Annots") or []:
            link = ref.get_object()
            action = link.get("/A")
            uri = action.get_object().get("/URI") if action is not None else None
            if link.get("/Subtype") != "/Link" or not isinstance(uri, str) or not uri.startswith("file:"):
                continue
            parsed = urlparse(uri)
            path, fragment = Path(unquote(parsed.path)).resolve(), unquote(parsed.fragment)
            path = path.with_name(re.sub(r"\.print-\w+\.html$", ".html", path.name))   # _sized's copy: the page
            if path == bib and fragment in cites:
                link[NameObject("/A")] = DictionaryObject({NameObject("/S"): NameObject("/URI"),
                                                           NameObject("/URI"): TextStringObject(cites[fragment])})
                counts["citation"] += 1
            elif path in span:
                goto = writer.pages[target_page(path, fragment)].indirect_reference
                del link["/A"]
                link[NameObject("/Dest")] = ArrayObject([goto, NameObject("/XYZ"), NullObject(), NullObject(),
                                                         NullObject()])
                counts["inside"] += 1
            else:
                relative = os.path.relpath(path, html_dir) + (f"#{parsed.fragment}" if parsed.fragment else "")
                link[NameObject("/A")] = DictionaryObject({NameObject("/S"): NameObject("/URI"),
                                                           NameObject("/URI"): TextStringObject(relative)})
                counts["relative"] += 1
    return counts


PDF_LINK = re.compile(r'(<span class="book-pdf">)(.*?)(</span>)', re.S)


def link_from_intro(root: Path = ROOT) -> bool:
    """The intro's link to the PDF, where the built book has one (`<span class="book-pdf">` in book/intro.md, left
    empty where there is none: a link to a file `make book` does not write would be dead). The build fills it where
    a PDF was printed before (book/_ext/book_html.py), `lib pdf` once it has printed; whether the link is there."""
    html_dir = Path(root) / "_build" / "html"
    intro = html_dir / "book" / "intro.html"
    if not intro.is_file():
        return False
    text = intro.read_text()
    there = (html_dir / "book.pdf").is_file()
    link = '; open it here: <a class="reference external" href="../book.pdf">book.pdf</a>' if there else ""
    new = PDF_LINK.sub(lambda m: m.group(1) + link + m.group(3), text)
    if new != text:
        atomic_write(intro, new)
    return there
