"""A video of the session: the live view's frames (Chromium's screencast, core/live/
screencast.py) piped into Debian's `ffmpeg`, with each step's command as a chapter.

Why not Playwright's `record_video`: it is fixed when a context is made (no `video start`
halfway), makes one file per page (not per session), ends with every relaunch (a handoff),
and needs Playwright's own ffmpeg build. The screencast follows the active tab across tabs
and relaunches already, and costs nothing while the page does not paint.

Frames come only when the page paints; each is handed to ffmpeg as it comes (at most
FPS a second), stamped with the time ffmpeg reads it and shown until the next one
(a variable frame rate), so an idle page costs nothing and the video's time is the
session's own: chapters line up with the steps. Frames of another size (a headed window after a
handoff) are scaled into the same picture. At `stop` the step titles become the
container's chapters and a WebVTT sidecar (`FILE.vtt`) beside it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..base import events as ev
from ..base.errors import CommandError
from .screencast import LiveView
from .streams import Frame

log = logging.getLogger("cockpit")

FPS = 10  # enough to follow a walkthrough; the cost is measured in tests/bench
WIDTH, HEIGHT = 1280, 800  # the live view's largest frame: every frame is fitted into it
STOP_S = 30.0  # ffmpeg finishing the file


def ffmpeg_path() -> str:
    """Debian's ffmpeg (or `$COCKPIT_FFMPEG`); a one-line CommandError when missing."""
    found = os.environ.get("COCKPIT_FFMPEG") or shutil.which("ffmpeg")
    if not found:
        raise CommandError("video needs ffmpeg, which is not installed: "
                           "`sudo apt-get install ffmpeg` (or set $COCKPIT_FFMPEG)")
    return found


def video_file(folder: Path, session: str) -> Path:
    """Where `--video DIR` writes the session's video: DIR/SESSION-TIME.webm. Checks
    ffmpeg now, so a missing one is a one-line error before the session opens
    (ValueError: the faces show it as a usage error)."""
    try:
        ffmpeg_path()
    except CommandError as exc:
        raise ValueError(f"--video: {exc}") from None
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--video takes a folder, and {folder} is a file")
    return folder / f"{session}-{time.strftime('%Y%m%d-%H%M%S')}.webm"


def encoder_args(path: Path) -> list[str]:
    """How the file is encoded, by its suffix: .mp4 is H.264, anything else WebM (VP8)."""
    if path.suffix.lower() in (".mp4", ".m4v", ".mov"):
        return ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "stillimage",
                "-pix_fmt", "yuv420p", "-movflags", "+faststart"]
    return ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "1M",
            "-pix_fmt", "yuv420p", "-f", "webm"]


@dataclass
class Chapter:
    """One step in the video: from when it started to when the next one did."""

    title: str
    start: float  # seconds into the video
    end: float | None = None


@dataclass
class _Recording:
    path: Path
    process: asyncio.subprocess.Process
    started: float  # time.monotonic() at start
    chapters: list[Chapter] = field(default_factory=list)
    zero: float | None = None  # time.monotonic() of the first picture: the video's 0
    written: int = 0  # pictures written so far
    last: float = 0.0  # time.monotonic() of the last one
    failed: str | None = None
    errors: bytearray = field(default_factory=bytearray)  # the end of ffmpeg's stderr
    reader: asyncio.Task[None] | None = None


