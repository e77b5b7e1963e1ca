"""`cockpit run`: command lines from a file or stdin, one result each, no TUI."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import IO

from . import session_from_args
from ..core.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, BrowserNotFoundError
from ..core.terminal import visible
from ..record.recorder import start_recording


def _lines_from(stream: IO[str]):
    """Read one line at a time, off the event loop, so each is answered before the next."""
    loop = asyncio.get_running_loop()

    async def next_line() -> str:
        return await loop.run_in_executor(None, stream.readline)
    return next_line


async def run_main(args, first_url: str | None = None) -> int:
    if args.file:
        path = Path(args.file)
        if not path.is_file():
            print(f"cockpit run: no such file: {path}", file=sys.stderr)
            return EXIT_USAGE
        stream: IO[str] = path.open(encoding="utf-8")
    else:
        stream = sys.stdin
    interactive = stream.isatty() and not args.json
    try:
        session = session_from_args(args)
        await session.start()
    except (BrowserNotFoundError, ValueError) as exc:
        print(f"cockpit: {exc}", file=sys.stderr)
        return EXIT_FAILED
    exit_code = EXIT_OK
    read = _lines_from(stream)
    recorder = start_recording(session)
    try:
        if first_url:
            _print(await session.run(f"goto {first_url}"), args)
        if interactive:
            print(f"cockpit: session {args.session} on {session.plan.description}. Type `help`"
                  ", or Ctrl+D to quit.")
        while True:
            if interactive:
                print("cockpit> ", end="", flush=True)
            line = await read()
            if not line:
                break
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if args.echo:
                print(f"$ {line}", flush=True)
            result = await session.run(line, source="script")
            _print(result, args)
            if not result.ok and exit_code == EXIT_OK:
                exit_code = result.exit_code
    finally:
        await session.close()
        if recorder is not None:
            recorder.close()
        if stream is not sys.stdin:
            stream.close()
    return exit_code


def _print(result, args) -> None:
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False), flush=True)
    elif result.ok:
        if result.output:  # page text: its escape sequences must not reach the terminal
            print(visible(result.output), flush=True)
    else:
        print(visible(f"error: {result.error}"), file=sys.stderr, flush=True)
