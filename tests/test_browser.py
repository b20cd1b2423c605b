"""The book as a reader meets it: every page in headless Chromium (Debian's chromium and chromium-driver, driven by
selenium), offline, on a phone's screen (390 x 844 CSS px) and a desktop's (1280 x 900), set through the DevTools
protocol (Emulation.setDeviceMetricsOverride) and checked against window.innerWidth and innerHeight in the page.

On each screen: every chapter's verdict sentence ends above the bottom of its first screen; each claim verdict is in
view without scrolling sideways and no claim table is wider than its column; with every dropdown opened, no table,
figure or formula is wider than its column, or cut off by a box it is in, except inside a box that scrolls and says so
(math-fit.js marks it "book-scrolls", or "mjx-scrolls" for a formula, and book.css shows the mark); the page never
scrolls sideways; the console logs no error; every image has alt text that says something; every figure's smallest
text (9.5 pt, drawn at 220 dpi) is shown at 9 px or more (on a phone, a figure of several panels in a box that
scrolls sideways).

Nothing is timed by the clock: each page is measured once the page itself says it is ready (MathJax has typeset it
and math-fit.js has fitted it), with a long script timeout for a loaded machine.

Two ways to run it:

- `pytest tests/test_browser.py -k the_book`: on the `book` fixture (tests/conftest.py: the book as `make book`
  makes it, from the committed results, built in a temporary copy);
- `BOOK_HTML=_build/html pytest tests/test_browser.py -k existing_build`: on a build already made (`python -m lib
  book`). BOOK_SHOTS=<folder> saves each page's first screen there as a PNG (<page>-<width>x<height>.png).

Skipped, with a message, where Chromium or its driver is missing (.ci/run installs them)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
VIEWPORTS = ((390, 844), (1280, 900))    # CSS px: a phone's screen (mobile emulation) and a desktop's window
PHONE = 600                              # px: narrower than this, the screen is emulated as a phone's
LEGIBLE = 9 / (9.5 / 72 * 220)           # shown px per PNG px at which a figure's smallest text (9.5 pt) is 9 px
SCRIPT_TIMEOUT = 600                     # s: a page typesets in a second or two; one that never does fails here


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and DRIVER):
        pytest.skip("no headless Chromium here: apt-get install chromium chromium-driver")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    driver = start_browser(webdriver)
    yield driver
    driver.quit()


def start_browser(webdriver):
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"):
        opts.add_argument(flag)
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_script_timeout(SCRIPT_TIMEOUT)
    driver.set_page_load_timeout(SCRIPT_TIMEOUT)
    return driver


def pages(html: Path) -> list[Path]:
    return sorted(p for p in html.rglob("*.html") if "_static" not in p.parts and p.name not in ("genindex.html",
                                                                                                  "search.html"))


def is_chapter(page: Path) -> bool:
    return page.parent.name == "executed" and page.stem != "report"


# Waited for in the page, not for a number of seconds: math-fit.js marks <html> data-book-fitted once it has fitted
# the page, after MathJax's first typesetting where the page loads MathJax (one without mathematics loads none).
READY = """
const done = arguments[arguments.length - 1];
(function wait() {
  if (document.readyState !== 'complete' || !('bookFitted' in document.documentElement.dataset)) return setTimeout(wait, 50);
  done();
})();
"""

# The first screen as the page opens: the screen's size as the page sees it, and the box of the verdict sentence (the
# bold sentence that verdict_line writes first under a chapter's title), line by line.
FIRST_SCREEN = """
const v = [...document.querySelectorAll('.bd-article strong')].find(e => e.textContent.startsWith('Verdict ('));
const rects = v ? [...v.getClientRects()] : [];
return {width: window.innerWidth, height: window.innerHeight, scrollY: window.scrollY,
        verdict: v ? v.textContent : null,
        top: rects.length ? Math.min(...rects.map(r => r.top)) : null,
        bottom: rects.length ? Math.max(...rects.map(r => r.bottom)) : null};
