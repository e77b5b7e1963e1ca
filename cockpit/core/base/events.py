"""The one event bus: every view, the recorder and agents watch the session through it."""

from __future__ import annotations

import time

TYPE_CHECKING = False  # not typing's: thin clients import this module for Event
if TYPE_CHECKING:
    from typing import Any, AsyncIterator, Callable

    Listener = Callable[["Event"], None]

# Every event kind, declared once: its payload (a TypedDict below, for type checkers) and
# the facts its consumers route by. The kind strings are in recordings and on the control
# socket: a contract, never renamed. Views ignore kinds they do not know.
COMMANDS, TABS, PAGE, AGENT, CONTROL, SESSION, REPLAY = (
    "command", "tab", "page", "agent", "control", "session", "replay")


class EventKind:
    """What the cockpit knows about one kind of event (a plain class: thin clients import
    this module, and dataclasses would cost them milliseconds at start-up).

    group: who it is about: command, tab, page, agent, control (who has the browser), session,
        replay (a replayed step's verdict: for the replay's recording, views ignore it).
    payload: the name of its TypedDict below.
    kept: the control server keeps it for viewers that attach later (commands and agents).
    recorded: the recorder writes it to the recording besides the steps.
    tabs, refs: the tab list, or the active tab's refs, may have changed (views fetch them
        again; a remote session fetches its copy of the session's state).
    says: a line for faces without a TUI (`serve` prints it on stderr), from the payload.
    urgent: a person should look now (a bell).
    """

    __slots__ = ("group", "kept", "kind", "payload", "recorded", "refs", "says", "tabs",
                 "urgent")

    def __init__(self, kind: str, group: str, payload: str, *, kept: bool = False,
                 recorded: bool = False, tabs: bool = False, refs: bool = False,
                 says: str = "", urgent: bool = False) -> None:
        self.kind, self.group, self.payload = kind, group, payload
        self.kept, self.recorded, self.tabs, self.refs = kept, recorded, tabs, refs
        self.says, self.urgent = says, urgent

    @property
    def changes_state(self) -> bool:
        """A copy of the session's tabs and refs (a remote session's) is stale after it."""
        return self.tabs or self.refs or self.kind == COMMAND_FINISHED

    def line(self, data: dict[str, Any]) -> str:
        """`says` filled in from the payload ("" when it says nothing or a key is missing)."""
        try:
            return self.says.format_map(data) if self.says else ""
        except (KeyError, ValueError, TypeError):  # a payload from an older session
            return f"{self.kind}: {data}"

    def __repr__(self) -> str:
        return f"EventKind({self.kind!r}, group={self.group!r})"


KINDS: dict[str, EventKind] = {}
UNKNOWN = EventKind("", "", "")  # a kind this version does not know: nobody routes it


def declare(kind: EventKind) -> str:
    KINDS[kind.kind] = kind
    return kind.kind


def kind_of(kind: str) -> EventKind:
    """The declaration of a kind (UNKNOWN for one from another version of the cockpit)."""
    return KINDS.get(kind, UNKNOWN)


_K = EventKind
COMMAND_QUEUED = declare(_K("command.queued", COMMANDS, "CommandData", kept=True))
COMMAND_STARTED = declare(_K("command.started", COMMANDS, "CommandStarted", kept=True))
COMMAND_FINISHED = declare(_K("command.finished", COMMANDS, "CommandFinished", kept=True))
TAB_OPENED = declare(_K("tab.opened", TABS, "TabInfo", recorded=True, tabs=True))
TAB_CLOSED = declare(_K("tab.closed", TABS, "TabClosed", recorded=True, tabs=True, refs=True))
# the active tab is another one
TAB_CHANGED = declare(_K("tab.changed", TABS, "TabInfo", tabs=True, refs=True))
# title, URL or loading state of a tab changed (a remote session's: no payload)
TAB_UPDATED = declare(_K("tab.updated", TABS, "TabInfo", tabs=True))
NAVIGATION = declare(_K("navigation", TABS, "Navigation", tabs=True))
CONSOLE = declare(_K("console", PAGE, "Console"))
PAGE_ERROR = declare(_K("page.error", PAGE, "PageError"))
DIALOG_OPENED = declare(_K("dialog.opened", PAGE, "DialogOpened"))
DIALOG_CLOSED = declare(_K("dialog.closed", PAGE, "DialogClosed"))
FILE_CHOOSER = declare(_K("filechooser", PAGE, "FileChooser"))
DOWNLOAD = declare(_K("download", PAGE, "Download"))
SNAPSHOT = declare(_K("snapshot", PAGE, "SnapshotTaken", refs=True))
SESSION_CLOSED = declare(_K("session.closed", SESSION, "SessionClosed"))
# a recording write failed: the recording stops growing, the session goes on
RECORDING_FAILED = declare(_K("recording.failed", SESSION, "RecordingFailed",
                              says="recording to {path} failed: {error}"))
