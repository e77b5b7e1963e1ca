"""The recorder: a bus listener that appends one JSON line per finished step (and per
handoff, resume, need or agent output) to the session's recording, flushed at once, so a
killed cockpit leaves a file whose finished steps all parse."""

from __future__ import annotations

import errno
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..core import events as ev
from ..core import PASSWORDISH
from .mask import MASK, Masker
from .shots import Shots

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..core import Session
    from ..core import SessionSurface

FORMAT = "cockpit-recording"
VERSION = 1
MAX_OUTPUT = 20_000  # characters of a step's text kept; the data keeps the structure
MAX_OPEN_STEPS = 1_000  # started steps remembered until they finish
AGENT_BYTES_A_SECOND = 32 * 1024  # of agent output recorded; past it, lines are counted
log = logging.getLogger("cockpit.record")


def recordings_dir() -> Path:
    """recordings/ in the working directory ($COCKPIT_RECORDINGS_DIR instead, when set:
    tests keep theirs out of the checkout)."""
    return Path(os.environ.get("COCKPIT_RECORDINGS_DIR") or Path.cwd() / "recordings")


def default_path(session_name: str) -> Path:
    return recordings_dir() / f"{session_name}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"


def start_recording(session: Session) -> Recorder | None:
    """The recorder for a session whose CLI asked for one (session.recording_path)."""
    if session.recording_path is None:
        return None
    return Recorder(session, session.recording_path, session.secrets.values,
                    shots=session.recording_shots).start()