"""

# Every dropdown opened, the page fitted again (math-fit.js, at once: no toggle event waited for), then measured.
PROBE = """
document.querySelectorAll('.bd-article details').forEach(d => { d.open = true; });
window.bookFit();
const W = window.innerWidth, article = document.querySelector('.bd-article') || document.body;
const box = article.getBoundingClientRect(), pad = getComputedStyle(article);   // the column: the article's content box
const col = {left: box.left + parseFloat(pad.paddingLeft), right: box.right - parseFloat(pad.paddingRight)};
const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
    (typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
const what = e => e.tagName.toLowerCase() === 'mjx-math' ? 'formula ' + JSON.stringify(e.parentElement.textContent.slice(0, 50))
    : e.tagName.toLowerCase() === 'img' ? 'image ' + (e.getAttribute('src') || '')
    : e.tagName.toLowerCase() + ' ' + JSON.stringify(e.textContent.trim().slice(0, 50));
// a box that scrolls and shows it: marked by math-fit.js, and the mark drawn by book.css (a line that says so above a
// table's box, a shadow at a formula's edge)
const marked = a => (a.classList.contains('book-scrolls') && getComputedStyle(a, '::before').content.includes('scroll'))
    || (a.classList.contains('mjx-scrolls') && getComputedStyle(a).backgroundImage.includes('gradient'));
// What is wrong with e's width ('' if nothing): walking up from it, a box that clips (overflow not visible) and
// that e runs past, or the column (the article) that e runs past. A box that scrolls and says so (marked) is
// allowed: then the box itself must fit what holds it.
function fault(e) {
  if (!e.getClientRects().length) return '';
  let r = e.getBoundingClientRect();
  if (r.width === 0) return '';
  for (let a = e.parentElement; a; a = a.parentElement) {
    if (a === article) {
      const px = (a, b) => `${Math.round(a)}..${Math.round(b)}`;
      return (r.right > col.right + 1 || r.left < col.left - 1)
        ? `runs off the column (${px(r.left, r.right)} px, the column ${px(col.left, col.right)})` : '';
    }
    const o = getComputedStyle(a).overflowX;
    if (o === 'visible') continue;
    const b = a.getBoundingClientRect(), left = b.left + a.clientLeft, right = left + a.clientWidth;
    if (r.right <= right + 1 && r.left >= left - 1) continue;
    if ((o === 'auto' || o === 'scroll') && marked(a)) { r = b; continue; }
    return `is cut off by ${name(a)} (${Math.round(r.right - r.left)} px in a box of ${a.clientWidth}` +
           ((o === 'auto' || o === 'scroll') ? ' that scrolls with no sign of it)' : ')');
  }
  return '';
}
return {
  scroll: document.documentElement.scrollWidth, width: W,
  verdicts: [...article.querySelectorAll('table .sd-badge')].map(e => {
      const r = e.getBoundingClientRect(); return [e.textContent, r.left, r.right]; }),
  claims: [...article.querySelectorAll('table')].filter(t => t.querySelector('.sd-badge')).map(t =>
      [t.scrollWidth, t.parentElement.clientWidth, t.getBoundingClientRect().right, col.right]),
  wide: [...article.querySelectorAll('table, figure, img, mjx-container > mjx-math')]
      .map(e => [what(e), fault(e)]).filter(x => x[1]),
  images: [...article.querySelectorAll('img')].map(e => [e.getAttribute('src'), e.alt]),
  // each figure's PNG: its width and the width it is shown at (the book's PNGs are drawn at 220 dpi)
  figures: [...article.querySelectorAll('figure img')].filter(e => e.naturalWidth)
      .map(e => [e.getAttribute('src'), e.naturalWidth, e.getBoundingClientRect().width]),
};
"""


def set_viewport(driver, width: int, height: int) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < PHONE})


def check_page(driver, page: Path, name: str, viewport: tuple[int, int], shots: Path | None = None) -> tuple[list, int]:
    """(problems, verdict badges seen) of one page on one screen."""
    width, height = viewport
    problems = []
    driver.get(page.as_uri())
    driver.execute_async_script(READY)
    first = driver.execute_script(FIRST_SCREEN)
    if shots is not None:
        driver.save_screenshot(str(shots / f"{str(name).replace('/', '__')[:-5]}-{width}x{height}.png"))
    errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    problems += [f"console error: {e[:200]}" for e in errors]
    if (first["width"], first["height"]) != (width, height):
        problems.append(f"the page sees a {first['width']}x{first['height']} screen, not {width}x{height} (wider "
                        "than the screen, a phone zooms out)")
    if is_chapter(page):     # a chapter: its verdict sentence whole on the first screen
        if first["bottom"] is None:
            problems.append("no verdict sentence ('Verdict (...') on the page")
        elif first["scrollY"] != 0 or first["top"] < 0 or first["bottom"] > first["height"]:
            problems.append(f"the verdict sentence ends at {first['bottom']:.0f} px, below the first screen "
                            f"({first['height']} px): {first['verdict'][:80]!r}")
    m = driver.execute_script(PROBE)
    if m["scroll"] > m["width"] + 1:
        problems.append(f"the page scrolls sideways ({m['scroll']} > {m['width']} px)")
    for text, left, right in m["verdicts"]:
        if left < 0 or right > m["width"]:
            problems.append(f"verdict '{text}' outside the window ({left:.0f}..{right:.0f} px)")
    for scroll, box, right, column in m["claims"]:   # a claim table fits its column: nothing behind a scroll
        if scroll > box + 1 or right > column + 1:
            problems.append(f"claim table wider than the column ({scroll} > {box} px)")
    problems += [f"{what} {fault}" for what, fault in m["wide"]]
    for src, natural, shown in m["figures"]:   # the smallest figure text, 9.5 pt at 220 dpi, is 9 px or more
        if shown < natural * LEGIBLE - 1:
            problems.append(f"figure {src}: its smallest text is {9 * shown / (natural * LEGIBLE):.1f} px")
    for src, alt in m["images"]:
        words = (alt or "").split()
        if len(words) < 3 or any(w.endswith((".png", ".svg", ".jpg")) for w in words):
            problems.append(f"image {src} has no meaningful alt text ({alt!r})")
    return [f"{name} at {width}x{height}: {p}" for p in problems], len(m["verdicts"])


def check_book(driver, html: Path, viewport: tuple[int, int], shots: Path | None = None) -> tuple[list, int, int]:
    """(problems, pages, verdict badges) of every page of the build in `html` on one screen."""
    set_viewport(driver, *viewport)
    driver.get_log("browser")                                  # start from an empty console log
    problems, n_pages, n_verdicts = [], 0, 0
    for page in pages(html):
        found, badges = check_page(driver, page, str(page.relative_to(html)), viewport, shots)
        problems += found
        n_pages += 1
        n_verdicts += badges
    return problems, n_pages, n_verdicts


def _check(browser, html: Path, viewport):
    shots = Path(os.environ["BOOK_SHOTS"]) if os.environ.get("BOOK_SHOTS") else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    problems, n_pages, n_verdicts = check_book(browser, html, viewport, shots)
    assert n_pages >= 5 and n_verdicts > 0 and sum(map(is_chapter, pages(html))) >= 5
    assert not problems, "\n".join(problems[:40])


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
def test_the_book_in_a_browser(book, browser, viewport):
    _check(browser, book["html"], viewport)


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
def test_existing_build_in_a_browser(browser, viewport):
    if not os.environ.get("BOOK_HTML"):
        pytest.skip("BOOK_HTML names no build: BOOK_HTML=_build/html after `python -m lib book`")
    _check(browser, Path(os.environ["BOOK_HTML"]).resolve(), viewport)
