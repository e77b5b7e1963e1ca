"""`cockpit serve`: a session with no TUI, reachable through its control socket until
SIGINT or SIGTERM; then the browser and the socket are closed cleanly."""

from __future__ import annotations

import asyncio
import signal
import sys

from .cli import session_from_args
from .core.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, BrowserNotFoundError
from .remote.server import AlreadyLive, ControlServer


async def serve_main(args) -> int:
    try:
        session = session_from_args(args)
    except ValueError as exc:
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    server = ControlServer(session)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await server.start()  # first: a second `serve` of the same name fails before a browser starts
    except AlreadyLive as exc:
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        try:
            await session.start()
        except (BrowserNotFoundError, ValueError) as exc:
            print(f"cockpit serve: {exc}", file=sys.stderr)
            return EXIT_FAILED
        if args.url:
            result = await session.run(f"goto {args.url}", source="human")
            print(result.text, file=sys.stderr if not result.ok else sys.stdout)
        flag = "" if args.session == "default" else f" --session {args.session}"
        print(f"cockpit: session {args.session!r} is live on {session.plan.description}\n"
              f"  cockpit exec{flag} snapshot -i    run a command\n"
              f"  cockpit attach{flag}              watch and drive it in the TUI\n"
              f"  socket: {server.socket}\n"
              f"Ctrl+C (or SIGTERM) stops it.", flush=True)
        await stop.wait()
        print("cockpit: stopping: closing the browser and the socket", file=sys.stderr,
              flush=True)
        return EXIT_OK
    finally:
        await server.close()
        await session.close()
