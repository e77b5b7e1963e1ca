"""The `cockpit` command line (see shared/CONTRACTS.md for the contract).

Importing this package is cheap: `cockpit exec`, the agents' hot path, is dispatched
before argparse, asyncio or any face is imported (see dispatch.py for the others), and
this module imports nothing itself (functools, for a decorator, was ~3 ms of each exec)."""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    """The command (`argv`: the arguments, default sys.argv's); returns its exit code.
    Called without `argv` it is this process's command: `cockpit exec` then ends the
    process itself (see _end)."""
    try:
        args = list(sys.argv[1:] if argv is None else argv)
        if args and args[0] == "exec":  # no argparse, no asyncio, no browser
            from .exec import main as exec_main
            code = exec_main(args[1:])
            if argv is None:
                _end(code)
            return code
        from .dispatch import dispatch
        return dispatch(args)
    except BrokenPipeError:
        # `cockpit exec text | head -1`: a reader that stops early is no failure (exit 0,
        # no traceback). Later writes (the interpreter's final flush) go to /dev/null.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _end(code: int) -> None:
    """End an exec process now, with its output flushed: the interpreter's own shutdown
    (freeing every module and object one by one) costs more than a millisecond of each
    agent step, and exec leaves nothing to clean up: its connection is closed, no thread,
    no atexit handler, no file open."""
    for stream in (sys.stdout, sys.stderr):  # None when started with it closed
        if stream is not None:
            stream.flush()  # a closed pipe raises here, and is handled as above
    os._exit(code)
