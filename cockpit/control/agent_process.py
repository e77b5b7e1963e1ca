"""An agent subprocess (`cockpit --agent CMD`): started with the session's socket in its
environment, its output streamed onto the event bus, pausable, stoppable, restartable.

The agent reaches the browser like any client (`cockpit exec`, `cockpit.client`); here we
only run it and watch it. Whatever it does — exits, crashes, hangs, floods its output —
stays in its own process: the cockpit shows it and goes on.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import signal
import sys
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import events as ev
from ..core import describe as describe  # its home was here: kept importable (re-exported)
from ..core import Event
from .discovery import ENV_SESSION, ENV_SOCKET
from .protocol import ENV_AGENT

if TYPE_CHECKING:
    from ..core import Session

STOP_GRACE_S = 3.0  # between SIGTERM and SIGKILL
DRAIN_S = 1.0  # for its last output once it has ended
MAX_LINE = 4000  # characters of one output line kept; the rest is counted, not kept
MAX_LINES_AN_EVENT = 200  # a flood keeps the last lines of each read, and counts the rest
CHUNK = 64 * 1024
MAX_BYTES_A_SECOND = 256 * 1024  # of lines shown a second; past it they are counted
TAIL_LINES = 20  # of a flood's counted lines, the last are shown when its stream ends


def cockpit_bin_dir() -> Path | None:
    """The directory of the `cockpit` script this process was started from (or that sits
    beside this Python), for the agent's PATH."""
    for candidate in (Path(sys.argv[0]).parent, Path(sys.executable).parent):
        if (candidate / "cockpit").is_file():
            return candidate.resolve()
    return None


