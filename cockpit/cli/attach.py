"""Open the TUI on a live session started elsewhere (by `cockpit`, `serve`, `run` or
`demo`); closing it leaves the session running.

The session's own process owns its browser, recording and agent; here is only a view."""

from __future__ import annotations

import argparse
import asyncio

from ..core import EXIT_OK
from .exits import failed


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", default=None, metavar="NAME",
                        help="the session's name (default: $COCKPIT_SESSION, else default)")
    parser.add_argument("--socket", metavar="PATH", help="a session's socket path")
    parser.add_argument("--theme", metavar="NAME", help="a theme from themes/")


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .options import configure_logging
    configure_logging(None, tui=True)
    return asyncio.run(attached(args))


async def attached(args: argparse.Namespace) -> int:
    from ..control import discovery
    from ..control.remote_session import RemoteSession
    from ..core import workspace_dir
    from ..tui.app import CockpitApp
    from .terminal import kept_terminal
    try:
        remote = RemoteSession(args.session, socket_path=args.socket)
        await remote.start()
    except (discovery.Unreachable, ValueError) as exc:  # no such session; a bad name
        return failed("cockpit attach", exc)
    try:
        app = CockpitApp(remote, theme=args.theme,
                         history_path=workspace_dir() / "history.txt")
        with kept_terminal(app):
            await app.run_async()
    finally:
        await remote.close()
    return app.return_code or EXIT_OK
