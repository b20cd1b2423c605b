"""`python -m lib pdf`: the whole book as one PDF. On the book the session builds and prints (conftest's `book`): a page (and a
bookmark) for every page of the table of contents, each chapter's claim ids in its text, no TeX left untypeset, and
every page rendered by pdftoppm with ink on it and every figure in it not blank.

The end-to-end test is skipped, with a message, where Chromium or poppler-utils is missing (.ci/run installs them)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from lib.core import pdf, runner
from lib.core.params import ParamError
from lib.core.store import ROOT
from tests.test_book_e2e import reader_problems


def test_pages_are_the_table_of_contents_in_order():
    pages = pdf.toc_pages()
    assert pages[0] == "book/intro" and pages[-2:] == ["book/executed/report", "book/bibliography"]
    assert [p.split("/")[-1] for p in pages if p.startswith("book/executed/")][:-1] == runner.toc_chapters()


def test_missing_chromium_or_html_is_one_line(tmp_path, monkeypatch):
    pytest.importorskip("pypdf", reason="pypdf is not installed")
    shutil.copy(ROOT / "_toc.yml", tmp_path / "_toc.yml")
    with pytest.raises(ParamError, match=r"HTML is not built \(_build/html/book/intro.html is missing\): python -m lib build"):
        pdf.build_pdf(tmp_path)
    monkeypatch.setattr(pdf.shutil, "which", lambda name: None)
    with pytest.raises(ParamError, match="no Chromium here to print the pages with: apt-get install chromium"):
        pdf.chromium()


def test_a4_prints_a_sized_copy_and_other_papers_are_one_line(tmp_path):
    page = tmp_path / "p.html"
    page.write_text("<html><head><title>t</title></head><body><img src='../_images/x.png'></body></html>")
    assert pdf._sized(page, "letter") == page
    copy = pdf._sized(page, "a4")
    assert copy.parent == page.parent and "@page { size: A4 }</style></head>" in copy.read_text()   # links resolve alike
    with pytest.raises(ParamError, match=r"pdf: --paper 'b5' is not a paper size this book prints on; expected one of "
                                         r"letter, a4"):
        pdf.build_pdf(tmp_path, paper="b5")


@pytest.mark.parametrize("height_cm", [24.0, 26.4, 27.0, 30.0])
def test_no_part_ends_in_a_blank_page_whatever_its_length(tmp_path, height_cm):
    """Pages of content as long as a page, or ending right at its foot: whether Chromium then emits an empty page
    depends on the lengths printed (the CI's blank page 148); the book keeps none of a part's trailing blank pages,
    and a part with text keeps every page that has some."""
    pypdf = pytest.importorskip("pypdf", reason="pypdf is not installed")
    try:
        browser = pdf.chromium()
    except ParamError:
        pytest.skip("no Chromium here: apt-get install chromium")
    html = (f"<!doctype html><body style='margin: 0'><div style='height: {height_cm}cm; border-top: 1px solid'>"
            "Some text at the top.</div><footer style='height: 3cm'></footer></body>")
    reader = pypdf.PdfReader(pdf._print_html(browser, html, tmp_path, "part"))
    kept = pdf.kept_pages(reader)
    assert all(reader.pages[i].extract_text().strip() or list(reader.pages[i].images) for i in range(kept))
    assert kept >= 1 and not any(pdf.blank(reader.pages[i]) for i in range(kept))
    writer = pypdf.PdfWriter()
    writer.add_blank_page(612, 792)
    assert pdf.blank(writer.pages[0])


def test_titles_drop_the_book_title(tmp_path):
    page = tmp_path / "p.html"
    page.write_text("<html><head><title>RPE decay &amp; memory — Transformers, by the theorem</title></head></html>")
    assert pdf.title_of(page) == "RPE decay & memory"
    page.write_text("<title>Sparse variable creation: \\(\\log T\\) capacity — Book</title>")
    assert pdf.title_of(page) == "Sparse variable creation: log T capacity"


PAGES = {
    "a": "<h1>Page A</h1><p><a href='b.html#later'>to B's later section</a> · <a href='bibliography.html#id7'>[MH25]</a>"
         " · <a href='../_images/fig.png'>the figure</a> · <a href='#own'>below</a> · <a href='https://example.org/x'>web"
         "</a></p><div style='height: 40cm'></div><h2 id='own'>Own section</h2>",
    "b": "<h1>Page B</h1><div style='height: 30cm'></div><section id='later'><h2>The later section<a class='headerlink'"
         " href='#later'>#</a></h2><p>text</p></section>",
    "bibliography": "<h1>Bibliography</h1><div class='docutils container' id='id1'><div role='list' class='citation-list'>"
                    "<div class='citation' id='id7' role='doc-biblioentry'><span class='label'>MH25</span><p>A. "
                    "Mousavi-Hosseini et al. When do Transformers outperform ... 2025. URL: <a class='reference "
                    "external' href='https://arxiv.org/abs/2503.11272'>https://arxiv.org/abs/2503.11272</a>.</p></div>"
                    "</div></div>",
}


def links(writer) -> list[tuple[int, str]]:
    """(page, where it goes) of every link: 'page N' inside the PDF, else the address."""
    out = []
    for i, page in enumerate(writer.pages):
        for ref in page.get("/Annots") or []:
            link = ref.get_object()
            if "/Dest" in link and not isinstance(link["/Dest"], str):
                out.append((i, f"page {writer.get_page_number(link['/Dest'][0].get_object())}"))
            elif "/Dest" in link:
                out.append((i, f"name {link['/Dest']}"))
            else:
                out.append((i, str(link["/A"].get_object()["/URI"])))
    return out


def test_links_work_away_from_the_machine_that_printed(tmp_path):
    """Chromium prints a link to another page as file://<this machine's path>: in the PDF it goes to that page's
    heading, a citation to the paper's public address, a figure's full-size file relative to the PDF, and a link
    on the same page to its place (a name that repeats from page to page would lead into another part)."""
    pypdf = pytest.importorskip("pypdf", reason="pypdf is not installed")
    try:
        browser = pdf.chromium()
    except ParamError:
        pytest.skip("no Chromium here: apt-get install chromium")
    html_dir = tmp_path / "_build" / "html"
    (html_dir / "book").mkdir(parents=True)
    writer, starts = pypdf.PdfWriter(), {}
    for name, body in PAGES.items():
        page = html_dir / "book" / f"{name}.html"
        page.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>{name}</title></head><body>{body}"
                        "</body></html>")
        pdf.print_page(browser, page, tmp_path / f"{name}.pdf", tmp_path / f"profile-{name}")
        reader = pypdf.PdfReader(tmp_path / f"{name}.pdf")
        starts[page] = len(writer.pages)
        writer.append(reader)
        pdf.named_to_pages(writer, reader, starts[page], len(reader.pages))
    assert [len(pypdf.PdfReader(tmp_path / f"{n}.pdf").pages) for n in PAGES] == [2, 2, 1]   # a: 0-1, b: 2-3, bib: 4
    before = links(writer)
    assert sum(uri.startswith("file:") for _, uri in before) == 3, before
    counts = pdf.relink(writer, html_dir, starts, len(writer.pages))
    assert counts == {"inside": 1, "citation": 1, "relative": 1}
    assert links(writer) == [(0, "page 3"), (0, "https://arxiv.org/abs/2503.11272"), (0, "_images/fig.png"),
                             (0, "page 1"), (0, "https://example.org/x"), (3, "page 3"),
                             (4, "https://arxiv.org/abs/2503.11272")]


def test_the_intro_links_the_pdf_only_where_one_was_printed(tmp_path):
    intro = tmp_path / "_build" / "html" / "book" / "intro.html"
    intro.parent.mkdir(parents=True)
    intro.write_text('<p>prints these pages to <code>_build/html/book.pdf</code><span class="book-pdf"></span>.</p>')
    assert not pdf.link_from_intro(tmp_path) and 'href="../book.pdf"' not in intro.read_text()
    (tmp_path / "_build" / "html" / "book.pdf").write_bytes(b"%PDF-1.4")
    assert pdf.link_from_intro(tmp_path)
    assert ('<span class="book-pdf">; open it here: <a class="reference external" href="../book.pdf">book.pdf</a>'
            '</span>') in intro.read_text()
    (tmp_path / "_build" / "html" / "book.pdf").unlink()
    assert not pdf.link_from_intro(tmp_path) and 'href="../book.pdf"' not in intro.read_text()   # and gone again


def test_the_intro_source_holds_the_pdf_link_place():
    assert '<span class="book-pdf"></span>' in (ROOT / "book" / "intro.md").read_text()


def printed(book, paper: str) -> Path:
    """The book's PDF on `paper`, as the `book` fixture printed it (`python -m lib pdf`)."""
    if not book["pdf"]:
        pytest.skip("no Chromium or pdftoppm here: apt-get install chromium poppler-utils")
    if "error" in book["pdf"]:
        raise book["pdf"]["error"]
    return book["pdf"][paper]


@pytest.mark.e2e
def test_the_book_as_one_pdf(book):
    from pypdf import PdfReader

    path = printed(book, "letter")
    assert path == book["html"] / "book.pdf"
    intro = book["html"] / "book" / "intro.html"    # the intro links it
    assert 'href="../book.pdf"' in intro.read_text() and (intro.parent / "../book.pdf").resolve() == path.resolve()
    reader = PdfReader(path)
    pages = pdf.toc_pages(book["root"])
    uris = [str(a.get_object()["/A"].get_object().get("/URI", "")) for page in reader.pages
            for a in page.get("/Annots") or [] if "/A" in a.get_object()]
    assert not [u for u in uris if u.startswith("file:")], "links to the machine that printed the PDF"
    assert any(u.startswith("https://arxiv.org/abs/") for u in uris)      # a citation: the paper's public address
    starts = [reader.get_destination_page_number(o) for o in reader.outline]
    assert len(starts) == len(pages) and starts == sorted(set(starts)) and len(reader.pages) > len(pages), starts

    # each chapter's pages hold its claim ids (as its results stored them) and no untypeset TeX
    for chapter, (a, b) in zip(pages, zip(starts, starts[1:] + [len(reader.pages)])):
        text = unicodedata.normalize("NFKC", " ".join(reader.pages[i].extract_text() for i in range(a, b)))  # no ligatures
        assert "\\frac" not in text and "$$" not in text and "\\mathbb" not in text, chapter
        assert not reader_problems(text), (chapter, reader_problems(text))
        notebook = book["root"] / f"{chapter}.ipynb"
        if notebook.is_file():   # a chapter: its claim rows are where its run stored them
            claims = Path(json.loads(notebook.read_text())["metadata"]["book"]["results"]) / "claims.json"
            squeezed = "".join(text.split())   # a long id may break across lines
            missing = [c["id"] for c in json.loads(claims.read_text()) if "".join(c["id"].split()) not in squeezed]
            assert not missing, (chapter, missing)

    # every figure of the HTML is in the PDF, and none is blank
    figures = sum(len(re.findall(r'<img [^>]*src="[^"]*_images/', (book["html"] / f"{p}.html").read_text()))
                  for p in pages)
    images = [img.image for page in reader.pages for img in page.images]
    assert len(images) >= figures > 0, (len(images), figures)
    blank = [i for i, im in enumerate(images) if np.asarray(im.convert("L")).std() < 1.0]
    assert not blank, f"{len(blank)} blank image(s) of {len(images)}"

    # every page renders, with something on it, and none but a part's last is mostly empty
    assert page_problems(path, starts, book["root"] / "pdf-letter") == []


@pytest.mark.e2e
def test_the_book_on_a4_breaks_its_pages_well(book):
    """On A4 every page break falls elsewhere than on Letter, as it would with numbers of other lengths (the CI's
    blank page 148): still no page blank, and none but a part's last mostly empty."""
    from pypdf import PdfReader

    a4 = printed(book, "a4")
    reader = PdfReader(a4)
    assert a4.name == "book-a4.pdf" and round(float(reader.pages[1].mediabox.height)) == 842   # A4: 297 mm
    starts = [reader.get_destination_page_number(o) for o in reader.outline]
    assert page_problems(a4, starts, book["root"] / "pdf-a4") == []


def page_problems(path: Path, starts: list[int], out: Path) -> list[str]:
    """The printed pages that are blank, or that end before FULL of their height though they are not the last of
    their part (a part's last page ends where its text does) nor the title page: [] for a book that prints well.
    Dropdowns, cells and tables break across pages and a figure is at most 10 cm tall (book.css), so a figure that
    does not fit what is left of a page leaves that page at least about 45% full."""
    from PIL import Image

    out.mkdir()
    subprocess.run(["pdftoppm", "-gray", "-r", "20", str(path), str(out / "p")], check=True, timeout=600)
    rendered = sorted(out.glob("p-*.pgm"))
    last = {b - 1 for b in starts[1:]} | {len(rendered) - 1}
    problems = [f"page {i + 1} is blank" for i, p in enumerate(rendered)
                if (np.asarray(Image.open(p)) < 200).mean() < 0.002]
    return problems + [f"page {i + 1} ends at {f:.0%} of its height" for i, f in enumerate(map(filled, rendered))
                       if i and i not in last and f < FULL]


FULL = 0.4   # a page whose content ends before 40% of its height is mostly empty


def filled(pgm: Path) -> float:
    """How far down a rendered page its content reaches, as a share of the page's height (the page number's band at
    the foot, the last 5%, left out)."""
    from PIL import Image

    ink = np.asarray(Image.open(pgm)) < 200
    rows = np.flatnonzero(ink[: int(ink.shape[0] * 0.95)].any(axis=1))
    return (rows[-1] + 1) / ink.shape[0] if len(rows) else 0.0
