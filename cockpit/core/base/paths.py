"""Paths a command is given are the caller's: `cockpit exec screenshot shot.png` run in
~/work/sub writes ~/work/sub/shot.png, wherever the session itself was started.

The control server sets `caller_dir` for the command it runs (the client's working
directory, sent with the request); asyncio copies it into the tasks the command starts.
Commands typed in the cockpit, or run by `cockpit run`, have none: the session's own
directory is the caller's."""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path

caller_dir: ContextVar[Path | None] = ContextVar("cockpit_caller_dir", default=None)


def base() -> Path:
    """The directory relative paths are taken from."""
    return caller_dir.get() or Path.cwd()


def given_path(text: str) -> Path:
    """A path as the caller meant it: `~` expanded, relative to the caller's directory."""
    path = Path(text).expanduser()
    return path if path.is_absolute() else base() / path