# the browser or a tab's renderer died or stopped answering (what: browser, renderer)
BROWSER_LOST = declare(_K("browser.lost", SESSION, "BrowserLost", recorded=True,
                          says="the {what} died: {reason}; recovering"))
# it was relaunched (a browser) or replaced (a tab); ok False: it could not be, the
# session has no browser any more
BROWSER_RECOVERED = declare(_K("browser.recovered", SESSION, "BrowserRecovered",
                               recorded=True, tabs=True, refs=True, says="{reason}"))
# agents' commands wait (paused, or a human has control)
AGENTS_HELD = declare(_K("agents.held", AGENT, "AgentsHeld", kept=True))
AGENTS_RELEASED = declare(_K("agents.released", AGENT, "NoData", kept=True))
# the agent subprocess: running, waiting, paused, exited
AGENT_STATE = declare(_K("agent.state", AGENT, "AgentState", kept=True, recorded=True))
# lines it wrote on stdout or stderr
AGENT_OUTPUT = declare(_K("agent.output", AGENT, "AgentOutput", kept=True, recorded=True))
# a control-socket client was turned away
CONTROL_REFUSED = declare(_K("control.refused", SESSION, "ControlRefused",
                             says="control socket: refused a client: {reason}"))
# the human has control (reason, mode: window, headed or terminal)
HANDOFF = declare(_K("handoff", CONTROL, "Handoff", recorded=True,
                     says="the human has control ({reason}, {mode})"))
# control is back with the agents; what the human changed
RESUMED = declare(_K("resumed", CONTROL, "Resumed", recorded=True,
                     says="resumed after {seconds:g} s: agents carry on"))
# a page needs a person (captcha, code, login) or agents are stuck
NEEDS_HUMAN = declare(_K("needs.human", CONTROL, "NeedsHuman", recorded=True, urgent=True,
                         says="needs a human: {need} ({detail}) at {url}"))
NEEDS_CLEARED = declare(_K("needs.cleared", CONTROL, "NeedsCleared", recorded=True))
# an agent's command waits for a person to approve or deny it (--confirm; core/policy)
CONFIRM_WAITING = declare(_K("confirm.waiting", CONTROL, "ConfirmWaiting", kept=True,
                             recorded=True, urgent=True,
                             says="waiting for a person: {source} wants `{command}` "
                                  "(--confirm {pattern})"))
# ... answered (approved, denied), or no longer waiting (timed out, withdrawn)
CONFIRM_ANSWERED = declare(_K("confirm.answered", CONTROL, "ConfirmAnswered", kept=True,
                              recorded=True, says="`{command}`: {answer}"))
# a replayed step compared with its recording (same, diverged, skipped, failed: an
# expectation that did not hold): a replay's own recording keeps it for its report
REPLAY_STEP = declare(_K("replay.step", REPLAY, "ReplayStep", recorded=True))
del _K

