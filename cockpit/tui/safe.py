"""Hostile text is data: page titles, names, URLs, console lines and agent output are shown
literally. Rich markup is never parsed (we build `Text`, not markup strings) and escape
sequences and control characters are made visible instead of reaching the terminal."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from ..core import show_controls


def clean(text: object, one_line: bool = True) -> str:
    """The text with every control character shown as a visible symbol."""
    value = "" if text is None else str(text)
    if one_line:
        value = value.replace("\r\n", "\n").replace("\n", " ⏎ ").replace("\t", " ")
    return show_controls(value)


def literal(text: object, style: str | Style = "", one_line: bool = True) -> Text:
    """A Rich Text that shows `text` exactly as data, never as markup."""
    return Text(clean(text, one_line), style=style, no_wrap=one_line, overflow="ellipsis")
