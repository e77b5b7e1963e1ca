"""Run command lines from FILE, or from stdin as they arrive, in a new session, without
the TUI; one result each. The session is live meanwhile: `cockpit exec` reaches it.

`cockpit --plain` is the same loop with a prompt (and `--agent`)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ..core import EXIT_FAILED, EXIT_OK, EXIT_UNREACHABLE, EXIT_USAGE, visible
from .exits import failed
from .options import add_session_options, configure_logging, live_ahead

if TYPE_CHECKING:
    from ..core import Event
    from ..core import Result
    from .live import LiveSession


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", help="a file of commands, one a line "
                        "(default: stdin)")
    parser.add_argument("--json", action="store_true",
                        help="one JSON result per line, flushed at once")
    parser.add_argument("--echo", action="store_true",
                        help="print each command before its result")
    add_session_options(parser)


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    configure_logging(args.log, tui=False)
    return asyncio.run(run_lines(args))


def _lines_from(stream: IO[str]) -> Callable[[], Awaitable[str]]:
    """Read one line at a time, off the event loop, so each is answered before the next."""
    loop = asyncio.get_running_loop()

    async def next_line() -> str:
        return await loop.run_in_executor(None, stream.readline)
    return next_line


async def run_lines(args: argparse.Namespace, *, first_url: str | None = None,
                    agent: str | None = None, face: str = "cockpit run") -> int:
    """The loop of `run` and `--plain`: each line through the live session, in turn."""
    from .live import OPEN_ERRORS
    file = getattr(args, "file", None)
    if file and not Path(file).is_file():
        return failed(face, f"no such file: {file}", EXIT_USAGE)
    try:
        live = await live_ahead(args, agent=agent)  # the driver starts meanwhile
    except OPEN_ERRORS as exc:  # a bad session name or secret, a socket directory not ours
        return failed(face, exc)
    # closed in the finally below; a local file opens at once
    stream: IO[str] = Path(file).open(encoding="utf-8") if file else sys.stdin  # noqa: SIM115
    try:
        async with live:
            if agent:
                live.session.bus.subscribe(agent_to_stderr)
            code = await _loop(live, stream, args, first_url)
        # every step ran, but their record is not whole: a script must not take it for
        # a good run (the error was said on stderr when it happened)
        return EXIT_FAILED if code == EXIT_OK and live.recording_failed else code
    except OPEN_ERRORS as exc:  # a second `run` of a live name is refused, as `serve` is
        return failed(face, exc)
    finally:
        if stream is not sys.stdin:
            stream.close()


async def _loop(live: LiveSession, stream: IO[str], args: argparse.Namespace,
                first_url: str | None) -> int:
    session = live.session
    as_json, echo = getattr(args, "json", False), getattr(args, "echo", False)
    interactive = stream.isatty() and not as_json
    exit_code = EXIT_OK
    read = _lines_from(stream)
    if first_url:
        _print(await session.run(f"goto {first_url}"), as_json)
    if interactive:
        print(f"cockpit: session {session.name} on {live.description}. Type "
              "`help`, or Ctrl+D to quit.")
    while True:
        if interactive:
            print("cockpit> ", end="", flush=True)
        line = await read()
        if not line:
            return exit_code
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if echo:
            print(f"$ {line}", flush=True)
        result = await session.run(line, source="script")
        _print(result, as_json)
        if not result.ok and exit_code == EXIT_OK:
            exit_code = result.exit_code
        if session.recovery.dead:  # the browser died and could not be started again
            return EXIT_UNREACHABLE


def agent_to_stderr(event: Event) -> None:
    """--plain and serve have no agent pane: the agent's output and state go to stderr."""
    from ..control.agent_process import describe
    from ..core import events as ev
    if event.kind == ev.AGENT_OUTPUT:
        for line in event.data["lines"]:
            print(f"agent: {line}", file=sys.stderr, flush=True)
    elif event.kind == ev.AGENT_STATE and event.data.get("state") == "exited":
        print(f"agent: {describe(event.data)}", file=sys.stderr, flush=True)


def _print(result: Result, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result.to_json(), ensure_ascii=False), flush=True)
    elif result.ok:
        if result.output:  # page text: its escape sequences must not reach the terminal
            print(visible(result.output), flush=True)
    else:
        print(visible(f"error: {result.error}"), file=sys.stderr, flush=True)
