"""The outcome of one command, as every view and client sees it."""

from __future__ import annotations

from .errors import EXIT_OK

TYPE_CHECKING = False  # not typing's: `cockpit exec` imports this module on every call
if TYPE_CHECKING:
    from typing import Any


class Outcome:
    """What a command handler returns: short text for people, structured data for programs."""

    __slots__ = ("output", "data")

    def __init__(self, output: str = "", data: dict[str, Any] | None = None) -> None:
        self.output = output
        self.data = {} if data is None else data

    def __repr__(self) -> str:
        return f"Outcome(output={self.output!r}, data={self.data!r})"


class Result:
    """One finished command. `to_json` is the `--json` / control-socket shape of the contract.

    A plain class, not a dataclass: importing dataclasses would cost a thin client more
    than the rest of its imports."""

    __slots__ = ("command", "ok", "output", "error", "ms", "data", "exit_code", "source")

    def __init__(self, command: str, ok: bool, *, output: str = "", error: str | None = None,
                 ms: float = 0.0, data: dict[str, Any] | None = None,
                 exit_code: int = EXIT_OK, source: str = "human") -> None:
        # keyword-only past `ok`: a positional slip once put a dict into `ms`
        self.command = command
        self.ok = ok
        self.output = output
        self.error = error
        self.ms = ms
        self.data = {} if data is None else data
        self.exit_code = exit_code
        self.source = source

    def __repr__(self) -> str:
        return (f"Result(command={self.command!r}, ok={self.ok!r}, output={self.output!r}, "
                f"error={self.error!r}, ms={self.ms:.1f}, exit_code={self.exit_code})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def but(self, **changes: Any) -> Result:
        """A copy with these fields changed: a step after the command adds to its Result
        by handing on a new one, never by editing the one it was given."""
        fields = {name: getattr(self, name) for name in self.__slots__}
        fields.update(changes)
        command, ok = fields.pop("command"), fields.pop("ok")
        return Result(command, ok, **fields)

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
