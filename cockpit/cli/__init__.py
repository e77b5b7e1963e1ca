"""The `cockpit` command line (see shared/CONTRACTS.md for the contract).

Importing this package is cheap: `cockpit exec`, the agents' hot path, is dispatched
before argparse, asyncio or any face is imported (see dispatch.py for the others)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "exec":  # no argparse, no asyncio, no browser
        from .exec import main as exec_main
        return exec_main(argv[1:])
    from .dispatch import dispatch
    return dispatch(argv)
