"""Hostile text is data: page titles, names, URLs, console lines and agent output are shown
literally. Rich markup is never parsed (we build `Text`, not markup strings) and escape
sequences and control characters are made visible instead of reaching the terminal."""

from __future__ import annotations

import re

from rich.text import Text

# C0 and C1 controls (ESC among them) and DEL; newlines and tabs are handled by callers.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control picture", e.g. ␛ for ESC
    return "␡" if code == 0x7F else f"\\x{code:02x}"


def clean(text: object, one_line: bool = True) -> str:
    """The text with every control character shown as a visible symbol."""
    value = "" if text is None else str(text)
    if one_line:
        value = value.replace("\r\n", "\n").replace("\n", " ⏎ ").replace("\t", " ")
    return _CONTROLS.sub(_visible, value)


def literal(text: object, style: str = "", one_line: bool = True) -> Text:
    """A Rich Text that shows `text` exactly as data, never as markup."""
    return Text(clean(text, one_line), style=style, no_wrap=one_line, overflow="ellipsis")
