"""What a page reached by a submit or a navigation says happened, read before its diff.

A server-rendered form answers with a whole new page, whether it saved, refused a field
or asks to confirm: the diff of a new page is only a count (`new page, +128`). What tells
them apart is what the page says to the person: its title, and its alerts, status lines
and messages (`role=alert`, `role=status`, Django's `.messagelist`, and any element the
page styles as one by its class's words: `message-error`, `flash`, `notice-success`), its
error lists and the fields marked invalid with their errors. Those come first in the
result.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

if TYPE_CHECKING:
    from ..model.snapshot import Snapshot

log = logging.getLogger("cockpit.news")

FIELD_ROLES = frozenset({"textbox", "searchbox", "spinbutton", "combobox", "listbox",
                         "checkbox", "radio", "slider", "switch"})
MOST = 6  # message lines in a result; the data has them all (up to the script's cap)

# Visible messages, each {kind, text, field}: `field` is the label of the form field an
# error is about (its <label>, aria-label, placeholder or name), "" for a page message.
NEWS_JS = r"""
() => {
  const CAP = 20, out = [], seen = new Set();
  const shown = (el) => el.checkVisibility ? el.checkVisibility({visibilityProperty: true})
                                           : !!el.offsetParent;
  const words = (el) => (el.innerText || el.textContent || '').trim().replace(/\s+/g, ' ');
  const labelOf = (f) => ((f.labels && f.labels[0] && words(f.labels[0])) ||
    f.getAttribute('aria-label') || f.getAttribute('placeholder') || f.name || f.id || '')
    .slice(0, 60);
  const add = (kind, el, field = '') => {
    if (out.length >= CAP || seen.has(el) || !shown(el)) return;
    for (const s of seen) if (s.contains(el) || el.contains(s)) return;  // said already
    const text = words(el).slice(0, 160);
    if (!text) return;
    seen.add(el);
    out.push({kind, text, field});
  };
  // fields marked invalid, with the error they point to (aria-errormessage/describedby)
  for (const f of document.querySelectorAll('[aria-invalid="true"]')) {
    const ids = (f.getAttribute('aria-errormessage') || f.getAttribute('aria-describedby')
                 || '').split(/\s+/).filter(Boolean);
    const error = ids.map((id) => document.getElementById(id)).find((e) => e && words(e));
    if (error) add('error', error, labelOf(f));
  }
  const sel = (q) => document.querySelectorAll(q);
  for (const el of sel('[role=alert], .errornote, .alert-danger, .alert-error'))
    add('alert', el);
  for (const el of sel('.messagelist > li, .messages > li, .alert-success, .alert-info,'
                       + ' .alert-warning, [role=status], output'))
    add('message', el);
  for (const el of sel('.errorlist > li, .invalid-feedback, .field-error, .error-message')) {
    const row = el.closest('.form-row, .form-group, .field, fieldset, p, div');
    const f = row && row.querySelector('input:not([type=hidden]), select, textarea');
    add('error', el, f ? labelOf(f) : '');
  }
  // Any other element its page styles as a message, told by the words of a class:
  // a message word with a level (Datasette's `message-error`, GitHub's `flash-error`,
  // WordPress's `notice-success`, `msg-warning`), or a class that is a level or a message
  // kind by itself (`error`, `flash`, `notice` in Rails). Short texts holding no field
  // (a form styled `error` is not a message); a class worn by more than MANY of them is
  // the page's data (a log's `error` rows, a status board), not what it says now.
  const MANY = 3;
  const MESSAGE = new Set(['message', 'messages', 'msg', 'flash', 'notice', 'notification',
                           'alert', 'callout', 'toast', 'snackbar', 'feedback', 'banner']);
  const LEVEL = new Set(['error', 'errors', 'danger', 'fail', 'failure', 'invalid',
                         'warning', 'warn', 'success', 'info', 'notice', 'alert']);
  const ALONE = new Set(['error', 'errors', 'alert', 'flash', 'notice', 'warning', 'danger']);
  const BAD = new Set(['error', 'errors', 'danger', 'fail', 'failure', 'invalid']);
  // each class that can match holds one of these (a message word, or a level alone);
  // the browser's own matching finds them (most elements have none)
  const HINTS = ['err', 'danger', 'warn', 'notice', 'alert', 'flash', 'messag', 'msg',
                 'notif', 'toast', 'callout', 'snackbar', 'feedback', 'banner'];
  const hinted = HINTS.map((w) => `[class*="${w}" i]`).join(',');
  const styled = [];
  for (const el of document.body ? document.body.querySelectorAll(hinted) : []) {
    const names = el.getAttribute('class') || '';
    let kind = '';
    for (const token of names.split(/\s+/)) {
      const parts = token.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase().split(/[-_]+/);
      if (!(ALONE.has(token.toLowerCase()) || parts.some((w) => MESSAGE.has(w) &&
            parts.some((v) => v !== w && LEVEL.has(v)))))
        continue;
      kind = parts.some((w) => BAD.has(w)) ? 'alert' : kind || 'message';
    }
    if (kind && !el.querySelector('input:not([type=hidden]), select, textarea') &&
        words(el).length <= 300 && shown(el))
      styled.push([kind, el, names]);
  }
  const worn = new Map();
  for (const [, , names] of styled) worn.set(names, (worn.get(names) || 0) + 1);
  for (const [kind, el, names] of styled) if (worn.get(names) <= MANY) add(kind, el);
  return out;
}
"""


async def read(page: Page) -> list[dict[str, Any]]:
    """The page's visible alerts, messages and field errors (NEWS_JS); [] when it cannot
    say (a page going away)."""
    try:
        return list(await page.evaluate(NEWS_JS))
    except PlaywrightError as exc:
        log.debug("reading the page's messages failed: %s", exc)
        return []


def lines(news: list[dict[str, Any]], snap: Snapshot | None) -> list[str]:
    """The messages as result lines, alerts and errors first: `alert: Please correct the
    errors below.`, `@e12 textbox "Name:": This field is required.`"""
    order = {"alert": 0, "error": 1, "message": 2}
    out = []
    for item in sorted(news, key=lambda n: order.get(n["kind"], 3))[:MOST]:
        field = item.get("field") or ""
        if field:
            out.append(f"{field_name(field, snap)}: {item['text']}")
        else:
            out.append(f"{item['kind']}: {item['text']}")
    if len(news) > MOST:
        out.append(f"… {len(news) - MOST} more messages (in the result data)")
    return out


def field_name(label: str, snap: Snapshot | None) -> str:
    """A field named by its ref when the snapshot has it (`@e12 textbox "Name:"`)."""
    want = label.strip().rstrip(":").strip().lower()
    if snap is not None and want:
        for ref, node in snap.refs.items():
            if node.role in FIELD_ROLES and \
                    (node.name or "").strip().rstrip(":").strip().lower() == want:
                return f'@{ref} {node.role} "{node.name}"'
    return f'field "{label}"'


def page_line(url: str, title: str, before_url: str | None, method: str | None) -> str:
    """Where a navigation landed, said whatever the URL: `new page /path (POST): "Title"`.
    A form that posts to its own URL lands on the same URL: the title tells."""
    now, was = urlsplit(url), urlsplit(before_url or "")
    where = url if (now.scheme, now.netloc) != (was.scheme, was.netloc) or not now.netloc \
        else (now.path or "/") + (f"?{now.query}" if now.query else "")
    how = f" ({method}{', same URL' if url == before_url else ''})" \
        if method and method != "GET" else ""
    return f"new page {where}{how}" + (f': "{title}"' if title else "")
