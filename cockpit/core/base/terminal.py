"""Page text is data, never terminal control: a page's title, text or console line may
hold ESC[2J (clear the screen), OSC 0 (retitle the window) or OSC 52 (write the
clipboard). Plain-text output shows every control character as a visible symbol (the
Unicode "control pictures", ␛ for ESC, ␇ for BEL), except newlines and tabs. JSON output
is left exact: json.dumps escapes control characters itself. Standard library only, and
no `re` (a few milliseconds to import): `cockpit exec` imports this on every call."""

from __future__ import annotations

# C0 and C1 controls (ESC among them) and DEL, each to what is shown instead; newline and
# tab are not among them. For str.translate.
PICTURES: dict[int, str] = {
    **{code: chr(0x2400 + code) for code in (*range(0x00, 0x09), *range(0x0B, 0x20))},
    0x7F: "␡",
    **{code: f"\\x{code:02x}" for code in range(0x80, 0xA0)},
}
# To look for them in the text's UTF-8 form: C0 and DEL are bytes of their own there (no
# multibyte sequence holds a byte below 0x80), C1 is 0xC2 then 0x80-0x9F.
_C0_AND_DEL = bytes(code for code in PICTURES if code < 0x80)
_C1_SECOND_BYTE = bytes.maketrans(bytes(range(0x80, 0xA0)), b"\x01" * 0x20)


def _has_controls(text: str) -> bool:
    data = text.encode("utf-8", "surrogatepass")
    if len(data.translate(None, _C0_AND_DEL)) != len(data):
        return True
    return b"\xc2\x01" in data.translate(_C1_SECOND_BYTE)  # 0x01 itself was ruled out


def show_controls(text: str) -> str:
    """`text` with every control character but newline and tab shown as a symbol."""
    # str.translate is quick on ASCII text but looks up every character of any other
    # (~50 ms a MB): such text, nearly always free of controls, is checked first as bytes
    if not text.isascii() and not _has_controls(text):
        return text
    return text.translate(PICTURES)


def visible(text: str) -> str:
    """`text` safe to print to a terminal: newlines and tabs kept (a CR LF pair as a
    newline), every other control character shown as a symbol."""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return show_controls(text)
