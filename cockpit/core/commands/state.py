"""Dialogs and browser state: dialog, cookies, storage, state save/load, viewport, useragent."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from ..base.errors import CommandError, UsageError
from ..base.paths import given_path
from ..language.registry import FILE, INT, Arg, Flag, command
from ..base.result import Outcome

if TYPE_CHECKING:
    from playwright.async_api import Cookie

    from ..session.session import CommandContext
    from ..language.parser import Invocation


@command("dialog", "state", "Answer the open dialog: accept (with text for a prompt) or dismiss.",
         args=(Arg("action", "accept or dismiss", choices=("accept", "dismiss")),
               Arg("text", "the answer to a prompt()", optional=True)),
         mutates=True, examples=("dialog accept", "dialog accept \"Jane\"", "dialog dismiss"),
         modal_safe=True)
async def dialog(ctx: CommandContext, a: Invocation) -> Outcome:
    tab = ctx.needs_tab()
    open_dialog, d = tab.dialog, tab.dialog_entry  # the tab sets both when one opens
    if open_dialog is None or d is None:
        raise CommandError("no dialog is open on this tab: `dialogs` lists earlier ones")
    if a.action == "accept":
        await (open_dialog.accept(a.text) if a.text is not None else open_dialog.accept())
    else:
        await open_dialog.dismiss()
    tab.dialog_answered("accepted" if a.action == "accept" else "dismissed")
    # the message was said when the dialog opened (and stays in the data): not again
    return Outcome(f"{a.action}ed the {d.type}", {"dialog": d.to_json()})


def _cookie_line(c: Cookie) -> str:
    value = c["value"] if len(c["value"]) <= 40 else c["value"][:37] + "..."
    marks = "".join(f" [{m}]" for m, on in (("HttpOnly", c.get("httpOnly")),
                                             ("Secure", c.get("secure"))) if on)
    return f"{c['name']}={value}  ({c['domain']}{c['path']}){marks}"


@command("cookies", "state", "List cookies, set one, or clear them.",
         args=(Arg("action", "list (default), set or clear", choices=("list", "set", "clear"),
                   optional=True),
               Arg("name", "cookie name (for set)", optional=True),
               Arg("value", "cookie value (for set)", optional=True)),
         flags=(Flag("--url", help="the site the cookie belongs to (default: this page)",
                     value="URL"),
                Flag("--all", help="list the cookies of every site, not just this page's")),
         examples=("cookies", "cookies set theme dark", "cookies clear"),
         masked_args=("value",))
async def cookies(ctx: CommandContext, a: Invocation) -> Outcome:
    context = ctx.session.browser_context()
    action = a.action or "list"
    page_url = a.url or ctx.page.url
    if action == "set":
        if not a.name or a.value is None:
            raise UsageError("cookies set needs NAME and VALUE: cookies set theme dark")
        if not page_url.startswith("http"):
            raise UsageError("cookies set needs a web page open (or --url https://...)")
        await context.add_cookies([{"name": a.name, "value": a.value, "url": page_url}])
        return Outcome(f"set cookie {a.name} for {page_url}")
    if action == "clear":
        await context.clear_cookies()
        return Outcome("cleared all cookies")
    if a.name or a.value:
        raise UsageError("cookies list takes no NAME or VALUE")
    urls = [] if a.all or not page_url.startswith("http") else [page_url]
    found = await context.cookies(urls)
    return Outcome("\n".join(_cookie_line(c) for c in found) or "(no cookies)",
                   {"cookies": found})


STORAGE_JS = """([kind, action, key, value]) => {
  const s = kind === 'session' ? sessionStorage : localStorage;
  if (action === 'set') s.setItem(key, value);
  if (action === 'clear') s.clear();
  return Object.fromEntries(Object.keys(s).map(k => [k, s.getItem(k)]));
}"""


@command("storage", "state", "List, set or clear this page's localStorage (or sessionStorage).",
         args=(Arg("action", "list (default), set or clear", choices=("list", "set", "clear"),
                   optional=True),
               Arg("key", "the key (for set)", optional=True),
               Arg("value", "the value (for set)", optional=True)),
         flags=(Flag("--session", help="sessionStorage instead of localStorage"),),
         examples=("storage", "storage set token abc123", "storage clear --session"),
         masked_args=("value",))
async def storage(ctx: CommandContext, a: Invocation) -> Outcome:
    action = a.action or "list"
    if action == "set" and (not a.key or a.value is None):
        raise UsageError("storage set needs KEY and VALUE: storage set theme dark")
    kind = "session" if a.session else "local"
    try:
        found = await ctx.page.evaluate(STORAGE_JS, [kind, action, a.key, a.value])
    except PlaywrightError as exc:  # about:blank, data: URLs and the like have no storage
        raise CommandError(f"this page has no {kind}Storage ({ctx.page.url}): open a web page "
                           f"first ({str(exc).splitlines()[0]})") from None
    label = f"{kind}Storage"
    if action == "set":
        return Outcome(f"set {label}[{a.key}]", {"storage": found})
    if action == "clear":
        return Outcome(f"cleared {label}", {"storage": found})
    lines = [f"{k}={v if len(v) <= 60 else v[:57] + '...'}" for k, v in found.items()]
    return Outcome("\n".join(lines) or f"({label} is empty)", {"storage": found})


@command("state", "state", "Save cookies and storage to a file, or load them back.",
         args=(Arg("action", "save or load", choices=("save", "load")),
               Arg("file", "a JSON file (Playwright's storage-state format)", kind=FILE)),
         examples=("state save login.json", "state load login.json"))
async def state(ctx: CommandContext, a: Invocation) -> Outcome:
    from ..browser.storage_state import load_state, save_state
    path = given_path(a.file)
    if a.action == "save":
        if path.is_dir():
            raise UsageError(f"{path} is a folder: give a file name, like "
                             f"{path / 'state.json'}")
        try:
            counts = await save_state(ctx.session.browser_context(), path)
        except OSError as exc:  # a special file, no permission, a full disk
            raise CommandError(f"could not write {path}: {exc.strerror or exc}; give a "
                               "writable file, like ./state.json") from None
        return Outcome(f"saved {counts['cookies']} cookies and storage of {counts['origins']} "
                       f"sites to {path}", {"path": str(path), **counts})
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CommandError(f"could not read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise UsageError(f"{path} is not JSON ({exc}): give a file written by `state save`") \
            from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} is not a saved state (a JSON object with cookies and "
                         "origins): give a file written by `state save`")
    counts = await load_state(ctx.session.browser_context(), data)
    return Outcome(f"loaded {counts['cookies']} cookies and storage of {counts['origins']} "
                   f"sites from {path}", {"path": str(path), **counts})


@command("viewport", "state", "Resize the active tab's viewport.",
         args=(Arg("width", "pixels", kind=INT), Arg("height", "pixels", kind=INT)),
         mutates=True, examples=("viewport 375 812",))
async def viewport(ctx: CommandContext, a: Invocation) -> Outcome:
    if not (100 <= a.width <= 10_000 and 100 <= a.height <= 10_000):
        raise UsageError("viewport takes a width and height between 100 and 10000 pixels")
    await ctx.page.set_viewport_size({"width": a.width, "height": a.height})
    return Outcome(f"viewport is {a.width}x{a.height}")


@command("useragent", "state", "Set the user agent for every tab (empty to restore).",
         args=(Arg("ua", "the user-agent string", raw=True, optional=True),),
         examples=('useragent "Mozilla/5.0 (iPhone) Mobile"',))
async def useragent(ctx: CommandContext, a: Invocation) -> Outcome:
    session = ctx.session
    if a.ua and any(ord(c) < 0x20 or ord(c) == 0x7F for c in a.ua):
        # a header value cannot hold them (the browser refuses the override)
        raise UsageError("useragent: the user agent cannot hold control characters (tabs, "
                         "newlines, NUL): give it on one line, as a header would carry it")
    if session.default_user_agent is None:
        session.default_user_agent = await ctx.page.evaluate("navigator.userAgent")
    before, session.user_agent = session.user_agent, a.ua or None
    try:
        for tab in session.tabs:
            await session.apply_user_agent(tab)
    except Exception:
        # not kept when the browser refused it: new tabs would each fail on it later
        session.user_agent = before
        raise
    if not a.ua:
        return Outcome(f"user agent restored: {session.default_user_agent}")
    return Outcome(f"user agent set for {len(session.tabs)} tab(s) and new ones: {a.ua} "
                   "(reload a page to send it)")
