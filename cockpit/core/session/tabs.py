"""The session's tabs: a new page becomes a tab, a closed one goes, which one is in
front, a fresh one when there is none. Mixed into Session."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from ..base import events as ev
from ..base.errors import CommandError
from ..base.logs import spawn, tolerated
from ..browser.browser import set_user_agent
from ..page.tab import Tab

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page

    from ..base.events import EventBus
    from ..browser.recovery import Recovery
    from ..page.host import TabHost

log = logging.getLogger("cockpit.core.session.session")  # as before the move


class SessionTabs:
    """The tabs of the Session this is mixed into."""

    tabs: list[Tab]
    active: Tab | None
    held_pages: list[Page] | None
    user_agent: str | None
    default_user_agent: str | None
    engine: str
    bus: EventBus
    recovery: Recovery
    next_tab_id: Callable[[], int]  # the browser's (browser_facade.py)
    browser_context: Callable[[], BrowserContext]

    def adopt(self, page: Page) -> None:
        """A new page of the browser becomes a tab (or is held for a tab that recycles)."""
        if self.held_pages is not None:  # a page being opened for a tab that has one
            self.held_pages.append(page)
            return
        tab = Tab(cast("TabHost[Tab]", self), page, self.next_tab_id())
        self.tabs.append(tab)
        if self.user_agent:
            spawn(self.apply_user_agent(tab), f"setting the user agent of tab {tab.id}")
        self.bus.emit(ev.TAB_OPENED, **tab.info())

    def tab_closed(self, tab: Tab) -> None:
        if tab not in self.tabs:
            return
        index = self.tabs.index(tab)
        self.recovery.tab_closed(tab, index)  # a killed browser closes its pages first
        self.tabs.remove(tab)
        self.bus.emit(ev.TAB_CLOSED, tab=tab.id, index=index + 1)
        if self.active is tab:  # back to the tab that opened it (a popup), else a neighbour
            self.active = tab.opener if tab.opener in self.tabs else \
                self.tabs[min(index, len(self.tabs) - 1)] if self.tabs else None
            if self.active is not None:
                self.bus.emit(ev.TAB_CHANGED, **self.active.info())

    def tab_at(self, index: int) -> Tab:
        if not 1 <= index <= len(self.tabs):
            raise CommandError(f"there is no tab {index}: tabs are numbered 1 to "
                               f"{len(self.tabs)} (`tabs` lists them)")
        return self.tabs[index - 1]

    async def switch_to(self, tab: Tab) -> None:
        self.active = tab
        with tolerated("bringing the tab to the front", log):  # headless: nothing to raise
            await tab.page.bring_to_front()
        self.bus.emit(ev.TAB_CHANGED, **tab.info())

    async def new_tab(self) -> Tab:
        page = await self.browser_context().new_page()
        return next(t for t in self.tabs if t.page is page)

    async def ensure_tab(self) -> Tab:
        """The active tab; a session whose last tab was closed gets a fresh blank one."""
        if self.active is None or self.active.page.is_closed():
            if not self.tabs:
                await self.new_tab()
            self.active = self.tabs[-1]
        return self.active

    async def apply_user_agent(self, tab: Tab) -> None:
        await set_user_agent(self.browser_context(), self.engine, tab.page,
                             self.user_agent or self.default_user_agent or "")

