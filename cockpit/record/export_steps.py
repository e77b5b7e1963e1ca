"""The exported form of the page and browser-state steps Playwright has a call for
(export.py asks, in either dialect): upload, drag, scroll, viewport, cookies, storage,
js, and the answer to a dialog (a handler set before the step that opens it: Playwright
dismisses a dialog nobody handles)."""

from __future__ import annotations

import re
from typing import Any, Callable

from ..core import MASK, WHEEL_WAITED_JS, WHEEL_WATCH_JS
from .dialects import PYTHON, Python

Locate = Callable[[str], str]  # a target as the export finds it (role and name)

# The wheel as the session turns it: Chromium scrolls a frame or more after the event, so
# a check right after `mouse.wheel` may see the page unscrolled. A test gets this helper
# when one of its steps turns the wheel (export.py adds it before the test).
WHEEL_PY = f'''

def wheel(page: Page, dx: float, dy: float) -> None:
    """The mouse wheel, and the scroll it starts (a frame or more later): waited for as
    the session waited, so the next step sees the page scrolled."""
    page.evaluate({WHEEL_WATCH_JS!r})
    page.mouse.wheel(dx, dy)
    page.evaluate({WHEEL_WAITED_JS!r})
'''
WHEEL_TS = f"""
/** The mouse wheel, and the scroll it starts (a frame or more later): waited for as
 * the session waited, so the next step sees the page scrolled. */
async function wheel(page: Page, dx: number, dy: number): Promise<void> {{
  await page.evaluate({WHEEL_WATCH_JS!r});
  await page.mouse.wheel(dx, dy);
  await page.evaluate({WHEEL_WAITED_JS!r});
}}
"""


def wheel_helper(d: Python) -> str:
    """The `wheel` helper in the dialect `d`."""
    return WHEEL_PY if d is PYTHON else WHEEL_TS


def wheel_call(d: Python, dx: str, dy: str) -> str:
    """A statement that turns the wheel by (dx, dy) with the helper above."""
    return d.do(f"{d.fn('wheel')}(page, {dx}, {dy})")


def upload(p: dict[str, Any], locate: Locate, d: Python) -> list[str]:
    """The files as given (a relative path is taken from where the test runs)."""
    files = list(p.get("files") or [])
    return [d.do(d.call(locate(p["target"]), "set_input_files", d.lit(files)))]


def drag(p: dict[str, Any], locate: Locate, d: Python) -> list[str]:
    return [d.do(d.call(locate(p["source"]), "drag_to", locate(p["destination"])))]


def scroll(p: dict[str, Any], locate: Locate, d: Python) -> list[str]:
    """As the command scrolls: the wheel by --by (or 80% of the viewport), to the top or
    bottom, or an element into view."""
    where = (p.get("where") or "down").lower()
    if where in ("up", "down"):
        if p.get("by"):
            amount = str(int(p["by"]))
        else:
            height = 'page.viewport_size["height"]' if d is PYTHON else \
                "page.viewportSize()!.height"
            amount = f"int({height} * 0.8)" if d is PYTHON else f"Math.trunc({height} * 0.8)"
        return [wheel_call(d, "0", amount if where == "down" else f"-{amount}")]
    if where in ("top", "bottom"):
        y = "0" if where == "top" else "document.documentElement.scrollHeight"
        return [d.do(d.call("page", "evaluate", d.lit(f"window.scrollTo(0, {y})")))]
    return [d.do(d.call(locate(p["where"]), "scroll_into_view_if_needed"))]


def viewport(p: dict[str, Any], d: Python) -> list[str]:
    size = {"width": int(p["width"]), "height": int(p["height"])}
    return [d.do(d.call("page", "set_viewport_size", d.lit(size)))]


def cookies(p: dict[str, Any], d: Python) -> list[str] | None:
    """`cookies set` for the page the test is on (or --url), `cookies clear`; None for a
    listing (a read: nothing to do)."""
    action = p.get("action") or "list"
    if action == "clear":
        return [d.do(d.call(d.context(), "clear_cookies"))]
    if action != "set":
        return None
    url = d.lit(p["url"]) if p.get("url") else ("page.url" if d is PYTHON else "page.url()")
    value = stored("COOKIE", p["name"], p["value"], d)
    cookie = (f"{{'name': {d.lit(p['name'])}, 'value': {value}, 'url': {url}}}"
              if d is PYTHON else
              f"{{ name: {d.lit(p['name'])}, value: {value}, url: {url} }}")
    return [d.do(d.call(d.context(), "add_cookies", f"[{cookie}]"))]


def storage(p: dict[str, Any], d: Python) -> list[str] | None:
    """`storage set|clear` in the page, as the command does it; None for a listing."""
    action = p.get("action") or "list"
    kind = "sessionStorage" if p.get("session") else "localStorage"
    if action == "clear":
        return [d.do(d.call("page", "evaluate", d.lit(f"{kind}.clear()")))]
    if action != "set":
        return None
    code = f"([k, v]) => {kind}.setItem(k, v)"
    pair = f"[{d.lit(p['key'])}, {stored('STORAGE', p['key'], p['value'], d)}]"
    return [d.do(d.call("page", "evaluate", _function(code, d), pair))]


def _function(code: str, d: Python) -> str:
    """A function for page.evaluate: Python's Playwright calls a string that reads as one;
    TypeScript's evaluates a string as an expression, so it is given the function."""
    return d.lit(code) if d is PYTHON else code


def stored(kind: str, name: str, value: str, d: Python) -> str:
    """A cookie or storage value: recordings mask them (they are often credentials), so a
    masked one is read from the environment ($COOKIE_NAME, $STORAGE_KEY), as a `$NAME`
    secret is; the export's header lists none of these, the test says which is unset."""
    named = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", value)
    if named:
        return d.env(named.group(1))
    if MASK in value:
        return d.env(f"{kind}_" + re.sub(r"\W", "_", name).upper())
    return d.lit(value)


def js(p: dict[str, Any], d: Python) -> list[str]:
    """The code evaluated as `js` does: an expression, an async one when it awaits, a
    function body when it returns."""
    code = p["code"].strip().rstrip(";") if "\n" not in p["code"].strip() else p["code"]
    if "return" in code.split():
        return [d.do(d.call("page", "evaluate", _function(f"async () => {{ {code}\n}}", d)))]
    if "await" in code:
        return [d.do(d.call("page", "evaluate",
                            _function(f"async () => {{ return ({code}\n); }}", d)))]
    return [d.do(d.call("page", "evaluate", d.lit(code)))]


def answer_dialog(p: dict[str, Any], d: Python) -> str:
    """A handler for the next dialog, answering it as the `dialog` step did."""
    args = d.lit(p["text"]) if p.get("text") is not None and p["action"] == "accept" else ""
    if d is PYTHON:
        return (f"page.once('dialog', lambda dialog: dialog.{p['action']}({args}))")
    return f"page.once('dialog', (dialog) => dialog.{p['action']}({args}));"
