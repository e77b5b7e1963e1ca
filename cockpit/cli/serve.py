"""Keep a session alive without the TUI and serve its control socket until Ctrl+C or
SIGTERM (for servers and CI); then the browser and the socket are closed cleanly. Drive
it with `cockpit exec`, watch it with `cockpit attach`."""

from __future__ import annotations

import argparse
import asyncio
import sys

from ..core import EXIT_OK
from .exits import failed
from .options import add_session_options, configure_logging, live_ahead


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", nargs="?", help="a URL to open first")
    parser.add_argument("--agent", metavar="CMD",
                        help="start CMD (a shell command) as the session's agent: it finds "
                             "the session through $COCKPIT_SOCKET; its output goes to stderr")
    add_session_options(parser)


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    configure_logging(args.log, tui=False)  # warnings, a failed recording too, on stderr
    return asyncio.run(serve(args))


async def serve(args: argparse.Namespace) -> int:
    from .live import OPEN_ERRORS, stop_signals, tell
    face = "cockpit serve"
    try:
        # checks the name against the socket directory's path; the driver starts meanwhile
        live = await live_ahead(args, agent=args.agent)
    except OPEN_ERRORS as exc:
        return failed(face, exc)
    session = live.session
    # no TUI here: say on stderr who was turned away and when a person is needed, and
    # what the agent says (a fleet of headless sessions, each with its agent, for `watch`)
    session.bus.subscribe(tell)
    if args.agent:
        from .run import agent_to_stderr
        session.bus.subscribe(agent_to_stderr)
    with stop_signals() as stop:
        try:
            await live.start()
        except OPEN_ERRORS as exc:
            return failed(face, exc)
        try:
            if args.url:
                result = await session.run(f"goto {args.url}", source="human")
                print(result.text, file=sys.stderr if not result.ok else sys.stdout)
            flag = "" if args.session == "default" else f" --session {args.session}"
            print(f"cockpit: session {args.session!r} is live on {live.description}\n"
                  f"  cockpit exec{flag} snapshot -i    run a command\n"
                  f"  cockpit attach{flag}              watch and drive it in the TUI\n"
                  f"  socket: {live.server.socket}\n"
                  f"Ctrl+C (or SIGTERM) stops it.", flush=True)
            await stop.wait()
            browser = ("closing the browser" if session.owns_browser else
                       "leaving the browser running (not Cockpit's)")
            print(f"cockpit: stopping: {browser} and closing the socket", file=sys.stderr,
                  flush=True)
            return EXIT_OK
        finally:
            await live.close()
