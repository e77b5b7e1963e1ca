"""Words put into one command line: the one way Cockpit quotes (the client's named
methods, `cockpit exec`'s words, the MCP tools' arguments, the TUI's keys all use `join`).

Each word is quoted as `shlex.quote` quotes it, except a lone secret reference (`$NAME`
or `${NAME}`): the session expands that itself and quotes the value, which a quoted
`'$NAME'` would keep it from doing whole (a value with a quote or a space in it).

Standard library only, and none of it: `cockpit exec` imports this in a new process per
agent step, and shlex would cost that step its import and `re`'s (shlex compiles its
pattern at import on Python 3.11 and 3.12; 3.13's shlex.quote does without it, as this
does)."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's import: this module is on `cockpit exec`'s path
if TYPE_CHECKING:
    from typing import Iterable

# what shlex.quote leaves bare: ASCII letters, digits and these marks
SAFE = frozenset(b"%+,-./0123456789:=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
# a secret's name (core/secrets.py's NAME): a letter or _, then letters, digits or _
NAME_START = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
NAME_REST = NAME_START | frozenset(b"0123456789")


def quote(word: str) -> str:
    """`shlex.quote(word)`: the word as the shell reads it back, quoted when it must be."""
    if not word:
        return "''"
    if word.isascii() and SAFE.issuperset(word.encode()):
        return word
    # single quotes, and a single quote as '"'"' (end, a quoted quote, start again)
    return "'" + word.replace("'", "'\"'\"'") + "'"


def is_secret_reference(word: str) -> bool:
    """`$NAME` or `${NAME}`, as the session expands it (core/secrets.py's USE)."""
    name = word[2:-1] if word.startswith("${") and word.endswith("}") else word[1:]
    return (word.startswith("$") and name.isascii() and bool(name)
            and name.encode()[0] in NAME_START and NAME_REST.issuperset(name.encode()))


def join(words: Iterable[str]) -> str:
    """The words as one command line that the session splits back into the same words
    (a lone `$NAME` left for the session to expand)."""
    return " ".join(word if is_secret_reference(word) else quote(word) for word in words)


def positional(*args: str) -> list[str]:
    """A command's arguments (no flags) as the words after its name: `--` first when one
    starts with '-', which the session would take for a flag (`press -- -`)."""
    return ["--", *args] if any(arg.startswith("-") for arg in args) else list(args)
