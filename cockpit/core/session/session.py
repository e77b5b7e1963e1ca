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

from playwright.async_api import BrowserContext, Page

from . import agent as agents
from ..base import events as ev
from ..browser.attach import Attach
from ..page.stylesheets import StylesheetRules, reads_local_files
from ..page.buffers import Buffers
from ..base.errors import EXIT_FAILED, EXIT_UNREACHABLE, EXIT_WAIT_TIMEOUT
from ..base.events import EventBus
from .deadline import Deadlines, timeout_from_env
from ..handoff.handoff import Handoff
from ..capture.capture import Capture
from .after import AfterStep, Ran, after
from .captured import CapturePort
from .browser_owner import CLOSE_S, BrowserOwner
from .browser_facade import BrowserFacade
from .tabs import SessionTabs
from .context import Context
from .holds import AgentHolds
from ..live.screencast import LiveView
from ..live.video import VideoRecorder
from ..base.logs import mask_logs, tolerated
from ..language.command import Command
from ..browser.processes import to_background, to_foreground
from ..browser.recovery import Recovery
from ..browser.shared import SharedBrowser
from ..language.registry import REGISTRY, Registry
from ..base.result import Result
from ..network.state import NetworkState
from ..policy import Policy
from ..secrets.redact import Redactor
from ..secrets.secrets import Secrets
from ..page.tab import Tab
from ..settle.watch import Watch
from ..page.frames import with_frames
from ..page.targets import refs_used
from .views import picture_of, refs_of, status_of
from ..base.workspace import session_dir

log = logging.getLogger(__name__)


