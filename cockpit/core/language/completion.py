"""Completion candidates for a partly typed command line, from the registry and the refs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..base.errors import UsageError
from .parser import split_words
from .registry import COMMAND, TARGET, Registry
from ..model.snapshot import INTERACTIVE_ROLES


@dataclass(frozen=True)
class Candidate:
    text: str  # what replaces the word being typed
    label: str  # what a menu shows, e.g. '@e3 button "Sign in"'
    help: str = ""


def complete(line: str, registry: Registry,
             refs: Sequence[tuple[str, str, str]] = ()) -> tuple[str, list[Candidate]]:
    """Return the word being completed and its candidates.

    `refs` are (ref, role, name) of the active tab's snapshot."""
    try:
        words = split_words(line)
    except UsageError:  # an open quote while typing: complete the plain words
        words = line.split()
    word = "" if not line or line[-1].isspace() else (words[-1] if words else "")
    if len(words) <= 1 and word:
        names = [w for w in registry.words() if w.startswith(word.lower())]
        return word, [Candidate(n, n, _summary(registry, n)) for n in names]
    spec = registry.get(words[0]) if words else None
    if spec is None:
        return word, []
    if word.startswith("-"):
        out = []
        for f in spec.flags:  # one candidate a flag, however many of its names match
            names = [n for n in (f.short, f.name) if n and n.startswith(word)]
            if names:
                out.append(Candidate(names[0], f.usage, f.help))
        return word, out
    position = len([w for w in words[1:] if not w.startswith("-")]) - (1 if word else 0)
    arg = spec.args[min(position, len(spec.args) - 1)] if spec.args else None
    if arg is not None and arg.choices:
        return word, [Candidate(c, c, arg.help) for c in arg.choices if c.startswith(word)]
    if arg is not None and arg.kind == COMMAND and not word.startswith("@"):
        return word, [Candidate(n, n, _summary(registry, n)) for n in registry.words()
                      if n.startswith(word.lower())]
    if (arg is not None and arg.kind == TARGET) or word.startswith("@"):
        bare = word.lstrip("@")
        found = [(r, role, name) for r, role, name in refs if r.startswith(bare)]
        found.sort(key=lambda x: x[1] not in INTERACTIVE_ROLES)  # controls first, stable
        return word, [Candidate(f"@{r}", f'@{r} {role} "{name}"' if name else f"@{r} {role}")
                      for r, role, name in found]
    return word, []


def _summary(registry: Registry, word: str) -> str:
    spec = registry.get(word)
    return spec.summary if spec else ""
