"""A server redirect's next hop, refused for a Chromium whose host resolver Cockpit did not
set: one attached with --cdp / --ws-endpoint (the user's own), or one that reaches the
web through a proxy (the proxy resolves the names, not the browser).

Playwright's routes never see a redirect's hop (it continues them itself), but the
DevTools protocol does: a `Fetch` interception of our own on every page, at the Response
stage only, pauses each answer as its headers come. A redirect (3xx with a Location) to a
host that is not allowed is failed here, before its hop is asked: a page's as aborted
(the browser stays on the page it shows, as with the route's refusals: blocked, it would
put its error page there a moment later, cutting into the next navigation), a
resource's as blocked. Every other answer goes on unmodified, so no
request is restarted or asked twice; the requests themselves are Playwright's route's,
which refuses the direct ones as before.

A page that is not guarded yet (a popup's first document is asked for before its page
exists) has its first document fetched by the route without following redirects
(`DomainPolicy._first_hop`). What this cannot reach (said in the README): an
out-of-process frame's own subresources, and service workers. Firefox and WebKit have
no such protocol: the session says at start that their redirects are not stopped
(`DomainPolicy.gap`)."""

from __future__ import annotations

import logging
import weakref
from urllib.parse import urljoin
from typing import TYPE_CHECKING, Any, Callable

from playwright.async_api import Error as PlaywrightError

from ..base.logs import spawn, tolerated

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, CDPSession, Page, Request

log = logging.getLogger(__name__)

# what a refused hop is failed with (the page shows the browser's "blocked" error)
BLOCKED = "BlockedByClient"
ABORTED = "Aborted"  # what a refused page is failed with (no error page: it stays)

Allows = Callable[[str], bool]
Note = Callable[[str, str, bool, Any], None]  # url, resource kind, main frame, page


class RedirectGuard:
    """The Fetch interception on every page of the contexts it guards."""

    def __init__(self, allows: Allows, note: Note) -> None:
        self._allows = allows
        self._note = note
        self._sessions: weakref.WeakKeyDictionary[Page, CDPSession] = \
            weakref.WeakKeyDictionary()
        self._contexts: list[BrowserContext] = []

    async def guard(self, context: BrowserContext) -> None:
        """Every page of the context, now and later."""
        if context in self._contexts:
            return
        self._contexts = [c for c in self._contexts if c is not context][-3:] + [context]
        context.on("page", self._new_page)
        for page in context.pages:
            await self.guard_page(page)

    def guards(self, request: Request) -> bool:
        """Whether the request's page is guarded already (a popup's first document is
        asked for before its page exists)."""
        try:
            return request.frame.page in self._sessions
        except PlaywrightError:
            return False

    def _new_page(self, page: Page) -> None:
        spawn(self._guard_quietly(page), "guarding a new page's redirects")

    async def _guard_quietly(self, page: Page) -> None:
        try:
            await self.guard_page(page)
        except PlaywrightError as exc:  # closed at once, mostly; else its redirects go
            level = logging.DEBUG if page.is_closed() else logging.WARNING
            log.log(level, "a new page's redirects are not guarded: %s", exc)

    async def guard_page(self, page: Page) -> None:
        """Pause each answer of this page; refuse the redirects elsewhere."""
        if page in self._sessions or page.is_closed():
            return
        cdp = await page.context.new_cdp_session(page)
        self._sessions[page] = cdp
        page.once("close", self._closed)
        tree = await cdp.send("Page.getFrameTree")
        main = tree["frameTree"]["frame"]["id"]
        cdp.on("Fetch.requestPaused",
               lambda event: spawn(self._paused(cdp, page, main, event),
                                   "answering a paused request"))
        await cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*",
                                                      "requestStage": "Response"}]})

    def _closed(self, page: Page) -> None:
        self._sessions.pop(page, None)

    async def _paused(self, cdp: CDPSession, page: Page, main: str,
                      event: dict[str, Any]) -> None:
        url = event["request"]["url"]
        request_id = event["requestId"]
        hop = redirect_target(event)
        try:
            if hop is not None and not self._allows(hop):
                kind = str(event.get("resourceType", "other")).lower()
                self._note(hop, kind, event.get("frameId") == main, page)
                # a page's is aborted: the browser stays on the page it shows, as with
                # the route's refusals (blocked, it would put its error page there a
                # moment later, cutting into the next navigation)
                reason = ABORTED if kind == "document" else BLOCKED
                await cdp.send("Fetch.failRequest", {"requestId": request_id,
                                                     "errorReason": reason})
            else:
                await cdp.send("Fetch.continueRequest", {"requestId": request_id})
        except PlaywrightError:  # its page closed, or the request was cancelled meanwhile
            log.debug("a paused request %s could not be answered", url, exc_info=True)

    async def release(self, context: BrowserContext) -> None:
        """Stop guarding the context's pages (a test that set domains on a shared
        session)."""
        if context in self._contexts:
            self._contexts.remove(context)
            context.remove_listener("page", self._new_page)
        for page in list(context.pages):
            cdp = self._sessions.pop(page, None)
            if cdp is not None:
                with tolerated("ending a page's redirect guard", log):
                    await cdp.detach()


def redirect_target(event: dict[str, Any]) -> str | None:
    """Where a paused answer redirects to (its Location, made absolute), or None: not a
    redirect, or no answer (a network error)."""
    status = event.get("responseStatusCode")
    if not isinstance(status, int) or not 300 <= status < 400:
        return None
    for header in event.get("responseHeaders") or ():
        if str(header.get("name", "")).lower() == "location" and header.get("value"):
            return urljoin(str(event["request"]["url"]), str(header["value"]))
    return None
