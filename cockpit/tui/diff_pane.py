"""The diff of the last step, keyed by ref; earlier steps' diffs one key away."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ..core import events as ev
from ..core import diff_line
from .messages import CommandsRan
from .safe import clean

MAX_STEPS = 500


@dataclass
class Step:
    command: str
    diff: dict


class DiffPane(Static):
    COMPONENT_CLASSES = {"diff--added", "diff--removed", "diff--changed", "diff--title",
                         "diff--dim"}

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.steps: list[Step] = []
        self.index = -1  # which step is shown; -1 is the newest

    def on_mount(self) -> None:
        self.border_title = "Diff"
        self.refresh_view()

    def on_commands_ran(self, message: CommandsRan) -> None:
        """The diffs of the commands that finished, the newest shown."""
        added = False
        for event in message.events:
            diff = (event.data.get("data") or {}).get("diff") \
                if event.kind == ev.COMMAND_FINISHED else None
            if diff is not None:
                self.add(event.data["command"], diff, show=False)
                added = True
        if added:
            self.refresh_view()

    def add(self, command: str, diff: dict, *, show: bool = True) -> None:
        self.steps.append(Step(command, diff))
        del self.steps[:-MAX_STEPS]
        self.index = -1
        if show:
            self.refresh_view()

    def step(self, delta: int) -> None:
        if not self.steps:
            return
        current = len(self.steps) + self.index if self.index < 0 else self.index
        current = max(0, min(len(self.steps) - 1, current + delta))
        self.index = current - len(self.steps)
        self.refresh_view()

    def refresh_view(self) -> None:
        style = lambda name: self.get_component_rich_style(name, partial=True)  # noqa: E731
        if not self.steps:
            self.update(Text("No step yet: diffs of commands that change the page show here.",
                             style=style("diff--dim")))
            return
        position = len(self.steps) + self.index
        step = self.steps[position]
        text = Text()
        text.append(f"step {position + 1}/{len(self.steps)}  ", style=style("diff--dim"))
        text.append(clean(step.command), style=style("diff--title"))
        text.append(f"\n{clean(step.diff.get('summary', ''))}\n", style=style("diff--title"))
        if step.diff.get("new_page"):
            text.append("(a new page: every element is new)\n", style=style("diff--dim"))
        for change in step.diff.get("changes", [])[:300]:
            kind, line = diff_line(change)
            text.append(clean(line) + "\n", style=style(f"diff--{kind or 'dim'}"))
        self.update(text)
