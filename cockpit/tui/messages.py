"""A batch of engine events as typed messages, one per thing a pane shows.

The batch is read by the facts `core.events` declares for each kind (its group, whether the
tab list or the refs may have changed), never by kind strings, so a new kind reaches the
panes by its declaration alone. Aggregated: a batch of 500 command events is one
CommandsRan, and the tabs and refs are fetched once however many events touched them.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message

from ..core import events as ev
from ..core import Event


class CommandsRan(Message, bubble=False):
    """Commands queued, started or finished, in order (the log, the diff, the status)."""

    def __init__(self, events: list[Event]) -> None:
        super().__init__()
        self.events = events


class TabsChanged(Message, bubble=False):
    def __init__(self, tabs: list[dict[str, Any]]) -> None:
        super().__init__()
        self.tabs = tabs


class RefsChanged(Message, bubble=False):
    def __init__(self, refs: list[Any]) -> None:
        super().__init__()
        self.refs = refs


class AgentOutput(Message, bubble=False):
    """Lines the agent wrote, with whether each came on stderr."""

    def __init__(self, lines: list[tuple[str, bool]]) -> None:
        super().__init__()
        self.lines = lines


class _Notice(Message, bubble=False):
    """One event that changes what the status says (rare: one message each)."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event
        self.kind = event.kind
        self.data = event.data


class AgentChanged(_Notice):
    """The agent's state, or agents held or released."""


class ControlChanged(_Notice):
    """Handoff, resume, and pages that need a person."""


class SessionNotice(_Notice):
    """The session ended, a socket client was refused, the recording failed."""


NOTICES: dict[str, type[_Notice]] = {ev.AGENT: AgentChanged, ev.CONTROL: ControlChanged,
                                     ev.SESSION: SessionNotice}


def translate(batch: list[Event], session: Any) -> list[Message]:
    """The messages for one batch: commands first, then the notices in order, then the
    tabs, refs and agent lines they leave (each fetched or gathered once)."""
    commands: list[Event] = []
    notices: list[Message] = []
    lines: list[tuple[str, bool]] = []
    tabs = refs = False
    for event in batch:
        spec = ev.kind_of(event.kind)
        tabs |= spec.tabs
        refs |= spec.refs
        if spec.group == ev.COMMANDS:
            commands.append(event)
        elif event.kind == ev.AGENT_OUTPUT:
            stderr = event.data.get("stream") == "stderr"
            if event.data.get("dropped"):  # a flood: only its last lines came
                lines.append((f"… {event.data['dropped']} lines not shown", True))
            lines += [(line, stderr) for line in event.data.get("lines", ())]
        elif spec.group in NOTICES:
            notices.append(NOTICES[spec.group](event))
    out: list[Message] = [CommandsRan(commands)] if commands else []
    out += notices
    if tabs:
        out.append(TabsChanged(session.tabs_info()))
    if refs:
        out.append(RefsChanged(session.refs_info()))
    if lines:
        out.append(AgentOutput(lines))
    return out


def route(message: Message, targets: list[Any]) -> None:
    """Hand a message to every target with a handler for it, at once (not queued): the
    whole batch is applied in one `batch_update`, one repaint."""
    for target in targets:
        handler = getattr(target, message.handler_name, None)
        if handler is not None:
            handler(message)
