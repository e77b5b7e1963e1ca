"""What could be expected of an element now: the `expect` lines that hold at this moment
(visible, enabled or disabled, checked or unchecked, focused, its value, its text), for a
person to pick one from (the TUI's `a` on a ref) or an agent to choose from."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from ..language.parser import as_ref

if TYPE_CHECKING:
    from ..session.session import CommandContext

TEXT_CHARS = 60  # of an element's text proposed (`text` checks that it contains them)
READ_TIMEOUT_MS = 1_000
KIND_JS = """el => ({
  field: el.matches('input:not([type=checkbox]):not([type=radio]):not([type=button])'
                    + ':not([type=submit]):not([type=reset]):not([type=file]), textarea, select'),
  password: el.type === 'password',
  checkable: el.matches('input[type=checkbox], input[type=radio]')
    || ['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']
       .includes(el.getAttribute('role')),
  focused: el === document.activeElement,
})"""


def quoted(text: str) -> str:
    """A value as one word of a command line (quoted only when it needs to be)."""
    return shlex.quote(text) if text else "''"


def first_words(text: str, limit: int = TEXT_CHARS) -> str:
    """The start of an element's text, whole words, collapsed as Playwright compares."""
    words = " ".join(text.split())
    if len(words) <= limit:
        return words
    cut = words[:limit]
    return cut.rsplit(" ", 1)[0] if " " in cut else cut


async def proposals(ctx: CommandContext, target: str) -> list[str]:
    """The expectations of `target` that hold now, as `expect` lines."""
    locator = await ctx.one(target)
    ref = as_ref(target)
    t = f"@{ref}" if ref else quoted(target)
    if not await locator.is_visible():
        return [f"expect {t} hidden"]
    lines = [f"expect {t} visible"]
    try:
        kind: dict[str, Any] = await locator.evaluate(KIND_JS)
        enabled = await locator.is_enabled(timeout=READ_TIMEOUT_MS)
        lines.append(f"expect {t} {'enabled' if enabled else 'disabled'}")
        if kind["checkable"]:
            checked = await locator.is_checked(timeout=READ_TIMEOUT_MS)
            lines.append(f"expect {t} {'checked' if checked else 'unchecked'}")
        if kind["focused"]:
            lines.append(f"expect {t} focused")
        if kind["field"] and not kind["password"]:  # a password is never shown
            value = await locator.input_value(timeout=READ_TIMEOUT_MS)
            lines.append(f"expect {t} value {quoted(value)}")
        text = first_words(await locator.text_content(timeout=READ_TIMEOUT_MS) or "")
        if text and not kind["field"]:
            lines.append(f"expect {t} text {quoted(text)}")
    except PlaywrightError as exc:  # it went away meanwhile: what was found so far holds
        ctx.notes.append(f"stopped reading it: {str(exc).splitlines()[0]}")
    return lines
