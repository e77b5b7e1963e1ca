"""Modal screens: the command reference (F1) and the full output of one log entry."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ..core.registry import Registry


class TextScreen(ModalScreen):
    BINDINGS = [Binding("escape,q", "dismiss", "Close", id="screen.close")]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="text-screen"):
            yield Static(self.body, markup=False, id="text-body")

    def on_mount(self) -> None:
        self.query_one("#text-screen").border_title = self.title_text


class HelpScreen(ModalScreen):
    """The command reference from the registry, searchable."""

    BINDINGS = [Binding("escape", "dismiss", "Close", id="help.close")]

    def __init__(self, registry: Registry, topic: str | None = None) -> None:
        super().__init__()
        self.registry = registry
        self.topic = topic

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-screen"):
            yield Input(placeholder="search commands", id="help-search", value=self.topic or "")
            yield Static("", markup=False, id="help-body")

    def on_mount(self) -> None:
        self.query_one("#help-screen").border_title = "Cockpit commands (Esc closes)"
        self._show(self.topic or "")
        self.query_one("#help-search", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._show(event.value)

    def _show(self, needle: str) -> None:
        needle = needle.strip().lower()
        spec = self.registry.get(needle) if needle else None
        if spec is not None:
            body = spec.help_text()
        elif needle:
            found = [s for s in self.registry.commands.values()
                     if needle in f"{s.name} {s.summary} {' '.join(s.aliases)}".lower()]
            body = "\n".join(f"{s.name:<12} {s.summary}" for s in found) or "no command matches"
        else:
            body = self.registry.overview() + KEYS_HELP
        self.query_one("#help-body", Static).update(body)


KEYS_HELP = """

Keys: F1 this help · F2 tabs · F3 refs · F4 log · F6 prompt · F5 refresh the picture
F7 ref labels on the picture on/off
Alt+←/→ earlier/later diffs · Ctrl+P palette (commands, tabs, refs) · Ctrl+Q quit
In the prompt: Tab completes (again: the next candidate) · ↑/↓ history · Ctrl+R search
In the log: Enter shows a command's full output · In refs: Enter inserts the ref"""
