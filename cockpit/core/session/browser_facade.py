"""The session's browser as relaunch, recovery and recycle reach it: what `Session`
delegates to its BrowserOwner (browser_owner.py) — the launch plan, the context, the
trace — and how it follows a (re)launched browser. Mixed into Session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page, Playwright

    from ..browser.browser import LaunchPlan
    from ..network.state import NetworkState
    from ..secrets.redact import Redactor
    from ..secrets.secrets import Secrets
    from .browser_owner import BrowserOwner


class BrowserFacade:
    """The browser's state and calls, through `self.browser` (the Session's)."""

    browser: BrowserOwner
    network: NetworkState
    secrets: Secrets
    redactor: Redactor
    action_timeout: float
    command_timeout: float
    adopt: Callable[[Page], None]  # the Session's tabs (tabs.py)
    browser_gone: Callable[[BrowserContext], None]  # the Session's

    @property
    def plan(self) -> LaunchPlan | None:
        return self.browser.plan

    @plan.setter
    def plan(self, plan: LaunchPlan | None) -> None:
        self.browser.plan = plan

    @property
    def trace_path(self) -> Path | None:
        return self.browser.trace_path

    @trace_path.setter
    def trace_path(self, path: Path | None) -> None:
        self.browser.trace_path = path

    @property
    def trace_parts(self) -> int:
        return self.browser.trace_parts

    @trace_parts.setter
    def trace_parts(self, parts: int) -> None:
        self.browser.trace_parts = parts

    @property
    def owns_browser(self) -> bool:
        return self.browser.owns_browser

    @property
    def context(self) -> BrowserContext | None:
        return self.browser.context

    def use_context(self, context: BrowserContext | None) -> None:
        self.browser.use_context(context)

    @property
    def playwright(self) -> Playwright:
        return self.browser.playwright

    def browser_context(self) -> BrowserContext:
        return self.browser.browser_context()

    def next_tab_id(self) -> int:
        return self.browser.next_tab_id()

    def launch_options(self) -> dict[str, Any]:
        return self.browser.launch_options()

    async def prepare_context(self, context: BrowserContext, *,
                              restoring: bool = False) -> None:
        await self.browser.prepare_context(context, restoring=restoring)

    async def context_restored(self, context: BrowserContext) -> None:
        """A relaunched context's tabs have loaded again (offline may go on now)."""
        await self.network.restored(context)

    async def start_trace(self) -> None:
        # pictures cannot be masked: with secrets, a secret typed into an ordinary field
        # would show in them (trace_scrub.py masks the text)
        await self.browser.start_trace(screenshots=not self.secrets)

    async def stop_trace(self, part: int = 0) -> None:
        await self.browser.stop_trace(part, self.redactor.files)

    def watch_context(self, context: BrowserContext) -> None:
        """Follow a (re)launched browser: its new pages, its death, and the same action
        timeout for every Playwright call that names none (`select`'s like `click`'s)."""
        context.set_default_timeout(self.action_timeout * 1000)
        context.set_default_navigation_timeout(self.command_timeout * 1000)
        context.on("page", self.adopt)
        context.on("close", lambda _: self.browser_gone(context))

