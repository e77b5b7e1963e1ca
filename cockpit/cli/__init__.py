"""The `cockpit` command line (see shared/CONTRACTS.md for the contract).

Importing this package is cheap: `cockpit exec`, the agents' hot path, is dispatched
before argparse, asyncio or any face is imported (see dispatch.py for the others)."""

from __future__ import annotations

import sys


def _quiet_on_closed_pipe(func):
    """`cockpit exec text | head -1`: a reader that stops early is no failure (exit 0, no
    traceback). Later writes (the interpreter's final flush) go to /dev/null."""
    import functools
    import os

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    return wrapper


@_quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "exec":  # no argparse, no asyncio, no browser
        from .exec import main as exec_main
        return exec_main(argv[1:])
    from .dispatch import dispatch
    return dispatch(argv)
