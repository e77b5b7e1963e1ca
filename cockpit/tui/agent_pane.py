"""The agent's own output (stdout and stderr), shown literally, and its state in the
border: running, waiting for a command, paused, exited."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from ..core import describe
from .messages import AgentOutput
from .safe import clean, literal

MAX_LINES = 5000
MAX_LINES_A_BATCH = 200  # a flood shows its last lines and a count; the recording has all


class AgentPane(RichLog):
    COMPONENT_CLASSES = {"agent--stderr", "agent--note"}

    def __init__(self, **kwargs) -> None:
        # wrapped: the pane is narrow, and an agent's request to the human must be read whole
        # (min_width: RichLog's default of 78 would cut lines in a narrower pane)
        super().__init__(max_lines=MAX_LINES, wrap=True, min_width=20, markup=False,
                         **kwargs)
        self.lines_seen = 0
        self._started = False

    def on_mount(self) -> None:
        self.border_title = "Agent"
        self.write(Text("no agent: start one with cockpit --agent CMD"))

    def on_agent_output(self, message: AgentOutput) -> None:
        self.add_lines(message.lines)

    def add_lines(self, lines: list[tuple[str, bool]]) -> None:
        """(text, from stderr) pairs, in the order they came; one call a batch."""
        self.lines_seen += len(lines)
        if len(lines) > MAX_LINES_A_BATCH:
            skipped = len(lines) - MAX_LINES_A_BATCH
            self.write(literal(f"… {skipped} lines not shown (too many at once)",
                               self.get_component_rich_style("agent--note", partial=True)))
            lines = lines[-MAX_LINES_A_BATCH:]
        error = self.get_component_rich_style("agent--stderr", partial=True)
        for text, stderr in lines:
            self.write(Text(clean(text), style=error if stderr else ""))

    def show_state(self, state: dict, line: str | None = None) -> None:
        if state.get("state") == "running" and not self._started:
            self._started = True
            self.clear()  # the "no agent" line
        self.border_title = clean(f"Agent: {line or describe(state)}")
        self.border_subtitle = clean(state.get("command") or "")
