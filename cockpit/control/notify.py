"""A call when a session needs a person: once per need, never a storm.

The engine says `needs.human` when a page starts needing a person (a CAPTCHA, a code, a
login wall) or an agent is stuck, and `needs.cleared` when that page stops needing one;
an agent (or --auto-handoff) that hands the browser over asks for a person too, until
`resumed`. `NeedLedger` turns those events into calls: one for each new need; a need
that stays raised (the same kind at the same URL, said again) calls nobody, and one
that flickers (cleared and raised again within REPEAT_S, a tab switched back and
forth) neither.

Where the call goes:
- `terminal_call()`: the bell, OSC 9 (iTerm2, WezTerm, Windows Terminal, kitty, foot,
  Ghostty) and OSC 777 (urxvt, foot, Ghostty, VTE terminals): for a face that owns a
  terminal (`watch`, the TUI), written through its own output.
- `desktop_call()`: `notify-send`, where a desktop session exists ($DBUS_SESSION_BUS_ADDRESS
  set and notify-send on PATH); the session's own process sends it, whether or not a
  cockpit is open on it.
- `run_notify()`: the user's `--notify CMD`, through the shell, with COCKPIT_SESSION,
  COCKPIT_REASON and COCKPIT_URL in its environment (so a script can post it anywhere),
  and COCKPIT_WEB_URL when `cockpit web` serves the session (the live view, with its
  token: where the person takes the page over).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..core import events as ev
from ..core import Event

log = logging.getLogger("cockpit.notify")

REPEAT_S = 30.0  # the same need, cleared and raised again sooner, is the same need
NOTIFY_TIMEOUT_S = 30.0  # a --notify command that runs longer is stopped
ENV_SESSION, ENV_REASON, ENV_URL = "COCKPIT_SESSION", "COCKPIT_REASON", "COCKPIT_URL"
ENV_WEB = "COCKPIT_WEB_URL"


@dataclass(frozen=True)
class Call:
    """One need, told once: which session, why (what the page needs and the evidence),
    and the URL of the page that needs the person."""

    session: str
    need: str  # captcha, code, login, stuck
    detail: str
    url: str
    web: str = ""  # the web view where the person takes it over live, when one is served

    @property
    def reason(self) -> str:
        return f"{self.need} ({self.detail})" if self.detail else self.need

    @property
    def text(self) -> str:
        where = f" at {self.url}" if self.url else ""
        live = f"; take it over live: {self.web}" if self.web else ""
        return f"{self.session} needs a human: {self.reason}{where}{live}"


class NeedLedger:
    """Which needs have been told, per session: `observe()` answers the Call to make for
    an event, or None. `clock` is time.monotonic (a test gives its own)."""

    def __init__(self, repeat_s: float = REPEAT_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.repeat_s = repeat_s
        self.clock = clock
        self._raised: dict[str, tuple[str, str]] = {}  # session -> (need, url) raised now
        self._told: dict[tuple[str, str, str], float] = {}  # (session, need, url) -> when
        self._handoff_by: dict[str, str] = {}  # session -> the source of its `handoff`
        self._url: dict[str, str] = {}  # session -> the last URL it went to

    def observe(self, session: str, event: Event) -> Call | None:
        data = event.data
        if event.kind == ev.NEEDS_CLEARED:
            self._raised.pop(session, None)
        elif event.kind == ev.NAVIGATION:
            self._url[session] = str(data.get("url") or "")
        elif event.kind == ev.COMMAND_STARTED and is_handoff(str(data.get("command", ""))):
            self._handoff_by[session] = str(data.get("source") or "")
        elif event.kind == ev.HANDOFF:
            by = self._handoff_by.pop(session, "human")
            if by != "human" and session not in self._raised:  # an agent asks for a person
                return self.raise_need(session, "handoff", str(data.get("reason") or ""),
                                       self._url.get(session, ""))
        elif event.kind == ev.RESUMED and self._raised.get(session, ("",))[0] == "handoff":
            self._raised.pop(session, None)
        if event.kind != ev.NEEDS_HUMAN:
            return None
        return self.raise_need(session, str(data.get("need") or "a person"),
                               str(data.get("detail") or ""), str(data.get("url") or ""))

    def raise_need(self, session: str, need: str, detail: str, url: str) -> Call | None:
        """A need seen (in an event, or in a session's state when first reached)."""
        key = (need, url)
        if self._raised.get(session) == key:
            return None  # still the same need: said once already
        self._raised[session] = key
        now = self.clock()
        told = self._told.get((session, need, url))
        self._told[(session, need, url)] = now
        if told is not None and now - told < self.repeat_s:
            return None  # the same need flickering (cleared, raised): no storm
        return Call(session, need, detail, url)

    def forget(self, session: str) -> None:
        """The session has ended: its needs with it."""
        self._raised.pop(session, None)
        self._handoff_by.pop(session, None)
        self._url.pop(session, None)
        for key in [k for k in self._told if k[0] == session]:
            del self._told[key]

    def raised(self, session: str) -> bool:
        return session in self._raised


def is_handoff(line: str) -> bool:
    """A `handoff` command line (not `handoff-something`)."""
    return line == "handoff" or line.startswith(("handoff ", "handoff\t"))


def _osc_text(text: str) -> str:
    """Text safe inside an OSC string: no control characters (ESC or BEL would end it,
    or start another sequence), no `;` for OSC 777's fields."""
    return "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in text).replace(";", ",")


def terminal_call(call: Call) -> str:
    """The bell, then an OSC 9 and an OSC 777 desktop notification: a terminal that knows
    neither ignores them."""
    title = _osc_text(f"Cockpit: {call.session} needs a human")
    body = _osc_text(call.reason + (f" at {call.url}" if call.url else "")
                     + (f" - live: {call.web}" if call.web else ""))
    return f"\a\x1b]9;{title}: {body}\x1b\\\x1b]777;notify;{title};{body}\x1b\\"


def has_desktop() -> bool:
    return bool(os.environ.get("DBUS_SESSION_BUS_ADDRESS")) and shutil.which(
        "notify-send") is not None


def notify_env(call: Call) -> dict[str, str]:
    env = {**os.environ, ENV_SESSION: call.session, ENV_REASON: call.reason,
           ENV_URL: call.url}
    if call.web:
        env[ENV_WEB] = call.web
    return env


class Caller:
    """Runs the calls that are processes (notify-send, --notify CMD) in the background:
    a slow or failing one is logged, never waited for by the session, and stopped after
    NOTIFY_TIMEOUT_S."""

    def __init__(self, command: str | None = None, desktop: bool | None = None) -> None:
        self.command = command
        self.desktop = has_desktop() if desktop is None else desktop
        self._tasks: set[asyncio.Task[None]] = set()

    def call(self, call: Call) -> None:
        if self.desktop:
            body = call.reason + (f" at {call.url}" if call.url else "") + (
                f"\nTake it over live: {call.web}" if call.web else "")
            self._start(["notify-send", "--app-name=Cockpit", "--urgency=critical",
                         f"Cockpit: {call.session} needs a human", body], call, "notify-send")
        if self.command:
            self._start(self.command, call, "--notify")

    def _start(self, command: str | list[str], call: Call, what: str) -> None:
        task = asyncio.ensure_future(self._run(command, call, what))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, command: str | list[str], call: Call, what: str) -> None:
        env = notify_env(call)
        try:
            if isinstance(command, str):
                process = await asyncio.create_subprocess_shell(
                    command, env=env, stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
                    start_new_session=True)
            else:
                process = await asyncio.create_subprocess_exec(
                    *command, env=env, stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        except OSError as exc:
            log.warning("%s could not start: %s", what, exc)
            return
        try:
            _, err = await asyncio.wait_for(process.communicate(), NOTIFY_TIMEOUT_S)
        except TimeoutError:
            process.kill()
            await process.wait()
            log.warning("%s ran over %g s for %s: stopped", what, NOTIFY_TIMEOUT_S,
                        call.session)
            return
        if process.returncode:
            said = err.decode(errors="replace").strip().splitlines()
            log.warning("%s failed for %s (exit %s)%s", what, call.session,
                        process.returncode, f": {said[-1]}" if said else "")

    async def wait(self) -> None:
        """Until the calls under way have ended (closing, and tests)."""
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


class SessionNotifier:
    """The session's own calls (every face that opens a session has one): notify-send
    where there is a desktop, and --notify CMD. Subscribe `on_event` to the session's bus."""

    def __init__(self, session: str, command: str | None = None,
                 desktop: bool | None = None,
                 web: Callable[[], str | None] = lambda: None) -> None:
        self.session = session
        self.web = web  # the web view served now (with its token), when there is one
        self.ledger = NeedLedger()
        self.caller = Caller(command, desktop)

    @property
    def active(self) -> bool:
        return bool(self.caller.command or self.caller.desktop)

    def on_event(self, event: Event) -> None:
        call = self.ledger.observe(self.session, event)
        if call is not None:
            self.caller.call(replace(call, web=self.web() or ""))
