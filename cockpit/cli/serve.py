"""`cockpit serve`: a session with no TUI, reachable through its control socket until
SIGINT or SIGTERM; then the browser and the socket are closed cleanly."""

from __future__ import annotations

import asyncio
import signal
import sys

from . import session_from_args
from ..core import events as ev
from ..core.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, BrowserNotFoundError
from .live import Host
from ..control.discovery import Unreachable
from ..control.server import AlreadyLive


async def serve_main(args) -> int:
    try:
        session = session_from_args(args)
        host = Host(session)  # checks the name against the socket directory's path
    except ValueError as exc:
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Unreachable as exc:  # the socket directory is not ours, or not a directory
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_FAILED
    # no TUI here: say on stderr who was turned away and when a person is needed
    session.bus.subscribe(_tell)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await host.start()
    except AlreadyLive as exc:
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Unreachable as exc:  # the control socket could not be made
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except (BrowserNotFoundError, ValueError) as exc:
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_FAILED
    try:
        if args.url:
            result = await session.run(f"goto {args.url}", source="human")
            print(result.text, file=sys.stderr if not result.ok else sys.stdout)
        flag = "" if args.session == "default" else f" --session {args.session}"
        print(f"cockpit: session {args.session!r} is live on {session.plan.description}\n"
              f"  cockpit exec{flag} snapshot -i    run a command\n"
              f"  cockpit attach{flag}              watch and drive it in the TUI\n"
              f"  socket: {host.server.socket}\n"
              f"Ctrl+C (or SIGTERM) stops it.", flush=True)
        await stop.wait()
        print("cockpit: stopping: closing the browser and the socket", file=sys.stderr,
              flush=True)
        return EXIT_OK
    finally:
        await host.close()


# what a person can do about it, after the line the event's declaration says
NEXT_STEP = {ev.NEEDS_HUMAN: ": `cockpit attach` then F10, or `cockpit exec handoff`",
             ev.HANDOFF: "; `cockpit exec resume` ends it"}


def _tell(event) -> None:
    spec = ev.kind_of(event.kind)  # what is said, and how urgently: core/events.py
    line = spec.line(event.data)
    if line:
        line = ("\a " if spec.urgent else "") + line + NEXT_STEP.get(event.kind, "")
        print(f"cockpit: {line}", file=sys.stderr, flush=True)
