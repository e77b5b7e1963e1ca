"""`cockpit serve`: a session with no TUI, reachable through its control socket until
SIGINT or SIGTERM; then the browser and the socket are closed cleanly."""

from __future__ import annotations

import asyncio
import signal
import sys

from .cli import session_from_args
from .core.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, BrowserNotFoundError
from .host import Host
from .remote.server import AlreadyLive


async def serve_main(args) -> int:
    try:
        session = session_from_args(args)
    except ValueError as exc:
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    host = Host(session)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await host.start()
    except AlreadyLive as exc:
        print(f"cockpit serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
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
