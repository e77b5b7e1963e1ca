"""A command line parsed once, at the door: what every later step reads.

`Session.run` makes one Command of each line it is given; queueing, holds, the refs it
uses, the masked line the events show, running it and the post-steps all read this
object instead of splitting the line again (tests/unit/test_command.py counts).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base.errors import UsageError
from .parser import Invocation, as_ref, parse_words, split_chain, split_words
from .registry import REGISTRY, CommandSpec, Registry
from .shell_words import join


@dataclass(frozen=True)
class Command:
    """One line: its words, the command they name and its parsed arguments.

    `spec` is None when the line names no command (or cannot be split); `invocation` is
    None when its arguments do not parse, and `error` then says why, as `parse` would."""

    line: str
    words: tuple[str, ...]
    spec: CommandSpec | None
    invocation: Invocation | None
    error: UsageError | None

    @classmethod
    def of(cls, line: str, registry: Registry = REGISTRY) -> Command:
        try:
            words = split_words(line)
        except UsageError as exc:  # unbalanced quotes: it names no command
            return cls(line, (), None, None, exc)
        spec = registry.get(words[0]) if words else None
        try:
            return cls(line, tuple(words), spec, parse_words(line, words, registry), None)
        except UsageError as exc:
            return cls(line, tuple(words), spec, None, exc)

    @classmethod
    def of_words(cls, words: list[str], raw: str = "",
                 registry: Registry = REGISTRY) -> Command:
        """A command given as its words, not a line (an MCP tool's structured arguments):
        nothing to split. `raw`: its raw last argument (JS code), verbatim. Its `line`
        (what the log shows) quotes each word as a person would type it."""
        line = join(words) + (f" {raw}" if raw else "")
        given = [*words, raw] if raw else list(words)
        spec = registry.get(words[0]) if words else None
        try:
            invocation = parse_words(line, given, registry, raw=raw or None)
        except UsageError as exc:
            return cls(line, tuple(given), spec, None, exc)
        return cls(line, tuple(given), spec, invocation, None)

    @property
    def name(self) -> str | None:
        return self.spec.name if self.spec else None

    def refs(self) -> list[str]:
        """The refs its arguments name (`@e3` -> "e3"), in order; a chain's, those of each
        command in it (`chain 'click @e3' 'fill @e4 x'`): replay and export find them."""
        words = list(self.words[1:])
        if self.name == "chain":
            words = [word for line in split_chain(words) for word in _arguments(line)]
        return [ref for word in words if (ref := as_ref(word)) is not None]

    def parsed(self) -> Invocation:
        """Its invocation; the UsageError that stopped its parse when there is none."""
        if self.invocation is None:
            raise self.error or UsageError("empty command: type a command, or `help` to "
                                           "list them")
        return self.invocation


def _arguments(line: str) -> list[str]:
    """The words after the command's name ([] for a line that cannot be split)."""
    try:
        return split_words(line)[1:]
    except UsageError:
        return []
