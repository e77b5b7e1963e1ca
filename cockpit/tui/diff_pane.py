"""The diff of the last step, keyed by ref; earlier steps' diffs one key away."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ..core.diff import show_value
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

    def add(self, command: str, diff: dict) -> None:
        self.steps.append(Step(command, diff))
        del self.steps[:-MAX_STEPS]
        self.index = -1
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
        marks = {"added": ("+", "diff--added"), "removed": ("-", "diff--removed"),
                 "changed": ("~", "diff--changed")}
        if step.diff.get("new_page"):
            text.append("(a new page: every element is new)\n", style=style("diff--dim"))
        for change in step.diff.get("changes", [])[:300]:
            mark, name = marks.get(change["kind"], ("?", "diff--dim"))
            line = f"{mark} @{change['ref']} {change['role']}"
            if change.get("name"):
                line += f' "{change["name"]}"'
            if change.get("text") and change["kind"] == "added":
                line += f": {change['text'][:80]}"
            if change.get("fields"):
                line += " (" + "; ".join(f"{k}: {show_value(v['old'])} -> "
                                         f"{show_value(v['new'])}"
                                         for k, v in change["fields"].items()) + ")"
            text.append(clean(line) + "\n", style=style(name))
        self.update(text)
