"""The agent's own output (stdout and stderr), shown literally, when an agent runs."""

from __future__ import annotations

from textual.widgets import RichLog

from .safe import literal

MAX_LINES = 5000


class AgentPane(RichLog):
    COMPONENT_CLASSES = {"agent--stderr"}

    def __init__(self, **kwargs) -> None:
        super().__init__(max_lines=MAX_LINES, wrap=False, markup=False, **kwargs)

    def on_mount(self) -> None:
        self.border_title = "Agent"
        self.write(literal("no agent: start one with cockpit --agent CMD"))

    def add_line(self, text: str, stderr: bool = False) -> None:
        style = self.get_component_rich_style("agent--stderr", partial=True) if stderr else ""
        self.write(literal(text, style))
