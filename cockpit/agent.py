"""An agent subprocess (`cockpit --agent CMD`): started with the session's socket in its
environment, its output streamed onto the event bus, pausable, stoppable, restartable.

The agent reaches the browser like any client (`cockpit exec`, `cockpit.client`); here we
only run it and watch it. Whatever it does — exits, crashes, hangs, floods its output —
stays in its own process: the cockpit shows it and goes on.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from .core import events as ev
from .core.events import Event
from .remote.paths import ENV_SESSION, ENV_SOCKET

STOP_GRACE_S = 3.0  # between SIGTERM and SIGKILL
MAX_LINE = 4000  # characters of one output line kept; the rest is counted, not kept
CHUNK = 64 * 1024


def cockpit_bin_dir() -> Path | None:
    """The directory of the `cockpit` script this process was started from (or that sits
    beside this Python), for the agent's PATH."""
    for candidate in (Path(sys.argv[0]).parent, Path(sys.executable).parent):
        if (candidate / "cockpit").is_file():
            return candidate.resolve()
    return None


class AgentProcess:
    def __init__(self, command: str, session, socket: Path) -> None:
        self.command = command
        self.session = session
        self.socket = socket
        self.proc: asyncio.subprocess.Process | None = None
        self.state = "not started"
        self.exit_code: int | None = None
        self.waiting_for: str | None = None  # the agent's command in flight, if any
        self._in_flight: dict[int, str] = {}
        self._tasks: list[asyncio.Task] = []
        self._unsubscribe = session.bus.subscribe(self._follow_commands)

    # --- lifecycle ----------------------------------------------------------------------
    def environment(self) -> dict[str, str]:
        env = {**os.environ, ENV_SESSION: self.session.name, ENV_SOCKET: str(self.socket),
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
            self.proc = await asyncio.create_subprocess_shell(
                self.command, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env=self.environment(), start_new_session=True)  # its own process group
        except OSError as exc:
            self._set_state("exited", f"could not start: {exc}")
            return
        self._set_state("running")
        self._tasks = [asyncio.create_task(self._read(self.proc.stdout, "stdout")),
                       asyncio.create_task(self._read(self.proc.stderr, "stderr")),
                       asyncio.create_task(self._watch(self.proc))]

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
        """SIGTERM to its process group, SIGKILL after STOP_GRACE_S."""
        proc = self.proc
        if proc is None or proc.returncode is not None:
            return
        self._signal(proc, signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), STOP_GRACE_S)
        except asyncio.TimeoutError:
            self._signal(proc, signal.SIGKILL)
            await proc.wait()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    async def close(self) -> None:
        await self.stop()
        self._unsubscribe()

    @staticmethod
    def _signal(proc, sig: int) -> None:
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass  # already gone

    # --- watching -----------------------------------------------------------------------
    async def _read(self, stream: asyncio.StreamReader, name: str) -> None:
        """Chunks, not lines: a flood or a line without end costs one event per chunk."""
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

    def _emit_lines(self, stream: str, lines: list[str]) -> None:
        kept = [line if len(line) <= MAX_LINE else
                f"{line[:MAX_LINE]}… ({len(line) - MAX_LINE} more characters)"
                for line in (raw.rstrip("\r") for raw in lines)]
        self.session.bus.emit(ev.AGENT_OUTPUT, stream=stream, lines=kept)

    async def _watch(self, proc) -> None:
        code = await proc.wait()
        if proc is not self.proc:
            return
        self.exit_code = code
        if self.state == "paused":
            self.session.release_agents()  # nothing left to pause: others may go on
        self._in_flight.clear()
        self._set_state("exited", f"killed by signal {-code}" if code < 0 else
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


def describe(state: dict) -> str:
    """One line for views, from an agent.state event's data."""
    if state.get("state") == "waiting" and state.get("waiting_for"):
        return f"waiting for `{state['waiting_for']}`"
    if state.get("state") == "exited":
        return state.get("detail") or "exited"
    return state.get("state") or "no agent"
