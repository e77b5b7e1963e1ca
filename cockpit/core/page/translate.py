"""Playwright's errors, translated into one line that names the target and the next step."""

from __future__ import annotations

import re

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator

from ..base.errors import CommandError, UsageError

# What `diagnose` finds about an element a timed-out action could not use.
DIAGNOSE_JS = """(el) => {
  const r = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  const visible = r.width > 0 && r.height > 0 && style.visibility !== 'hidden'
    && style.display !== 'none';
  const describe = (e) => {
    let s = '<' + e.tagName.toLowerCase();
    if (e.id) s += ' id="' + e.id + '"';
    else if (e.classList.length) s += ' class="' + [...e.classList].slice(0, 2).join(' ') + '"';
    const all = (e.innerText || '').trim().replace(/\\s+/g, ' ');
    const t = all.length <= 40 ? all : all.slice(0, 41).replace(/\\s\\S*$/, '') + '…';
    return s + '>' + (t ? ' "' + t + '"' : '');
  };
  let cover = null;
  if (visible) {
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const inView = x >= 0 && y >= 0 && x < innerWidth && y < innerHeight;
    const hit = inView ? document.elementFromPoint(x, y) : null;
    if (hit && hit !== el && !el.contains(hit) && !hit.contains(el)) {
      let top = hit;  // name the outermost covering element, e.g. the whole overlay
      while (top.parentElement && top.parentElement !== document.body
             && !top.parentElement.contains(el)) top = top.parentElement;
      cover = describe(top);
    }
  }
  return {visible, disabled: !!el.disabled || el.getAttribute('aria-disabled') === 'true',
          cover, inViewport: r.bottom > 0 && r.right > 0 && r.top < innerHeight
          && r.left < innerWidth};
}"""

NET_ERRORS = {
    "ERR_NAME_NOT_RESOLVED": "the host name could not be resolved (DNS): check the URL",
    "ERR_CONNECTION_REFUSED": "the connection was refused: is the server running on that "
                              "host and port?",
    "ERR_CONNECTION_RESET": "the connection was reset by the server: try again",
    "ERR_INTERNET_DISCONNECTED": "there is no network connection",
    "ERR_ADDRESS_UNREACHABLE": "the address is unreachable from this machine",
    "ERR_CERT": "the site's TLS certificate was refused",
    "ERR_TIMED_OUT": "the server did not answer in time",
    "ERR_ABORTED": "the navigation was aborted (a download, or another navigation began)",
    "ERR_TOO_MANY_REDIRECTS": "the site redirects in a loop",
    "ERR_UNSAFE_PORT": "the browser refuses that port as unsafe: use another port",
    "ERR_EMPTY_RESPONSE": "the server closed the connection without answering",
    "ERR_INVALID_AUTH_CREDENTIALS": "the site asks for a user name and password (HTTP "
                                    "authentication): `credentials USER PASSWORD`, then go "
                                    "there again",
}


def http_auth_hint(challenge: str, given: bool) -> str | None:
    """What to say of a 401 page (a headless shell opens it: it has no sign-in prompt to
    cancel, so its navigation ends there instead of failing): a user name and password
    help only for Basic and Digest sign-in (not a token's Bearer, nor Negotiate)."""
    schemes = {word.split()[0].lower() for word in challenge.split(",") if word.strip()
               and "=" not in word.split()[0]}
    if not schemes & {"basic", "digest"}:
        return None
    if given:
        return ("the site refused the user name and password given (`credentials`): "
                "`credentials USER PASSWORD` with others, then go there again")
    return NET_ERRORS["ERR_INVALID_AUTH_CREDENTIALS"]


# Playwright's own words for what happened to the page, in the words of what to do next:
# (a fragment of its message, the line said instead).
RAW_ERRORS = (
    ("Target page, context or browser has been closed",
     "the tab closed while this ran (its page closed its window, or it was closed): "
     "`tabs` lists the open ones; the next command acts on the active one"),
    ("Target closed",
     "the tab closed while this ran (its page closed its window, or it was closed): "
     "`tabs` lists the open ones; the next command acts on the active one"),
    ("Execution context was destroyed",
     "the page went on to another document while this ran: `snapshot -i` shows the new "
     "one; retry there"),
    ("Cannot type text into input[type=number]",
     "a number field takes a number only (e.g. 42 or 3.5): fill it with digits"),
)


