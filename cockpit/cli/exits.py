"""One exit code per error, for every face: the table, and the one line that says it.

Every face (`cockpit`, `--plain`, `run`, `serve`, `mcp`, `demo`, `replay`, `exec`,
`attach`, `web`, `export`) ends an error it expects with `failed(face, exc)`: the message
on stderr as `FACE: message`, and the code of the table below, so the same error exits
with the same code whichever face met it (shared/CONTRACTS.md's codes, core/errors.py).

Cheap to import (`cockpit exec` does, in a new process per agent step): the table names
its classes by module, and a class whose module was never imported cannot have raised."""

from __future__ import annotations

import sys

from ..core import EXIT_FAILED, EXIT_UNREACHABLE, EXIT_USAGE, EXIT_WAIT_TIMEOUT

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl+C

# (module, class, exit code), the first that matches wins: a subclass before its base.
TABLE: tuple[tuple[str, str, int], ...] = (
    ("builtins", "KeyboardInterrupt", EXIT_INTERRUPTED),
    # a live session of the same name: pick another --session (a usage error)
    ("cockpit.control.discovery", "AlreadyLive", EXIT_USAGE),
    # no live session answers, or the socket directory is not ours
    ("cockpit.control.discovery", "Unreachable", EXIT_UNREACHABLE),
    # waited past --timeout for the command's turn
    ("builtins", "TimeoutError", EXIT_WAIT_TIMEOUT),
    # no browser could be found, launched or attached to
    ("cockpit.core.base.errors", "BrowserNotFoundError", EXIT_FAILED),
    # a recording that cannot be read, given on the command line
    ("cockpit.record.reader", "UnreadableRecording", EXIT_USAGE),
    # a bad option value: a session name, a secret, --cdp, --ws-endpoint
    ("builtins", "ValueError", EXIT_USAGE),
)


def exit_code(exc: BaseException) -> int:
    """The exit code of this error (EXIT_FAILED for one the table does not name)."""
    for module_name, class_name, code in TABLE:
        module = sys.modules.get(module_name)
        kind = getattr(module, class_name, None) if module is not None else None
        if isinstance(kind, type) and isinstance(exc, kind):
            return code
    return EXIT_FAILED


def failed(face: str, exc: BaseException | str, code: int | None = None) -> int:
    """Say the error on stderr as one line, `FACE: message`, and return its exit code
    (`code` for a message that is no exception)."""
    print(f"{face}: {exc}", file=sys.stderr, flush=True)
    if code is not None:
        return code
    return exit_code(exc) if isinstance(exc, BaseException) else EXIT_FAILED
