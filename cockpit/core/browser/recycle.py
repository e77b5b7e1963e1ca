"""Recycling a tab's page, so that a long session's memory stays flat.

Playwright keeps every request and response a page made (a Python object each in our
process, a dispatcher each in its Node driver) until the page closes: its own bound is
10,000 of each per browser, ~10 KB a pair on our side alone. A tab that lives for hours
would grow us by megabytes per thousand requests. So past `RECYCLE_AFTER` requests the
next `goto`, which replaces the document anyway, opens its URL in a fresh page of the same
tab (same id, same place, its snapshot kept for the diff) and closes the old one, which
frees all it held. What a real tab keeps across a typed URL comes along: sessionStorage of
the origin, the viewport, the user agent; the history is one step deep (`back` returns to
where the old page was). A browser Cockpit attached to is never touched: its tabs are the
user's.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from ..base import events as ev
from ..base.logs import spawn, tolerated
from .relaunch import RESTORE_SESSION_JS, capture_tab

if TYPE_CHECKING:
    from playwright.async_api import Page

    from .host import BrowserHost
    from ..page.tab import Tab

log = logging.getLogger(__name__)

RECYCLE_AFTER = 1_000  # requests a page may make before the next goto gets a fresh one


def due(session: BrowserHost, tab: Tab) -> bool:
    return tab.requests_seen >= RECYCLE_AFTER and session.owns_browser and \
        tab.dialog is None and not tab.page.is_closed()


async def recycle_if_due(session: BrowserHost, tab: Tab) -> bool:
    """Before a `goto` of `tab`: give it a fresh page when its old one holds too much.
    True when it did. A page that will not open leaves the tab as it was."""
    if not due(session, tab):
        return False
    old = tab.page
    state = await capture_tab(tab)
    held: list[Page] = []
    page = None
    session.held_pages = held  # the new page is this tab's, not a tab of its own
    try:
        with tolerated(f"opening a fresh page for tab {tab.id}", log):
            page = await session.browser_context().new_page()
    finally:
        session.held_pages = None
    for other in held:
        if other is not page:  # a popup that opened meanwhile is a tab of its own
            session.adopt(other)
    if page is None:
        return False
    viewport = old.viewport_size
    tab.rebind(page)
    tab.earlier_url = state.url if state.url != "about:blank" else None
    if viewport and viewport != page.viewport_size:
        with tolerated(f"sizing the fresh page of tab {tab.id}", log):
            await page.set_viewport_size(viewport)
    if session.user_agent:
        with tolerated(f"setting the user agent of tab {tab.id}", log):
            await session.apply_user_agent(tab)
    if state.session_storage and state.origin.startswith("http"):
        await _restore_session_storage(page, state.origin, state.session_storage)
    spawn(_close(old), f"closing the old page of tab {tab.id}")
    if session.active is tab:
        with tolerated("bringing the fresh page to the front", log):
            await page.bring_to_front()
    log.info("tab %s: a fresh page after %s requests", tab.id, RECYCLE_AFTER)
    session.bus.emit(ev.TAB_UPDATED, **tab.info())
    return True


async def _restore_session_storage(page: Page, origin: str, items: dict[str, str]) -> None:
    """Fill the origin's sessionStorage in the next document only (a script that stayed
    would refill a storage the page emptied on purpose)."""
    script = await page.add_init_script(RESTORE_SESSION_JS % (json.dumps(origin),
                                                              json.dumps(items)))

    async def remove() -> None:
        with tolerated("removing the session-storage script", log):  # the page may be gone
            await script.close()

    page.once("domcontentloaded", lambda _: spawn(remove(), "removing a restore script"))


async def _close(page: Page) -> None:
    with tolerated("closing a recycled page", log):  # the browser may be gone meanwhile
        await page.close()
