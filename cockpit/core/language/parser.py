"""Turns one command line into a command and its values, from the registry's declarations."""

from __future__ import annotations

import difflib
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import UsageError
from .registry import INT, REGISTRY, CommandSpec, Registry


@dataclass
class Invocation:
    """A parsed command line: which command, and its argument and flag values by name."""

    spec: CommandSpec
    line: str
    params: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, key: str) -> Any:
        try:
            return self.params[key]
        except KeyError:
            raise AttributeError(key) from None


_QUOTING = frozenset("\"'\\")
EXCERPT = 60  # characters of a long line or word that an error quotes

# POSIX shell words as shlex.split makes them, in one pass: shlex builds each word a
# character at a time (`token = token + c`), which is quadratic, so a 1 MiB line took
# half a minute. Whitespace is shlex's; inside double quotes a backslash escapes only
# `"` and itself; outside quotes it escapes any character.
# The double-quoted piece is the unrolled loop `"[^"\\]*(?:\\.[^"\\]*)*"`: each character
# can be matched one way only, so an unclosed quote fails in linear time (the nested
# `(?:[^"\\]+|\\.)*` backtracked exponentially and hung the session).
_PIECE = re.compile(r"""[^ \t\r\n'"\\]+|'[^']*'|"[^"\\]*(?:\\.[^"\\]*)*"|\\.|[ \t\r\n]+""",
                    re.DOTALL)
_IN_DOUBLE = re.compile(r"""\\([\\"])""")


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """`text`, or its start and its length when it is long: errors never echo a huge input."""
    text = text.strip()
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def _words_with_ends(line: str) -> list[tuple[str, int]]:
    """Each word of a line that has quotes or backslashes, with where it ends in the line."""
    words: list[tuple[str, int]] = []
    parts: list[str] = []
    in_word = False
    pos, end = 0, len(line)
    while pos < end:
        match = _PIECE.match(line, pos)
        if match is None:  # an opening quote with no closing one, or a final backslash
            problem = "no escaped character" if line[pos] == "\\" else "no closing quotation"
            raise UsageError(f"malformed quotes in `{excerpt(line)}` ({problem}): close the "
                             "quote, or escape it with a backslash")
        piece = match.group()
        first = piece[0]
        if first in " \t\r\n":
            if in_word:
                words.append(("".join(parts), pos))
                parts, in_word = [], False
        else:
            in_word = True
            if first == "'":
                parts.append(piece[1:-1])
            elif first == '"':
                parts.append(_IN_DOUBLE.sub(r"\1", piece[1:-1]))
            elif first == "\\":
                parts.append(piece[1])
            else:
                parts.append(piece)
        pos = match.end()
    if in_word:
        words.append(("".join(parts), end))
    return words


def split_words(line: str) -> list[str]:
    if _QUOTING.isdisjoint(line):
        return line.split()  # the common case, and ten times cheaper than the quoted path
    return [word for word, _ in _words_with_ends(line)]


def suggest(word: str, registry: Registry = REGISTRY) -> str:
    close = difflib.get_close_matches(word.lower()[:40], registry.words(), n=3, cutoff=0.5)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return f"unknown command '{excerpt(word)}': {hint}Type `help` to list the commands."


def _number(text: str, what: str, spec: CommandSpec) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{spec.name}: {what} must be a whole number, got '{excerpt(text)}' "
                         f"(usage: {spec.synopsis})") from None


def _raw_rest(line: str, skip_words: int) -> str:
    """The line after its first `skip_words` words, verbatim (quotes kept for JS code)."""
    head = line.split(None, skip_words)
    if _QUOTING.isdisjoint(" ".join(head[:skip_words])):
        rest = head[skip_words].strip() if len(head) > skip_words else ""
    else:
        ends = _words_with_ends(line)
        rest = line[ends[skip_words - 1][1]:].strip() if len(ends) >= skip_words else ""
    # A rest that is one quoted word is unquoted: `js "document.title"` means the expression.
    if len(rest) >= 2 and rest[0] in "\"'" and rest[-1] == rest[0]:
        words = split_words(rest)
        if len(words) == 1:
            return words[0]
    return rest


def command_of(line: str, registry: Registry = REGISTRY) -> CommandSpec | None:
    """The command a line names, as `parse` finds it (any case, aliases too), without
    checking its arguments; None when the line names no command or cannot be split."""
    try:
        words = split_words(line)
    except UsageError:
        return None
    return registry.get(words[0]) if words else None


