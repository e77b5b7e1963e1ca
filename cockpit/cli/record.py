"""Record a walkthrough by doing it: a browser window opens (at URL), and every click,
double-click, fill, select, check, key press and navigation the person makes in it is a
step of the recording (sent by `human`, its element by role and name), printed as it
happens. Closing the window (or Ctrl+C) ends it, and the recording's path is printed:
`cockpit replay` runs it again, `cockpit export` writes it as a test.

Where there is no display (over ssh, a container), the browser runs headless and the
page is served live on the web instead, as `cockpit web` serves it (127.0.0.1 and a
token): what the person does on its picture is relayed to the page as their own input,
and captured the same way. Ctrl+C ends it."""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from ..core import events as ev
from .exits import failed
from .options import add_session_options, configure_logging, refuse_unless_default

if TYPE_CHECKING:
    from .live import LiveSession


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", nargs="?", help="the page to start on")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="the recording (default: recordings/SESSION-TIME.jsonl)")
    parser.add_argument("--port", type=int, default=None, metavar="P",
                        help="where there is no display: the port of the web view "
                             "(default: any free one, on 127.0.0.1)")
    add_session_options(parser)


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    refuse_unless_default(parser, args, ("no_record",), "makes no sense here: `cockpit "
                          "record` is for recording")
    refuse_unless_default(parser, args, ("record",), "is -o FILE here")
    if args.port is not None and not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port}: a port is 0 to 65535")
    # the person's window needs a display; a browser elsewhere (--cdp, --ws-endpoint)
    # has its own
    windowless = args.cdp is None and args.ws_endpoint is None and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if not windowless and args.port is not None:
        parser.error("--port is the web view's, where there is no display: here the "
                     "browser has a window")
    if windowless and args.headed:
        parser.error("--headed needs a display: without one, do the walkthrough in the "
                     "web view this prints")
    if windowless:
        try:
            from textual_serve.server import Server  # noqa: F401  (checked before anything)
        except ImportError:
            print("cockpit record: there is no display for the browser's window, and the "
                  "web view needs textual-serve: pip install textual-serve (or use `ssh "
                  "-X`, or xvfb-run)", file=sys.stderr)
            return EXIT_USAGE
    configure_logging(args.log, tui=False)
    args.record = args.output
    args.headed = not windowless
    return asyncio.run(record(args, web_port=(args.port or 0) if windowless else None))


async def record(args: argparse.Namespace, web_port: int | None = None) -> int:
    """The session, recording the person until they are done; `web_port`: no window, the
    page served live on the web instead (0: any free port)."""
    from .live import OPEN_ERRORS, stop_signals, tell
    from .options import live_from_args
    face = "cockpit record"
    try:
        live = live_from_args(args)
    except OPEN_ERRORS as exc:
        return failed(face, exc)
    session = live.session
    session.bus.subscribe(tell)
    session.bus.subscribe(said)
    with stop_signals() as stop:
        session.window_ends = stop.set  # the person closed the window: done
        session.bus.subscribe(lambda event: stop.set() if event.kind == ev.TAB_CLOSED
                              and not session.tabs and not session.switching else None)
        try:
            await live.start()
        except OPEN_ERRORS as exc:
            return failed(face, exc)
        path = session.recording_path
        try:
            await session.capture.capture_everything()  # the whole session is the person's
            if args.url:
                result = await session.run(f"goto {args.url}", source="human")
                if not result.ok:
                    print(f"cockpit record: {result.error}", file=sys.stderr)
            if web_port is None:
                print(f"cockpit record: recording what you do in the window to {path}; "
                      f"close the window (or Ctrl+C) when you are done", file=sys.stderr,
                      flush=True)
                await stop.wait()
            else:
                try:
                    await on_the_web(live, web_port, path, stop)
                except OSError as exc:  # the port is taken
                    return failed(face, f"cannot serve the web view on 127.0.0.1:"
                                        f"{web_port}: {exc}", EXIT_USAGE)
        finally:
            await live.close()
    if live.recording_failed:
        return failed(face, f"the recording failed: {live.recording_failed}", EXIT_FAILED)
    print(f"cockpit record: {session.capture.steps} step(s) captured", file=sys.stderr)
    print(Path(path) if path is not None else "", flush=True)
    return EXIT_OK


async def on_the_web(live: LiveSession, port: int, path: Path | None,
                     stop: asyncio.Event) -> None:
    """The page served live on the web (and a cockpit attached beside it) until `stop`:
    the person does the walkthrough there. OSError: it cannot listen on the port."""
    from ..control.discovery import LiveInfo
    from .web import served
    socket = live.server.socket
    command = shlex.join([sys.executable, "-m", "cockpit", "attach", "--socket",
                          str(socket)])
    async with served(command, live.session.name, "127.0.0.1", port,
                      LiveInfo.read(socket)) as url:
        alone = url.replace("/?token=", "/live?token=", 1)
        print(f"cockpit record: no display here: do the walkthrough in your web browser, "
              f"at {url} (the page live beside a cockpit; the page alone: {alone}); what "
              f"you do there is recorded to {path}; Ctrl+C when you are done",
              file=sys.stderr, flush=True)
        await stop.wait()


def said(event: ev.Event) -> None:
    """Each step as it ends, on stderr (stdout is for the recording's path)."""
    if event.kind != ev.COMMAND_FINISHED:
        return
    data = event.data
    mark = "ok" if data.get("ok") else "FAILED"
    print(f"  {data.get('source', '')}  {data.get('command', '')}  [{mark}] "
          f"{data.get('output') or data.get('error') or ''}".rstrip(), file=sys.stderr,
          flush=True)
