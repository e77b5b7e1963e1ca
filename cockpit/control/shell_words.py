"""Words quoted back into one command line, as `shlex.quote` and `shlex.join` do.

`cockpit exec click @e3` arrives as two words and is sent as one line; shlex would cost
that step its import and `re`'s (shlex compiles its pattern at import on Python 3.11 and
3.12; 3.13's shlex.quote does without it, as this does)."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's import: this module is on `cockpit exec`'s path
if TYPE_CHECKING:
    from typing import Iterable

# what shlex.quote leaves bare: ASCII letters, digits and these marks
SAFE = frozenset(b"%+,-./0123456789:=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")


def quote(word: str) -> str:
    """`shlex.quote(word)`: the word as the shell reads it back, quoted when it must be."""
    if not word:
        return "''"
    if word.isascii() and SAFE.issuperset(word.encode()):
        return word
    # single quotes, and a single quote as '"'"' (end, a quoted quote, start again)
    return "'" + word.replace("'", "'\"'\"'") + "'"


def join(words: Iterable[str]) -> str:
    """`shlex.join(words)`."""
    return " ".join(quote(word) for word in words)
