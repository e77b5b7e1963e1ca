"""An agent's command waiting for a person (--confirm, core/policy): a notice above the
status bar with the command, the element it acts on and the keys that answer it (y/n);
the element's picture goes to the picture pane while it waits."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from .safe import clean


def describe(waiting: dict[str, Any], more: int) -> str:
    """One line for the notice: who wants what, on which element, and how to answer."""
    target = waiting.get("target") or {}
    name = target.get("name") or target.get("label") or ""
    element = f" on {target.get('role', 'element')} \"{name}\"" if target else ""
    later = f" · {more} more waiting" if more else ""
    return (f"APPROVE? {waiting.get('source', 'agent')} wants `{waiting.get('command', '')}`"
            f"{element} (--confirm {waiting.get('pattern', '')}) · y approves · n denies · "
            f"or type `deny REASON`{later}")


class ConfirmNotice(Static):
    """The oldest command waiting for a person; hidden while none waits. The app keeps
    the list (from confirm.waiting / confirm.answered events), this only shows it."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.display = False
        self.text = ""

    def show_waiting(self, waiting: list[dict[str, Any]]) -> None:
        if not waiting:
            self.text = ""
            self.display = False
            return
        self.text = clean(describe(waiting[0], len(waiting) - 1))
        self.update(Text(self.text))
        self.display = True
