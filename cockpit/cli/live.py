"""One live session, the same for every face (the TUI, `--plain`, `run`, `serve`, `demo`,
`replay`, and the faces still to come): the browser session, its control socket, its
recording, its agent, its trace and handoff settings, opened and closed together.

    async with LiveSession(SessionOptions(name="x"), agent="my-agent") as live:
        await live.session.run("goto example.com")

`start()` and `close()` are there too, for a face that starts it in the background (the
TUI shows its screen at once and the errors in it).

What every face does around it is here too, once: `OPEN_ERRORS` (what opening may raise;
`exits.failed` says each with its one exit code), `stop_signals` (SIGINT and SIGTERM stop
a face without a screen cleanly) and `tell` (the session's notices on stderr)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..control import discovery
from ..control.discovery import AlreadyLive, Unreachable
from ..control.server import ControlServer
from ..core import events as ev
from ..core import BrowserNotFoundError, drop_warm_driver

if TYPE_CHECKING:
    from ..control.agent_process import AgentProcess
    from ..core import Session, SharedBrowser
    from ..record.recorder import Recorder

log = logging.getLogger("cockpit.live")

__all__ = ["OPEN_ERRORS", "AlreadyLive", "LiveSession", "SessionOptions", "stop_signals",
           "tell"]

STARTING = "starting"  # the holder of agents' commands until the browser runs

# What building or starting a LiveSession raises for a reason a person can fix (a bad
# option, a name already live, no browser, a socket directory not ours): a face says it
# in one line with its exit code (exits.failed), never a traceback.
OPEN_ERRORS: tuple[type[Exception], ...] = (ValueError, AlreadyLive, Unreachable,
                                            BrowserNotFoundError)


@dataclass
class SessionOptions:
    """What a face asks of its session (the shared command-line options, as values)."""

    name: str = "default"
    headed: bool = False
    browser: str = "chromium"
    browser_path: str | None = None
    cdp: str | None = None  # attach to a running browser: a port, a URL or "auto"
    ws_endpoint: str | None = None  # ... or to a Playwright browser server
    secrets: list[str] = field(default_factory=list)  # NAME=VALUE, or NAME from the env
    record: Path | None = None  # None: recordings/SESSION-TIME.jsonl (unless no_record)
    no_record: bool = False
    no_shots: bool = False  # no picture of the page after each step in the recording
    trace: Path | None = None  # a Playwright trace zip
    video: Path | None = None  # a folder: the session's video goes there (core/live/video.py)
    auto_handoff: bool = False
    auto_resume: bool = False
    allow_domains: list[str] = field(default_factory=list)  # --allow-domain (core/policy)
    confirm: list[str] = field(default_factory=list)  # --confirm patterns
    remote_headers: list[str] = field(default_factory=list)  # "Name: value", --cdp / --ws
    notify: str | None = None  # a command run whenever the session newly needs a human
    device: str | None = None  # emulation from the start (core/network/state.py)
    proxy: str | None = None
    locale: str | None = None
    timezone: str | None = None
    har: Path | None = None  # requests answered from this HAR
    har_missing: str = "fallback"
    # a context of its own on a browser that sessions share (`cockpit mcp --port`'s clients)
    shared: SharedBrowser | None = None

    def session(self) -> Session:
        """A new, not yet started Session; ValueError names a bad name, secret or
        browser to attach to."""
        from ..core import attach_request
        from ..core import Session
        attach = attach_request(self.cdp, self.ws_endpoint, engine=self.browser,
                                headed=self.headed, browser_path=self.browser_path,
                                headers=self.remote_headers)
        session = Session(self.name, headed=self.headed, engine=self.browser,
                          browser_path=self.browser_path, attach=attach, shared=self.shared)
        session.handoff.auto_handoff = self.auto_handoff
        session.handoff.auto_resume = self.auto_resume
        from ..core import configure_network
        configure_network(session.network, session.owns_browser, device=self.device,
                          proxy=self.proxy, locale=self.locale, timezone=self.timezone,
                          har=self.har, har_missing=self.har_missing)
        for spec in self.secrets:
            session.secrets.add(spec)
        session.policy.configure(self.allow_domains, self.confirm, session.registry)
        if self.trace:
            session.trace_path = Path(self.trace).resolve()
        if self.video:
            from ..core import video_file
            session.video_path = video_file(Path(self.video).resolve(), session.name)
        if not self.no_record:
            from ..record.recorder import default_path
            session.recording_path = Path(self.record) if self.record else default_path(
                session.name)
            session.recording_shots = not self.no_shots
        return session


class LiveSession:
    """Opens, in this order: the control socket (so a second session of the same name is
    refused, AlreadyLive, before a browser starts), the browser session, the recorder (so
    it sees the agent's first step), the agent. Closes everything it opened, even when
    starting failed half-way or was cancelled.

    Raises ValueError (a bad name or secret) or discovery.Unreachable (the socket
    directory is not ours) when built, before anything is opened."""

    def __init__(self, options: SessionOptions, *, agent: str | None = None,
                 workspace: Path | None = None) -> None:
        self.options = options
        self.session = options.session()
        self.server = ControlServer(self.session, workspace)
        self.agent_command = agent
        self.agent: AgentProcess | None = None
        self.recorder: Recorder | None = None
        self.recording_failed: str | None = None  # why, once the recording has failed
        self.session.bus.subscribe(self._note_recording_failed)
        from ..control.notify import SessionNotifier
        view = self.session.live_view
        self.notifier = SessionNotifier(self.session.name, options.notify,
                                        web=lambda: view.web_link)
        if self.notifier.active:  # notify-send (a desktop), --notify CMD: once per need
            self.session.bus.subscribe(self.notifier.on_event)
        self._server_open = self._session_open = self._closed = False

    # --- lifecycle ----------------------------------------------------------------------
    async def __aenter__(self) -> LiveSession:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def description(self) -> str:
        """The browser the session runs on, as a person reads it (once started)."""
        plan = self.session.plan
        return plan.description if plan is not None else "a browser not started yet"

    def refuse_if_live(self) -> None:
        """AlreadyLive now, without opening anything: for a face that shows its screen
        before the session has started (the TUI), so the refusal comes before it."""
        live = discovery.alive(self.server.socket)
        if live is not None:
            raise AlreadyLive(already_live_message(self.session.name, live.pid))

    async def start(self) -> LiveSession:
        # a client may come between the socket and the browser: its commands wait
        # (queued, as while an agent is paused) instead of failing on no browser
        self.session.hold_agents("the browser is starting", holder=STARTING)
        try:
            await self.server.start()
            self._server_open = True
            self._check_open()
            await self.session.start()
            self._session_open = True
            self._check_open()
            self._start_recording()  # before the waiting commands run: they are steps
            self.session.release_agents(holder=STARTING)
            if self.agent_command:
                from ..control.agent_process import AgentProcess
                self.agent = AgentProcess(self.agent_command, self.session,
                                          self.server.socket)
                self.session.agent = self.agent  # Session.agent_control() uses it
                await self.agent.start()
        except BaseException:
            try:
                await self.close()
            except BaseException as exc:  # noqa: BLE001 (logged by close(); the first error is the one raised)
                log.debug("closing after a failed start: %r", exc)
            raise
        return self

    def _note_recording_failed(self, event: ev.Event) -> None:
        if event.kind == ev.RECORDING_FAILED and self.recording_failed is None:
            self.recording_failed = str(event.data.get("error") or "failed")

    def _check_open(self) -> None:
        if self._closed:  # close() ran while we were starting (the TUI quit early)
            raise asyncio.CancelledError("the live session was closed while starting")

    def _start_recording(self) -> None:
        """A recording that cannot be opened is said (recording.failed, the log) and the
        session goes on without one: the browser matters more than its record."""
        path = self.session.recording_path
        if path is None:  # --no-record: not even the recorder's imports
            return
        from ..record.recorder import start_recording
        try:
            self.recorder = start_recording(self.session)
        except OSError as exc:
            self.session.recording_path = None
            log.warning("recording to %s failed: %s", path, exc)
            self.session.bus.emit(ev.RECORDING_FAILED, path=str(path), error=str(exc))

    async def close(self) -> None:
        """Agent first (it must not see a closed socket as a failure of its own), then
        the socket (commands still waiting for their turn are taken back), then the
        browser, and the recorder last, so it writes every step that ends on the way."""
        self._closed = True
        steps: list[tuple[str, Callable[[], Awaitable[None] | None]]] = []
        if self.agent is not None:
            steps.append(("agent", self.agent.close))
        if self._server_open:
            self._server_open = False
            steps.append(("control socket", self.server.close))
        if self._session_open:
            self._session_open = False
            steps.append(("browser session", self.session.close))
        if self.recorder is not None:
            steps.append(("recorder", self.recorder.close))
        steps.append(("--notify commands", self.notifier.caller.wait))  # none left behind
        steps.append(("driver started ahead", drop_warm_driver))  # if no session took it
        self.agent = self.recorder = None
        first: BaseException | None = None
        for what, step in steps:  # each one, even when an earlier one failed
            try:
                done = step()
                if done is not None:
                    await done
            except BaseException as exc:  # noqa: BLE001 (CancelledError too: the rest still closes)
                log.warning("closing the %s failed: %r", what, exc)
                first = first or exc
        if first is not None:
            raise first


def already_live_message(name: str, pid: int) -> str:
    flag = "" if name == "default" else f" --session {name}"
    return (f"session {name!r} is already live here (pid {pid}): watch it with "
            f"`cockpit attach{flag}`, or start another with --session NAME")


@contextlib.contextmanager
def stop_signals() -> Iterator[asyncio.Event]:
    """An event set on SIGINT or SIGTERM while the block runs, in the running loop: a
    face without a screen (`serve`, `mcp`, `web`) waits on it, then closes cleanly."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    handled = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
            handled.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
            log.debug("signal %s is not handled here", sig)
    try:
        yield stop
    finally:
        for sig in handled:
            loop.remove_signal_handler(sig)


# what a person can do about it, after the line the event's declaration says
NEXT_STEP = {ev.NEEDS_HUMAN: ": `cockpit attach` then F10, or `cockpit exec handoff`",
             ev.HANDOFF: "; `cockpit exec resume` ends it",
             ev.CONFIRM_WAITING: " (`cockpit exec --human approve`, or `deny REASON`)"}


def tell(event: ev.Event, session: str | None = None) -> None:
    """A face without a screen says on stderr who was turned away and when a person is
    needed: subscribe it to the session's bus (`session`: name it, when a face serves
    several)."""
    if event.kind == ev.RECORDING_FAILED:
        return  # the recorder logs it, and the log goes to stderr here (configure_logging)
    spec = ev.kind_of(event.kind)  # what is said, and how urgently: core/events.py
    line = spec.line(event.data)
    if line:
        line = ("\a " if spec.urgent else "") + line + NEXT_STEP.get(event.kind, "")
        who = f" (session {session})" if session else ""
        print(f"cockpit{who}: {line}", file=sys.stderr, flush=True)
