/* Formulas that fit the column on a phone, and wide boxes that say they scroll.

   MathJax 3 does not break a formula across lines, and book.css lets a formula wider than its column scroll inside
   its own box: on a phone that box shows no scrollbar, so the formula looked cut off (Lemma 1 of
   sparse_variable_creation lost its right-hand side at 390 px). Here each formula wider than its box (which book.css
   holds at the column's width) is set in a smaller type until it fits, down to MIN_SCALE of its size; one that would
   need less (a long display, which the source breaks into lines instead) keeps its scroll box and gets the class
   "mjx-scrolls", which book.css marks with a visible scrollbar.

   A table or figure wider than the column scrolls inside its own box (the theme's scrollable table container): each
   such box that does overflow gets the class "book-scrolls", which book.css marks with a line that says so and a
   visible scrollbar, so nothing looks cut off at the column's edge.

   On a phone a figure of several panels shrunk to the column has text of 3 to 6 px. Each figure whose smallest text
   (9.5 pt, drawn at 220 dpi: about 29 px of its PNG) would be under 9 px at the column's width is shown at the width
   where it is 9 px (LEGIBLE of its PNG's width), in its own box that scrolls and says so.

   Re-done when the width changes and when a dropdown opens (its content has a width only then). window.bookFit()
   does it at once (the browser test calls it after opening every dropdown); when the page is first fitted (formulas
   typeset, if it has any) the <html> element gets data-book-fitted. */
(function () {
  const MIN_SCALE = 0.6;
  const WIDE = 'table, figure, img, .cell_output .output';   // what may be wider than the column
  const LEGIBLE = 9 / (9.5 / 72 * 220);      // shown px per PNG px at which a figure's smallest text is 9 px
  const PHONE = window.matchMedia('(max-width: 600px)');

  function fitFigures() {
    document.querySelectorAll('.bd-article figure img').forEach(function (img) {
      img.style.width = ''; img.style.maxWidth = '';
      if (!PHONE.matches || !img.naturalWidth) return;
      const need = Math.ceil(img.naturalWidth * LEGIBLE);       // against the width the column lets it have
      if (need > img.getBoundingClientRect().width + 0.5) { img.style.maxWidth = 'none'; img.style.width = need + 'px'; }
    });
  }

  function fitFormulas() {
    document.querySelectorAll('.bd-article mjx-container').forEach(function (e) {
      if (e.dataset.fitBase === undefined) e.dataset.fitBase = e.style.fontSize;
      e.style.fontSize = e.dataset.fitBase;                  // back to MathJax's own size, then measure
      e.classList.remove('mjx-scrolls');
      // the formula's own width against its box's (the box's scrollWidth would count MathJax's assistive MathML,
      // a few px wider than what is drawn)
      const math = e.querySelector(':scope > mjx-math');
      if (!math || math.getBoundingClientRect().width <= e.clientWidth + 1) return;
      const scale = e.clientWidth / math.getBoundingClientRect().width;
      if (scale < MIN_SCALE) { e.classList.add('mjx-scrolls'); return; }
      e.style.fontSize = (parseFloat(getComputedStyle(e).fontSize) * scale * 0.98) + 'px';
    });
  }

  function scrolls(a) {
    const o = getComputedStyle(a).overflowX;
    return (o === 'auto' || o === 'scroll') && a.scrollWidth > a.clientWidth + 1;
  }

  function markBoxes() {
    const article = document.querySelector('.bd-article');
    if (!article) return;
    article.querySelectorAll('.book-scrolls').forEach(function (a) { a.classList.remove('book-scrolls'); });
    article.querySelectorAll('.pst-scrollable-table-container').forEach(function (a) {
      if (scrolls(a)) a.classList.add('book-scrolls');
    });
    article.querySelectorAll(WIDE).forEach(function (e) {     // any other box that scrolls what it holds
      for (let a = e.parentElement; a && a !== article; a = a.parentElement) {
        if (a.tagName.toLowerCase() === 'mjx-container') break;
        if (scrolls(a)) { a.classList.add('book-scrolls'); break; }
      }
    });
  }

  function fit() {
    fitFormulas();
    fitFigures();
    markBoxes();
  }
  window.bookFit = fit;

  function start() {
    const ready = window.MathJax && MathJax.startup && MathJax.startup.promise;
    const done = function () { fit(); document.documentElement.dataset.bookFitted = ''; };
    if (!document.querySelector('script[src*="mathjax/"]')) done();          // a page without math loads no MathJax
    else if (!ready) { setTimeout(start, 100); return; }          // MathJax's script has not run yet: wait
    else ready.then(done);
    let timer;
    window.addEventListener('resize', function () { clearTimeout(timer); timer = setTimeout(fit, 150); });
    document.addEventListener('toggle', fit, true);          // a dropdown opened: its content now has a width
    document.querySelectorAll('.bd-article figure img').forEach(function (img) {
      if (!img.complete) img.addEventListener('load', fit);  // its natural width is known once it has loaded
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
})();
