"""navigate: goto, back, forward, reload, url, title."""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Response

from ..base.errors import CommandError, UsageError
from ..browser.recycle import recycle_if_due
from ..language.registry import URL, Arg, command
from ..base.result import Outcome
from ..settle.settle import LOAD_CAP_S
from ..page.translate import http_auth_hint, navigation_error

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..session.session import CommandContext
    from ..language.parser import Invocation

NAVIGATION_TIMEOUT_MS = 30_000
SCHEMES = ("http", "https", "file", "about", "data", "chrome", "view-source")


def normalize_url(text: str, current: str = "") -> str:
    """`example.com` -> https://example.com, `localhost:8000` -> http://..., `/x` -> same site."""
    try:
        return _normalize_url(text, current)
    except ValueError:  # urllib refuses it: `http://[::1` (an unclosed IPv6 bracket)
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise UsageError(f"`{shown}` is not a valid URL: write it like https://example.com "
                         "(an IPv6 host in brackets: http://[::1]:8000/)") from None


def _normalize_url(text: str, current: str) -> str:
    text = text.strip()
    if not text:
        raise UsageError("goto needs a URL, e.g. goto https://example.com")
    if text.startswith(("/", "./", "../", "?", "#")) and current.startswith("http"):
        return urljoin(current, text)
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", text) and not re.match(r"^[\w.-]+:\d+", text):
        scheme = text.split(":", 1)[0].lower()
        if scheme not in SCHEMES:
            raise UsageError(f"`{text}` has an unsupported scheme '{scheme}:': use http(s)://, "
                             "file:// or about:blank")
        if scheme in ("http", "https") and not urlsplit(text).hostname:
            raise UsageError(f"`{text}` is not a valid URL (no host): write it like "
                             "https://example.com/path")
        return text
    host = re.split(r"[/:?#]", text, maxsplit=1)[0]
    if not re.fullmatch(r"[A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]", host) or (
            "." not in host and host != "localhost"):
        raise UsageError(f"`{text}` is not a valid URL: write it like https://example.com")
    local = host == "localhost" or re.fullmatch(r"[\d.]+", host)
    return ("http://" if local else "https://") + text


async def wait_loaded(page: Page, url: str) -> None:
    try:
        await page.wait_for_load_state("load", timeout=LOAD_CAP_S * 1000)
    except PlaywrightError:
        raise CommandError(f"{url} started loading but did not finish within "
                           f"{LOAD_CAP_S:.0f} s: `wait --load` to keep waiting, or go "
                           "elsewhere; the session is fine") from None


@command("goto", "navigate", "Open a URL in the active tab and wait for it to load.",
         args=(Arg("url", "https://..., example.com, localhost:8000 or /path on this site",
                   kind=URL),),
         aliases=("open", "navigate"), mutates=True,
         details="A URL without a scheme gets https:// (http:// for localhost and IPs); a "
                 "path starting with / is resolved against the current page.",
         examples=("goto https://example.com", "goto localhost:8000/login"),
         tool="browser_navigate", leaves_page=True)
async def goto(ctx: CommandContext, a: Invocation) -> Outcome:
    url = normalize_url(a.url, ctx.page.url)
    refused = ctx.session.policy.domains.refuse_goto(url)  # --allow-domain (core/policy)
    if refused:
        raise CommandError(refused)
    await recycle_if_due(ctx.session, ctx.needs_tab())  # a long-lived page: a fresh one
    try:
        response = await _go(ctx.page, url)
    except PlaywrightError as exc:
        if "Download is starting" in str(exc):
            # a file the browser saves instead of showing (also a PDF, on the headless
            # shell, which has no viewer): settling waits for it, and the result says
            # where it went
            return Outcome(f"{url} is a file to download, not a page: the tab stays on "
                           f"{ctx.page.url}", {"url": ctx.page.url, "download": url})
        # The browser goes on to show its error page; let it, or it would interrupt the
        # next navigation.
        try:
            await ctx.page.wait_for_load_state("load", timeout=2000)
        except PlaywrightError:
            pass
        raise navigation_error(exc, url) from None
    await wait_loaded(ctx.page, url)
    if ctx.loaded is not None:  # the page's snapshot starts now, alongside the title's ask
        ctx.loaded()
    status = response.status if response else None
    title = await ctx.page.title()
    # the URL asked for is not news: it is said when the page landed elsewhere (a redirect)
    where = "" if _same_url(ctx.page.url, url) else f" {ctx.page.url}"
    text = f"opened{where}" + (f" ({status})" if status and status >= 400 else "")
    text = f"{text}: {title}" if title else text
    challenge = response.headers.get("www-authenticate") if response is not None else None
    hint = http_auth_hint(challenge, ctx.session.network.credentials is not None) \
        if status == 401 and challenge else None
    if hint:
        text += f"; {hint}"
    return Outcome(text, {"url": ctx.page.url, "status": status, "title": title})


