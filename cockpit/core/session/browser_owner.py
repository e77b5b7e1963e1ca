"""The session's browser: Playwright, the launch plan, the context and the numbers of its
tabs, the trace. One object owns them (they are its privates); the session answers the
browser lifecycle's `BrowserHost` members (relaunch, recovery, recycle) through it.

It starts the browser so that every context it makes is prepared before a page loads
(the --allow-domain routes of core/policy, the routes and emulation of core/network),
and closes it so that a browser that hangs or was stopped is killed, never waited for."""

from __future__ import annotations

import asyncio
import itertools
import logging
from pathlib import Path
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from playwright.async_api import BrowserContext, Playwright

from ..base.errors import CommandError
from ..base.logs import tolerated
from ..browser.browser import LaunchPlan, close_browser, launch, plan_attach, plan_launch
from ..browser.driver import start_driver
from ..browser.profile_lock import ProfileLock
from ..browser.recovery import kill_browser
from ..live.input import register_point_engine
from ..page import changes
from ..secrets.trace_scrub import scrub_trace

if TYPE_CHECKING:
    from ..secrets.mask import Masker
    from ..browser.attach import Attach
    from ..browser.shared import SharedBrowser
    from ..network.state import NetworkState
    from ..policy.domains import DomainPolicy

log = logging.getLogger(__name__)

CLOSE_S = 10.0  # closing a browser that does not answer: it is killed after this
TRACE_GROUP_S = 2.0  # opening or closing a step in the trace: a hung browser gives none


