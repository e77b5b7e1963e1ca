"""Switching the live browser between headless and a visible window, with nothing lost.

Playwright cannot change a running browser, so the session captures what its profile on
disk does not keep (session cookies, each tab's URL, scroll and sessionStorage, which tab
is in front), closes the browser, launches it again on the same profile and restores that
state. localStorage and IndexedDB live in the profile and come back with it; session
storage is written by a script that runs before the page's own. Each tab's fields (what
was typed, checked, chosen) are set again, and a page a POST reached is shown again from
a copy of its document (core/carry.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import socket
import sys
import time
from typing import TYPE_CHECKING, Any, cast

from ..base import events as ev
from .browser import launch
from .carry import Carried, capture_document, losses, open_copy, restore_fields
from ..base.errors import BrowserNotFoundError
from ..base.logs import tolerated
from ..page.tab import Tab

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Cookie, Page
    from playwright._impl._api_structures import SetCookieParam

    from .host import BrowserHost

log = logging.getLogger(__name__)

CAPTURE_JS = """() => {
  const items = {};
  try {
    for (let i = 0; i < sessionStorage.length; i++) {
      const key = sessionStorage.key(i);
      items[key] = sessionStorage.getItem(key);
    }
  } catch (e) {}  // opaque origins (about:blank, data:) have no storage
  return {scroll: [scrollX, scrollY], session: items, origin: location.origin,
          visible: document.visibilityState === "visible"};
}"""

# Runs before the page's scripts; a tab's storage is only filled while it is still empty,
# so a page that set its own values first keeps them.
RESTORE_SESSION_JS = """(() => {
  const origin = %s, items = %s;
  if (location.origin !== origin) return;
  try {
    if (sessionStorage.length) return;
    for (const [key, value] of Object.entries(items)) sessionStorage.setItem(key, value);
  } catch (e) {}
})()"""

CAPTURE_TIMEOUT_S = 2.0  # a page that does not answer (busy script) keeps scroll 0
LOAD_TIMEOUT_MS = 15_000


@dataclasses.dataclass
class TabState:
    tab: Tab | None  # the session's Tab it came from, so ids and history carry over
    url: str
    scroll: tuple[float, float] = (0, 0)
    origin: str = ""
    session_storage: dict[str, str] = dataclasses.field(default_factory=dict)
    visible: bool = False
    carried: Carried | None = None  # fields and a POST-reached document (handoff only)


@dataclasses.dataclass
class BrowserState:
    tabs: list[TabState]
    active: int  # index into tabs
    cookies: list[Cookie]
    taken_at: float = dataclasses.field(default_factory=time.time)

    def summary(self) -> dict[str, Any]:
        return {"tabs": [t.url for t in self.tabs], "active": self.active + 1,
                "cookies": len(self.cookies)}


async def capture_tab(tab: Tab, document: bool = False) -> TabState:
    """The tab's URL, scroll and sessionStorage; with `document`, its fields and (when a
    POST reached it) its document too."""
    state = TabState(tab, tab.page.url)
    if tab.dialog is not None:
        return state  # a dialog blocks the page's scripts
    try:
        got = await asyncio.wait_for(tab.page.evaluate(CAPTURE_JS), CAPTURE_TIMEOUT_S)
    except Exception:  # closing, navigating or busy: its URL is what matters most
        log.debug("tab %s: kept its URL only", tab.id, exc_info=True)
        return state
    if document:
        try:
            state.carried = await asyncio.wait_for(capture_document(tab), CAPTURE_TIMEOUT_S)
        except Exception:  # navigating meanwhile: its URL, scroll and storage still go
            log.debug("tab %s: its fields were not read", tab.id, exc_info=True)
    state.scroll = tuple(got["scroll"])
    state.origin = got["origin"]
    state.session_storage = got["session"]
    state.visible = got["visible"]
    return state


async def capture(session: BrowserHost, *, front_from_window: bool = False) -> BrowserState:
    """What the profile does not keep. `front_from_window`: the tab in front is the one
    the human is looking at (they switch tabs in the window without telling us)."""
    tabs = [t for t in session.tabs if not t.page.is_closed()]
    cookies, states = await asyncio.gather(session.browser_context().cookies(),
                                           asyncio.gather(*(capture_tab(t, True)
                                                            for t in tabs)))
    active = tabs.index(session.active) if session.active in tabs else 0
    if front_from_window and states and not states[active].visible:
        # In one window only the tab in front is visible; with several windows (or none
        # known) the session's own idea of the active tab stands.
        shown = [i for i, s in enumerate(states) if s.visible]
        if len(shown) == 1:
            active = shown[0]
    return BrowserState(list(states), active, cookies)


def display_problem() -> str | None:
    """None when a window can be shown; "none" when there is no display at all (over SSH);
    otherwise why the display that is set cannot be used."""
    if sys.platform in ("darwin", "win32"):
        return None
    if os.environ.get("WAYLAND_DISPLAY"):
        return None
    display = os.environ.get("DISPLAY", "")
    if not display:
        return "none"
    host, _, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not number.isdigit():
        return f"DISPLAY={display} is not a display name like :0"
    try:
        if host in ("", "unix"):
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(1.0)
                s.connect(f"/tmp/.X11-unix/X{number}")
        else:
            socket.create_connection((host, 6000 + int(number)), timeout=1.0).close()
    except OSError as exc:
        return (f"no X server answers on DISPLAY={display} ({exc.strerror or exc}): start "
                f"one (for example `Xvfb {display} &`) or set DISPLAY to a running one")
    return None


async def _open(page: Page, state: TabState) -> list[str]:
    """Open the tab's page again as it was; what of it could not be carried."""
    if not state.url or state.url == "about:blank":
        return []
    carried = state.carried or Carried()
    lost: list[str] = []
    script = None
    if state.session_storage and state.origin.startswith("http"):
        script = await page.add_init_script(RESTORE_SESSION_JS % (
            json.dumps(state.origin), json.dumps(state.session_storage)))

    async def goto() -> None:
        await page.goto(state.url, wait_until="load", timeout=LOAD_TIMEOUT_MS)

    try:
        if carried.copy is not None:
            await open_copy(page, carried.copy, goto)
        else:
            await goto()
        missed = await restore_fields(page, carried.fields)
        lost = losses(carried, missed)
        if state.scroll != (0, 0):
            await page.evaluate("([x, y]) => window.scrollTo(x, y)", list(state.scroll))
    except Exception as exc:  # a page that fails to load again still keeps its tab, at its URL
        log.info("reopening %s failed; the tab stays", state.url, exc_info=True)
        lost = [f"the page itself: it did not load again ({str(exc).splitlines()[0]})"]
    finally:
        if script is not None:  # later documents of this tab must not be refilled
            with tolerated("removing the session-storage script", log):
                await script.close()  # the API object has close(), not dispose()
    return lost


