package browsertest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/redirectd/redirectd/internal/plural"
)

// staticChecks runs in the page and returns one line per problem: a
// form field without a label (label[for], a wrapping label, aria-label
// or aria-labelledby), a link or button without a name, and text whose
// contrast with its background (the first opaque one among its
// ancestors, white at the top) is under 4.5:1 (WCAG 2 AA for body
// text), from the computed styles. It marks every interactive element
// that is shown with data-a11y=N and stores their count in
// window.__a11yCount, for the keyboard pass.
const staticChecks = `(() => {
const out = [];
const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
const name = el => (el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.name ? '[name=' + el.name + ']' : '') + ' "' + (el.textContent || el.value || '').trim().slice(0, 40) + '"');
for (const el of document.querySelectorAll('input, select, textarea')) {
  if (el.type === 'hidden' || !shown(el)) continue;
  const labelled = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || el.closest('label') ||
    (el.id && document.querySelector('label[for="' + CSS.escape(el.id) + '"]'));
  if (!labelled) out.push('no label: ' + name(el));
}
for (const el of document.querySelectorAll('a[href], button')) {
  if (shown(el) && !(el.textContent.trim() || el.getAttribute('aria-label'))) out.push('no accessible name: ' + name(el));
}
const rgba = s => { const m = s.match(/rgba?\(([^)]+)\)/); if (!m) return [0, 0, 0, 0]; const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
const background = el => { for (let e = el; e; e = e.parentElement) { const c = rgba(getComputedStyle(e).backgroundColor); if (c[3] > 0) return c; } return [255, 255, 255, 1]; };
for (const el of document.body.querySelectorAll('*')) {
  const text = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
  if (!text || !shown(el)) continue;
  const fg = rgba(getComputedStyle(el).color), bg = background(el);
  const a = lum(fg) + 0.05, b = lum(bg) + 0.05, ratio = Math.max(a, b) / Math.min(a, b);
  if (ratio < 4.5) out.push('contrast ' + ratio.toFixed(2) + ' < 4.5: ' + name(el) + ' color ' + getComputedStyle(el).color + ' on rgb(' + bg.slice(0, 3) + ')');
}
let n = 0;
for (const el of document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')) {
  if (el.type === 'hidden' || el.disabled || !shown(el)) continue;
  el.setAttribute('data-a11y', String(n++));
}
window.__a11yCount = n;
window.__a11ySeen = {};
if (document.activeElement) document.activeElement.blur();
return out;
})()`

// focusStep records the focused element after a Tab and whether its
// focus shows (an outline or a box shadow from the computed style). It
// judges the style only once the element matches :focus, which takes
// the page holding the focus as well as the element: a Tab past the
// last element hands the focus to the browser, which gives it back to
// the page and its first element (Overview) by messages of its own
// that cross the next Tab, and on a busy machine the check can read the
// element between the two, active but without :focus and so without its
// outline ("no visible focus: Overview"). The step waits for the focus
// event that ends that moment, not for a time.
const focusStep = `new Promise(resolve => {
const el = document.activeElement;
if (!el || !el.hasAttribute('data-a11y')) return resolve(false);
const judge = () => {
  const s = getComputedStyle(el);
  window.__a11ySeen[el.getAttribute('data-a11y')] = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
  resolve(true);
};
if (el.matches(':focus')) return judge();
const settled = () => {
  if (!el.matches(':focus')) return;
  window.removeEventListener('focus', settled, true);
  judge();
};
window.addEventListener('focus', settled, true);
})`

// focusReport lists the marked elements that Tab never reached or that
// showed no focus.
const focusReport = `(() => {
const out = [];
for (const el of document.querySelectorAll('[data-a11y]')) {
  const i = el.getAttribute('data-a11y'), seen = window.__a11ySeen[i];
  const what = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' "' + (el.textContent || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 40) + '"';
  if (seen === undefined) out.push('not reached by Tab: ' + what);
  else if (!seen) out.push('no visible focus: ' + what);
}
return out;
})()`

// CheckA11y runs the basic accessibility check on the tab's page and
// fails the test, naming page, for each problem: labels, names and
// contrast (staticChecks), then the keyboard: Tab is pressed once per
// interactive element (and a few more), and each must be reached and
// show its focus.
func CheckA11y(tb testing.TB, ctx context.Context, page string) {
	tb.Helper()
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](staticChecks))
	if err != nil {
		tb.Fatalf("%s: accessibility check: %v", page, err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__a11yCount`))
	if err != nil {
		tb.Fatal(err)
	}
	for range n + 3 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			tb.Fatalf("%s: Tab: %v", page, err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](focusStep, chromedp.EvalAwaitPromise)); err != nil {
			tb.Fatalf("%s: keyboard check: %v", page, err)
		}
	}
	unfocused, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](focusReport))
	if err != nil {
		tb.Fatalf("%s: keyboard check: %v", page, err)
	}
	problems = append(problems, unfocused...)
	if len(problems) > 0 {
		tb.Errorf("%s: %d accessibility problems:\n%s", page, len(problems), strings.Join(problems, "\n"))
	}
	tb.Logf("%s: accessibility check of %d interactive elements: %s", page, n, plural.Count(len(problems), "problem"))
}
