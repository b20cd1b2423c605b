/* Formulas that fit the column on a phone. MathJax 3 does not break a formula across lines, and book.css lets a
   formula wider than its column scroll inside its own box: on a phone that box shows no scrollbar, so the formula
   looked cut off (Lemma 1 of sparse_variable_creation lost its right-hand side at 390 px). Here each formula wider
   than its box (which book.css holds at the column's width) is set in a smaller type until it fits, down to
   MIN_SCALE of its size;
   one that would need less (a long display, which the source breaks into lines instead) keeps its scroll box and
   gets the class "mjx-scrolls", which book.css marks with a visible scrollbar. Re-done when the width changes. */
(function () {
  const MIN_SCALE = 0.6;
  function fit() {
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
  let tries = 0;
  function start() {
    const ready = window.MathJax && MathJax.startup && MathJax.startup.promise;
    if (!ready) { if (++tries < 100) setTimeout(start, 100); return; }     // a page without math loads no MathJax
    ready.then(fit);
    let timer;
    window.addEventListener('resize', function () { clearTimeout(timer); timer = setTimeout(fit, 150); });
    document.addEventListener('toggle', fit, true);          // a dropdown opened: its formulas now have a width
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start); else start();
})();