class AgentProcess:
    def __init__(self, command: str, session: Session, socket: Path) -> None:
        self.command = command
        self.session = session
        self.socket = socket
        self.proc: asyncio.subprocess.Process | None = None
        self.state = "not started"
        self.exit_code: int | None = None
        self.waiting_for: str | None = None  # the agent's command in flight, if any
        self._in_flight: dict[int, str] = {}
        self._tasks: list[asyncio.Task[Any]] = []
        self._group: int | None = None  # its process group, until nothing of it is left
        self._window = (0.0, 0)  # (start of this second, bytes of lines shown in it)
        self._held: dict[str, int] = {}  # lines of each stream counted, not yet said
        # ... and the last of them: what an agent says before it exits (its error) is
        # shown even when a flood used up the second's budget
        self._tails: dict[str, deque[str]] = {}
        self._unsubscribe = session.bus.subscribe(self._follow_commands)

    # --- lifecycle ----------------------------------------------------------------------
    def environment(self) -> dict[str, str]:
        env = {**os.environ, ENV_SESSION: self.session.name, ENV_SOCKET: str(self.socket),
               ENV_AGENT: "1",
               "PYTHONUNBUFFERED": "1"}  # a Python agent's prints arrive as they happen
        bin_dir = cockpit_bin_dir()
        if bin_dir is not None:
            env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        return env

    async def start(self) -> None:
        if self.running:
            return
        self.exit_code = None
        try:
            proc = self.proc = await asyncio.create_subprocess_shell(
                self.command, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env=self.environment(), start_new_session=True)  # its own process group
        except OSError as exc:
            self._set_state("exited", f"could not start: {exc}")
            return
        self._group = proc.pid  # start_new_session: its pid is its group's id
        _live_groups.add(proc.pid)
        self._set_state("running")
        assert proc.stdout is not None and proc.stderr is not None  # PIPE asked for both
        self._tasks = [asyncio.create_task(self._read(proc.stdout, "stdout")),
                       asyncio.create_task(self._read(proc.stderr, "stderr")),
                       asyncio.create_task(self._watch(proc))]

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    def pause(self) -> None:
        """Its commands wait (queued, in order) until resume; the process itself runs on."""
        if self.running and self.state != "paused":
            self.session.hold_agents("the agent is paused")
            self._set_state("paused")

    def resume(self) -> None:
        if self.state == "paused":
            self.session.release_agents()
            self._set_state("waiting" if self._in_flight else "running")

    async def stop(self) -> None:
        """SIGTERM to its whole process group, SIGKILL after STOP_GRACE_S to whatever of
        the group is left — whether or not its leader (often a `sh -c` wrapper) ended:
        an agent under a shell that died on TERM keeps no browser. Bounded even when a
        descendant that left the group (`setsid cmd &`) keeps its output pipes open."""
        proc = self.proc
        if proc is None:
            return
        group = self._group
        if group is not None and (proc.returncode is None or group_alive(group)):
            _signal_group(group, signal.SIGTERM)
            if not await _group_ended(proc, group, STOP_GRACE_S):
                _signal_group(group, signal.SIGKILL)
                await _group_ended(proc, group, STOP_GRACE_S)
        if group is not None and not group_alive(group):
            _live_groups.discard(group)
            self._group = None
        tasks = [task for task in self._tasks if not task.done()]
        if not tasks:
            if proc is self.proc and self.state != "exited":
                self._exited(proc.returncode)
            return
        _, late = await asyncio.wait(tasks, timeout=DRAIN_S)
        if late:  # the pipes are still open: closing them ends the readers and proc.wait()
            proc._transport.close()  # type: ignore[attr-defined]  # no public way to close them
            _, late = await asyncio.wait(late, timeout=DRAIN_S)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        if proc is self.proc and self.state != "exited":
            self._exited(proc.returncode)  # _watch did not get to say it

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    async def close(self) -> None:
        try:
            await self.stop()
        finally:  # cancelled or failed half-way: nothing of it outlives us all the same
            if self._group is not None:
                _signal_group(self._group, signal.SIGKILL)
                _live_groups.discard(self._group)
                self._group = None
            self._unsubscribe()

    # --- watching -----------------------------------------------------------------------
    async def _read(self, stream: asyncio.StreamReader, name: str) -> None:
        """Chunks, not lines: a flood or a line without end costs one event per chunk, of
        at most MAX_LINES_AN_EVENT lines."""
        partial = ""
        while chunk := await stream.read(CHUNK):
            lines = (partial + chunk.decode("utf-8", errors="replace")).split("\n")
            partial = lines.pop()
            if len(partial) > MAX_LINE:  # a line that never ends: show what came so far
                lines.append(partial)
                partial = ""
            if lines:
                self._emit_lines(name, lines)
        if partial:
            self._emit_lines(name, [partial])
        if self._held.get(name):  # the flood's count and its last lines, before its end
            tail = list(self._tails.pop(name, ()))
            self._held[name] -= len(tail)
            self._emit_lines(name, tail, force=True)

    def _emit_lines(self, stream: str, lines: list[str], force: bool = False) -> None:
        # "lines" are the lines shown, in order; "dropped" counts those before them that
        # were not kept (views say "… N lines not shown"). Past MAX_BYTES_A_SECOND a
        # second the lines are only counted, and said with the next lines shown: a
        # flood (an agent writing binary) costs the screen, the socket's viewers and the
        # recording a bounded amount a second.
        loop = asyncio.get_running_loop()
        start, spent = self._window
        if loop.time() - start >= 1.0:
            start, spent = loop.time(), 0
        size = sum(len(line) for line in lines[-MAX_LINES_AN_EVENT:])
        if spent >= MAX_BYTES_A_SECOND and not force:
            self._held[stream] = self._held.get(stream, 0) + len(lines)
            self._tails.setdefault(stream, deque(maxlen=TAIL_LINES)).extend(
                lines[-TAIL_LINES:])
            self._window = (start, spent)
            return
        self._window = (start, spent + size)
        held = self._held.pop(stream, 0)
        self._tails.pop(stream, None)  # shown from here on: the count says what came before
        dropped = held + max(0, len(lines) - MAX_LINES_AN_EVENT)
        kept = [line if len(line) <= MAX_LINE else
                f"{line[:MAX_LINE]}… ({len(line) - MAX_LINE} more characters)"
                for line in (raw.rstrip("\r") for raw in lines[dropped - held:])]
        self.session.bus.emit(ev.AGENT_OUTPUT, stream=stream, lines=kept, dropped=dropped)

    async def _watch(self, proc: asyncio.subprocess.Process) -> None:
        code = await proc.wait()  # its exit, and its pipes closed: all its output is in
        if proc is self.proc:
            self._exited(code)

    def _exited(self, code: int | None) -> None:
        self.exit_code = code
        if self.state == "paused":
            self.session.release_agents()  # nothing left to pause: others may go on
        self._in_flight.clear()
        self._set_state("exited", "it did not end after SIGKILL" if code is None else
                        f"killed by signal {-code}" if code < 0 else
                        f"exited with code {code}")

    def _follow_commands(self, event: Event) -> None:
        if event.data.get("source") != "agent" or not self.running:
            return
        if event.kind == ev.COMMAND_QUEUED:
            self._in_flight[event.data["id"]] = event.data["command"]
        elif event.kind == ev.COMMAND_FINISHED:
            self._in_flight.pop(event.data["id"], None)
        else:
            return
        if self.state in ("running", "waiting"):
            self._set_state("waiting" if self._in_flight else "running")

    def _set_state(self, state: str, detail: str = "") -> None:
        changed = state != self.state or detail
        self.state = state
        self.waiting_for = next(iter(self._in_flight.values()), None)
        if changed or state == "waiting":
            self.session.bus.emit(ev.AGENT_STATE, state=state, detail=detail,
                                  command=self.command, exit_code=self.exit_code,
                                  waiting_for=self.waiting_for,
                                  pid=self.proc.pid if self.proc else None)


# --- process groups ----------------------------------------------------------------------
# The groups of the agents started by this process and not yet seen gone: killed at exit
# (a cockpit that quits without closing its session, or crashes) so none outlives it.
_live_groups: set[int] = set()


def _signal_group(group: int, sig: int) -> None:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        pass  # already gone (or its id reused by someone else's: not ours to signal)


def group_members(group: int) -> list[int] | None:
    """The pids of the living (not zombie) processes of a process group; None where
    /proc cannot say (not Linux)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    members = []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone while we looked
        # after "(comm)": state, ppid, pgrp
        if len(fields) > 2 and fields[0] != b"Z" and int(fields[2]) == group:
            members.append(int(entry))
    return members


def group_alive(group: int) -> bool:
    members = group_members(group)
    if members is not None:
        return bool(members)
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def _group_ended(proc: asyncio.subprocess.Process, group: int, timeout: float) -> bool:
    """Whether the leader and every process of its group ended within `timeout` s. Not
    proc.wait(): on Python 3.11 that also waits for its pipes to close, which a
    descendant outside its group may hold forever."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if proc.returncode is not None and not group_alive(group):
            return True
        await asyncio.sleep(0.05)
    return proc.returncode is not None and not group_alive(group)


@atexit.register
def _kill_live_groups() -> None:
    for group in list(_live_groups):
        _signal_group(group, signal.SIGKILL)
    _live_groups.clear()