if TYPE_CHECKING:  # the payloads, for type checkers: `typing` costs thin clients ~2 ms
    from typing import NotRequired, TypedDict

    class NoData(TypedDict):
        pass

    class CommandData(TypedDict):
        id: int
        command: str
        source: str  # human, agent, replay, cockpit
        client: NotRequired[str]  # the program that sent it, when it said (an MCP client)
        # a person's own input relayed from a view (the live view's mouse and keys) while
        # capture is on: capture makes its steps of what it did; it is no step itself
        relayed: NotRequired[bool]

    class CommandStarted(CommandData):
        # role, name and nth of each ref the line uses, as the snapshot knew them before
        # the step: what the recorder keeps and replay finds the element by
        targets: dict[str, dict[str, Any]]
        # a step a person already did (core/capture): where they did it, not run again
        at: NotRequired[dict[str, Any] | None]
        captured: NotRequired[bool]

    class CommandFinished(CommandData):  # and the Result's JSON form
        exit_code: int
        ok: bool
        output: str
        error: str | None
        ms: float
        data: dict[str, Any]  # "diff": a snapshot diff's JSON form, when the page changed

    class TabInfo(TypedDict, total=False):
        index: int
        id: int
        tab: int  # the id again, in a tab's own tab.updated
        title: str
        url: str
        loading: bool
        active: bool
        dialog: dict[str, Any] | None

    class TabClosed(TypedDict):
        tab: int
        index: int

    class Navigation(TypedDict):
        tab: int
        url: str

    class Console(TypedDict):
        tab: int
        level: str
        text: str

    class PageError(TypedDict):
        tab: int | None
        text: str

    class DialogOpened(TypedDict):
        tab: int
        type: str
        message: str
        default: str
        answer: str | None
        time: float

    class DialogClosed(TypedDict):
        tab: int
        type: str
        answer: str

    class FileChooser(TypedDict):
        tab: int
        multiple: bool

    class Download(TypedDict):
        tab: int
        url: str
        path: str | None
        ok: bool
        error: NotRequired[str]

    class SnapshotTaken(TypedDict, total=False):  # a remote session's: no payload
        tab: int
        url: str
        refs: int

    class SessionClosed(TypedDict):
        session: str

    class RecordingFailed(TypedDict):
        path: str
        error: str

    class BrowserLost(TypedDict):
        what: str  # browser or renderer
        reason: str

    class BrowserRecovered(TypedDict):
        what: str  # browser (relaunched) or renderer (its tab replaced)
        ok: bool
        reason: str  # what happened and what was done, as the next result says it
        tabs: list[str]  # the URLs of the tabs now

    class AgentsHeld(TypedDict):
        reason: str

    class AgentState(TypedDict):
        state: str  # running, waiting, paused, exited
        detail: str
        command: str
        exit_code: int | None
        waiting_for: str | None
        pid: int | None

    class AgentOutput(TypedDict):
        stream: str  # stdout or stderr
        lines: list[str]
        dropped: int  # lines before these that were not kept

    class ControlRefused(TypedDict):
        reason: str

    class Handoff(TypedDict):
        reason: str
        mode: str  # window, headed or terminal
        tabs: int
        active: int

    class Resumed(TypedDict):
        reason: str
        seconds: float
        tabs_before: list[str]
        tabs_after: list[str]
        new_cookies: list[str]
        changed_cookies: list[str]
        removed_cookies: list[str]
        human_commands: int
        diff: NotRequired[dict[str, Any]]
        needs: NotRequired[dict[str, Any]]  # what the page needs now (a CAPTCHA, a code)
        not_carried: NotRequired[list[str]]  # what the relaunch could not carry back

    class NeedsHuman(TypedDict):
        need: str
        detail: str
        url: str
        tab: NotRequired[int]

    class NeedsCleared(TypedDict):
        need: str
        url: str

    class ConfirmWaiting(TypedDict):
        id: int
        command: str
        source: str
        pattern: str  # the --confirm value it matched
        target: dict[str, Any] | None  # role and name of the element it acts on
        since: float
        waiting: int  # commands waiting now, this one included

    class ConfirmAnswered(TypedDict):
        id: int
        command: str
        answer: str  # approved, denied, timed out, withdrawn
        reason: str
        by: str  # the source that answered (human), "" when nobody did
        waiting: int  # commands still waiting
    class ReplayStep(TypedDict):
        n: int  # the step's number in the recording replayed
        status: str  # same | diverged | skipped | failed
        recorded: str
        ran: str | None  # None: not run
        reasons: list[str]


class Event:
    """One thing that happened, with its data and the time it happened (immutable)."""

    __slots__ = ("kind", "data", "time")
    kind: str
    data: dict[str, Any]
    time: float

    def __init__(self, kind: str, data: dict[str, Any] | None = None,
                 time: float | None = None) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "data", {} if data is None else data)
        object.__setattr__(self, "time", _now() if time is None else time)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("an Event does not change once it happened")

    def __repr__(self) -> str:
        return f"Event(kind={self.kind!r}, data={self.data!r}, time={self.time!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return (self.kind, self.data, self.time) == (other.kind, other.data, other.time)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "time": self.time, "data": self.data}


_now = time.time


class EventBus:
    """Synchronous fan-out of events to listeners, plus async streams for remote viewers.

    Listeners run in the session's event loop and must be quick; a failing listener stays
    subscribed and never breaks the session (its error is logged and counted).
    """

    def __init__(self, redact: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        self._listeners: list[Listener] = []
        self.listener_errors = 0
        # the session's: no payload carries a secret or a password to a view or a file
        self.redact = redact

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, kind: str, **data: Any) -> Event | None:
        if not self._listeners:
            return None  # nobody is watching: the common case of a script or a benchmark
        return self.publish(Event(kind, self.redact(data) if self.redact else data))

    def publish(self, event: Event) -> Event:
        """Hand an existing event on (a remote session's, with its own time)."""
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken view must never take the session down
                self.listener_errors += 1
                import logging  # here: thin clients import this module for Event alone
                logging.getLogger(__name__).exception("an event listener failed on %s",
                                                      event.kind)
        return event

    async def stream(self, maxsize: int = 10_000) -> AsyncIterator[Event]:
        """Yield every event from now on (the oldest are dropped if the reader falls behind)."""
        import asyncio  # here: thin clients import this module for Event alone
        queue: asyncio.Queue[Event] = asyncio.Queue(maxsize)

        def put(event: Event) -> None:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(event)

        unsubscribe = self.subscribe(put)
        try:
            while True:
                yield await queue.get()
        finally:
            unsubscribe()
