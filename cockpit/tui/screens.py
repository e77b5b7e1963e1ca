"""Modal screens: the command reference (F1) and the full output of one log entry."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ..core import Registry
from .config import key_label


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
            body = self.registry.overview() + keys_help(self.app)
        self.query_one("#help-body", Static).update(body)


def keys_help(app) -> str:
    """The keys, as they are now: remapped ones under their new key."""
    def k(binding_id: str) -> str:
        return key_label(app, binding_id)
    return (f"\n\nKeys: {k('help')} this help · {k('focus.tabs')} tabs · {k('focus.refs')} refs · "
            f"{k('focus.log')} log · {k('focus.prompt')} prompt · {k('picture.refresh')} "
            f"refresh the picture\n{k('picture.labels')} or {k('picture.zoom')} on the page "
            f"pane: the page enlarged, its refs labelled · {k('refs.zoom')} on a ref: that "
            f"element enlarged (`zoom [TARGET]`; {k('zoom.close')} returns) · "
            f"{k('refs.expect')} on a ref: what holds now, to keep as an `expect`\n"
            f"{k('picture.live')} on the page pane or {k('zoom.live')} in a zoom: the picture "
            f"follows the page live (`live`); with control ({k('handoff')}) the mouse and "
            f"keys on the zoomed picture act on the page\n"
            f"{k('diff.older')}/{k('diff.newer')} earlier/later diffs · ^p palette (commands, "
            f"tabs, refs) · {k('quit')} quit\n"
            f"A narrow terminal: {k('pane.next')} shows the next pane (the keys above show "
            f"theirs)\n"
            f"In the prompt: {k('prompt.complete')} completes (again: the next candidate) · "
            f"{k('prompt.older')}/{k('prompt.newer')} history · {k('prompt.search')} search\n"
            f"In the log: {k('log.show')} shows a command's full output · "
            f"In refs: typing filters, enter inserts the ref\n"
            f"The agent: {k('agent.pause')} pauses it (its commands wait) and resumes it · "
            f"{k('agent.stop')} stops it, and starts it again\n"
            f"{k('handoff')} hands the browser to you (a window) and back · "
            f"{k('recordings')} recordings: browse them, and replay one step by step")
