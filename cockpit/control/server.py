"""The control socket of a live session (TUI, `serve`, `demo`): clients send the token,
then command lines and requests; every command goes through `Session.run`, so commands
from all sources run one at a time, in arrival order, each tagged with its source."""

from __future__ import annotations

import asyncio
import heapq
import json
import os
import secrets
import weakref
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import events as ev
from ..core import Event, shown
from . import discovery
from .discovery import AlreadyLive
from .connection import Connection, size_of
from .protocol import MAX_REQUEST, PROTOCOL

if TYPE_CHECKING:
    from ..core import Session

# Events kept for viewers that attach later: the log's commands (queued, started and
# finished: 10,000 commands), and apart, so a flood of agent output cannot push commands
# out, the agent's output and state and who holds control: bounded by bytes too, as one
# agent.output event may carry hundreds of lines.
COMMAND_HISTORY = 30_000
COMMAND_HISTORY_BYTES = 32 << 20  # ... and this much of them (a snapshot's output is big)
AGENT_HISTORY = 5_000
AGENT_HISTORY_BYTES = 8 << 20


class ControlServer:
    def __init__(self, session: Session, workspace: Path | None = None) -> None:
        self.session = session
        self.socket = Path(discovery.socket_path(session.name, workspace))
        self.workspace = (workspace or Path.cwd()).resolve()  # the one the socket is keyed on
        self.token = secrets.token_hex(16)
        self.commands: deque[Event] = deque()
        self._command_bytes = 0
        self.agent: deque[Event] = deque()
        self._agent_bytes = 0
        # tasks in which a command has started (command.started is emitted in the task that
        # awaits Session.run): a client that leaves takes back only the others
        self.started: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()
        self._server: asyncio.AbstractServer | None = None
        self._connections: dict[asyncio.Task[Any], Connection] = {}
        self._unsubscribe: Callable[[], None] | None = None
        self.refused = 0

    async def start(self) -> Path:
        """Listen; raises AlreadyLive when a live session already has this name here, and
        discovery.Unreachable, saying what to do, when the socket cannot be made."""
        try:
            discovery.private_dir(create=True)
        except OSError as exc:
            raise discovery.Unreachable(f"cannot create {discovery.runtime_dir()}: {exc}: make it "
                                    f"a directory of yours, or set XDG_RUNTIME_DIR to one"
                                    ) from None
        live = discovery.alive(self.socket)  # a stale socket is cleaned up on the way
        if live is not None:
            raise AlreadyLive(f"session {self.session.name!r} is already live here (pid "
                              f"{live.pid}): attach to it with `cockpit attach --session "
                              f"{self.session.name}`, or pick another --session")
        try:
            self._server = await asyncio.start_unix_server(
                self._serve_client, path=str(self.socket), limit=MAX_REQUEST + 2)
        except OSError as exc:  # a file in the way, a full disk, a path too long
            raise discovery.Unreachable(f"cannot create the control socket {self.socket}: "
                                    f"{exc}: remove what is in the way, or pick a shorter "
                                    f"--session") from None
        os.chmod(self.socket, 0o600)
        self._write_info()
        self._unsubscribe = self.session.bus.subscribe(self._keep)
        return self.socket

    def _write_info(self) -> None:
        attach = getattr(self.session, "attach", None)  # --cdp / --ws-endpoint, if given
        info = {"session": self.session.name, "token": self.token, "pid": os.getpid(),
                "workspace": str(self.workspace), "protocol": PROTOCOL,
                "browser": attach.kind if attach else "local",
                "endpoint": shown(attach.endpoint) if attach else None}
        target = discovery.info_path(self.socket)
        temp = self.socket.with_suffix(".tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(info, out)
        os.replace(temp, target)

    async def close(self) -> None:
        if self._unsubscribe:
            self._unsubscribe()
            self._unsubscribe = None
        if self._server is not None:
            self._server.close()
            self._server = None
            # closing each connection ends its handler (end of input); cancelling the
            # handler instead would make asyncio log an error for each. Commands still
            # waiting for their turn (agents held) would never get one: taken back now
            connections = dict(self._connections)
            for conn in connections.values():
                conn.cancel_unstarted()
                conn.writer.close()
            if connections:
                _, late = await asyncio.wait(list(connections), timeout=5)
                if late:  # a command that would not end: the browser closes next
                    stuck = [t for c in connections.values() for t in c.tasks] + list(late)
                    for task in stuck:
                        task.cancel()
                    await asyncio.gather(*stuck, return_exceptions=True)
            on_disk = discovery.LiveInfo.read(self.socket)  # only our own files: a successor
            if on_disk is not None and on_disk.token == self.token:  # may own them
                discovery.remove(self.socket)

    def _keep(self, event: Event) -> None:
        spec = ev.kind_of(event.kind)  # which kinds are kept, and where: core/events.py
        if not spec.kept:
            return
        if spec.group == ev.COMMANDS:  # bounded in count and size: memory stays flat
            self.commands.append(event)
            self._command_bytes += size_of(event)
            while len(self.commands) > COMMAND_HISTORY or (
                    self._command_bytes > COMMAND_HISTORY_BYTES and len(self.commands) > 1):
                self._command_bytes -= size_of(self.commands.popleft())
            if event.kind == ev.COMMAND_STARTED and (task := _current_task()) is not None:
                self.started.add(task)
        else:  # the agent's, bounded in count and size
            self.agent.append(event)
            self._agent_bytes += size_of(event)
            while len(self.agent) > AGENT_HISTORY or self._agent_bytes > AGENT_HISTORY_BYTES:
                self._agent_bytes -= size_of(self.agent.popleft())

    def history(self) -> list[Event]:
        return list(heapq.merge(self.commands, self.agent, key=lambda e: e.time))

    # --- one client -------------------------------------------------------------------
    async def _serve_client(self, reader: asyncio.StreamReader,
                            writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None  # asyncio runs each client's handler in a task of its own
        conn = self._connections[task] = Connection(self, reader, writer)
        try:
            await conn.serve()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away: nothing to answer
        except Exception as exc:  # noqa: BLE001  a bug must end one connection, not more
            self.session.bus.emit(ev.CONTROL_REFUSED,
                                  reason=f"connection ended by {type(exc).__name__}: {exc}")
        finally:
            self._connections.pop(task, None)
            await conn.close()

    def refuse(self, reason: str) -> None:
        # an event only, never stderr: a TUI may own the terminal (serve prints it)
        self.refused += 1
        self.session.bus.emit(ev.CONTROL_REFUSED, reason=reason)


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # emitted outside the event loop: no task to track
        return None
