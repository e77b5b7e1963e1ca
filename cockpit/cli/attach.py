"""Open the TUI on a live session started elsewhere (by `cockpit`, `serve`, `run` or
`demo`), here or on another machine through your ssh (`ssh://USER@HOST/SESSION`);
closing it leaves the session running.

The session's own process owns its browser, recording and agent; here is only a view."""

from __future__ import annotations

import argparse
import asyncio

from ..core import EXIT_OK
from .exits import failed


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", nargs="?", metavar="[ssh://USER@HOST/]SESSION",
                        help="the session's name, or one on another machine reached through "
                             "your ssh: ssh://USER@HOST[:PORT]/SESSION ($COCKPIT_SSH: the "
                             "ssh command; $COCKPIT_REMOTE: cockpit's command there)")
    parser.add_argument("--session", default=None, metavar="NAME",
                        help="the session's name (default: $COCKPIT_SESSION, else default)")
    parser.add_argument("--socket", metavar="PATH", help="a session's socket path")
    parser.add_argument("--theme", metavar="NAME", help="a theme from themes/")


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from ..control import over_ssh
    if args.target is not None:
        if args.session is not None or args.socket is not None:
            parser.error("give the session once: as SESSION, --session NAME or --socket PATH")
        if over_ssh.is_ssh(args.target):
            try:
                args.ssh = over_ssh.parse(args.target)
            except ValueError as exc:
                parser.error(str(exc))
        else:
            args.session = args.target
    from .options import configure_logging
    configure_logging(None, tui=True)
    return asyncio.run(attached(args))


async def attached(args: argparse.Namespace) -> int:
    from ..control import discovery
    from ..control.remote_session import RemoteSession
    from ..core import workspace_dir
    from ..tui.app import CockpitApp
    from .terminal import kept_terminal
    forward = None
    try:
        socket = args.socket
        if getattr(args, "ssh", None) is not None:  # another machine: its socket, forwarded
            from ..control.over_ssh import SshSession
            forward = SshSession(args.ssh)
            socket = await forward.start()
        remote = RemoteSession(args.session, socket_path=socket)
        await remote.start()
    except (discovery.Unreachable, ValueError) as exc:  # no such session; a bad name
        if forward is not None:
            await forward.close()
        return failed("cockpit attach", exc)
    try:
        app = CockpitApp(remote, theme=args.theme,
                         history_path=workspace_dir() / "history.txt")
        with kept_terminal(app):
            await app.run_async()
    finally:
        await remote.close()
        if forward is not None:
            await forward.close()
    return app.return_code or EXIT_OK
