"""The Session: one browser, its tabs and buffers, and the one place commands run."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Page, Playwright, async_playwright

from . import agent as agents
from ..page import changes
from ..base import events as ev
from ..browser.attach import Attach
from ..page.stylesheets import StylesheetRules, reads_local_files
from ..browser.browser import (
    LaunchPlan, close_browser, launch, plan_attach, plan_launch, set_user_agent,
)
from ..page.buffers import Buffers
from ..base.errors import EXIT_FAILED, EXIT_UNREACHABLE, EXIT_WAIT_TIMEOUT, CommandError
from ..base.events import EventBus
from .deadline import Deadlines, timeout_from_env
from ..handoff.handoff import Handoff
from ..capture.capture import Capture
from .after import AfterStep, Ran, after
from .holds import AgentHolds
from ..live.input import register_point_engine
from ..live.screencast import LiveView
from ..base.logs import child_stderr_logged, driver_end_noted, mask_logs, spawn, tolerated
from ..language.command import Command
from ..browser.recovery import Recovery, kill_browser
from ..language.registry import REGISTRY, Registry
from ..base.result import Result
from ..network.state import NetworkState
from ..policy import Policy
from ..secrets.redact import Redactor
from ..secrets.secrets import Secrets
from ..page.tab import Tab
from ..settle.settle import Watch
from ..page.targets import refs_used
from ..secrets.trace_scrub import scrub_trace
from .views import picture_of, refs_of, status_of
from ..base.workspace import session_dir

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
        self.watches: list[Watch] = []  # the command running's, if it changes pages
        self.active: Tab | None = None
        self.plan: LaunchPlan | None = None
        self.started_at = time.time()
        self.commands_run = 0
        self.user_agent: str | None = None  # set by `useragent`; None: the browser's own
        self.default_user_agent: str | None = None
        # routes, HAR, emulation: applied to every context made (core/network/state.py)
        self.network = NetworkState(engine=engine)
        self._ids = itertools.count(1)
        self._tab_ids = itertools.count(1)  # next_tab_id(): never reused, also across relaunches
        self.holds = AgentHolds(self.bus, lambda: self.registry)  # owns the command lock
        # --allow-domain and --confirm (core/policy): set before the session starts
        self.policy = Policy(self.bus)
        self.request_ids = itertools.count(1)  # `network` numbers requests for `request N`
        self._playwright: Playwright | None = None
        self._context: BrowserContext | None = None
        self.secrets = Secrets(self.redactor.add_secret)  # --secret NAME=VALUE, as $NAME
        for header, value in attach.headers if attach else ():  # --remote-header's values
            self.redactor.shown.add(value, f"<{header} header>")
            self.redactor.files.add(value, f"<{header} header>")
        self.recording_path: Path | None = None  # where views record it (set by the CLI)
        self.recording_shots = True  # a small picture per step beside it (--no-shots)
        self.trace_path: Path | None = None  # --trace: a Playwright trace of the session
        self.trace_parts = 0
        self.switching = False  # relaunching the browser (handoff): its old pages close
        self.held_pages: list[Page] | None = None  # new pages no tab adopts (core/recycle.py)
        self.handoff = Handoff(self)
        # what a person does in the browser, as steps (core/capture): while they have
        # control, or always (`capture.everything`: `cockpit record`)
        self.capture = Capture(self)
        # called when the person closes the browser's window, which then ends the
        # session instead of being relaunched (`cockpit record`)
        self.window_ends: Callable[[], None] | None = None
        # the active tab's picture as it paints, while a view watches (core/live/)
        self.live_view = LiveView(lambda: self.active.page if self.active else None, self.bus)
        self.recovery = Recovery(self)  # a hung, crashed or killed browser comes back
        self.closing = False
        self.deadlines = Deadlines(self)  # no command runs past its deadline
        self.agent: agents.Agent | None = None  # set by the lifecycle that starts one
        # Diffs from what an action changed (changes.py); False: a full snapshot after
        # every action, as before (COCKPIT_FULL_DIFF=1; benchmarks compare the two).
        self.incremental_diffs = os.environ.get("COCKPIT_FULL_DIFF", "") in ("", "0")
        # a Result once its command ran, in this order (session/after.py)
        # a Result once its command ran, in this order (session/after.py); a recorder
        # appends its picture of each step
        self.after_steps: list[AfterStep] = [
            lambda result, ran: self.redactor.result(result, ran.snap, ran.command),
            lambda result, ran: self.policy.after(self, result),  # what it refused
            lambda result, ran: result.but(data={**result.data, "confirm": ran.confirm})
            if ran.confirm else result,  # the step says how a person answered it
            lambda result, ran: self.recovery.tell(result, ran.source),
            lambda result, ran: self.handoff.after_command(result, ran.source, ran.command),
        ]

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
            if self.plan.owns_browser and self.engine == "chromium":  # kept for relaunches
                self.plan.args += self.policy.domains.chromium_args()
            self.network.prepare(playwright)
            context = self._context = await launch(playwright, self.plan,
                                                   self.launch_options())
            await self.prepare_context(context)  # before any page loads
            # after the launch: registering reaches the contexts that exist (an attached
            # browser's own), and later ones (a relaunch) get it when they are made
            await changes.register_ref_engine(playwright)
            await register_point_engine(playwright)
            self.headed = not self.plan.headless  # an attached browser says what it is
        except BaseException:
            await playwright.stop()
            raise
        await self.start_trace()
        self.watch_context(context)
        for page in context.pages:
            self.adopt(page)
        if not self.tabs:
            await context.new_page()
        self.active = self.tabs[0]
        return self

    def launch_options(self) -> dict[str, Any]:
        """Context options a launch takes from the session (emulation: core/network)."""
        return self.network.launch_options()

    async def prepare_context(self, context: BrowserContext, *,
                              restoring: bool = False) -> None:
        """What every context the session makes (at start, at a relaunch) gets before
        its first page loads: the --allow-domain routes (core/policy), the routes and
        emulation (core/network; `restoring`: offline waits until the tabs loaded)."""
        await self.policy.domains.install(context)
        await self.network.apply(context, restoring=restoring)
        await self.capture.install(context)

    async def context_restored(self, context: BrowserContext) -> None:
        """A relaunched context's tabs have loaded again (offline may go on now)."""
        await self.network.restored(context)

    def watch_context(self, context: BrowserContext) -> None:
        """Follow a (re)launched browser: its new pages, its death, and the same action
        timeout for every Playwright call that names none (`select`'s like `click`'s)."""
        context.set_default_timeout(self.action_timeout * 1000)
        context.set_default_navigation_timeout(self.command_timeout * 1000)
        context.on("page", self.adopt)
        context.on("close", lambda _: self.browser_gone(context))

    async def close(self) -> None:
        self.closing = True  # its pages and browser now close on purpose: nothing to revive
        await self.live_view.close()
        await self.capture.close()  # the person's last actions are steps too
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

    def use_context(self, context: BrowserContext | None) -> None:
        """The browser's context from now on (a relaunch made a new one; None: closed)."""
        self._context = context

    @property
    def playwright(self) -> Playwright:
        if self._playwright is None:
            raise CommandError("the session is not started: Playwright is not running")
        return self._playwright

    @property
    def command_lock(self) -> asyncio.Lock:
        """Held by the command running; background work on the browser (recovery, a
        picture) takes it too, so it never runs under a command."""
        return self.holds.lock

    def next_tab_id(self) -> int:
        return next(self._tab_ids)

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

    def browser_gone(self, context: BrowserContext) -> None:
        """The browser closed by itself (its window was closed, or it crashed or was
        killed): the end of a handoff in a window, else it is relaunched."""
        if context is not self._context or self.switching or self.closing:
            return
        if self.window_ends is not None:  # `cockpit record`: the person is done
            self.window_ends()
        elif not self.handoff.browser_gone():
            self.recovery.browser_died()

    # --- running commands ---------------------------------------------------------------
    async def run(self, line: str | Command, source: str = "human", *,
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
        # parsed once, here: every step below reads this (language/command.py)
        command = line if isinstance(line, Command) else Command.of(line, self.registry)
        line = command.line
        shown = self.redactor.line(command, self.active.snapshot if self.active else None)
        self.bus.emit(ev.COMMAND_QUEUED, id=command_id, command=shown, source=source, **who)
        result = Result(shown, ok=False, source=source, exit_code=EXIT_FAILED,
                        error="cancelled before it ended")
        spec = command.spec
        try:
            if spec is not None and spec.bypasses_queue:  # status: never behind a stuck one
                self.bus.emit(ev.COMMAND_STARTED, id=command_id, command=line, source=source,
                              targets={}, **who)
                result = await self.deadlines.run(command, source, deadline, queued=False)
                return result
            # an agent's command under --confirm waits for a person here, holding nothing
            refused, confirmed, timeout = await self.policy.gate(self, command, shown, source,
                                                                 timeout)
            if refused is not None:
                result = refused
                return result
            try:
                async with asyncio.timeout(timeout):
                    await self.deadlines.take_turn(source, command)
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
                shown = self.redactor.line(command, snap)
                self.bus.emit(ev.COMMAND_STARTED, id=command_id, command=shown, source=source,
                              targets=refs_used(snap, command), **who)
                if self.recovery.pending:  # a crash or kill noticed since the last command
                    await self.recovery.ensure()
                if self.recovery.dead and (spec is None or spec.needs_tab):
                    result = Result(shown.strip(), False, source=source,
                                    exit_code=EXIT_UNREACHABLE,
                                    error=f"the session has no browser any more "
                                    f"({self.recovery.dead}): start Cockpit again")
                    return result
                self.policy.begin(self)
                result = await after(self.handoff.refuse_stale(command, source)
                                     or await self.deadlines.run(command, source, deadline),
                                     Ran(command, source, snap, confirmed), self.after_steps)
                self.commands_run += 1
            finally:
                self.holds.end_turn()
            return result
        finally:  # also when cancelled: no view may keep showing it as queued or running
            result.ms = (time.perf_counter() - started) * 1000
            self.bus.emit(ev.COMMAND_FINISHED, id=command_id, source=source,
                          exit_code=result.exit_code, **who, **result.to_json())

    # --- what a person did (core/capture) -----------------------------------------------
    @property
    def human_has_control(self) -> bool:
        return self.handoff.active

    def tab_of_page(self, page: Page) -> dict[str, Any] | None:
        """The tab showing `page` (index, id, title, URL), if one does."""
        tab = next((t for t in self.tabs if t.page is page), None)
        return tab.info() if tab is not None else None

    async def post_step(self, line: str, *, source: str,
                        targets: dict[str, dict[str, Any]], at: dict[str, Any] | None,
                        tab: dict[str, Any] | None, output: str) -> None:
        """A step someone already did in the browser (captured): its events, as a command
        that ran has them, so the log shows it and the recorder records it; nothing runs.
        Its result goes through the after-steps as any step's (masking, what the person
        did in a handoff, the recording's picture)."""
        command_id = next(self._ids)
        command = Command.of(line, self.registry)
        self.bus.emit(ev.COMMAND_QUEUED, id=command_id, command=line, source=source)
        self.bus.emit(ev.COMMAND_STARTED, id=command_id, command=line, source=source,
                      targets=targets, at=at, captured=True)
        data: dict[str, Any] = {"captured": True, **({"tab": tab} if tab else {})}
        result = Result(line, True, output=output, source=source, data=data)
        try:
            result = await after(result, Ran(command, source, None), self.after_steps)
        except Exception:  # the step is still said and recorded, as it was done
            log.exception("the after-steps of a captured step (%s) failed", command.name)
        self.bus.emit(ev.COMMAND_FINISHED, id=command_id, source=source, exit_code=0,
                      **result.to_json())

    # --- agents held back (core/holds.py) ----------------------------------------------
    def waits(self, line: str | Command, source: str) -> bool:
        """Whether this line, sent now by `source`, would wait for agents to be released."""
        command = line if isinstance(line, Command) else Command.of(line, self.registry)
        return self.holds.waits(command, source)

    def command(self, line: str) -> Command:
        """The line parsed once, to hand to `waits` and then `run` (the control server)."""
        return Command.of(line, self.registry)

    @property
    def agents_held(self) -> str | None:
        """Why agents' commands wait, or None while they run."""
        return self.holds.reason

    def hold_agents(self, reason: str, holder: str = "pause") -> None:
        self.holds.hold(reason, holder)

    def release_agents(self, holder: str = "pause") -> None:
        self.holds.release(holder)

    # --- tabs -------------------------------------------------------------------------
    def adopt(self, page: Page) -> None:
        """A new page of the browser becomes a tab (or is held for a tab that recycles)."""
        if self.held_pages is not None:  # a page being opened for a tab that has one
            self.held_pages.append(page)
            return
        tab = Tab(self, page, self.next_tab_id())
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

    # --- what views ask -----------------------------------------------------------------
    async def picture(self, labels: bool = False, timeout: float = 3.0,
                      target: str | None = None) -> bytes | None:
        """A PNG of the active tab (or of one element) for views: core/pictures.py."""
        return await picture_of(self.active, self.holds.lock, labels=labels, timeout=timeout,
                                target=target)

    def status(self) -> dict[str, Any]:
        return status_of(self)

    def refs(self) -> list[tuple[str, str, str]]:
        """(ref, role, name) of the active tab's last snapshot, for completion and views."""
        return [(ref, role, name) for ref, role, name, _ in self.refs_info()]

    def refs_info(self) -> list[tuple[str, str, str, str]]:
        """(ref, role, name, value) of the active tab's last snapshot, for the refs pane."""
        return refs_of(self.active.snapshot if self.active else None)

    def tabs_info(self) -> list[dict[str, Any]]:
        return [t.info() for t in self.tabs]

    async def current_refs(self) -> list[tuple[str, str, str, str]]:
        """refs_info() of the page the active tab shows now: a snapshot is taken first
        when there is none or the last one is of another page."""
        tab = await self.ensure_tab()
        async with self.holds.lock:  # a snapshot replaces the one refs are checked against
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
