"""One browser for many sessions: a Playwright driver and a launched browser that sessions
share, each in a browser context of its own (its own cookies, storage, pages and refs).

`cockpit mcp --port` gives every MCP client a session of its own; ten clients on one
browser cost ten contexts, not ten Chromiums and ten Playwright drivers. A session on a
shared browser owns its context only: closing the session closes the context, and the
browser goes when the last user of it (the face) closes it. A browser that died is
launched again on the next context asked for, so each session's recovery (a relaunch of
its context, browser/relaunch.py) brings it back.

The contexts are not persistent (no profile directory): a session on a shared browser
starts with no cookies and keeps none after it ends, as an isolated agent should."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import TYPE_CHECKING, Any

from ..base.errors import BrowserNotFoundError
from ..base.logs import tolerated
from .processes import new_mark, to_background
from ..settle.settle_js import INIT_JS as SETTLE_INIT_JS

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Playwright

    from .browser import LaunchPlan

log = logging.getLogger(__name__)

SHARED = "shared"  # LaunchPlan.kind of a session whose context is on a SharedBrowser
VIEWPORT = {"width": 1280, "height": 800}  # as a session's own browser has


class SharedBrowser:
    """A browser that sessions share (`Session(shared=...)`): `start()` once, then
    `new_context()` per session (and per relaunch of one), `close()` at the end."""

    def __init__(self, *, headed: bool = False, engine: str = "chromium",
                 browser_path: str | None = None) -> None:
        self.headed = headed
        self.engine = engine
        self.browser_path = browser_path
        self.plan: LaunchPlan | None = None  # the launch; sessions get a copy of kind SHARED
        self.launches = 0
        self.mark: str | None = None  # the switch that finds its process (processes.py)
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._lock = asyncio.Lock()  # one launch at a time, however many sessions ask
        self._done: set[str] = set()  # once-per-driver work done (selector engines)
        self._closed = False

    @property
    def playwright(self) -> Playwright:
        if self._playwright is None:
            raise BrowserNotFoundError("the shared browser is not started")
        return self._playwright

    def session_plan(self) -> LaunchPlan:
        """The plan a session on this browser keeps (kind SHARED: it owns its context)."""
        assert self.plan is not None, "start() the shared browser first"
        return dataclasses.replace(self.plan, kind=SHARED, profile_dir=None,
                                   args=list(self.plan.args), shared=self)

    def first_time(self, key: str) -> bool:
        """True once per key for this driver: work every session needs done once (the
        selector engines are registered per Playwright, and twice is an error)."""
        if key in self._done:
            return False
        self._done.add(key)
        return True

    async def start(self, args: list[str] | None = None) -> SharedBrowser:
        """Start the driver and the browser; BrowserNotFoundError when it cannot. `args`:
        more browser flags, taken by the first start only (the sessions sharing a browser
        share their options: --allow-domain's resolver rules)."""
        from .browser import plan_launch
        from .driver import start_driver
        async with self._lock:
            if self._playwright is None:  # the one a face started ahead, or a new one
                self._playwright = await start_driver()
                try:
                    self.plan = plan_launch(self._playwright, self.engine, self.browser_path,
                                            not self.headed)
                    self.plan.args += args or []
                except BaseException:
                    await self._stop_driver()
                    raise
            await self._browser_running()
        return self

    async def _browser_running(self) -> Browser:
        """The browser, launched (again) when it is not running; under the lock."""
        if self._closed:
            raise BrowserNotFoundError("the shared browser is closed")
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        assert self.plan is not None and self._playwright is not None
        browser_type = getattr(self._playwright, self.engine)
        mark = [new_mark()] if self.engine == "chromium" else []  # finds its process
        self.mark = mark[0] if mark else None
        try:
            self._browser = await browser_type.launch(
                headless=self.plan.headless, executable_path=self.plan.binary,
                args=self.plan.args + mark, handle_sigint=False, handle_sigterm=False,
                handle_sighup=False)
        except Exception as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            raise BrowserNotFoundError(f"could not start the shared {self.plan.description}: "
                                       f"{first}") from exc
        if mark and self.plan.headless:  # agents' browser: background work
            to_background(mark[0])
        self.launches += 1
        browser = self._browser
        browser.on("disconnected", lambda _: self._gone(browser))
        return browser

    def _gone(self, browser: Browser) -> None:
        """The browser died (or was closed): the next context asked for launches one."""
        if self._browser is browser:
            self._browser = None
            if not self._closed:
                log.warning("the shared browser is gone; the next session to ask starts "
                            "it again")

    async def new_context(self, options: dict[str, Any] | None = None) -> BrowserContext:
        """A new context of the browser (launched again first if it died), with what every
        session's context gets before a page loads (the settle tracker)."""
        given = {"viewport": VIEWPORT, "accept_downloads": True, **(options or {})}
        async with self._lock:
            browser = await self._browser_running()
        try:
            context = await browser.new_context(**given)
        except Exception as exc:  # dying before it said so: launched once more
            if "closed" not in str(exc) and browser.is_connected():
                raise  # alive: the options, not the browser, are at fault
            log.info("the shared browser died under a new context; launching it again")
            async with self._lock:
                if self._browser is browser:
                    self._browser = None
                browser = await self._browser_running()
            context = await browser.new_context(**given)
        await context.add_init_script(script=SETTLE_INIT_JS)
        return context

    async def close(self) -> None:
        """The browser and the driver; the sessions' contexts go with them."""
        self._closed = True
        async with self._lock:
            if self._browser is not None:
                with tolerated("closing the shared browser", log):
                    await asyncio.wait_for(self._browser.close(), 10)
                self._browser = None
            await self._stop_driver()

    async def _stop_driver(self) -> None:
        if self._playwright is not None:
            with tolerated("stopping the shared Playwright driver", log):
                await asyncio.wait_for(self._playwright.stop(), 10)
            self._playwright = None