class Recorder:
    """Attach with `Recorder(session, path).start()`; `close()` detaches. It needs only
    the session surface: the refs each step used come in its command.started event."""

    def __init__(self, session: SessionSurface, path: Path,
                 secrets: dict[str, str] | None = None, *, shots: bool = False) -> None:
        self.session = session
        self.path = Path(path)
        # a picture per step (shots.py): a local session's steps only (its step hooks)
        self._hooks: list[Any] | None = getattr(session, "after_steps", None) if shots \
            else None
        self.shots = Shots(session, self.path) if self._hooks is not None else None
        if secrets is None:  # a local session's --secret values (a remote one keeps them)
            local = getattr(session, "secrets", None)
            secrets = local.values if local is not None else {}
        self.masker = Masker(secrets, session.registry)
        redactor = getattr(session, "redactor", None)  # a local session's: it knows the
        if redactor is not None:  # passwords typed and shown, which its events mask
            self.masker.also.append(redactor.files)
        self.steps = 0
        self._targets: dict[Any, dict[str, dict[str, Any]]] = {}
        self._at: dict[Any, dict[str, Any] | None] = {}  # where each started step began
        self._fd: int | None = None
        self._size = 0  # bytes of whole lines in the file: where a cut line is cut back to
        self.failed: str | None = None  # why writing stopped, once it has
        self._agent_window = (0.0, 0)  # (start of this second, bytes of output recorded)
        self._agent_dropped: dict[str, int] = {}  # lines not recorded, per stream
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> Recorder:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._size = os.fstat(self._fd).st_size
        self._write({"type": "header", "format": FORMAT, "version": VERSION,
                     "session": self.session.name, "started": time.time(),
                     "cockpit": __version__})
        self._unsubscribe = self.session.bus.subscribe(self._on_event)
        if self.shots is not None and self._hooks is not None:
            self._hooks.append(self.shots.after_step)
        return self

    def close(self) -> None:
        for stream, count in self._agent_dropped.items():  # a flood's count, not lost
            try:
                self._write({"type": "event", "time": time.time(), "kind": ev.AGENT_OUTPUT,
                             "data": {"stream": stream, "lines": [], "dropped": count}})
            except OSError as exc:
                self._failed(exc)
        self._agent_dropped.clear()
        if self.shots is not None and self._hooks is not None \
                and self.shots.after_step in self._hooks:
            self._hooks.remove(self.shots.after_step)
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _write(self, record: dict[str, Any]) -> None:
        if self._fd is None:
            return
        # one write(2) of the whole line: in the OS's hands at once, so a kill -9 of ours
        # loses nothing written, and lines never interleave
        line = (self.masker.json_line(record) + "\n").encode("utf-8")
        try:
            written = os.write(self._fd, line)
        except OSError:
            self._cut_back()
            raise
        if written != len(line):  # a full disk takes what fits, then says ENOSPC
            self._cut_back()
            raise OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)} ({written} of "
                                        f"{len(line)} bytes of a record written)")
        self._size += written

    def _cut_back(self) -> None:
        """The file back to its last whole line: a reader never meets half a record."""
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, self._size)
            except OSError as exc:
                log.error("could not cut %s back to its last whole line: %s", self.path, exc)

    def _on_event(self, event) -> None:
        try:
            if event.kind == ev.COMMAND_STARTED:
                self._targets[event.data["id"]] = event.data.get("targets") or {}
                # a captured step (core/capture) says where the person did it: by now
                # the page may be the one it led to
                self._at[event.data["id"]] = event.data.get("at") or self._where()
                if len(self._targets) > MAX_OPEN_STEPS:  # steps that never finished
                    del self._targets[next(iter(self._targets))]
                    del self._at[next(iter(self._at))]
            elif event.kind == ev.COMMAND_FINISHED and event.data.get("relayed"):
                # a person's input relayed from a view: capture records what it did
                self._targets.pop(event.data["id"], None)
                self._at.pop(event.data["id"], None)
            elif event.kind == ev.COMMAND_FINISHED:
                self._step(event)
            elif event.kind == ev.AGENT_OUTPUT:
                self._agent_output(event)
            elif ev.kind_of(event.kind).recorded:  # declared in core/events.py
                self._write({"type": "event", "time": event.time, "kind": event.kind,
                             "data": _small(event.data)})
        except OSError as exc:  # the disk is full or the file went away: said once,
            self._failed(exc)     # and the session goes on unrecorded
        except Exception as exc:  # a bug of ours in one record: said, and the next goes on
            log.exception("recording a %s event to %s failed", event.kind, self.path)
            self.session.bus.emit(ev.RECORDING_FAILED, path=str(self.path), error=repr(exc))

    def _where(self) -> dict[str, Any] | None:
        """The active tab as a step starts (the session runs one step at a time, so this
        is where it runs): its number, URL and title."""
        active = self.session.status().get("active")
        if not isinstance(active, dict):
            return None
        return {"tab": active.get("index"), "url": active.get("url"),
                "title": active.get("title")}

    def _failed(self, exc: OSError) -> None:
        """Stop writing (a full disk would fail every step again) and say so: the log,
        and a recording.failed event that the status bar and `serve` show."""
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass  # the same broken file: its error is the one reported below
            self._fd = None
        self.failed = str(exc)
        log.error("recording to %s failed: %s; the session goes on unrecorded",
                  self.path, exc)
        self.session.bus.emit(ev.RECORDING_FAILED, path=str(self.path), error=str(exc))

    def _agent_output(self, event) -> None:
        """At most AGENT_BYTES_A_SECOND of an agent's output a second: an agent writing
        binary must not fill the disk (43 MB a minute). What is left out is counted and
        recorded as `dropped` with the next lines recorded ("… N lines not recorded")."""
        data = event.data
        stream, lines = data.get("stream", "stdout"), data.get("lines") or []
        start, spent = self._agent_window
        if event.time - start >= 1.0 or event.time < start:
            start, spent = event.time, 0
        size = sum(len(line) for line in lines)
        if spent + size > AGENT_BYTES_A_SECOND and spent > 0:
            self._agent_window = (start, spent)
            self._agent_dropped[stream] = (self._agent_dropped.get(stream, 0) + len(lines)
                                           + (data.get("dropped") or 0))
            return
        dropped = self._agent_dropped.pop(stream, 0) + (data.get("dropped") or 0)
        if size > AGENT_BYTES_A_SECOND:  # one read of a flood: its last lines that fit
            kept: list[str] = []
            size = 0
            for line in reversed(lines):
                if kept and size + len(line) > AGENT_BYTES_A_SECOND:
                    break
                kept.insert(0, line)
                size += len(line)
            dropped += len(lines) - len(kept)
            lines = kept
        self._agent_window = (start, spent + size)
        self._write({"type": "event", "time": event.time, "kind": event.kind,
                     "data": {**_small(data), "lines": lines, "dropped": dropped}})

    def _step(self, event) -> None:
        """One finished step, always: when its data cannot be read for what to mask (a
        bug of ours), it is logged and the step still recorded, in the safe form."""
        data = event.data
        targets = self._targets.pop(data["id"], {})
        at = self._at.pop(data["id"], None)
        self.steps += 1
        try:
            record = self._full_step(event, targets, at)
        except Exception as exc:  # logged; the safe form below is recorded
            log.exception("masking step %d (%s) for %s failed: recorded without its "
                          "output, diff and arguments", self.steps,
                          str(data.get("command", "")).split(" ", 1)[0], self.path)
            record = self._safe_step(event, targets, at, exc)
        self._write(record)

    def _full_step(self, event, targets: dict[str, dict[str, Any]],
                   at: dict[str, Any] | None) -> dict[str, Any]:
        data = event.data
        details = data.get("data") if isinstance(data.get("data"), dict) else {}
        if any(PASSWORDISH.search(t["name"]) for t in targets.values()):
            details = {**details, "secret": True}  # even when the step failed before typing
        self.masker.learn_from(data["command"], details)
        command = self.masker.name_typed(data["command"], details)
        tab = details.get("tab") or self.session.status().get("active") or {}
        record = {"type": "step", "n": self.steps, "time": event.time,
                  "source": data["source"], "command": command, "ok": data["ok"],
                  "exit_code": data["exit_code"], "ms": data["ms"],
                  "output": (data["output"] or "")[:MAX_OUTPUT], "error": data["error"],
                  "tab": tab.get("index"), "url": tab.get("url"), "title": tab.get("title"),
                  "diff": details.get("diff"),
                  "targets": targets}
        if at is not None:  # where it ran: replay checks it is there before running it
            record["at"] = at
        if data.get("client"):  # the agent program that sent it (an MCP client's name)
            record["client"] = data["client"]
        if "needs" in details:
            record["needs"] = details["needs"]
        if isinstance(details.get("under"), list):  # a `mouse` step's elements: replay
            record["under"] = details["under"]  # and export act on them where they are
        if details.get("select_all") is True:  # a fill that selected with the keys
            record["select_all"] = True  # (a code editor's): the export does as well
        if details.get("still_loading") is True:  # its diff is of a page still loading
            record["still_loading"] = True
        if isinstance(details.get("shot"), str):  # its picture, beside the recording
            record["shot"] = details["shot"]
        if isinstance(details.get("handoff"), dict):
            record["handoff"] = _small(details["handoff"])
        if isinstance(details.get("confirm"), dict):  # --confirm: a person's answer
            record["confirm"] = _small(details["confirm"])
        return record

    def _safe_step(self, event, targets: dict[str, dict[str, Any]],
                   at: dict[str, Any] | None, exc: Exception) -> dict[str, Any]:
        """The step with nothing that may hold a secret the masker did not learn: its
        arguments (but refs and flags, which replay needs and which hold none), output,
        error text and diff left out; where it ran and how it ended kept."""
        data = event.data
        words = str(data.get("command", "")).split()
        command = " ".join(words[:1] + [w if w.startswith(("@", "-")) else MASK
                                        for w in words[1:]])
        why = f"(not recorded: masking this step failed, {type(exc).__name__}; see the log)"
        active = self.session.status().get("active") or {}
        record = {"type": "step", "n": self.steps, "time": event.time,
                  "source": data.get("source"), "command": command, "ok": data.get("ok"),
                  "exit_code": data.get("exit_code"), "ms": data.get("ms"),
                  "output": why, "error": None if data.get("ok") else why,
                  "tab": active.get("index"), "url": active.get("url"),
                  "title": active.get("title"), "diff": None, "targets": targets}
        if at is not None:
            record["at"] = at
        return record


def _small(data: dict[str, Any]) -> dict[str, Any]:
    """Event data without what is only for screens (a whole page's snapshot text)."""
    return {k: v for k, v in data.items() if k not in ("snapshot",)}
