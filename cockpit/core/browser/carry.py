"""What a tab's document holds that loading its URL again would lose, carried across a
relaunch (handoff): the state of its fields (typed text, checked boxes, chosen options)
and, for a page reached by a POST, the document itself.

Chromium's own session restore (`--restore-last-session` on the same profile) was tried
and is not used: a POST-reached page served `Cache-Control: no-store` (every sign-in
wizard's) comes back as "Confirm Form Resubmission"; field state reaches the session file
only after the renderer's ~1 s sync timer, so a prompt relaunch loses it; and the restored
tabs come in no fixed order, beside Playwright's own blank page.

Field values live only in memory, between two browsers of the same session: a password
typed into the page goes back into the same field, never into a file, log or result.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from typing import TYPE_CHECKING, Any

from ..base.logs import tolerated

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from playwright.async_api import Page, Route

    from ..page.tab import Tab

log = logging.getLogger(__name__)

# Only what differs from what the document itself sets (value vs defaultValue, checked vs
# defaultChecked, selected vs defaultSelected): a page loaded again has its defaults
# already, and a value the server sends anew (a CSRF token, a CAPTCHA's key) is left alone.
FIELDS_JS = """() => {
  const fields = [], files = [];
  const skip = new Set(["hidden", "submit", "button", "image", "reset"]);
  document.querySelectorAll("input, select, textarea").forEach((el, index) => {
    const tag = el.localName, type = (el.type || "").toLowerCase();
    const key = {index, tag, type, name: el.name || "", id: el.id || ""};
    if (tag === "input" && skip.has(type)) return;
    if (type === "file") {
      if (el.files && el.files.length) files.push(el.name || el.id || "a file field");
      return;
    }
    if (tag === "select") {
      const options = [...el.options];
      const defaults = options.map(o => o.defaultSelected);
      if (!el.multiple && !defaults.some(Boolean) && options.length) defaults[0] = true;
      const picked = options.map(o => o.selected);
      if (picked.some((p, i) => p !== defaults[i])) fields.push({...key, options: picked});
    } else if (type === "checkbox" || type === "radio") {
      if (el.checked !== el.defaultChecked) fields.push({...key, checked: el.checked});
    } else if (el.value !== el.defaultValue) {
      fields.push({...key, value: el.value});
    }
  });
  return {fields, files, frames: document.querySelectorAll("iframe, frame").length};
}"""

# Sets each field the way typing would (the prototype's setter, so frameworks that wrap
# `value` see it) and says which it could not find.
RESTORE_FIELDS_JS = """(fields) => {
  const all = [...document.querySelectorAll("input, select, textarea")];
  const same = (el, f) => el && el.localName === f.tag &&
    (el.type || "").toLowerCase() === f.type && (el.name || "") === f.name &&
    (el.id || "") === f.id;
  const setters = {input: HTMLInputElement, textarea: HTMLTextAreaElement};
  const missed = [];
  for (const f of fields) {
    let el = all[f.index];
    if (!same(el, f)) el = (f.name || f.id) ? all.find(e => same(e, f)) : undefined;
    if (!el) { missed.push(f); continue; }
    let changed = false;
    if ("checked" in f) {
      if (el.checked !== f.checked) { el.checked = f.checked; changed = true; }
    } else if ("options" in f) {
      f.options.forEach((on, i) => {
        const option = el.options[i];
        if (option && option.selected !== on) { option.selected = on; changed = true; }
      });
    } else if (el.value !== f.value) {
      Object.getOwnPropertyDescriptor(setters[f.tag].prototype, "value").set.call(el, f.value);
      changed = true;
    }
    if (changed) {
      el.dispatchEvent(new Event("input", {bubbles: true}));
      el.dispatchEvent(new Event("change", {bubbles: true}));
    }
  }
  return missed;
}"""

FIELD_TRIES = 4  # a page that renders its form after `load` gets a few looks
FIELD_RETRY_S = 0.5


@dataclasses.dataclass
class DocumentCopy:
    """A POST-reached document as the server sent it: shown again instead of asked for
    again (a second POST would repeat the action; a GET would not reach the page)."""
    url: str
    status: int
    content_type: str
    body: bytes = dataclasses.field(repr=False)


@dataclasses.dataclass
class Carried:
    """A tab's document state beyond its URL."""
    fields: list[dict[str, Any]] = dataclasses.field(default_factory=list, repr=False)
    files: list[str] = dataclasses.field(default_factory=list)  # chosen files: not carried
    frames: int = 0  # frames in the page: what was typed inside them is not carried
    copy: DocumentCopy | None = None


def _field_label(field: dict[str, Any]) -> str:
    return field.get("name") or field.get("id") or f"{field['tag']} {field['index'] + 1}"


def same_document(url: str, other: str) -> bool:
    return url.split("#")[0] == other.split("#")[0]


async def capture_document(tab: Tab) -> Carried:
    """The tab's field state, and a copy of its document when a POST reached it."""
    got = await tab.page.evaluate(FIELDS_JS)
    carried = Carried(got["fields"], got["files"], int(got["frames"]))
    carried.copy = await _copy(tab)
    return carried


async def _copy(tab: Tab) -> DocumentCopy | None:
    response, cached = tab.document_response, tab.document_copy
    if cached is not None and cached[0] is response:  # read before, or shown from a copy
        return cached[1] if same_document(cached[1].url, tab.page.url) else None
    if response is None or response.request.method != "POST" or \
            not same_document(response.url, tab.page.url):
        return None
    try:
        body = await response.body()
    except Exception:  # the browser no longer holds it: the tab goes back to its URL
        log.info("tab %s: the POST-reached document's body is gone", tab.id, exc_info=True)
        return None
    copy = DocumentCopy(tab.page.url.split("#")[0], response.status,
                        response.headers.get("content-type", "text/html"), body)
    tab.document_copy = (response, copy)
    return copy


async def open_copy(page: Page, copy: DocumentCopy, goto: Callable[[], Awaitable[None]]) -> None:
    """Go to the copy's URL with the document answered from the copy (its images, styles
    and scripts still come from the server, with the session's cookies)."""
    pattern = re.compile(re.escape(copy.url) + r"(#.*)?")

    async def answer(route: Route) -> None:
        await route.fulfill(status=copy.status, headers={"content-type": copy.content_type},
                            body=copy.body)

    await page.route(pattern, answer, times=1)
    try:
        await goto()
    finally:
        with tolerated("removing the document copy's route", log):
            await page.unroute(pattern, answer)


async def restore_fields(page: Page, fields: list[dict[str, Any]]) -> list[str]:
    """Put the fields back; the labels (name or id) of those the page no longer has."""
    left = fields
    for attempt in range(FIELD_TRIES):
        if not left:
            return []
        if attempt:
            await asyncio.sleep(FIELD_RETRY_S)
        left = await page.evaluate(RESTORE_FIELDS_JS, left)
    return [_field_label(f) for f in left]


def losses(carried: Carried, missed: list[str]) -> list[str]:
    """What of the tab's state the relaunched page does not have, said for a person."""
    lost = []
    if missed:
        lost.append(f"the value of {', '.join(missed)}")
    if carried.files:
        lost.append(f"the file(s) chosen in {', '.join(carried.files)} (choose again)")
    if carried.frames:  # only the page's own fields are read; a frame's are its own
        lost.append(f"anything typed inside its {carried.frames} frame(s)")
    return lost
