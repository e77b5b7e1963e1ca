"""Errors a command can end with, each mapped to an exit code of the contract.

Every error message is one line that names what was wrong and what to do next:
it is read by people and by language models alike.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's import: thin clients (`cockpit exec`) come through here
if TYPE_CHECKING:
    from typing import Any

# Exit codes of `run`, `exec` and `replay` (shared/CONTRACTS.md).
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
EXIT_WAIT_TIMEOUT = 4


class CommandError(Exception):
    """A command failed on the page: not found, timeout, navigation error..."""

    exit_code = EXIT_FAILED
    kind = "failed"

    def __init__(self, message: str, *, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data or {}


class UsageError(CommandError):
    """The command line itself is wrong: unknown command, bad or missing arguments."""

    exit_code = EXIT_USAGE
    kind = "usage"


class StaleRefError(CommandError):
    """A ref that no longer points at what it pointed at when it was given out."""

    kind = "stale_ref"


class ModalStateError(CommandError):
    """A dialog is open and must be answered before anything else runs."""

    kind = "modal"


class BrowserNotFoundError(RuntimeError):
    """No browser could be found or launched; the message says how to get one."""
