"""What the browser's lifecycle needs from the session: the `BrowserHost`.

Relaunching, recovering and recycling replace the browser, its context or a tab's page
under a running session: they rebind the session's tabs and context through these
members, and never reach into the Session's privates (the browser part sits below the
session part and must not import it: pyproject.toml's import contracts).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..page.host import TabHost

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page, Playwright

    from ..base.events import EventBus
    from ..page.tab import Tab
    from .browser import LaunchPlan


class BrowserHost(TabHost["Tab"], Protocol):
    """The session, as its browser's lifecycle sees it."""

    tabs: list[Tab]
    active: Tab | None
    plan: LaunchPlan | None
    headed: bool
    switching: bool  # relaunching: the old pages' close events are not tabs closed
    trace_parts: int
    held_pages: list[Page] | None  # new pages that no tab adopts (recycle.py)
    user_agent: str | None

    @property
    def bus(self) -> EventBus: ...
    @property
    def profile_dir(self) -> Path: ...
    @property
    def owns_browser(self) -> bool: ...
    @property
    def context(self) -> BrowserContext | None: ...
    @property
    def playwright(self) -> Playwright: ...
    @property
    def command_lock(self) -> asyncio.Lock: ...

    def browser_context(self) -> BrowserContext: ...
    def use_context(self, context: BrowserContext | None) -> None: ...
    def watch_context(self, context: BrowserContext) -> None: ...
    def launch_options(self) -> dict[str, Any]: ...
    async def prepare_context(self, context: BrowserContext, *,
                              restoring: bool = False) -> None: ...
    async def context_restored(self, context: BrowserContext) -> None: ...
    def adopt(self, page: Page) -> None: ...
    def next_tab_id(self) -> int: ...
    async def apply_user_agent(self, tab: Tab) -> None: ...
    async def start_trace(self) -> None: ...
    async def stop_trace(self, part: int = 0) -> None: ...
