"""The Session: one browser, its tabs and buffers, and the one place commands run."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Playwright, async_playwright

from . import commands  # noqa: F401  (registers every command before the first run)
from . import agent as agents
from . import changes
from . import events as ev
from .attach import Attach
from .stylesheets import StylesheetRules, reads_local_files
from .browser import LaunchPlan, close_browser, launch, plan_attach, plan_launch
from .buffers import Buffers
from .errors import EXIT_FAILED, EXIT_UNREACHABLE, EXIT_WAIT_TIMEOUT, CommandError
from .events import EventBus
from .deadline import Deadlines, timeout_from_env
from .handoff import Handoff
from .holds import AgentHolds
from .network.state import NetworkState
from .logs import child_stderr_logged, driver_end_noted, mask_logs, spawn, tolerated
from .parser import command_of
from .recovery import Recovery, kill_browser
from .registry import REGISTRY, Registry
from .result import Result
from .redact import Redactor
from .secrets import Secrets
from .tab import Tab
from .targets import refs_used
from .trace_scrub import scrub_trace
from .views import picture_of, status_of
from .workspace import session_dir

log = logging.getLogger(__name__)

CLOSE_S = 10.0  # closing a browser that does not answer: it is killed after this


class Session:
    """An async context manager that owns the browser and runs the command language.

    `await session.run("click @e3")` parses the line, runs it after any command already
    running (one at a time, in arrival order), and returns a Result; every step is also
    an Event on `session.bus`, which is how views, the recorder and agents follow along.
    """

    def __init__(self, name: str = "default", *, headed: bool = False,
                 engine: str = "chromium", browser_path: str | None = None,
                 workspace: Path | None = None, profile_dir: Path | None = None,
                 action_timeout: float = 5.0, command_timeout: float | None = None,
                 registry: Registry = REGISTRY, attach: Attach | None = None) -> None:
        self.name = name
        self.attach = attach  # --cdp / --ws-endpoint: a running browser, never ours to close
        # other origins' stylesheets, read for the pages' change trackers (stylesheets.py)
        self.stylesheets = StylesheetRules(reads_local_files(attach))
        self.headed = headed
        self.engine = engine
        self.browser_path = browser_path
        self.dir = session_dir(name, workspace) if profile_dir is None else profile_dir.parent
        self.profile_dir = profile_dir or self.dir / f"profile-{engine}"
        self.files_dir = self.dir / "files"  # screenshots, PDFs, downloads
        self.action_timeout = action_timeout
        # seconds a command may take, at most
        self.command_timeout = command_timeout or timeout_from_env()
        self.registry = registry
        # what every Result and event shows: secrets as $NAME, password values masked
        self.redactor = Redactor(registry)
        self.bus = EventBus(self.redactor.payload)
        mask_logs(self.redactor.files)
        self.buffers = Buffers()
        self.tabs: list[Tab] = []
        self.watches: list = []  # settle.Watch of the command running, if it changes pages
        self.active: Tab | None = None
        self.plan: LaunchPlan | None = None
        self.started_at = time.time()
        self.commands_run = 0
        self.user_agent: str | None = None  # set by `useragent`; None: the browser's own
        self.default_user_agent: str | None = None
        # routes, HAR, emulation: applied to every context made (core/network/state.py)
        self.network = NetworkState(engine=engine)
        self._ids = itertools.count(1)
        self._tab_ids = itertools.count(1)
        self.request_ids = itertools.count(1)  # `network` numbers requests for `request N`
        self._lock = asyncio.Lock()
        self.holds = AgentHolds(self.bus, lambda: self.registry, self._lock)
        self._playwright: Playwright | None = None
        self._context: BrowserContext | None = None
        self.secrets = Secrets(self.redactor.add_secret)  # --secret NAME=VALUE, as $NAME
        self.recording_path: Path | None = None  # where views record it (set by the CLI)
        self.trace_path: Path | None = None  # --trace: a Playwright trace of the session
        self.trace_parts = 0
        self.switching = False  # relaunching the browser (handoff): its old pages close
        self.held_pages: list | None = None  # new pages no tab adopts (core/recycle.py)
        self.handoff = Handoff(self)
        self.recovery = Recovery(self)  # a hung, crashed or killed browser comes back
        self.closing = False
        self.deadlines = Deadlines(self)  # no command runs past its deadline
        self.agent: agents.Agent | None = None  # set by the lifecycle that starts one
        # Diffs from what an action changed (changes.py); False: a full snapshot after
        # every action, as before (COCKPIT_FULL_DIFF=1; benchmarks compare the two).
        self.incremental_diffs = os.environ.get("COCKPIT_FULL_DIFF", "") in ("", "0")

    # --- lifecycle ----------------------------------------------------------------------
    async def __aenter__(self) -> Session:
        await self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def start(self) -> Session:
        with child_stderr_logged("playwright driver", log):  # never our terminal
            manager = async_playwright()
            playwright = self._playwright = await manager.start()
        driver_end_noted(manager, log)  # its death must not print a stray traceback
        try:
            self.plan = plan_attach(self.attach, self.engine) if self.attach else plan_launch(
                playwright, self.engine, self.browser_path, not self.headed, self.profile_dir)
            self.network.prepare(playwright)
            context = self._context = await launch(playwright, self.plan,
                                                   self.network.launch_options())
            # after the launch: registering reaches the contexts that exist (an attached
            # browser's own), and later ones (a relaunch) get it when they are made
            await changes.register_ref_engine(playwright)
            self.headed = not self.plan.headless  # an attached browser says what it is
        except BaseException:
            await playwright.stop()
            raise
        await self.start_trace()
        self.watch_context(context)
        await self.network.apply(context)
        for page in context.pages:
            self._adopt(page)
        if not self.tabs:
            await context.new_page()
        self.active = self.tabs[0]
        return self

    def watch_context(self, context: BrowserContext) -> None:
        """Follow a (re)launched browser: its new pages, its death, and the same action
        timeout for every Playwright call that names none (`select`'s like `click`'s)."""
        context.set_default_timeout(self.action_timeout * 1000)
        context.set_default_navigation_timeout(self.command_timeout * 1000)
        context.on("page", self._adopt)
        context.on("close", lambda _: self.browser_gone(context))

    async def close(self) -> None:
        self.closing = True  # its pages and browser now close on purpose: nothing to revive
        await self.handoff.close()
        with tolerated("saving the trace", log):  # a stopped browser never answers
            await asyncio.wait_for(self.stop_trace(), CLOSE_S)
        if self._context is not None:
            try:  # attached (--cdp, --ws-endpoint): disconnect only, never close theirs
                await asyncio.wait_for(close_browser(self.plan, self._context), CLOSE_S)
            except TimeoutError:  # stopped (SIGSTOP) or hung: it would never close
                log.warning("the browser did not close within %g s", CLOSE_S)
                if self.owns_browser:
                    kill_browser(self.profile_dir)
            except Exception:  # gone: crashed, or closed by hand
                log.debug("closing the browser failed; going on", exc_info=True)
            self._context = None
        if self._playwright is not None:
            with tolerated("stopping Playwright", log):
                await asyncio.wait_for(self._playwright.stop(), CLOSE_S)
            self._playwright = None
        self.bus.emit(ev.SESSION_CLOSED, session=self.name)

    @property
    def owns_browser(self) -> bool:
        """Whether Cockpit launched the browser, and so may close, relaunch or restart it;
        False for one attached with --cdp / --ws-endpoint (the user's own Chrome)."""
        return self.attach is None

    @property
    def context(self) -> BrowserContext | None:
        return self._context

    def browser_context(self) -> BrowserContext:
        """The running browser's context; a CommandError when there is none."""
        if self._context is None:
            raise CommandError("the browser is not running (it did not start, or it was "
                               "closed): start Cockpit again")
        return self._context

    async def start_trace(self) -> None:
        if self.trace_path is not None and self._context is not None:
            # pictures cannot be masked: with secrets, a secret typed into an ordinary
            # field would show in them (trace_scrub.py masks the text)
            await self._context.tracing.start(screenshots=not self.secrets, snapshots=True)

    async def stop_trace(self, part: int = 0) -> None:
        """Save the trace (Trace Viewer opens it); a browser relaunched by a handoff
        ends one part, saved as FILE-1.zip, FILE-2.zip..., the last one as FILE."""
        if self.trace_path is None or self._context is None:
            return
        path = self.trace_path if not part else self.trace_path.with_name(
            f"{self.trace_path.stem}-{part}{self.trace_path.suffix}")
        with tolerated(f"saving the trace {path}", log):  # the browser is gone: none left
            await self._context.tracing.stop(path=path)
            scrub_trace(path, self.redactor.files)  # no secret, owner-only

    def browser_gone(self, context) -> None:
        """The browser closed by itself (its window was closed, or it crashed or was
        killed): the end of a handoff in a window, else it is relaunched."""
        if context is self._context and not self.switching and not self.closing \
                and not self.handoff.browser_gone():
            self.recovery.browser_died()

    # --- running commands ---------------------------------------------------------------
    async def run(self, line: str, source: str = "human", *,
                  timeout: float | None = None, deadline: float | None = None,
                  client: str | None = None) -> Result:
        """Run one command line and return its Result; never raises for a bad command.

        `timeout` bounds the wait for its turn (commands before it, agents held): past it
        the command does not run and ends with exit code 4. Once it runs, `deadline`
        (default: the session's command_timeout, longer for a command told to wait longer)
        bounds it whatever the page does: past it the command ends with an error and a
        hung page or browser is recovered, so the next command runs. `client` names the
        program that sent it (an MCP client's name): its command events carry it, for the
        log."""
        command_id = next(self._ids)
        started = time.perf_counter()
        who = {"client": client} if client else {}
        # no event, view or file may hold a secret: until it ran, typed text that may go
        # into a password field is masked too
        shown = self.redactor.line(line, self.active.snapshot if self.active else None)
        self.bus.emit(ev.COMMAND_QUEUED, id=command_id, command=shown, source=source, **who)
        result = Result(shown, ok=False, source=source, exit_code=EXIT_FAILED,
                        error="cancelled before it ended")
        spec = command_of(line, self.registry)
        try:
            if spec is not None and spec.bypasses_queue:  # status: never behind a stuck one
                self.bus.emit(ev.COMMAND_STARTED, id=command_id, command=line, source=source,
                              targets={}, **who)
                result = await self.deadlines.run(line, source, deadline, queued=False)
                return result
            try:
                async with asyncio.timeout(timeout):
                    await self.deadlines.take_turn(source, line, spec)
            except TimeoutError:
                result.exit_code = EXIT_WAIT_TIMEOUT
                result.error = (f"timed out after {timeout:g} s waiting for its turn "
                                f"({self.holds.why_waiting(source)}); it did not run: try "
                                f"again, or give a longer timeout")
                return result
            try:
                # the refs it uses, as known before it runs: the recorder and replay
                # (also over the socket) find the elements again by role and name
                snap = self.active.snapshot if self.active else None
                shown = self.redactor.line(line, snap)
                self.bus.emit(ev.COMMAND_STARTED, id=command_id, command=shown, source=source,
                              targets=refs_used(snap, line), **who)
                if self.recovery.pending:  # a crash or kill noticed since the last command
                    await self.recovery.ensure()
                if self.recovery.dead and (spec is None or spec.needs_tab):
                    result = Result(shown.strip(), False, source=source,
                                    exit_code=EXIT_UNREACHABLE,
                                    error=f"the session has no browser any more "
                                    f"({self.recovery.dead}): start Cockpit again")
                    return result
                result = self.redactor.result(
                    self.handoff.refuse_stale(line, source)
                    or await self.deadlines.run(line, source, deadline), snap)
                self.recovery.tell(result, source)
                self.handoff.after_command(result, source)
                self.commands_run += 1
            finally:
                self._lock.release()
            return result
        finally:  # also when cancelled: no view may keep showing it as queued or running
            result.ms = (time.perf_counter() - started) * 1000
            self.bus.emit(ev.COMMAND_FINISHED, id=command_id, source=source,
                          exit_code=result.exit_code, **who, **result.to_json())

    # --- agents held back (core/holds.py) ----------------------------------------------
    def waits(self, line: str, source: str) -> bool:
        return self.holds.waits(line, source)

    @property
    def agents_held(self) -> str | None:
        """Why agents' commands wait, or None while they run."""
        return self.holds.reason

    def hold_agents(self, reason: str, holder: str = "pause") -> None:
        self.holds.hold(reason, holder)

    def release_agents(self, holder: str = "pause") -> None:
        self.holds.release(holder)

    # --- tabs -------------------------------------------------------------------------
    def _adopt(self, page) -> None:
        if self.held_pages is not None:  # a page being opened for a tab that has one
            self.held_pages.append(page)
            return
        tab = Tab(self, page, next(self._tab_ids))
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
        """Chromium changes the UA per page through CDP; others get the header only."""
        ua = self.user_agent or self.default_user_agent or ""
        if self.engine == "chromium":
            cdp = await self.browser_context().new_cdp_session(tab.page)
            await cdp.send("Network.setUserAgentOverride", {"userAgent": ua})
        else:
            await tab.page.set_extra_http_headers({"User-Agent": ua})

    # --- what views ask -----------------------------------------------------------------
    async def picture(self, labels: bool = False, timeout: float = 3.0,
                      target: str | None = None) -> bytes | None:
        """A PNG of the active tab (or of one element) for views: core/pictures.py."""
        return await picture_of(self.active, self._lock, labels=labels, timeout=timeout,
                                target=target)

    def status(self) -> dict[str, Any]:
        return status_of(self)

    def refs(self) -> list[tuple[str, str, str]]:
        """(ref, role, name) of the active tab's last snapshot, for completion and views."""
        snap = self.active.snapshot if self.active else None
        return [(r, n.role, n.label or n.name) for r, n in snap.refs.items()] if snap else []

    def refs_info(self) -> list[tuple[str, str, str, str]]:
        """(ref, role, name, value) of the active tab's last snapshot, for the refs pane."""
        snap = self.active.snapshot if self.active else None
        return [(r, n.role, n.label or n.name, n.value) for r, n in snap.refs.items()] if snap \
            else []

    def tabs_info(self) -> list[dict[str, Any]]:
        return [t.info() for t in self.tabs]

    async def current_refs(self) -> list[tuple[str, str, str, str]]:
        """refs_info() of the page the active tab shows now: a snapshot is taken first
        when there is none or the last one is of another page."""
        tab = await self.ensure_tab()
        async with self._lock:  # a snapshot replaces the one refs are checked against
            if tab.snapshot is None or tab.snapshot.url != tab.url:
                # bounded: a hung page must not keep the lock from the commands
                await asyncio.wait_for(tab.take_snapshot(), self.command_timeout)
        return self.refs_info()

    @property
    def secret_names(self) -> list[str]:
        return sorted(self.secrets.values)

    async def agent_control(self, action: str) -> str:
        """pause, resume, stop, start or restart the agent; one line saying how it is."""
        return await agents.control(self.agent, action)