class VideoRecorder:
    """`video start` / `video stop` and `--video DIR`: one file at a time per session."""

    def __init__(self, live_view: LiveView, bus: ev.EventBus) -> None:
        self._view = live_view
        self._bus = bus
        self._recording: _Recording | None = None
        self._newest: bytes | None = None  # the last picture that came
        self._fresh = False  # ... and it is not written yet
        self._stops: list[Callable[[], None]] = []
        self._writer: asyncio.Task[None] | None = None
        self._tick = asyncio.Event()

    @property
    def path(self) -> Path | None:
        return self._recording.path if self._recording else None

    async def start(self, path: Path) -> None:
        """Begin writing `path` (its folder is made); CommandError when one is being
        written already, or ffmpeg is missing or refuses."""
        if self._recording is not None:
            raise CommandError(f"already recording a video to {self._recording.path}: "
                               "`video stop` first")
        ffmpeg = ffmpeg_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        # each picture is stamped when ffmpeg reads it and kept until the next one
        # (variable frame rate): a page that does not paint costs nothing
        process = await asyncio.create_subprocess_exec(
            ffmpeg, "-hide_banner", "-loglevel", "error", "-y",
            "-use_wallclock_as_timestamps", "1",
            "-f", "image2pipe", "-c:v", "mjpeg", "-i", "-",
            "-vf", f"scale={WIDTH}:{HEIGHT}:force_original_aspect_ratio=decrease,"
                   f"pad={WIDTH}:{HEIGHT}:(ow-iw)/2:(oh-ih)/2:color=white,format=yuv420p",
            "-fps_mode", "vfr", *encoder_args(path), str(path),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE)
        self._recording = _Recording(path, process, time.monotonic())
        # read as it comes: a full stderr pipe would stop ffmpeg, and the frames with it
        self._recording.reader = asyncio.get_running_loop().create_task(
            _tail(process, self._recording.errors), name="cockpit video ffmpeg stderr")
        self._newest, self._fresh = None, False
        self._stops = [self._view.subscribe(self._frame), self._bus.subscribe(self._event)]
        self._writer = asyncio.get_running_loop().create_task(self._write(),
                                                              name="cockpit video")

    def _frame(self, frame: Frame) -> None:
        self._newest, self._fresh = frame.data, True
        self._tick.set()

    def _event(self, event: ev.Event) -> None:
        recording = self._recording
        if recording is None or event.kind != ev.COMMAND_STARTED:
            return
        if event.data.get("relayed"):  # a key or a press of the person's: its step is one
            return
        command = str(event.data.get("command") or "").strip()
        if not command:
            return
        at = time.monotonic() - recording.started
        if recording.chapters and recording.chapters[-1].end is None:
            recording.chapters[-1].end = at
        # the line as every view shows it: a typed password or --secret is masked there
        source = event.data.get("source")
        title = command if source in (None, "human") else f"{source}: {command}"
        recording.chapters.append(Chapter(title, at))

    async def _write(self) -> None:
        """Hand ffmpeg each new picture as it comes, at most FPS a second (the newest of
        those that came between), until stopped or ffmpeg fails."""
        recording = self._recording
        assert recording is not None
        while self._recording is recording and not recording.failed:
            if self._fresh and time.monotonic() - recording.last >= 1 / FPS:
                await self._put(recording)
            self._tick.clear()
            try:
                await asyncio.wait_for(self._tick.wait(), 1 / FPS)
            except TimeoutError:
                pass

    async def _put(self, recording: _Recording) -> None:
        """Write the newest picture now (ffmpeg stamps it with the time it reads it)."""
        stdin = recording.process.stdin
        assert stdin is not None and self._newest is not None
        self._fresh = False
        try:
            stdin.write(self._newest)
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            recording.failed = f"ffmpeg stopped taking frames ({exc})"
            log.warning("video %s: %s", recording.path, recording.failed)
            return
        recording.last = time.monotonic()
        if recording.zero is None:
            recording.zero = recording.last
        recording.written += 1

    async def stop(self) -> tuple[Path, float, list[Chapter]]:
        """Finish the file: its path, length in seconds and chapters; CommandError when
        none is being written or ffmpeg failed."""
        recording = self._recording
        if recording is None:
            raise CommandError("no video is being recorded: `video start [FILE]` first")
        self._recording = None
        for unsubscribe in self._stops:
            unsubscribe()
        self._stops = []
        try:
            return await self._finish(recording)
        except asyncio.CancelledError:  # cut short (its deadline): ffmpeg ends the file
            stdin = recording.process.stdin
            if stdin is not None and not stdin.is_closing():
                stdin.close()
            raise

    async def _finish(self, recording: _Recording) -> tuple[Path, float, list[Chapter]]:
        if self._writer is not None:
            self._tick.set()
            try:
                await asyncio.wait_for(self._writer, STOP_S)
            except TimeoutError:
                recording.failed = "ffmpeg stopped taking frames"
            self._writer = None
        process = recording.process
        if self._newest is None:
            process.kill()
            await process.wait()
            raise CommandError("the video has no picture: the browser painted nothing "
                               "(no tab, or not a Chromium browser)")
        if not recording.failed:  # the last picture again, now: the video lasts until stop
            self._fresh = True
            await self._put(recording)
        ended = time.monotonic()
        assert process.stdin is not None
        if not process.stdin.is_closing():
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), STOP_S)
            if recording.reader is not None:
                await asyncio.wait_for(recording.reader, STOP_S)
        except TimeoutError:
            process.kill()
            raise CommandError(f"ffmpeg did not finish {recording.path} within "
                               f"{STOP_S:g} s") from None
        if process.returncode != 0 or recording.failed:
            why = recording.failed or recording.errors.decode(errors="replace").strip()
            raise CommandError(f"ffmpeg could not write {recording.path}: "
                               f"{why.splitlines()[-1] if why else process.returncode}")
        os.chmod(recording.path, 0o600)  # it shows what the pages showed
        zero = recording.zero if recording.zero is not None else ended
        length = ended - zero
        shift = zero - recording.started  # chapters were timed from start
        chapters = []
        for chapter in recording.chapters:
            # a step that ended before the first picture (a loaded machine paints late)
            # is kept, at the start, so the file names every step it spans
            end = (chapter.end if chapter.end is not None else ended - recording.started)
            chapters.append(Chapter(chapter.title, max(chapter.start - shift, 0.0),
                                    max(min(end - shift, length), 0.0)))
        _write_vtt(recording.path.with_suffix(".vtt"), chapters, length)
        await _add_chapters(recording.path, chapters, length)
        return recording.path, length, chapters

    async def close(self) -> Path | None:
        """The session ends: finish a video still being written (its path, or None)."""
        if self._recording is None:
            return None
        try:
            path, _, _ = await self.stop()
        except CommandError as exc:
            log.warning("the video was not finished: %s", exc)
            return None
        return path