async def _go(page: Page, url: str) -> Response | None:
    """page.goto, through what can cut into it: an error page from an earlier failed load
    (a redirect's hop the resolver rules did not resolve, a name that does not exist)
    still arriving, which interrupts or aborts it (waited for, then the goto is asked
    again), or Chromium starting the very navigation asked for again, as it does on a
    browser relaunched on a killed profile (that navigation is the goto's). The redirect
    guard (policy/redirects.py) causes neither: it pauses answers only and aborts a
    refused page's hop, which leaves no error page behind."""
    for attempt in range(3):
        try:
            return await page.goto(url, wait_until="commit", timeout=NAVIGATION_TIMEOUT_MS)
        except PlaywrightError as exc:
            other = _cut_in(str(exc))
            if other is None and "net::ERR_ABORTED" in str(exc) and attempt == 0 \
                    and page.url.startswith("chrome-error:"):
                other = page.url  # aborted as the last failed load's error page came in
            if other is None or attempt == 2:
                raise
            if _same_url(other, url):
                await page.wait_for_url(lambda now: _same_url(now, url), wait_until="commit",
                                        timeout=NAVIGATION_TIMEOUT_MS)
                return None
            if not other.startswith("chrome-error:"):
                raise
            await page.wait_for_load_state("load", timeout=5000)
    return None


def _cut_in(error: str) -> str | None:
    """The URL of the navigation that interrupted a goto, if that is the error."""
    marker = "interrupted by another navigation to \""
    if marker not in error:
        return None
    return error.split(marker, 1)[1].split("\"", 1)[0]


def _same_url(landed: str, asked: str) -> bool:
    """`http://x` and `http://x/` are one address (the browser adds the slash)."""
    return landed.rstrip("/") == asked.rstrip("/")


async def _history(ctx: CommandContext, forward: bool) -> Outcome:
    move = ctx.page.go_forward if forward else ctx.page.go_back
    tab, was = ctx.needs_tab(), ctx.page.url
    try:
        response = await move(wait_until="commit", timeout=NAVIGATION_TIMEOUT_MS)
        if response is None and not forward and tab.earlier_url and \
                ctx.page.url in (was, "about:blank"):
            # a recycled page (core/recycle.py): its history starts (blank) at the goto
            url, tab.earlier_url = tab.earlier_url, None
            response = await ctx.page.goto(url, wait_until="commit",
                                           timeout=NAVIGATION_TIMEOUT_MS)
    except PlaywrightError as exc:
        raise navigation_error(exc, "the previous page") from None
    if response is None and not forward and ctx.page.url == "about:blank":
        raise CommandError("there is no earlier page in this tab's history")
    await wait_loaded(ctx.page, ctx.page.url)
    return Outcome(f"now at {ctx.page.url}", {"url": ctx.page.url})


@command("back", "navigate", "Go back one page in the tab's history.", mutates=True)
async def back(ctx: CommandContext, a: Invocation) -> Outcome:
    return await _history(ctx, forward=False)


@command("forward", "navigate", "Go forward one page in the tab's history.", mutates=True)
async def forward(ctx: CommandContext, a: Invocation) -> Outcome:
    return await _history(ctx, forward=True)


@command("reload", "navigate", "Reload the active tab.", mutates=True)
async def reload(ctx: CommandContext, a: Invocation) -> Outcome:
    try:
        await ctx.page.reload(wait_until="commit", timeout=NAVIGATION_TIMEOUT_MS)
    except PlaywrightError as exc:
        raise navigation_error(exc, ctx.page.url) from None
    await wait_loaded(ctx.page, ctx.page.url)
    return Outcome(f"reloaded {ctx.page.url}", {"url": ctx.page.url})


@command("url", "navigate", "Print the active tab's URL.", modal_safe=True, read_only=True)
async def url(ctx: CommandContext, a: Invocation) -> Outcome:
    return Outcome(ctx.page.url, {"url": ctx.page.url})


@command("title", "navigate", "Print the active tab's title.", read_only=True)
async def title(ctx: CommandContext, a: Invocation) -> Outcome:
    text = await ctx.page.title()
    return Outcome(text, {"title": text})
