"""A Playwright trace and a video of the session, started and stopped at any point
(`trace start|stop` under Inspect, `video start|stop` under Pictures; --trace and
--video from the start).

They are session controls, not steps of a walkthrough: recorded (the log shows them),
but replay leaves them out (it would overwrite the files the recording made: give the
replay --trace or --video instead) and so does an export (`session_control`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..base.errors import UsageError
from ..base.paths import given_path
from ..base.result import Outcome
from ..language.registry import FILE, Arg, command

if TYPE_CHECKING:
    from ..language.parser import Invocation
    from ..session.session import CommandContext
    from ..session.session import Session

ACTIONS = ("start", "stop")


def _file(given: str | None, default: Path, suffixes: tuple[str, ...], what: str) -> Path:
    """The file to write: the one given (a folder gets the default name inside it), or
    the default in the session's files/ folder."""
    if not given:
        return default
    path = given_path(given)
    if path.is_dir() or given.endswith(("/", "\\")):
        return path / default.name
    if path.suffix.lower() not in suffixes:
        raise UsageError(f"{what} writes {' or '.join(suffixes)}: give a file name like "
                         f"{path.with_suffix(suffixes[0]).name}")
    return path


def trace_parts(path: Path, parts: int) -> list[Path]:
    """The files a trace was saved as: one per browser relaunch (a handoff), then FILE."""
    return [path.with_name(f"{path.stem}-{n}{path.suffix}") for n in range(1, parts + 1)] \
        + [path]


async def start_trace(session: Session, path: Path) -> None:
    """Trace the session into `path` from now on, as --trace does from the start."""
    if session.trace_path is not None:
        raise UsageError(f"already tracing to {session.trace_path}: `trace stop` first")
    session.browser_context()  # a clear error when there is no browser
    path.parent.mkdir(parents=True, exist_ok=True)
    session.trace_path, session.trace_parts = path, 0
    try:
        await session.start_trace()
    except BaseException:
        session.trace_path = None
        raise


@command("trace", "inspect", "Record a Playwright trace from now on, or stop and save it "
         "(secrets masked).",
         args=(Arg("action", "start or stop", choices=ACTIONS),
               Arg("file", "the .zip to write (for start; default: files/trace-TIME.zip)",
                   kind=FILE, optional=True)),
         details=("Open it with `playwright show-trace FILE.zip` or trace.playwright.dev. "
                  "Every --secret value and every typed or shown password is masked in "
                  "the saved file, which only you can read; with --secret it has no "
                  "screenshots (a picture cannot be masked). A handoff's browser relaunch "
                  "saves the part before it as FILE-1.zip, FILE-2.zip…. `--trace FILE` "
                  "starts it with the session; replay and export leave these commands out."),
         examples=("trace start", "trace start checkout.zip", "trace stop"),
         read_only=True, session_control=True, needs_tab=False)
async def trace(ctx: CommandContext, a: Invocation) -> Outcome:
    session = ctx.session
    if a.action == "start":
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = _file(a.file, session.files_dir / f"trace-{stamp}.zip", (".zip",), "trace")
        await start_trace(session, path)
        return Outcome(f"tracing to {path} until `trace stop`", {"path": str(path)})
    if a.file:
        raise UsageError("trace stop takes no FILE: the file was named at `trace start`")
    if session.trace_path is None:
        raise UsageError("no trace is being recorded: `trace start [FILE]` first")
    path, parts = session.trace_path, session.trace_parts
    try:
        await session.stop_trace()
    finally:
        session.trace_path, session.trace_parts = None, 0
    saved = [p for p in trace_parts(path, parts) if p.is_file()]
    if path not in saved:
        raise UsageError(f"the trace {path} was not saved (the log says why)")
    more = f" (and {len(saved) - 1} earlier part(s), one per browser relaunch)" \
        if len(saved) > 1 else ""
    return Outcome(f"wrote {path}{more}: open it with `playwright show-trace {path}`",
                   {"path": str(path), "parts": [str(p) for p in saved]})


@command("video", "visual", "Record a video of the session from now on (step titles as "
         "chapters), or stop and save it.",
         args=(Arg("action", "start or stop", choices=ACTIONS),
               Arg("file", "the .webm or .mp4 to write (for start; default: "
                   "files/video-TIME.webm)", kind=FILE, optional=True)),
         details=("One file for the whole session, across tabs and handoffs (the picture "
                  "of the tab in front), with each command as a chapter and as a caption "
                  "in FILE.vtt beside it. Needs ffmpeg. `--video DIR` records one from the "
                  "session's start; replay and export leave these commands out."),
         examples=("video start", "video start walk.webm", "video stop"),
         read_only=True, session_control=True, needs_tab=False)
async def video(ctx: CommandContext, a: Invocation) -> Outcome:
    recorder = ctx.session.video
    if a.action == "start":
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = _file(a.file, ctx.session.files_dir / f"video-{stamp}.webm",
                     (".webm", ".mp4"), "video")
        ctx.session.browser_context()  # a clear error when there is no browser
        await recorder.start(path)
        # a field Cockpit types a secret into draws it as discs (commands/interact.py);
        # what the page shows of it elsewhere, or a person types, cannot be masked
        note = ("; it shows the pages as painted: a --secret Cockpit types into a field "
                "shows as discs, but one the page shows elsewhere or a person types shows "
                "in it") if ctx.session.secrets else ""
        return Outcome(f"recording a video to {path} until `video stop`{note}",
                       {"path": str(path)})
    if a.file:
        raise UsageError("video stop takes no FILE: the file was named at `video start`")
    saved, length, chapters = await recorder.stop()
    return Outcome(f"wrote {saved} ({length:.1f} s, {len(chapters)} chapters; captions in "
                   f"{saved.with_suffix('.vtt').name})",
                   {"path": str(saved), "seconds": round(length, 2),
                    "chapters": len(chapters), "captions": str(saved.with_suffix(".vtt"))})
