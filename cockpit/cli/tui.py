"""Starting the TUI from the command line: `cockpit [URL]`, `cockpit attach` (and, through
`run_live`, `cockpit demo`)."""

from __future__ import annotations

import asyncio
import sys

from . import session_from_args
from ..core.errors import EXIT_OK, EXIT_UNREACHABLE, EXIT_USAGE
from ..core.workspace import workspace_dir
from ..control import discovery


def already_live(name: str) -> str | None:
    """Why a new session of this name cannot start here, or None."""
    try:
        live = discovery.alive(discovery.socket_path(name))
    except ValueError as exc:  # a name too long for a socket path here
        return str(exc)
    if live is None:
        return None
    flag = "" if name == "default" else f" --session {name}"
    return (f"session {name!r} is already live here (pid {live.pid}): watch it with "
            f"`cockpit attach{flag}`, or start another with --session NAME")


def run_tui(args, url: str | None = None, agent: str | None = None) -> int:
    """The TUI on a new session, with its control socket (and agent, if any)."""
    from .live import Host
    from ..tui.app import CockpitApp
    try:
        session = session_from_args(args)
    except ValueError as exc:
        print(f"cockpit: {exc}", file=sys.stderr)
        return EXIT_USAGE
    problem = already_live(session.name)
    if problem:
        print(f"cockpit: {problem}", file=sys.stderr)
        return EXIT_USAGE
    host = Host(session, agent_command=agent or getattr(args, "agent", None))
    app = CockpitApp(session, url=url, theme=getattr(args, "theme", None),
                     history_path=workspace_dir() / "history.txt", host=host)
    app.run()
    return EXIT_OK


def run_attach(args) -> int:
    """The TUI on a session that lives in another process; leaving it leaves that running."""
    from ..control.remote_session import RemoteSession
    from ..tui.app import CockpitApp

    async def attached() -> int:
        try:
            remote = RemoteSession(args.session, socket_path=args.socket)
            await remote.start()
        except (discovery.Unreachable, ValueError) as exc:
            print(f"cockpit attach: {exc}", file=sys.stderr)
            return EXIT_UNREACHABLE
        try:
            app = CockpitApp(remote, owns_session=False, theme=args.theme,
                             history_path=workspace_dir() / "history.txt")
            await app.run_async()
        finally:
            await remote.close()
        return EXIT_OK
    return asyncio.run(attached())
