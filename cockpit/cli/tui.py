"""`cockpit [URL]`: the TUI on a new live session (`--plain`: a line prompt instead), and
`run_app`, which the demo face shares."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

from ..core import EXIT_OK
from .exits import failed
from .options import add_session_options, configure_logging, live_from_args

if TYPE_CHECKING:
    from .live import LiveSession


def parser() -> argparse.ArgumentParser:
    from .. import __version__
    from .subcommands import FACES
    faces = "\n".join(f"  {name:<9} {summary}" for name, summary in FACES.items())
    p = argparse.ArgumentParser(
        prog="cockpit", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A terminal cockpit for browsers driven by AI agents: `cockpit [URL]` "
        "opens the TUI on a new session.",
        epilog=f"subcommands (`cockpit SUBCOMMAND --help`):\n{faces}")
    p.add_argument("url", nargs="?", help="a URL to open first")
    add_session_options(p)
    p.add_argument("--theme", metavar="NAME", help="a theme from themes/ (cockpit-dark, "
                   "cockpit-light, or your own)")
    p.add_argument("--plain", action="store_true",
                   help="no TUI: a plain line prompt on the same live session")
    p.add_argument("--agent", metavar="CMD",
                   help="start CMD (a shell command) as the agent: it finds the session "
                        "through $COCKPIT_SOCKET and drives it with `cockpit exec`")
    p.add_argument("--version", action="version", version=f"cockpit {__version__}")
    return p


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.plain:
        if args.theme is not None:
            parser.error("--theme is for the TUI; --plain has none")
        configure_logging(args.log, tui=False)
        from .run import run_lines
        return asyncio.run(run_lines(args, first_url=args.url, agent=args.agent,
                                     face="cockpit"))
    configure_logging(args.log, tui=True)
    live = new_live(args, agent=args.agent, face="cockpit")
    if isinstance(live, int):
        return live
    return asyncio.run(run_app(live, url=args.url, theme=args.theme))


def new_live(args: argparse.Namespace, *, agent: str | None, face: str) -> LiveSession | int:
    """The LiveSession for a TUI face, refused here (before the screen shows) when the
    name is already live; else the exit code, said on stderr."""
    from .live import OPEN_ERRORS
    try:
        live = live_from_args(args, agent=agent)
        live.refuse_if_live()
    except OPEN_ERRORS as exc:
        return failed(face, exc)
    return live


async def run_app(live: LiveSession, *, url: str | None = None,
                  theme: str | None = None) -> int:
    """The TUI on a live session: it starts the session in a worker (the screen shows at
    once, and errors in it) and closes it on quit."""
    from ..core import workspace_dir
    from ..tui.app import CockpitApp
    from .terminal import kept_terminal
    app = CockpitApp(live.session, url=url, theme=theme, live=live,
                     history_path=workspace_dir() / "history.txt")
    with kept_terminal(app):
        await app.run_async()
    return app.return_code or EXIT_OK
