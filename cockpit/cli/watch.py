"""Every live session of yours in one view, updated from each session's events: name,
browser, who has control, the agent, the last command with its age and result, NEEDS A
HUMAN and why, recording. Those that need a person come first, and each new need is
called once (the bell, an OSC 9 / 777 notification, and --notify CMD). Enter attaches
the full cockpit to one; Escape comes back."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from ..core import EXIT_OK


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", action="append", default=[], metavar="ssh://USER@HOST",
                        help="the live sessions of another machine too, reached through your "
                             "ssh (repeatable; $COCKPIT_SSH: the ssh command; "
                             "$COCKPIT_REMOTE: cockpit's command there)")
    parser.add_argument("--notify", metavar="CMD",
                        help="run CMD (through the shell) whenever a session newly needs a "
                             "human, with COCKPIT_SESSION, COCKPIT_REASON and COCKPIT_URL "
                             "in its environment")
    parser.add_argument("--theme", metavar="NAME",
                        help="a theme from themes/ for the cockpit Enter opens")


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from ..control.over_ssh import parse
    try:
        args.hosts = [parse(host, session=False) for host in args.host]
    except ValueError as exc:
        parser.error(f"--host {exc}")
    from .options import configure_logging
    configure_logging(None, tui=True)
    return asyncio.run(watching(args))


async def watching(args: argparse.Namespace) -> int:
    """The watch, then the cockpit of the session Enter chose, then the watch again, until
    the watch is quit. One Monitor follows the sessions all along: a need in another
    session is called while a cockpit is open too."""
    from ..control.monitor import Monitor
    from ..control.notify import Call, Caller
    from ..tui.watch import WatchApp, ring
    from .terminal import kept_terminal

    # notify-send is each session's own (it calls whether or not anyone watches)
    caller = Caller(args.notify, desktop=False)
    showing: list[Any] = [None]  # an attached cockpit that owns the terminal now

    def changed(calls: list[Call]) -> None:
        for call in calls:
            caller.call(call)
        if calls and showing[0] is not None:  # the watch app rings itself
            ring(showing[0], calls)

    monitor = Monitor()
    monitor.subscribe(changed)
    await monitor.start()
    from ..control.monitor_ssh import HostWatch
    hosts = [asyncio.ensure_future(HostWatch(host, monitor).run()) for host in args.hosts]
    selected: str | None = None
    try:
        while True:
            app = WatchApp(monitor, select=selected)
            with kept_terminal(app):
                await app.run_async()
            selected = app.return_value
            if selected is None or app.return_code:
                return app.return_code or EXIT_OK
            await attach_from_watch(selected, monitor, showing, args.theme)
    finally:
        showing[0] = None
        for task in hosts:
            task.cancel()
        await asyncio.gather(*hosts, return_exceptions=True)
        await monitor.close()
        await caller.wait()


async def attach_from_watch(socket: str, monitor: Any, showing: list[Any],
                            theme: str | None) -> None:
    """The full cockpit on one session until Escape or Ctrl+Q; a session that cannot be
    reached any more is said on the way back."""
    from ..control import discovery
    from ..control.remote_session import RemoteSession
    from ..core import workspace_dir
    from ..tui.watch_attach import WatchedCockpit
    from .terminal import kept_terminal
    import logging
    try:
        remote = RemoteSession(socket_path=socket)
        await remote.start()
    except (discovery.Unreachable, ValueError) as exc:
        logging.getLogger("cockpit").warning("watch: could not attach: %s", exc)
        return
    monitor.quiet = socket  # its own cockpit calls for it now
    try:
        app = WatchedCockpit(remote, theme=theme, history_path=workspace_dir() / "history.txt")
        showing[0] = app
        with kept_terminal(app):
            await app.run_async()
    finally:
        showing[0] = None
        monitor.quiet = None
        await remote.close()