def not_ours(session: BrowserHost) -> str:
    """Why a browser attached with --cdp / --ws-endpoint is never relaunched."""
    where = session.plan.shown_endpoint if session.plan else None
    return (f"the browser{f' at {where}' if where else ''} was not started by Cockpit, "
            "which never closes or restarts a browser it does not own")


async def relaunch(session: BrowserHost, headless: bool, state: BrowserState) -> list[str]:
    """Close the browser (if it still runs) and start it again, headless or in a window,
    with `state` restored; returns what of it could not be carried, a line per tab.
    Raises BrowserNotFoundError when the launch fails: the caller
    then relaunches with the old mode, so the session always ends with a browser; and
    at once for a browser the session does not own (never closed, never relaunched)."""
    if not session.owns_browser:
        raise BrowserNotFoundError(f"cannot relaunch: {not_ours(session)}")
    old = session.context
    session.switching = True  # the old pages' close events are not tabs the human closed
    try:
        if old is not None:
            session.trace_parts += 1
            await session.stop_trace(session.trace_parts)
            with tolerated("closing the old browser", log):  # the human may have closed it
                await old.close()
            session.use_context(None)
        assert session.plan is not None  # a started session has one
        plan = dataclasses.replace(session.plan, headless=headless)
        context = await launch(session.playwright, plan, session.launch_options())
        try:
            # routes, policy and emulation before any page loads (offline once they did)
            await session.prepare_context(context, restoring=True)
            lost = await _restore(session, context, state)
            await session.context_restored(context)
        except BaseException:
            if session.context is not context:  # never half a browser: close it
                with tolerated("closing a browser that did not come up", log):
                    await context.close()
            raise
    finally:
        session.switching = False
    session.plan = plan
    session.headed = not headless
    if session.user_agent:
        await asyncio.gather(*(session.apply_user_agent(t) for t in session.tabs))
    if session.active is not None:
        with tolerated("bringing the active tab to the front", log):
            await session.active.page.bring_to_front()
    return lost


async def _restore(session: BrowserHost, context: BrowserContext, state: BrowserState) -> list[str]:
    if state.cookies:  # the profile kept the persistent ones; a refused cookie is not fatal
        with tolerated("restoring the session cookies", log):
            # the very cookies Playwright gave: it types what it gives (Cookie) and what it
            # takes (SetCookieParam, not exported) apart, as the same fields made optional
            await context.add_cookies(cast("list[SetCookieParam]", state.cookies))
    pages = list(context.pages)
    while len(pages) < max(1, len(state.tabs)):
        pages.append(await context.new_page())
    lost = await asyncio.gather(*(_open(p, s) for p, s in zip(pages, state.tabs)))
    _rebind(session, context, pages, state)
    await session.start_trace()
    return [f"tab {index}: {'; '.join(what)}" for index, what in enumerate(lost, 1) if what]


def _rebind(session: BrowserHost, context: BrowserContext, pages: list[Page],
            state: BrowserState) -> None:
    """The session's Tab objects take the new pages, so tab ids and the snapshots taken
    before (for the diff) carry over; the bus hears about every tab that came or went."""
    before = list(session.tabs)
    tabs = []
    tab_states: list[TabState | None] = list(state.tabs) or [None]
    for page, tab_state in zip(pages, tab_states):
        tab = tab_state.tab if tab_state is not None else None
        if tab is None or tab in tabs:
            tab = Tab(session, page, session.next_tab_id())
        else:
            tab.rebind(page)
        if tab_state is not None and tab_state.carried and tab_state.carried.copy:
            # its document came from the copy, not from a response the tab saw: the
            # next relaunch carries the same copy on, until the tab navigates
            tab.document_copy = (None, tab_state.carried.copy)
        tabs.append(tab)
    for index, tab in enumerate(before, 1):
        if tab not in tabs:
            session.bus.emit(ev.TAB_CLOSED, tab=tab.id, index=index)
    session.use_context(context)
    session.tabs = tabs
    session.active = tabs[min(state.active, len(tabs) - 1)]
    session.watch_context(context)
    for tab in tabs:
        session.bus.emit(ev.TAB_OPENED if tab not in before else ev.TAB_UPDATED, **tab.info())
    session.bus.emit(ev.TAB_CHANGED, **session.active.info())
