"""The prompt's history, kept per workspace so it survives restarts.

The file is the user's own (mode 0600) and never holds a secret: a line is written only
once it ran and the session showed it as typed; a line the session masked (it typed into a
password field, or held a `--secret` value) is forgotten, also in memory, since recalling
it would type the mask."""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger("cockpit.tui.history")

MAX_LINES = 5000


class History:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lines: list[str] = []
        self._pending: list[str] = []  # added, not yet run: not in the file yet
        if path is not None and path.is_file():
            os.chmod(path, 0o600)  # an older Cockpit made it 0644
            self.lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[
                -MAX_LINES:]
        self.position = len(self.lines)

    def add(self, line: str) -> None:
        """A submitted line: recalled at once; written by `settle` once it ran."""
        if line and (not self.lines or self.lines[-1] != line):
            self.lines.append(line)
            self._pending.append(line)
        self.position = len(self.lines)

    def settle(self, line: str, shown: str) -> None:
        """`line` ran and the session showed it as `shown`: keep it, or forget it."""
        line = line.strip()
        if line not in self._pending:
            return
        self._pending.remove(line)
        if shown.strip() != line:
            for i in range(len(self.lines) - 1, -1, -1):
                if self.lines[i] == line:
                    del self.lines[i]
                    break
            self.position = len(self.lines)
            return
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                try:
                    os.fchmod(fd, 0o600)
                    os.write(fd, (line.replace("\n", " ") + "\n").encode("utf-8"))
                finally:
                    os.close(fd)
            except OSError as exc:  # kept for this run; said once, in the log
                log.warning("the prompt history cannot be saved to %s: %s", self.path, exc)
                self.path = None

    def older(self) -> str | None:
        if self.position == 0:
            return None
        self.position -= 1
        return self.lines[self.position]

    def newer(self) -> str:
        self.position = min(len(self.lines), self.position + 1)
        return self.lines[self.position] if self.position < len(self.lines) else ""

    def search(self, needle: str) -> list[str]:
        """Most recent first, without repeats."""
        seen: set[str] = set()
        out = []
        for line in reversed(self.lines):
            if needle.lower() in line.lower() and line not in seen:
                seen.add(line)
                out.append(line)
        return out
