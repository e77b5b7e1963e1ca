"""The page side of the quiet after a navigation's `load` (settle.py's
`_nothing_loading`): whether anything the page shows is still coming. Apart from
settle_js.py, whose scripts follow what an action sets going."""

from __future__ import annotations

# What of a loaded page is still on its way, as the page can tell (settle.py's
# `_nothing_loading`): images shown at once and not complete, stylesheets not applied
# yet, frames not loaded (one of another origin cannot say: it counts).
LOADING_JS = r"""
() => {
  let n = 0;
  for (const img of document.images)
    if (!img.complete && img.loading !== 'lazy') n++;
  for (const link of document.querySelectorAll('link[rel~=stylesheet]'))
    if (!link.sheet && !link.disabled && (!link.media || matchMedia(link.media).matches)) n++;
  for (const frame of document.querySelectorAll('iframe, frame')) {
    let doc = null;
    try { doc = frame.contentDocument; } catch (e) { /* another origin's */ }
    if (!doc || doc.readyState !== 'complete') n++;
  }
  return n;
}
"""
