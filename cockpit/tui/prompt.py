"""The prompt: the engine's command language, with history, Tab completion of command
names, flags and refs, and the current command's synopsis shown as you type."""

from __future__ import annotations

from functools import partial
from typing import Callable

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.message import Message
from textual.widgets import Input, Static

from ..core import Candidate, Registry, complete
from .config import key_label
from .history import History
from .safe import clean


class Hint(Static):
    """The line under the prompt: the synopsis, or the completion candidates."""

    COMPONENT_CLASSES = {"hint--dim", "hint--strong"}


class Prompt(Input):
    BINDINGS = [
        Binding("tab", "complete", "Complete", id="prompt.complete", show=False),
        Binding("up", "history(-1)", "Older", id="prompt.older", show=False),
        Binding("down", "history(1)", "Newer", id="prompt.newer", show=False),
        Binding("ctrl+r", "search_history", "Search history", id="prompt.search",
                show=False),  # the hint under the prompt names it
    ]

    class Command(Message):
        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    def __init__(self, registry: Registry, history: History,
                 refs: Callable[[], list[tuple[str, str, str]]], **kwargs) -> None:
        super().__init__(placeholder="type a command (help, snapshot -i, click @e3 …)",
                         **kwargs)
        self.registry = registry
        self.history = history
        self.refs = refs
        self._cycle: list[Candidate] = []
        self._cycle_at = 0
        self._searching = False

    @property
    def hint(self) -> Hint | None:
        try:
            return self.app.query_one(Hint)
        except NoMatches:  # an app without the hint line (tests mount the prompt alone)
            return None

    def on_input_changed(self, event: Input.Changed) -> None:
        if self._cycle and self.value == self._cycle_text():
            return  # a Tab put this candidate here: keep showing the candidates
        self._cycle = []
        self.show_hint()

    def _cycle_text(self) -> str:
        return self._cycle_base + self._cycle[self._cycle_at].text

    def show_hint(self, candidates: list[Candidate] | None = None) -> None:
        hint = self.hint
        if hint is None:
            return
        dim = hint.get_component_rich_style("hint--dim", partial=True)
        strong = hint.get_component_rich_style("hint--strong", partial=True)
        text = Text()
        if self._searching:
            found = self.history.search(self.value)[:5]
            text.append("history: ", style=strong)
            text.append(clean("  |  ".join(found) or "no match"), style=dim)
        elif candidates:
            for c in candidates[:12]:
                text.append(clean(c.label) + "   ", style=strong if c is candidates[0] else dim)
            if len(candidates) > 12:
                text.append(f"… {len(candidates) - 12} more", style=dim)
        else:
            words = self.value.split()
            spec = self.registry.get(words[0]) if words else None
            if spec is not None:
                text.append(spec.synopsis, style=strong)
                text.append("  " + spec.summary, style=dim)
            else:
                k = partial(key_label, self.app)
                text.append(f"{k('prompt.complete')} completes · {k('prompt.older')}"
                            f"{k('prompt.newer')} history · {k('prompt.search')} searches it"
                            f" · {k('help')} help", style=dim)
        hint.update(text)

    def action_complete(self) -> None:
        if self._cycle:
            self._cycle_at = (self._cycle_at + 1) % len(self._cycle)
            self.value = self._cycle_text()
            self.cursor_position = len(self.value)
            self.show_hint(self._cycle[self._cycle_at:] + self._cycle[:self._cycle_at])
            return
        word, candidates = complete(self.value, self.registry, self.refs())
        if not candidates:
            self.show_hint()
            return
        base = self.value[:len(self.value) - len(word)]
        if len(candidates) == 1:
            self.value = base + candidates[0].text + " "
        else:
            self._cycle, self._cycle_at, self._cycle_base = candidates, 0, base
            self.value = self._cycle_text()
            self.show_hint(candidates)
        self.cursor_position = len(self.value)

    def action_history(self, step: int) -> None:
        line = self.history.older() if step < 0 else self.history.newer()
        if line is not None:
            self.value = line
            self.cursor_position = len(line)

    def action_search_history(self) -> None:
        self._searching = not self._searching
        self.show_hint()

    async def _on_key(self, event: events.Key) -> None:
        """A key bound here (Enter, Backspace, Tab, ↑ …) acts now, in its turn among the
        printable keys. Textual runs a widget's bindings only once the key has bubbled up
        to the app, behind the keys typed after it: `js 6*7` Enter `abc` typed fast
        submitted `js 6*7abc`, and `ab` Backspace `c` gave `ab`."""
        answer = getattr(self.app, "answer_key", None)
        if event.is_printable and not self.value and answer is not None and \
                answer(event.character or ""):  # y/n while an agent's command waits
            event.stop()
            event.prevent_default()
            return
        if not event.is_printable:
            active = next((self.app.active_bindings[key] for key in event.aliases
                           if key in self.app.active_bindings), None)
            if active is not None and active.node is self and active.enabled:
                event.stop()
                event.prevent_default()
                await self.run_action(active.binding.action)
                return
        await super()._on_key(event)

    async def action_submit(self) -> None:
        """Enter: the line as it is now, taken and cleared now. Not in a Submitted
        handler: that message is queued behind the keys typed after Enter, which would
        have joined this line by then (`js 6*7` Enter `abc` ran `js 6*7abc`)."""
        line = self.value.strip()
        if self._searching:
            found = self.history.search(line)
            self._searching = False
            self.value = found[0] if found else line
            self.cursor_position = len(self.value)
            self.show_hint()
            return
        if not line:
            return
        self.history.add(line)
        self.value = ""
        self.post_message(self.Command(line))