def parse(line: str, registry: Registry = REGISTRY) -> Invocation:
    return parse_words(line, split_words(line), registry)


def parse_words(line: str, words: list[str], registry: Registry = REGISTRY, *,
                raw: str | None = None) -> Invocation:
    """`parse` of a line already split into `words` (Command.of splits it once). `raw`:
    the command's raw last argument (JS code) when it is known apart from the line."""
    if not words:
        raise UsageError("empty command: type a command, or `help` to list them")
    spec = registry.get(words[0])
    if spec is None:
        raise UsageError(suggest(words[0], registry))
    values: dict[str, Any] = {f.key: [] if f.repeat else f.default for f in spec.flags}
    positionals: list[str] = []
    rest_is_raw = bool(spec.args) and spec.args[-1].raw
    i, flags_done = 1, False
    while i < len(words):
        word = words[i]
        if rest_is_raw and len(positionals) == len(spec.args) - 1 and not word.startswith("-"):
            break  # the raw argument starts here; take it from the line itself
        if word == "--" and not flags_done:
            flags_done = True
        elif not flags_done and word.startswith("-") and not _is_number(word):
            name, _, inline = word.partition("=")
            flag = spec.flag(name)
            if flag is None:
                known = ", ".join(f.usage for f in spec.flags) or "none"
                raise UsageError(f"{spec.name} has no flag '{excerpt(name)}' (its flags: {known}); "
                                 f"put `--` before text that starts with '-'")
            if flag.value is None:
                values[flag.key] = True
            else:
                if not inline:
                    i += 1
                    if i >= len(words):
                        raise UsageError(f"{spec.name}: {flag.name} needs a value "
                                         f"({flag.usage})")
                    inline = words[i]
                value = _number(inline, flag.name, spec) if flag.kind == INT else inline
                if flag.repeat:
                    values[flag.key].append(value)
                else:
                    values[flag.key] = value
        else:
            positionals.append(word)
        i += 1
    if rest_is_raw and i < len(words):
        positionals.append(raw if raw is not None else _raw_rest(line, i))
    _bind(spec, positionals, values)
    return Invocation(spec, line.strip(), values)


def _is_number(word: str) -> bool:
    try:
        float(word)
        return True
    except ValueError:
        return False


def _bind(spec: CommandSpec, words: list[str], values: dict[str, Any]) -> None:
    """Assign positional words to the declared arguments, checking count, kind and choices."""
    args = list(spec.args)
    for n, arg in enumerate(args):
        if arg.variadic or arg.raw:
            taken, words = words, []
            if not taken and not arg.optional:
                raise UsageError(f"{spec.name} needs {arg.metavar} (usage: {spec.synopsis})")
            values[arg.name] = " ".join(taken) if arg.raw else taken
            continue
        if not words:
            if not arg.optional:
                missing = " ".join(a.metavar for a in args[n:] if not a.optional)
                example = f"; e.g. {spec.examples[0]}" if spec.examples else ""
                raise UsageError(f"{spec.name} needs {missing} (usage: {spec.synopsis}{example})")
            values[arg.name] = None
            continue
        word = words.pop(0)
        if arg.choices and word.lower() not in arg.choices:
            raise UsageError(f"{spec.name}: '{excerpt(word)}' is not one of "
                             f"{', '.join(arg.choices)} (usage: {spec.synopsis})")
        values[arg.name] = word.lower() if arg.choices else (
            _number(word, arg.metavar, spec) if arg.kind == INT else word)
    if words:
        extra = excerpt(" ".join(shlex.quote(w) for w in words[:20]))
        raise UsageError(f"{spec.name}: unexpected extra argument(s) {extra} (usage: "
                         f"{spec.synopsis}); quote text that has spaces")


# a target's ref: `@e3`, `e3`, `ref=e3`; `@f1e3` inside frame 1
REF = re.compile(r"^(?:@|ref=)?((?:f\d+)?e\d+)$")


def as_ref(target: str) -> str | None:
    m = REF.match(target.strip())
    return m.group(1) if m else None


def split_chain(words: list[str]) -> list[str]:
    """`chain a x ; b y` or `chain "a x" "b y"` -> ["a x", "b y"]."""
    if ";" in words:
        lines: list[str] = []
        current: list[str] = []
        for word in words + [";"]:
            if word == ";":
                if current:
                    lines.append(shlex.join(current))
                current = []
            else:
                current.append(word)
        return lines
    return [w for w in words if w.strip()]
