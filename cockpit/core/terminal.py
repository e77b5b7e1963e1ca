"""Page text is data, never terminal control: a page's title, text or console line may
hold ESC[2J (clear the screen), OSC 0 (retitle the window) or OSC 52 (write the
clipboard). Plain-text output shows every control character as a visible symbol (the
Unicode "control pictures", ␛ for ESC, ␇ for BEL), except newlines and tabs. JSON output
is left exact: json.dumps escapes control characters itself. Standard library only:
`cockpit exec` imports this on every call."""

from __future__ import annotations

import re

# C0 and C1 controls (ESC among them) and DEL; newline and tab are kept by `visible`.
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control picture", e.g. ␛ for ESC
    return "␡" if code == 0x7F else f"\\x{code:02x}"


def visible(text: str) -> str:
    """`text` safe to print to a terminal: newlines and tabs kept (a CR LF pair as a
    newline), every other control character shown as a symbol."""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return CONTROLS.sub(picture, text)
