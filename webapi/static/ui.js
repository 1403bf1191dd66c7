// @ts-check
// A status line for what just happened (read out by screen readers), and the readiness signal.
let shown; // the timer that hides the toast shown last
/**
 * @param {string} message
 * @param {boolean} [error] shown as an error
 */
export function toast(message, error = false) {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = message;
  el.className = `toast show${error ? " error" : ""}`;
  clearTimeout(shown);
  shown = setTimeout(() => (el.className = "toast"), 5000);
}

// body[data-ready]: "true" once the page has finished loading or refreshing what it shows,
// "false" while it is at it; tests wait on it instead of sleeping (docs/table-page.md). Each
// ready(false) is matched by one ready(true), so overlapping refreshes count.
let busy = 0;
/** @param {boolean} done */
export function ready(done) {
  busy = done ? Math.max(0, busy - 1) : busy + 1;
  document.body.dataset.ready = busy === 0 ? "true" : "false";
}
