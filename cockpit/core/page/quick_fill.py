"""A fill that costs what typing costs, when the field is plainly fillable.

Playwright's `locator.fill()` proves the field visible, enabled and editable (waiting and
retrying until it is), selects its text and inserts the new one with a trusted
`insertText`; with the ref's checks and the password question before it, a fill was five
round trips to the page and 35-50 ms on the demo's sign-in form (agent-browser's: 13 ms).

Here one evaluate, on the ref's element as Playwright finds it, answers what they ask for
the common case (a text field of the main frame, of this document, connected, visible,
enabled, not read-only), says whether it is a password field, and selects its text as
Playwright's own `fill` does; then the same `insertText`. Anything else (a date or number
input, a field in an iframe, a disabled one that may enable itself, a selector) goes
Playwright's way, which waits and says what is wrong, as before.

A textarea or an editing host is selected with the keyboard (Ctrl/Cmd+A), as a person
would: code editors (CodeMirror 5, Ace, Monaco) take their input through a small textarea
of their own that holds none of the editor's text, so selecting that textarea's value and
inserting (Playwright's `fill`) put the new text before the old; the editor's select-all
is what replaces all of it. On a plain textarea or editing host the key selects exactly
what the script would.
"""

from __future__ import annotations

import logging

from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

log = logging.getLogger("cockpit.fill")

# Returns null when the field is not plainly fillable, else {password, keys}. The field is
# then focused with its text selected (an input, a nested editable), as Playwright's
# injected `fill`/`selectText` leave it, or `keys`: only focused, for `insert` to select
# all with the keyboard (a textarea, an editing host: see the module's docstring).
FILL_JS = r"""
(el, doc) => {
  if (window.__cockpitDoc !== doc || window.top !== window || !el.isConnected) return null;
  const tag = el.localName;
  const typed = tag === 'input' &&
    ['', 'text', 'email', 'password', 'search', 'tel', 'url'].includes(el.type.toLowerCase());
  if (!typed && tag !== 'textarea' && !el.isContentEditable) return null;
  if (el.matches(':disabled') || el.readOnly || el.closest('[aria-disabled="true"]'))
    return null;
  if (!el.checkVisibility({visibilityProperty: true}) || !el.getClientRects().length)
    return null;
  let keys = false;
  if (tag === 'input') {
    el.select();
    el.focus();
  } else if (tag === 'textarea') {
    el.focus();
    keys = true;
  } else {
    let target = el;  // the outermost editable host takes the focus, as in Playwright's
    while (target.parentElement && target.parentElement.isContentEditable)
      target = target.parentElement;
    target.focus();
    keys = target === el;  // the host: select-all is its whole text, and the editor's
    if (!keys) {  // a part of a bigger editable: only its own text
      const range = document.createRange();
      range.selectNodeContents(el);
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    }
  }
  if (document.activeElement !== el && !el.contains(document.activeElement)) return null;
  return {password: el.type === 'password' || /password/i.test(el.autocomplete || ''), keys};
}
"""


async def select_ref(page: Page, selector: str, doc: str) -> dict[str, Any] | None:
    """Make a ref of the last snapshot (`aria-ref=e5`) ready for `insert` when it is
    plainly fillable: focused, its text selected unless "keys" says `insert` must select it
    with the keyboard, and {"password": bool, "keys": bool}. None: it is not (or it
    could not tell): the caller goes the checked way, `targets.resolve` then `fill`."""
    try:
        found: dict[str, Any] | None = await page.eval_on_selector(selector, FILL_JS, doc,
                                                                    strict=True)
        return found
    except PlaywrightError as exc:
        log.debug("quick fill by ref: %s", exc)
        return None


async def insert(page: Page, text: str, *, select_all: bool = False) -> None:
    """Replace the selected text with `text`, as Playwright's fill does; `select_all`:
    first select all of the focused field with the keyboard (`select_ref`'s `keys`)."""
    if select_all:
        await page.keyboard.press("ControlOrMeta+A")
    if text:
        await page.keyboard.insert_text(text)
    else:  # the selection deleted
        await page.keyboard.press("Delete")