async def _tail(process: asyncio.subprocess.Process, into: bytearray) -> None:
    """Keep the last 4 KB of what ffmpeg says (its error, if it fails)."""
    assert process.stderr is not None
    while chunk := await process.stderr.read(4096):
        into += chunk
        del into[:-4096]


def _stamp(seconds: float) -> str:
    millis = round(seconds * 1000)
    hours, millis = divmod(millis, 3_600_000)
    minutes, millis = divmod(millis, 60_000)
    secs, millis = divmod(millis, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}.{millis:03d}"


def _write_vtt(path: Path, chapters: list[Chapter], length: float) -> None:
    """The step titles as captions, beside the video (players load FILE.vtt)."""
    lines = ["WEBVTT", ""]
    for n, chapter in enumerate(chapters, 1):
        end = min(chapter.end if chapter.end is not None else length, length)
        end = max(end, chapter.start + 0.001)
        lines += [str(n), f"{_stamp(chapter.start)} --> {_stamp(end)}",
                  chapter.title.replace("-->", "->"), ""]
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write("\n".join(lines))


def _metadata_text(text: str) -> str:
    for char in ("\\", "=", ";", "#", "\n"):
        text = text.replace(char, "\\" + char)
    return text


async def _add_chapters(path: Path, chapters: list[Chapter], length: float) -> None:
    """The step titles as the container's chapters (a copy, not a new encoding); the
    file stays without them, and the log says why, when ffmpeg cannot add them."""
    if not chapters:
        return
    meta = path.with_name(f".{path.name}.chapters")
    out = path.with_name(f".{path.name}.chaptered{path.suffix}")
    lines = [";FFMETADATA1"]
    for chapter in chapters:
        end = min(chapter.end if chapter.end is not None else length, length)
        lines += ["[CHAPTER]", "TIMEBASE=1/1000", f"START={int(chapter.start * 1000)}",
                  f"END={max(int(end * 1000), int(chapter.start * 1000) + 1)}",
                  f"title={_metadata_text(chapter.title)}"]
    meta.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        process = await asyncio.create_subprocess_exec(
            ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-i", str(path),
            "-f", "ffmetadata", "-i", str(meta), "-map", "0", "-map_chapters", "1",
            "-c", "copy", str(out),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        _, errors = await asyncio.wait_for(process.communicate(), STOP_S)
        if process.returncode == 0:
            os.chmod(out, 0o600)
            os.replace(out, path)
        else:
            log.warning("the video %s keeps no chapters: %s", path,
                        errors.decode(errors="replace").strip()[-300:])
    finally:
        meta.unlink(missing_ok=True)
        out.unlink(missing_ok=True)
