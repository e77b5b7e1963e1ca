"""Secrets given with `--secret NAME=VALUE` (or `--secret NAME`, read from $NAME): commands
use them as `$NAME`, the line shown and recorded keeps the name, and every place Cockpit
writes to disk masks the value."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
USE = re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")


class Secrets:
    def __init__(self, on_add: Callable[[str, str], None] | None = None) -> None:
        self.values: dict[str, str] = {}
        self._on_add = on_add  # the session's redactor: views show the value as $NAME

    def __bool__(self) -> bool:
        return bool(self.values)

    def add(self, spec: str) -> None:
        """`NAME=VALUE`, or `NAME` to take the value from the environment variable NAME
        (so it does not show in the process list). ValueError says what is wrong."""
        name, eq, value = spec.partition("=")
        if not NAME.match(name):
            raise ValueError(f"--secret {spec.split('=')[0]!r}: a secret's name is letters, "
                             "digits and _ (not starting with a digit), as in "
                             "--secret PASSWORD=hunter2")
        if not eq:
            if name not in os.environ:
                raise ValueError(f"--secret {name}: there is no environment variable {name} "
                                 f"to read it from; export it, or give --secret {name}=VALUE")
            value = os.environ[name]
        if not value:
            raise ValueError(f"--secret {name}: the value is empty")
        self.values[name] = value
        if self._on_add is not None:
            self._on_add(name, value)

    def expand(self, line: str) -> str:
        """`$NAME` and `${NAME}` of known secrets replaced by their values; a whole word is
        quoted so a value with spaces stays one argument. Unknown names are left as typed."""
        def one(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(2)
            if name not in self.values:
                return m.group(0)
            value = self.values[name]
            start, end = m.span()
            whole = (start == 0 or line[start - 1].isspace()) and \
                (end == len(line) or line[end].isspace())
            return shlex.quote(value) if whole else value
        return USE.sub(one, line)