class Session(BrowserFacade, SessionTabs):
    """An async context manager that owns the browser and runs the command language.

    `await session.run("click @e3")` parses the line, runs it after any command already
    running (one at a time, in arrival order), and returns a Result; every step is also
    an Event on `session.bus`, which is how views, the recorder and agents follow along.
    """

    def __init__(self, name: str = "default", *, headed: bool = False,
                 engine: str = "chromium", browser_path: str | None = None,
                 workspace: Path | None = None, profile_dir: Path | None = None,
                 action_timeout: float = 5.0, command_timeout: float | None = None,
                 registry: Registry = REGISTRY, attach: Attach | None = None,
                 shared: SharedBrowser | None = None) -> None:
        self.name = name
        self.attach = attach  # --cdp / --ws-endpoint: a running browser, never ours to close
        # a context of its own on a browser other sessions use too (browser/shared.py)
        self.shared = shared
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
        self.started_at = time.time()
        self.commands_run = 0
        self.user_agent: str | None = None  # set by `useragent`; None: the browser's own
        self.default_user_agent: str | None = None
        # routes, HAR, emulation: applied to every context made (core/network/state.py)
        self.network = NetworkState(engine=engine)
        self._ids = itertools.count(1)
        self.holds = AgentHolds(self.bus, lambda: self.registry)  # owns the command lock
        # --allow-domain and --confirm (core/policy): set before the session starts
        self.policy = Policy(self.bus)
        self.request_ids = itertools.count(1)  # `network` numbers requests for `request N`
        # Playwright, the browser, its context and tab numbers, the trace (browser_owner.py)
        self.browser = BrowserOwner(attach=attach, engine=engine, browser_path=browser_path,
                                    profile_dir=self.profile_dir,
                                    domains=self.policy.domains, network=self.network,
                                    shared=shared)
        self.secrets = Secrets(self.redactor.add_secret)  # --secret NAME=VALUE, as $NAME
        for header, value in attach.headers if attach else ():  # --remote-header's values
            self.redactor.shown.add(value, f"<{header} header>")
            self.redactor.files.add(value, f"<{header} header>")
        self.recording_path: Path | None = None  # where views record it (set by the CLI)
        self.recording_shots = True  # a small picture per step beside it (--no-shots)
        self.switching = False  # relaunching the browser (handoff): its old pages close
        self.held_pages: list[Page] | None = None  # new pages no tab adopts (core/recycle.py)
        self.handoff = Handoff(self)
        # called when the person closes the browser's window, which then ends the
        # session instead of being relaunched (`cockpit record`)
        self.window_ends: Callable[[], None] | None = None
        # the active tab's picture as it paints, while a view watches (core/live/)
        self.live_view = LiveView(lambda: self.active.page if self.active else None, self.bus)
        # `video start` / --video: the live view's frames into one file (core/live/video.py)
        self.video = VideoRecorder(self.live_view, self.bus)
        self.video_path: Path | None = None  # --video DIR: recorded from the start
        self.recovery = Recovery(self)  # a hung, crashed or killed browser comes back
        self.closing = False
        self.deadlines = Deadlines(self)  # no command runs past its deadline
        self.agent: agents.Agent | None = None  # set by the lifecycle that starts one
        # Diffs from what an action changed (changes.py); False: a full snapshot after
        # every action, as before (COCKPIT_FULL_DIFF=1; benchmarks compare the two).
        self.incremental_diffs = os.environ.get("COCKPIT_FULL_DIFF", "") in ("", "0")
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
        # what a person does in the browser, as steps (core/capture): while they have
        # control, or always (`capture.everything`: `cockpit record`)
        self.capture = Capture(CapturePort(self.bus, self._ids, self.registry,
                                           self.after_steps, self.handoff, lambda: self.tabs,
                                           lambda: self.active, self.switch_to))
        self.browser.preparers.append(self.capture.install)  # before any page loads

    # --- lifecycle ----------------------------------------------------------------------
    async def __aenter__(self) -> Session:
        await self.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def start(self) -> Session:
        context = await self.browser.start(headless=not self.headed)
        assert self.plan is not None  # a started browser has its plan
        self.headed = not self.plan.headless  # an attached browser says what it is
        await self.start_trace()
        self.watch_context(context)
        for page in context.pages:
            self.adopt(page)
        if not self.tabs:
            await context.new_page()
        self.active = self.tabs[0]
        if self.video_path is not None:
            await self.video.start(self.video_path)
        return self

    async def close(self) -> None:
        self.closing = True  # its pages and browser now close on purpose: nothing to revive
        with tolerated("finishing the video", log):
            await self.video.close()
        await self.live_view.close()
        await self.capture.close()  # the person's last actions are steps too
        await self.handoff.close()
        with tolerated("saving the trace", log):  # a stopped browser never answers
            await asyncio.wait_for(self.stop_trace(), CLOSE_S)
        await self.browser.close()
        self.bus.emit(ev.SESSION_CLOSED, session=self.name)

    @property
    def command_lock(self) -> asyncio.Lock:
        """Held by the command running; background work on the browser (recovery, a
        picture) takes it too, so it never runs under a command."""
        return self.holds.lock

    def browser_gone(self, context: BrowserContext) -> None:
        """The browser closed by itself (its window was closed, or it crashed or was
        killed): the end of a handoff in a window, else it is relaunched."""
        if context is not self.context or self.switching or self.closing:
            return
        if self.window_ends is not None:  # `cockpit record`: the person is done
            self.window_ends()
        elif not self.handoff.browser_gone():
            self.recovery.browser_died()

    # --- running commands ---------------------------------------------------------------
    async def run(self, line: str | Command, source: str = "human", *,
                  timeout: float | None = None, deadline: float | None = None,
                  client: str | None = None, relayed: bool = False) -> Result:
        """Run one command line and return its Result; never raises for a bad command.

        `timeout` bounds the wait for its turn (commands before it, agents held): past it
        the command does not run and ends with exit code 4. Once it runs, `deadline`
        (default: the session's command_timeout, longer for a command told to wait longer)
        bounds it whatever the page does: past it the command ends with an error and a
        hung page or browser is recovered, so the next command runs. `client` names the
        program that sent it (an MCP client's name): its command events carry it, for the
        log. `relayed`: a person's own input relayed from a view of the page (the live
        view's mouse and keys); while capture is on, capture makes the steps of what it
        did (by role and name), and it is no step of its own (its events say relayed)."""
        command_id = next(self._ids)
        started = time.perf_counter()
        who: dict[str, Any] = {"client": client} if client else {}
        # no event, view or file may hold a secret: until it ran, typed text that may go
        # into a password field is masked too
        # parsed once, here: every step below reads this (language/command.py)
        command = line if isinstance(line, Command) else Command.of(line, self.registry)
        line = command.line
        if relayed and self.capture.relays(command.name):
            who["relayed"] = True
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
                result = self.redactor.result(result, None, command)  # its URLs too
                return result
            # an agent's command under --confirm waits for a person here, holding nothing
            refused, confirmed, timeout = await self.policy.gate(self, command, shown, source,
                                                                 timeout)
            if refused is not None:
                result = refused
                return result
            if self.capture.on and not who.get("relayed"):
                # what the person did before this command is their steps first (capture
                # posts each a moment later): the log and the recording keep the order
                # it happened in, and their last click comes before the resume
                await self.capture.flush()
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
                targets = refs_used(snap, command)
                if targets and self.active is not None:  # those in iframes: which
                    await with_frames(self.active, targets)
                self.bus.emit(ev.COMMAND_STARTED, id=command_id, command=shown, source=source,
                              targets=targets, **who)
                if self.recovery.pending:  # a crash or kill noticed since the last command
                    await self.recovery.ensure()
                if self.recovery.dead and (spec is None or spec.needs_tab):
                    result = Result(shown.strip(), False, source=source,
                                    exit_code=EXIT_UNREACHABLE,
                                    error=f"the session has no browser any more "
                                    f"({self.recovery.dead}): start Cockpit again")
                    return result
                self.policy.begin(self)
                traced = await self.browser.trace_group(shown)  # the step, as Trace Viewer shows it
                try:
                    result = await after(self.handoff.refuse_stale(command, source)
                                         or await self.deadlines.run(command, source,
                                                                     deadline),
                                         Ran(command, source, snap, confirmed),
                                         self.after_steps)
                finally:
                    await self.browser.trace_group_end(traced)
                self.commands_run += 1
            finally:
                self.holds.end_turn()
            return result
        finally:  # also when cancelled: no view may keep showing it as queued or running
            result.ms = (time.perf_counter() - started) * 1000
            self.bus.emit(ev.COMMAND_FINISHED, id=command_id, source=source,
                          exit_code=result.exit_code, **who, **result.to_json())

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

    async def ready_for_person(self) -> None:
        await self.capture.turned()  # its binding, installed when a person may act
        if self.plan is not None and self.plan.headless and self.plan.mark:
            to_foreground(self.plan.mark)  # they drive it from a terminal or a web view

    def person_gone(self) -> None:
        if self.plan is not None and self.plan.headless and self.plan.mark:
            to_background(self.plan.mark)  # the agents' again

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


# what a command handler gets (the commands part): the whole Session, its tab, helpers
CommandContext = Context[Session]
