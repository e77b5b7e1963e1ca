"""One line that says who is in control and what state everything is in."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from ..core import events as ev
from ..core import network_words
from .messages import CommandsRan
from .safe import clean


@dataclass
class Status:
    session: str = "default"
    mode: str = "headless"
    control: str = "human"
    need: str = ""  # what the page needs a person for, while it does
    agent: str = "no agent"
    recording: str = "not recording"
    busy: int = 0  # commands queued or running
    last_error: str = ""
    network: str = ""  # routes, HAR and emulation in a few words (core/network/state.py)


class StatusBar(Widget):
    """`set` only records and asks for a repaint: a burst of events costs one render, and
    the line is always drawn in the current theme's colours."""

    COMPONENT_CLASSES = {"status--key", "status--error", "status--busy", "status--need"}

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.status = Status()

    def set(self, **changes) -> None:
        for key, value in changes.items():
            setattr(self.status, key, value)
        self.refresh()

    def on_commands_ran(self, message: CommandsRan) -> None:
        """Commands queued or running, and the last one that failed."""
        status = self.status
        for event in message.events:
            if event.kind == ev.COMMAND_QUEUED:
                status.busy += 1
            elif event.kind == ev.COMMAND_FINISHED:
                status.busy = max(0, status.busy - 1)
                if not event.data["ok"]:
                    status.last_error = event.data["error"] or ""
        session = getattr(self.app, "session", None)  # a command may have routed or emulated
        if session is not None:
            status.network = network_words(session.status().get("network"))
        self.refresh()

    def render(self) -> Text:
        """Most important first, so a narrow terminal cuts the least important: who has
        control and what the page needs a person for, then the agent, the queue, the last
        error, and the session's facts."""
        s = self.status
        key = self.get_component_rich_style("status--key", partial=True)
        style = lambda name: self.get_component_rich_style(name, partial=True)  # noqa: E731
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("control ", style=key)
        text.append(clean(s.control) + "  ")
        if s.need:
            text.append(f"NEEDS A HUMAN: {clean(s.need)}", style=style("status--need"))
            text.append("  ")
        text.append("agent ", style=key)
        text.append(clean(s.agent) + "  ")
        if s.busy:
            text.append(f"{s.busy} running/queued  ", style=style("status--busy"))
        if s.last_error:
            text.append("last error: ", style=key)
            text.append(clean(s.last_error)[:160] + "  ", style=style("status--error"))
        pairs = [("session", s.session), ("browser", s.mode), ("rec", s.recording)]
        if s.network:
            pairs.append(("net", s.network))
        for label, value in pairs:
            text.append(f"{label} ", style=key)
            text.append(clean(value) + "  ")
        return text


class NeedsNotice(Static):
    """The page needs a person: one notice, in the layout above the status bar (it covers
    no pane and never the status bar); a new need replaces it, and it goes when the need
    is cleared or the person takes the browser."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.display = False
        self.text = ""

    def show_need(self, text: str) -> None:
        self.text = clean(text)
        self.update(Text(self.text))
        self.display = True

    def hide_need(self) -> None:
        self.text = ""
        self.display = False

    def on_click(self) -> None:
        self.display = False  # read: out of the way (the status bar still says it)
