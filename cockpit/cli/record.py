"""Record a walkthrough by doing it: a browser window opens (at URL), and every click,
double-click, fill, select, check, key press and navigation the person makes in it is a
step of the recording (sent by `human`, its element by role and name), printed as it
happens. Closing the window (or Ctrl+C) ends it, and the recording's path is printed:
`cockpit replay` runs it again, `cockpit export` writes it as a test."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from ..core import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from ..core import events as ev
from .exits import failed
from .options import add_session_options, configure_logging, refuse_unless_default


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", nargs="?", help="the page to start on")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="the recording (default: recordings/SESSION-TIME.jsonl)")
    add_session_options(parser)


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    refuse_unless_default(parser, args, ("no_record",), "makes no sense here: `cockpit "
                          "record` is for recording")
    refuse_unless_default(parser, args, ("record",), "is -o FILE here")
    if args.cdp is None and args.ws_endpoint is None and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print("cockpit record: there is no display for the browser's window (over SSH? "
              "use `ssh -X`, or run it under xvfb-run and drive it with `cockpit web`)",
              file=sys.stderr)
        return EXIT_USAGE
    configure_logging(args.log, tui=False)
    args.record = args.output
    args.headed = True
    return asyncio.run(record(args))


async def record(args: argparse.Namespace) -> int:
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
            print(f"cockpit record: recording what you do in the window to {path}; close "
                  f"the window (or Ctrl+C) when you are done", file=sys.stderr, flush=True)
            await stop.wait()
        finally:
            await live.close()
    if live.recording_failed:
        return failed(face, f"the recording failed: {live.recording_failed}", EXIT_FAILED)
    print(f"cockpit record: {session.capture.steps} step(s) captured", file=sys.stderr)
    print(Path(path) if path is not None else "", flush=True)
    return EXIT_OK


def said(event: ev.Event) -> None:
    """Each step as it ends, on stderr (stdout is for the recording's path)."""
    if event.kind != ev.COMMAND_FINISHED:
        return
    data = event.data
    mark = "ok" if data.get("ok") else "FAILED"
    print(f"  {data.get('source', '')}  {data.get('command', '')}  [{mark}] "
          f"{data.get('output') or data.get('error') or ''}".rstrip(), file=sys.stderr,
          flush=True)
