"""Keep a session alive without the TUI and serve its control socket until Ctrl+C or
SIGTERM (for servers and CI); then the browser and the socket are closed cleanly. Drive
it with `cockpit exec`, watch it with `cockpit attach`."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from ..core import events as ev
from ..core.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from .options import add_session_options, configure_logging, live_from_args


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", nargs="?", help="a URL to open first")
    add_session_options(parser)


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    configure_logging(args.log, tui=False)  # warnings, a failed recording too, on stderr
    return asyncio.run(serve(args))


async def serve(args: argparse.Namespace) -> int:
    from ..control.discovery import Unreachable
    from ..core.errors import BrowserNotFoundError
    from .live import AlreadyLive
    try:
        live = live_from_args(args)  # checks the name against the socket directory's path
    except ValueError as exc:
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Unreachable as exc:  # the socket directory is not ours, or not a directory
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_FAILED
    session = live.session
    # no TUI here: say on stderr who was turned away and when a person is needed
    session.bus.subscribe(_tell)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await live.start()
    except AlreadyLive as exc:
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (Unreachable, BrowserNotFoundError, ValueError) as exc:
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
              f"  socket: {live.server.socket}\n"
              f"Ctrl+C (or SIGTERM) stops it.", flush=True)
        await stop.wait()
        print("cockpit: stopping: closing the browser and the socket", file=sys.stderr,
              flush=True)
        return EXIT_OK
    finally:
        await live.close()


# what a person can do about it, after the line the event's declaration says
NEXT_STEP = {ev.NEEDS_HUMAN: ": `cockpit attach` then F10, or `cockpit exec handoff`",
             ev.HANDOFF: "; `cockpit exec resume` ends it"}


def _tell(event) -> None:
    if event.kind == ev.RECORDING_FAILED:
        return  # the recorder logs it, and the log goes to stderr here (configure_logging)
    spec = ev.kind_of(event.kind)  # what is said, and how urgently: core/events.py
    line = spec.line(event.data)
    if line:
        line = ("\a " if spec.urgent else "") + line + NEXT_STEP.get(event.kind, "")
        print(f"cockpit: {line}", file=sys.stderr, flush=True)
