"""One line that says who is in control and what state everything is in."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widget import Widget

from ..core import events as ev
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
        self.refresh()

    def render(self) -> Text:
        s = self.status
        key = self.get_component_rich_style("status--key", partial=True)
        text = Text(no_wrap=True, overflow="ellipsis")
        for label, value in (("session", s.session), ("browser", s.mode),
                             ("control", s.control), ("agent", s.agent),
                             ("rec", s.recording)):
            text.append(f"{label} ", style=key)
            text.append(clean(value) + "  ")
        if s.need:
            text.append(f"NEEDS A HUMAN: {clean(s.need)}  ",
                        style=self.get_component_rich_style("status--need", partial=True))
        if s.busy:
            text.append(f"{s.busy} running/queued  ",
                        style=self.get_component_rich_style("status--busy", partial=True))
        if s.last_error:
            text.append("last error: ", style=key)
            text.append(clean(s.last_error)[:160],
                        style=self.get_component_rich_style("status--error", partial=True))
        return text
