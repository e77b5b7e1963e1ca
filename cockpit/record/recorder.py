"""The recorder: a bus listener that appends one JSON line per finished step (and per
handoff, resume, need or agent output) to the session's recording, flushed at once, so a
killed cockpit leaves a file whose finished steps all parse."""

from __future__ import annotations

import logging
import os
import re
import time
from pathlib import Path
from typing import Any

from .. import __version__
from ..core import events as ev
from ..core.targets import as_ref
from .mask import Masker

FORMAT = "cockpit-recording"
VERSION = 1
# Events worth keeping besides the steps: who had control, and what the agent said.
KEPT_EVENTS = {ev.HANDOFF, ev.RESUMED, ev.NEEDS_HUMAN, ev.NEEDS_CLEARED, ev.AGENT_OUTPUT,
               ev.AGENT_STATE, ev.TAB_OPENED, ev.TAB_CLOSED}
PASSWORDISH = re.compile(r"(?i)pass(word|phrase|code)|\bpin\b")
MAX_OUTPUT = 20_000  # characters of a step's text kept; the data keeps the structure
log = logging.getLogger("cockpit.record")


def recordings_dir() -> Path:
    """recordings/ in the working directory ($COCKPIT_RECORDINGS_DIR instead, when set:
    tests keep theirs out of the checkout)."""
    return Path(os.environ.get("COCKPIT_RECORDINGS_DIR") or Path.cwd() / "recordings")


def default_path(session_name: str) -> Path:
    return recordings_dir() / f"{session_name}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"


def start_recording(session) -> Recorder | None:
    """The recorder for a session whose CLI asked for one (session.recording_path)."""
    if session.recording_path is None:
        return None
    return Recorder(session, session.recording_path).start()


class Recorder:
    """Attach with `Recorder(session, path).start()`; `close()` detaches."""

    def __init__(self, session, path: Path) -> None:
        self.session = session
        self.path = Path(path)
        self.masker = Masker(session.secrets.values)
        self.steps = 0
        self._targets: dict[Any, dict[str, dict[str, str]]] = {}
        self._fd: int | None = None
        self._unsubscribe = None

    def start(self) -> Recorder:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._write({"type": "header", "format": FORMAT, "version": VERSION,
                     "session": self.session.name, "started": time.time(),
                     "cockpit": __version__})
        self._unsubscribe = self.session.bus.subscribe(self._on_event)
        return self

    def close(self) -> None:
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
        os.write(self._fd, (self.masker.json_line(record) + "\n").encode("utf-8"))

    def _on_event(self, event) -> None:
        try:
            if event.kind == ev.COMMAND_STARTED:
                self._targets[event.data["id"]] = self._refs_of(event.data["command"])
            elif event.kind == ev.COMMAND_FINISHED:
                self._step(event)
            elif event.kind in KEPT_EVENTS:
                self._write({"type": "event", "time": event.time, "kind": event.kind,
                             "data": _small(event.data)})
        except OSError as exc:  # the disk is full or the file went away: said once,
            self._failed(exc)     # and the session goes on unrecorded
        except Exception as exc:  # a bug of ours in one record: said, and the next goes on
            log.exception("recording a %s event to %s failed", event.kind, self.path)
            self.session.bus.emit(ev.RECORDING_FAILED, path=str(self.path), error=repr(exc))

    def _failed(self, exc: OSError) -> None:
        """Stop writing (a full disk would fail every step again) and say so: the log,
        and a recording.failed event that the status bar and `serve` show."""
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass  # the same broken file: its error is the one reported below
            self._fd = None
        log.error("recording to %s failed: %s; the session goes on unrecorded",
                  self.path, exc)
        self.session.bus.emit(ev.RECORDING_FAILED, path=str(self.path), error=str(exc))

    def _refs_of(self, line: str) -> dict[str, dict[str, str]]:
        """Role and name of every ref the line uses, as the snapshot knew them before the
        step ran: what replay finds the element by when refs are numbered differently."""
        tab = self.session.active
        snap = tab.snapshot if tab is not None else None
        found = {}
        for word in line.split()[1:]:
            ref = as_ref(word.strip("'\""))
            node = snap.refs.get(ref) if snap and ref else None
            if node is not None:  # nth: which of the elements with this role and name
                found[ref] = {"role": node.role, "name": node.name, "nth": _nth(snap, ref)}
        return found

    def _step(self, event) -> None:
        data = event.data
        details = data.get("data") or {}
        targets = self._targets.pop(data["id"], {})
        if any(PASSWORDISH.search(t["name"]) for t in targets.values()):
            details = {**details, "secret": True}  # even when the step failed before typing
        self.masker.learn_from(data["command"], details)
        self.steps += 1
        tab = details.get("tab") or (self.session.active.info() if self.session.active
                                     else {})
        record = {"type": "step", "n": self.steps, "time": event.time,
                  "source": data["source"], "command": data["command"], "ok": data["ok"],
                  "exit_code": data["exit_code"], "ms": data["ms"],
                  "output": (data["output"] or "")[:MAX_OUTPUT], "error": data["error"],
                  "tab": tab.get("index"), "url": tab.get("url"),
                  "diff": details.get("diff"),
                  "targets": targets}
        if "needs" in details:
            record["needs"] = details["needs"]
        if isinstance(details.get("handoff"), dict):
            record["handoff"] = _small(details["handoff"])
        self._write(record)


def _nth(snap, ref: str) -> int:
    """How many elements of the ref's role and name come before it (document order)."""
    node, count = snap.refs[ref], 0
    for other, n in snap.refs.items():
        if other == ref:
            return count
        count += n.role == node.role and n.name == node.name
    return count


def _small(data: dict[str, Any]) -> dict[str, Any]:
    """Event data without what is only for screens (a whole page's snapshot text)."""
    return {k: v for k, v in data.items() if k not in ("snapshot",)}
