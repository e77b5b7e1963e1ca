"""A server redirect's next hop, refused for a Chromium whose host resolver Cockpit did not
set: one attached with --cdp / --ws-endpoint (the user's own), or one that reaches the
web through a proxy (the proxy resolves the names, not the browser).

Playwright's routes never see a redirect's hop (it continues them itself), but the
DevTools protocol does: a `Fetch` interception of our own on every page pauses each
request, hops included, next to Playwright's. Only a hop (`redirectedRequestId`) to a
host that is not allowed is failed here; every other request goes on to Playwright's
route, which refuses the direct ones as before.

A page that is not guarded yet (a popup's first document is asked for before its page
exists) has its first document fetched by the route without following redirects
(`DomainPolicy._first_hop`). What this cannot reach (said in the README): an
out-of-process frame's own subresources, and service workers. Firefox and WebKit have
no such protocol: the session says at start that their redirects are not stopped
(`DomainPolicy.gap`)."""

from __future__ import annotations

import logging
import weakref
from typing import TYPE_CHECKING, Any, Callable

from playwright.async_api import Error as PlaywrightError

from ..base.logs import spawn, tolerated

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, CDPSession, Page, Request

log = logging.getLogger(__name__)

# what a refused hop is failed with (the page shows the browser's "blocked" error)
BLOCKED = "BlockedByClient"

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
        """Pause each request of this page; fail the hops elsewhere."""
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
                                                      "requestStage": "Request"}]})

    def _closed(self, page: Page) -> None:
        self._sessions.pop(page, None)

    async def _paused(self, cdp: CDPSession, page: Page, main: str,
                      event: dict[str, Any]) -> None:
        url = event["request"]["url"]
        request_id = event["requestId"]
        try:
            if event.get("redirectedRequestId") and not self._allows(url):
                kind = str(event.get("resourceType", "other")).lower()
                self._note(url, kind, event.get("frameId") == main, page)
                await cdp.send("Fetch.failRequest", {"requestId": request_id,
                                                     "errorReason": BLOCKED})
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
