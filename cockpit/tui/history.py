"""The prompt's history, kept per workspace so it survives restarts."""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger("cockpit.tui.history")

MAX_LINES = 5000


class History:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lines: list[str] = []
        if path is not None and path.is_file():
            self.lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[
                -MAX_LINES:]
        self.position = len(self.lines)

    def add(self, line: str) -> None:
        if line and (not self.lines or self.lines[-1] != line):
            self.lines.append(line)
            if self.path is not None:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    with self.path.open("a", encoding="utf-8") as f:
                        f.write(line.replace("\n", " ") + "\n")
                except OSError as exc:  # kept for this run; said once, in the log
                    log.warning("the prompt history cannot be saved to %s: %s",
                                self.path, exc)
                    self.path = None
        self.position = len(self.lines)

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