def first_line(exc: BaseException) -> str:
    """The error in one line: Playwright's raw messages that say what happened to the page
    (RAW_ERRORS) in words that say what to do, else its message's first line."""
    text = str(exc).strip()
    for fragment, said in RAW_ERRORS:
        if fragment in text:
            return said
    text = re.sub(r"^\w+\.\w+: ", "", text)  # "Locator.click: " prefix
    return text.splitlines()[0] if text else type(exc).__name__


def navigation_error(exc: BaseException, url: str) -> CommandError:
    text = str(exc)
    if "invalid URL" in text or "Cannot navigate to invalid URL" in text:
        return UsageError(f"`{url}` is not a valid URL: write it like https://example.com")
    for code, meaning in NET_ERRORS.items():
        if code in text:
            return CommandError(f"could not open {url}: {meaning} (net::{code})")
    if "Timeout" in text:
        return CommandError(f"{url} did not finish loading in time: try `wait --load` "
                            "later, or check the site")
    return CommandError(f"could not open {url}: {first_line(exc)}")


async def action_error(exc: BaseException, what: str, locator: Locator | None = None
                       ) -> CommandError:
    """Explain why an action on `what` (e.g. "@e3 (button "Save")") failed."""
    text = str(exc)
    m = re.search(r"resolved to (\d+) elements", text)
    if "strict mode violation" in text and m:
        return CommandError(f"{what} matched {m.group(1)} elements: use a ref from "
                            "`snapshot -i` or a more specific selector")
    if "not an <input>" in text or "Element is not an <input>" in text:
        return CommandError(f"{what} is not a text field: `fill` works on inputs, textareas "
                            "and contenteditable elements; click it and use `type`")
    if "Element is not a <select>" in text:
        return CommandError(f"{what} is not a <select>: click it and pick the option instead")
    if "did not find some options" in text:
        return CommandError(f"{what} has no such option: `snapshot -s {what.split()[0]}` "
                            "lists them")
    if "Target page, context or browser has been closed" in text or "Target closed" in text:
        return CommandError(f"the tab was closed while acting on {what}: `tabs` lists the "
                            "open ones")
    if "Timeout" in type(exc).__name__ or "Timeout" in text:
        return await _timeout_error(text, what, locator)
    return CommandError(f"{what}: {first_line(exc)}")


async def _timeout_error(text: str, what: str, locator: Locator | None) -> CommandError:
    if locator is not None:
        try:
            if await locator.count() == 0:
                return CommandError(f"{what}: nothing matches on the page: check the selector, "
                                    "or take a new snapshot")
            info = await locator.first.evaluate(DIAGNOSE_JS, timeout=1000)
        except PlaywrightError:  # gone or busy: the plain timeout message stands
            info = None
        if info:
            if info["cover"]:
                return CommandError(f"{what} is covered by {info['cover']}: dismiss it or "
                                    "scroll, then retry")
            if not info["visible"]:
                return CommandError(f"{what} is not visible (hidden or zero-size): open what "
                                    "contains it, or wait for it (`wait --selector`)")
            if info["disabled"]:
                return CommandError(f"{what} is disabled: fill in what it needs first, or "
                                    "wait until it is enabled")
    cover = re.search(r"(<[^>]+>.*?) intercepts pointer events", text)
    if cover:
        return CommandError(f"{what} is covered by {_cut(cover.group(1), 80)}: dismiss it "
                            "or scroll")
    return CommandError(f"{what}: timed out waiting for it to be ready: check it with "
                        "`is visible` or take a new snapshot")


def _cut(text: str, limit: int) -> str:
    """`text`, cut at a word's end when longer than `limit` (a quote never ends mid-word)."""
    if len(text) <= limit:
        return text
    head = text[:limit + 1]  # a space right after the limit ends a whole word
    space = head.rfind(" ")
    return (head[:space] if space > 0 else head[:limit]).rstrip() + "…"


def js_error(exc: BaseException) -> CommandError:
    text = str(exc)
    text = re.sub(r"^\w+\.\w+: ", "", text.strip())
    line = text.splitlines()[0] if text else type(exc).__name__
    line = line.replace("Error: Evaluation failed: ", "")
    return CommandError(f"JS exception: {line}: fix the expression (it runs in the page, "
                        "`await` allowed)")
