"""The outcome of one command, as every view and client sees it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import EXIT_OK


@dataclass
class Outcome:
    """What a command handler returns: short text for people, structured data for programs."""

    output: str = ""
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Result:
    """One finished command. `to_json` is the `--json` / control-socket shape of the contract."""

    command: str
    ok: bool
    output: str = ""
    error: str | None = None
    ms: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)
    exit_code: int = EXIT_OK
    source: str = "human"

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "command": self.command,
            "output": self.output,
            "error": self.error,
            "ms": round(self.ms, 1),
            "data": self.data,
        }

    @property
    def text(self) -> str:
        """The plain-text form: the output, or the error line."""
        if self.ok:
            return self.output
        return f"error: {self.error}" + (f"\n{self.output}" if self.output else "")
