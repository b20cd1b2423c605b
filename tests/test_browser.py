"""The book as a reader meets it: every page in headless Chromium (Debian's chromium and chromium-driver, driven by
selenium), offline, at 1280 and 390 px wide. Each claim verdict is in view without scrolling sideways, no claim table
is wider than its column, no equation (display or inline) runs off the column or is cut off at it, every chapter
says its verdict on its first screen, the console logs no error, and every image has alt text that says something.

Skipped, with a message, where Chromium or its driver is missing (.ci/run installs them)."""
from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.e2e
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
WIDTHS = (1280, 390)
SCREEN = 1000          # px: the window's height, the first screen


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and DRIVER):
        pytest.skip("no headless Chromium here: apt-get install chromium chromium-driver")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"):
        opts.add_argument(flag)
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_script_timeout(SCRIPT_TIMEOUT)
    yield driver
    driver.quit()


def pages(book) -> list:
    html = book["html"]
    return sorted(p for p in html.rglob("*.html") if "_static" not in p.parts and p.name not in ("genindex.html",
                                                                                                  "search.html"))


# Measured in the page: the document's width against the window's, every verdict badge's box, every display
# equation's box against the article's, every image's alt text.
PROBE = """
const W = window.innerWidth, article = document.querySelector('.bd-article') || document.body;
const right = article.getBoundingClientRect().right;
const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; };
return {
  scroll: document.documentElement.scrollWidth, width: W,
  verdicts: [...document.querySelectorAll('table .sd-badge')].map(e => [e.textContent, ...box(e)]),
  // an equation inside a box that scrolls sideways (a wide table's) is reached by scrolling that box, not cut off
  equations: [...document.querySelectorAll('mjx-container')].filter(e => {
      for (let a = e.parentElement; a && a !== article; a = a.parentElement) {
        const o = getComputedStyle(a).overflowX;
        if ((o === 'auto' || o === 'scroll') && a.scrollWidth > a.clientWidth) return false;
      }
      return true; }).map(e => [e.textContent.slice(0, 60), ...box(e), right]),
  // a formula wider than its own box (book.css holds the box at the column's width) is cut off there: the box
  // scrolls, but a phone shows no scrollbar (unless math-fit.js marked it mjx-scrolls, which book.css shows). The
  // formula's width is its mjx-math's: the box's scrollWidth counts MathJax's assistive MathML, a few px wider.
  cut: [...document.querySelectorAll('.bd-article mjx-container')].filter(e => {
      const math = e.querySelector(':scope > mjx-math');
      return math && !e.classList.contains('mjx-scrolls') && math.getBoundingClientRect().width > e.clientWidth + 1; })
      .map(e => e.textContent.slice(0, 60)),
  claims: [...document.querySelectorAll('table')].filter(t => t.querySelector('.sd-badge')).map(t =>
      [t.scrollWidth, t.parentElement.clientWidth, t.getBoundingClientRect().right, right]),
  verdict: [...document.querySelectorAll('p')].filter(p => p.textContent.startsWith('Verdict of this run'))
      .map(p => p.getBoundingClientRect().top),
  images: [...document.querySelectorAll('article img, .bd-article img')].map(e => [e.getAttribute('src'), e.alt]),
};
"""


# Waited for in the page, not for a number of seconds: a page with mathematics loads MathJax (one without loads none),
# whose first typesetting resolves MathJax.startup.promise; then math-fit.js fits each formula of the article, and
# marks it data-fit-base.
TYPESET = """
const done = arguments[arguments.length - 1];
const fitted = () => [...document.querySelectorAll('.bd-article mjx-container')].every(e => 'fitBase' in e.dataset);
(function wait() {
  if (!document.querySelector('script[src*="mathjax/"]')) return done();
  const startup = window.MathJax && MathJax.startup && MathJax.startup.promise;
  if (!startup) return setTimeout(wait, 50);
  startup.then(function check() { if (fitted()) done(); else setTimeout(check, 50); });
})();
"""
SCRIPT_TIMEOUT = 300   # s: a page typesets in a second or two; a page that never does fails here, not later


def load(driver, page, width):
    driver.set_window_size(width, SCREEN)
    driver.get(page.as_uri())
    driver.execute_async_script(TYPESET)
    return driver.execute_script(PROBE)


@pytest.mark.parametrize("width", WIDTHS)
def test_pages_in_a_browser(book, browser, width):
    problems, n_verdicts, n_pages = [], 0, 0
    browser.get_log("browser")                                  # start from an empty console log
    for page in pages(book):
        n_pages += 1
        name = page.relative_to(book["html"])
        m = load(browser, page, width)
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        problems += [f"{name}: console error: {e[:200]}" for e in errors]
        if m["scroll"] > m["width"] + 1:
            problems.append(f"{name}: the page scrolls sideways ({m['scroll']} > {m['width']} px)")
        for text, left, right in m["verdicts"]:
            n_verdicts += 1
            if left < 0 or right > m["width"]:
                problems.append(f"{name}: verdict '{text}' outside the window ({left:.0f}..{right:.0f} px)")
        for text, _left, right, column in m["equations"]:
            if right > column + 1 or right > m["width"]:
                problems.append(f"{name}: equation runs off the column: {text!r}")
        for text in m["cut"]:
            problems.append(f"{name}: equation cut off at the column (its box scrolls, with no scrollbar): {text!r}")
        for scroll, box, right, column in m["claims"]:   # a claim table fits its column: nothing behind a scroll
            if scroll > box + 1 or right > column + 1:
                problems.append(f"{name}: claim table wider than the column ({scroll} > {box} px)")
        if page.parent.name == "executed" and page.stem != "report":   # a chapter: its verdict on the first screen
            if not m["verdict"] or m["verdict"][0] > SCREEN:
                problems.append(f"{name}: no verdict line on the first screen ({m['verdict']})")
        for src, alt in m["images"]:
            words = (alt or "").split()
            if len(words) < 3 or any(w.endswith((".png", ".svg", ".jpg")) for w in words):
                problems.append(f"{name}: image {src} has no meaningful alt text ({alt!r})")
    assert n_pages >= 5 and n_verdicts > 0
    assert not problems, "\n".join(problems[:40])