class BrowserOwner:
    """Playwright and the browser of one session, from its start to its close."""

    def __init__(self, *, attach: Attach | None, engine: str, browser_path: str | None,
                 profile_dir: Path, domains: DomainPolicy, network: NetworkState,
                 shared: SharedBrowser | None = None) -> None:
        self.attach = attach  # --cdp / --ws-endpoint: a running browser, never ours to close
        # a context of its own on a browser other sessions use too (browser/shared.py):
        # neither that browser nor its driver is this session's to stop
        self.shared = shared
        self.engine = engine
        self.browser_path = browser_path
        self.profile_dir = profile_dir
        self.domains = domains
        self.network = network
        self.plan: LaunchPlan | None = None
        self.trace_path: Path | None = None  # --trace: a Playwright trace of the session
        self.trace_parts = 0
        self._playwright: Playwright | None = None
        self._context: BrowserContext | None = None
        self._tab_ids = itertools.count(1)  # never reused, also across relaunches
        # what else each context gets before its first page loads (core/capture's script)
        self.preparers: list[Callable[[BrowserContext], Awaitable[None]]] = []
        self._profile_lock = ProfileLock(profile_dir)  # taken while our browser runs on it

    async def start(self, headless: bool) -> BrowserContext:
        """Playwright, then the browser (launched, or attached to); its context prepared."""
        if self.shared is not None:
            return await self._start_shared(self.shared)
        # the one a face started ahead (browser/driver.py), or a new one
        playwright = self._playwright = await start_driver()
        try:
            self.plan = plan_attach(self.attach, self.engine) if self.attach else plan_launch(
                playwright, self.engine, self.browser_path, headless, self.profile_dir)
            if self.plan.kind == "local":  # a profile of our own: one session on it
                self._profile_lock.take()
            if self.plan.owns_browser and self.engine == "chromium":  # kept for relaunches
                self.plan.args += self.domains.chromium_args()
            self.network.prepare(playwright)
            context = self._context = await launch(playwright, self.plan,
                                                   self.launch_options())
            await self.prepare_context(context)  # before any page loads
            # after the launch: registering reaches the contexts that exist (an attached
            # browser's own), and later ones (a relaunch) get it when they are made
            await changes.register_ref_engine(playwright)
            await register_point_engine(playwright)
        except BaseException:
            self._profile_lock.release()
            await playwright.stop()
            self._playwright = None
            raise
        return context

    async def _start_shared(self, shared: SharedBrowser) -> BrowserContext:
        """A context of the shared browser (started by whoever shares it), on that
        browser's driver: no driver nor browser of the session's own to start."""
        # once: later calls find it running
        await shared.start(self.domains.chromium_args() if self.engine == "chromium" else [])
        self._playwright = shared.playwright
        self.plan = shared.session_plan()
        self.network.prepare(shared.playwright)
        context = self._context = await launch(shared.playwright, self.plan,
                                               self.launch_options())
        try:
            await self.prepare_context(context)
            if shared.first_time("selector engines"):  # per driver; twice is an error
                await changes.register_ref_engine(shared.playwright)
                await register_point_engine(shared.playwright)
        except BaseException:
            with tolerated("closing a context that did not come up", log):
                await context.close()
            self._context = None
            raise
        return context

    def launch_options(self) -> dict[str, Any]:
        """Context options a launch takes from the session (emulation: core/network)."""
        return self.network.launch_options()

    async def prepare_context(self, context: BrowserContext, *,
                              restoring: bool = False) -> None:
        """What every context made (at start, at a relaunch) gets before its first page
        loads: the --allow-domain routes, the routes and emulation (`restoring`: offline
        waits until the tabs loaded)."""
        # the resolver rules hold for a Chromium we launched for this session alone that
        # resolves names itself (not behind a proxy, not a browser shared with others)
        resolver = (self.owns_browser and self.engine == "chromium" and not self.network.proxy
                    and self.shared is None)
        await self.domains.install(context, self.engine, resolver)
        await self.network.apply(context, restoring=restoring)
        for prepare in self.preparers:
            await prepare(context)

    async def close(self) -> None:
        """The browser closed (attached: disconnected only, never closed), then Playwright."""
        if self._context is not None:
            try:
                await asyncio.wait_for(close_browser(self.plan, self._context), CLOSE_S)
            except TimeoutError:  # stopped (SIGSTOP) or hung: it would never close
                log.warning("the browser did not close within %g s", CLOSE_S)
                if self.owns_browser and self.shared is None:  # never the shared one
                    kill_browser(self.profile_dir)
            except Exception:  # gone: crashed, or closed by hand
                log.debug("closing the browser failed; going on", exc_info=True)
            self._context = None
        if self._playwright is not None and self.shared is None:  # a shared one stays
            with tolerated("stopping Playwright", log):
                await asyncio.wait_for(self._playwright.stop(), CLOSE_S)
        self._playwright = None
        self._profile_lock.release()  # (the browser is closed, or killed, by now)

    @property
    def owns_browser(self) -> bool:
        """Whether Cockpit launched the browser, and so may close, relaunch or restart it;
        False for one attached with --cdp / --ws-endpoint (the user's own Chrome)."""
        return self.attach is None

    @property
    def context(self) -> BrowserContext | None:
        return self._context

    def use_context(self, context: BrowserContext | None) -> None:
        """The browser's context from now on (a relaunch made a new one; None: closed)."""
        self._context = context

    @property
    def playwright(self) -> Playwright:
        if self._playwright is None:
            raise CommandError("the session is not started: Playwright is not running")
        return self._playwright

    def browser_context(self) -> BrowserContext:
        """The running browser's context; a CommandError when there is none."""
        if self._context is None:
            raise CommandError("the browser is not running (it did not start, or it was "
                               "closed): start Cockpit again")
        return self._context

    def next_tab_id(self) -> int:
        return next(self._tab_ids)

    async def start_trace(self, screenshots: bool) -> None:
        if self.trace_path is not None and self._context is not None:
            await self._context.tracing.start(screenshots=screenshots, snapshots=True)

    async def trace_group(self, line: str) -> BrowserContext | None:
        """While tracing: the command's line opens a group in the trace, around the calls
        it makes (the context it was opened in, to end it; None: not tracing)."""
        context = self._context
        if self.trace_path is None or context is None:
            return None
        with tolerated("opening a step in the trace", log):  # a hung browser: no group
            await asyncio.wait_for(context.tracing.group(line.strip()), TRACE_GROUP_S)
            return context
        return None

    async def trace_group_end(self, context: BrowserContext | None) -> None:
        """End the step's group, unless the browser was relaunched under it (its new
        trace has no group open)."""
        if context is None or context is not self._context or self.trace_path is None:
            return
        with tolerated("closing a step in the trace", log):
            await asyncio.wait_for(context.tracing.group_end(), TRACE_GROUP_S)

    async def stop_trace(self, part: int, masker: Masker) -> None:
        """Save the trace (Trace Viewer opens it), its text masked; a browser relaunched by
        a handoff ends one part, saved as FILE-1.zip, FILE-2.zip..., the last one as FILE."""
        if self.trace_path is None or self._context is None:
            return
        path = self.trace_path if not part else self.trace_path.with_name(
            f"{self.trace_path.stem}-{part}{self.trace_path.suffix}")
        with tolerated(f"saving the trace {path}", log):  # the browser is gone: none left
            await self._context.tracing.stop(path=path)
            scrub_trace(path, masker)  # no secret, owner-only
