"""Sphinx tweaks of the book's HTML (loaded by _config.yml as a local extension).

- The book runs no live kernel, so sphinx-thebe's scripts (which Jupyter Book always loads, and which declare
  THEBE_JS_URL twice on every page: a console error) are left out of the pages.
- The theme's colour mode is set ("light"): left empty, the theme logs a console error on every first visit.
- The book's stylesheet (book/_static/book.css) is added to every page.
- A figure's image gets its caption as alt text, where it has none but a file name (myst-nb's outputs have none).
- Formulas too wide for a phone's column are set smaller until they fit (book/_static/math-fit.js).
- The intro links the book's PDF (`<span class="book-pdf">` in book/intro.md) only where `python -m lib pdf` has
  printed one into the HTML's folder: a link to a file `make book` does not write would be dead. `lib pdf` fills
  the span itself once it has printed (lib.core.pdf.link_from_intro).
"""
from __future__ import annotations

from pathlib import Path

from docutils import nodes


def _is_thebe(script) -> bool:
    name = str(getattr(script, "filename", script) or "")
    body = str((getattr(script, "attributes", None) or {}).get("body", ""))
    return "thebe" in name.lower() or "THEBE_JS_URL" in body


PDF_SPAN = '<span class="book-pdf"></span>'
PDF_LINK = '<span class="book-pdf">; open it here: <a class="reference external" href="../book.pdf">book.pdf</a></span>'


def _page(app, pagename, templatename, context, doctree):
    if PDF_SPAN in context.get("body", "") and (Path(app.outdir) / "book.pdf").is_file():
        context["body"] = context["body"].replace(PDF_SPAN, PDF_LINK)
    if "script_files" in context:
        context["script_files"] = [s for s in context["script_files"] if not _is_thebe(s)]
    context["default_mode"] = "light"    # the template's data-mode; sphinx-book-theme has no option for it


def _alt_from_captions(app, doctree, docname):
    for figure in doctree.findall(nodes.figure):
        caption = next(iter(figure.findall(nodes.caption)), None)
        if caption is None:
            continue
        for image in figure.findall(nodes.image):
            if not image.get("alt") or image["alt"] == image.get("uri") or "/" in image["alt"]:
                image["alt"] = " ".join(caption.astext().split())


def setup(app):
    app.connect("html-page-context", _page, priority=900)
    app.connect("doctree-resolved", _alt_from_captions)
    app.add_css_file("book.css")
    app.add_js_file("math-fit.js", defer="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
