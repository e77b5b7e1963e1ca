"""inspect: js, eval, attrs, css, is, count, console, network, dialogs, perf."""

from __future__ import annotations

import datetime
import json
import math
import re
from typing import TYPE_CHECKING, Any, TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from ..base.errors import UsageError
from ..base.paths import base, given_path
from ..language.registry import FILE, INT, TARGET, Arg, Flag, command
from ..base.result import Outcome
from ..page.translate import js_error
from ..network.requests import mask_url


if TYPE_CHECKING:
    from ..session.session import CommandContext
    from ..language.parser import Invocation

Item = TypeVar("Item")

T = Arg("target", "@ref from `snapshot`, or a CSS selector", kind=TARGET)
DEFAULT_CSS = ("display", "visibility", "opacity", "position", "z-index", "width", "height",
               "color", "background-color", "font-size", "font-weight", "cursor",
               "pointer-events")


def jsonable(value: Any, _seen: frozenset[int] = frozenset()) -> Any:
    """A page's value as plain JSON: Playwright gives back dates, regexes, circular
    objects and NaN, none of which JSON (the result, the socket, a recording) can hold."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, re.Pattern):
        return f"/{value.pattern}/"
    if isinstance(value, (dict, list, tuple)):
        if id(value) in _seen:
            return "[Circular]"
        seen = _seen | {id(value)}
        if isinstance(value, dict):
            return {str(k): jsonable(v, seen) for k, v in value.items()}
        return [jsonable(v, seen) for v in value]
    return str(value)  # whatever else a newer Playwright hands back: its text


def show_value(value: Any) -> str:  # what page JavaScript gave back
    if value is None:
        return "undefined"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=None)


async def evaluate_code(page: Page, code: str) -> Outcome:
    """Evaluate code as the page would (statements give their last value); code with
    `await` as an async expression; code with a top-level `return` as a function body.
    The first attempt is called directly: Playwright records the caller's stack on every
    call, so fewer frames in between make `js` as fast as a bare `page.evaluate`."""
    code = code.strip().rstrip(";") if "\n" not in code.strip() else code
    before = page.url
    try:
        try:
            value = await page.evaluate(
                f"async () => {{ return ({code}\n); }}" if "await" in code else code)
        except PlaywrightError as exc:
            if "SyntaxError" not in str(exc):
                raise
            value = await page.evaluate(f"async () => {{ {code}\n}}")
    except PlaywrightError as exc:
        if "Execution context was destroyed" in str(exc):
            return await _navigated(page, before)
        raise js_error(exc) from None
    value = jsonable(value)
    return Outcome(show_value(value), {"value": value})


async def _navigated(page: Page, before: str) -> Outcome:
    """The code made the page load another document, which took its value with it."""
    try:  # the old document is gone; the new one's URL event follows shortly
        if page.url == before:
            await page.wait_for_event("framenavigated", timeout=10_000,
                                      predicate=lambda f: f == page.main_frame)
        await page.wait_for_load_state("load", timeout=10_000)
    except PlaywrightError:
        pass  # still loading: the URL below says where it is going
    return Outcome(f"the page navigated while the code ran (now {page.url}); its value "
                   "was lost with the old page", {"value": None, "navigated": True})


@command("js", "inspect", "Evaluate JavaScript in the page and print the value.",
         args=(Arg("code", "an expression (`await` allowed) or statements with `return`",
                   raw=True),),
         aliases=("eval-js",),
         details="The rest of the line is the code, quotes and all. Values come back as "
                 "JSON. js does not settle or diff: follow it with `snapshot -D` to see "
                 "what it changed.",
         examples=("js document.title", "js document.querySelectorAll('a').length",
                   "js await fetch('/api/messages').then(r => r.json())"))
async def js(ctx: CommandContext, a: Invocation) -> Outcome:
    return await evaluate_code(ctx.page, a.code)


@command("eval", "inspect", "Run a JavaScript file in the page and print the value.",
         args=(Arg("file", "path to a .js file (an expression or statements with return)",
                   kind=FILE),),
         examples=("eval scripts/collect.js",))
async def eval_(ctx: CommandContext, a: Invocation) -> Outcome:
    path = given_path(a.file)
    if not path.is_file():
        raise UsageError(f"no such file: {path} (paths are relative to {base()})")
    try:
        code = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:  # a PDF, a picture: not a script
        raise UsageError(f"{path} is not a UTF-8 text file (byte {exc.start}): "
                         "eval runs a JavaScript file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    return await evaluate_code(ctx.page, code)


@command("attrs", "inspect", "Print an element's HTML attributes.", args=(T,), read_only=True)
async def attrs(ctx: CommandContext, a: Invocation) -> Outcome:
    locator = await ctx.one(a.target)
    found = await locator.evaluate(
        "el => Object.fromEntries([...el.attributes].map(x => [x.name, x.value]))")
    lines = [f"{k}={json.dumps(v)}" for k, v in found.items()]
    return Outcome("\n".join(lines) or "(no attributes)", {"attrs": found})


@command("css", "inspect", "Print an element's computed styles (a useful set, or those named).",
         args=(T, Arg("properties", "CSS properties, e.g. color display", variadic=True,
                      optional=True)),
         examples=("css @e3", "css @e3 color z-index"), read_only=True)
async def css(ctx: CommandContext, a: Invocation) -> Outcome:
    locator = await ctx.one(a.target)
    props = a.properties or list(DEFAULT_CSS)
    found = await locator.evaluate(
        "(el, props) => { const s = getComputedStyle(el); "
        "return Object.fromEntries(props.map(p => [p, s.getPropertyValue(p)])); }", props)
    return Outcome("\n".join(f"{k}: {v}" for k, v in found.items()), {"css": found})


@command("is", "inspect", "Say whether an element is visible, enabled or checked (true or false).",
         args=(Arg("state", "what to ask", choices=("visible", "enabled", "checked")), T),
         examples=("is visible @e4", "is checked '#terms'"), read_only=True)
async def is_(ctx: CommandContext, a: Invocation) -> Outcome:
    locator = await ctx.locate(a.target)
    if a.state == "visible":
        count = await locator.count()
        value = count == 1 and await locator.is_visible()
        if count > 1:
            value = await locator.first.is_visible()
    else:
        locator = await ctx.one(a.target)
        ask = locator.is_enabled if a.state == "enabled" else locator.is_checked
        try:
            value = await ask(timeout=ctx.timeout)
        except PlaywrightError as exc:
            raise UsageError(f"{ctx.describe(a.target)} cannot be {a.state}: "
                             f"{str(exc).splitlines()[0]}") from None
    return Outcome("true" if value else "false", {"value": bool(value)})


@command("count", "inspect", "Count the elements a selector matches.",
         args=(Arg("selector", "a CSS selector", kind=TARGET),), examples=("count 'tr.row'",),
         read_only=True)
async def count(ctx: CommandContext, a: Invocation) -> Outcome:
    locator = await ctx.locate(a.selector)
    n = await locator.count()
    return Outcome(str(n), {"count": n})


def _last(items: list[Item], n: int | None) -> list[Item]:
    return items[-n:] if n else items


@command("console", "inspect", "Show console messages and uncaught errors of the session.",
         flags=(Flag("--errors", "-e", "only errors and uncaught exceptions"),
                Flag("--last", "-n", "only the last N", value="N", kind=INT),
                Flag("--clear", help="empty the buffer after showing it")),
         modal_safe=True, read_only=True)
async def console(ctx: CommandContext, a: Invocation) -> Outcome:
    buf = ctx.session.buffers.console
    rows = [e for e in buf if not a.errors or e.level in ("error", "pageerror")]
    rows = _last(rows, a.last)
    if a.clear:
        buf.clear()
    lines = [f"[{e.level}] {e.text}  (tab {e.tab})" for e in rows]
    if buf.dropped and lines:  # the buffer is bounded (entries and bytes): said
        lines.insert(0, f"… {buf.dropped} earlier messages dropped")
    return Outcome("\n".join(lines) or "(no console messages)",
                   {"messages": [e.to_json() for e in rows], "dropped": buf.dropped})


@command("network", "inspect", "Show the session's network requests (`request N` shows #N "
         "in full).",
         flags=(Flag("--failed", help="only failed requests and HTTP errors"),
                Flag("--filter", "-f", "only URLs containing TEXT", value="TEXT"),
                Flag("--last", "-n", "only the last N", value="N", kind=INT),
                Flag("--clear", help="empty the buffer after showing it")),
         aliases=("requests",), modal_safe=True, read_only=True)
async def network(ctx: CommandContext, a: Invocation) -> Outcome:
    buf = ctx.session.buffers.network
    rows = [e for e in buf
            if (not a.failed or e.failure or (e.status or 0) >= 400)
            and (not a.filter or a.filter in e.url)]
    rows = _last(rows, a.last)
    if a.clear:
        buf.clear()
    lines = []
    for e in rows:
        status = e.failure or (str(e.status) if e.status is not None else "…")
        ms = f"{e.ms:.0f}ms" if e.ms is not None else "pending"
        lines.append(f"{e.method} {status} {ms} {e.resource} {mask_url(e.url)}  #{e.id}")
    return Outcome("\n".join(lines) or "(no requests)",
                   {"requests": [{**e.to_json(), "url": mask_url(e.url)} for e in rows],
                    "dropped": buf.dropped})


@command("dialogs", "inspect", "Show the dialogs (alert, confirm, prompt) pages have opened.",
         modal_safe=True, read_only=True)
async def dialogs(ctx: CommandContext, a: Invocation) -> Outcome:
    rows = list(ctx.session.buffers.dialogs)
    lines = [f"{d.type} \"{d.message}\" -> {d.answer or 'OPEN'}  (tab {d.tab})" for d in rows]
    return Outcome("\n".join(lines) or "(no dialogs)", {"dialogs": [d.to_json() for d in rows]})


PERF_JS = """() => {
  const n = performance.getEntriesByType('navigation')[0];
  const paint = Object.fromEntries(performance.getEntriesByType('paint')
    .map(p => [p.name, Math.round(p.startTime)]));
  const res = performance.getEntriesByType('resource');
  if (!n) return null;
  return {ttfb_ms: Math.round(n.responseStart - n.requestStart),
          dom_content_loaded_ms: Math.round(n.domContentLoadedEventEnd),
          load_ms: Math.round(n.loadEventEnd), first_paint_ms: paint['first-paint'] ?? null,
          first_contentful_paint_ms: paint['first-contentful-paint'] ?? null,
          transfer_bytes: n.transferSize + res.reduce((s, r) => s + (r.transferSize || 0), 0),
          resources: res.length, dom_nodes: document.getElementsByTagName('*').length};
}"""


@command("perf", "inspect", "Show the page's load timings and size.", read_only=True)
async def perf(ctx: CommandContext, a: Invocation) -> Outcome:
    found = await ctx.page.evaluate(PERF_JS)
    if found:
        found = {k: v for k, v in found.items() if v is not None}
    if not found or not found.get("load_ms"):
        return Outcome("no navigation timing for this page (about:blank?)", {})
    return Outcome("\n".join(f"{k}: {v}" for k, v in found.items()), {"perf": found})
