"""The control socket of a live session (TUI, `serve`, `demo`): clients send the token,
then command lines and requests; every command goes through `Session.run`, so commands
from all sources run one at a time, in arrival order, each tagged with its source."""

from __future__ import annotations

import asyncio
import base64
import heapq
import hmac
import json
import os
import secrets
import sys
from collections import deque
from pathlib import Path
from typing import Any

from ..core import events as ev
from ..core.events import Event
from . import paths
from .wire import MAX_REQUEST, PROTOCOL, ProtocolError, check_request, decode, encode

# Events kept for viewers that attach later: the log's commands (queued, started and
# finished: 10,000 commands), and apart, so a flood of agent output cannot push commands
# out, the agent's output and state and who holds control.
COMMAND_HISTORY = 30_000
AGENT_HISTORY = 5_000
SUBSCRIBER_BACKLOG = 20_000  # events queued for one slow subscriber before dropping


class AlreadyLive(Exception):
    pass


class ControlServer:
    def __init__(self, session, workspace: Path | None = None) -> None:
        self.session = session
        self.socket = paths.socket_path(session.name, workspace)
        self.token = secrets.token_hex(16)
        self.commands: deque[Event] = deque(maxlen=COMMAND_HISTORY)
        self.agent: deque[Event] = deque(maxlen=AGENT_HISTORY)
        self._server: asyncio.AbstractServer | None = None
        self._connections: dict[asyncio.Task, _Connection] = {}
        self._unsubscribe = None
        self.refused = 0

    async def start(self) -> Path:
        """Listen; raises AlreadyLive when a live session already has this name here."""
        paths.private_dir(create=True)
        live = paths.alive(self.socket)  # a stale socket is cleaned up on the way
        if live is not None:
            raise AlreadyLive(f"session {self.session.name!r} is already live here (pid "
                              f"{live.pid}): attach to it with `cockpit attach --session "
                              f"{self.session.name}`, or pick another --session")
        self._server = await asyncio.start_unix_server(
            self._serve_client, path=str(self.socket), limit=MAX_REQUEST + 2)
        os.chmod(self.socket, 0o600)
        self._write_info()
        self._unsubscribe = self.session.bus.subscribe(self._keep)
        return self.socket

    def _write_info(self) -> None:
        info = {"session": self.session.name, "token": self.token, "pid": os.getpid(),
                "workspace": str(Path.cwd()), "protocol": PROTOCOL}
        target = paths.info_path(self.socket)
        temp = target.with_suffix(".tmp")
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
            # handler instead would make asyncio log an error for each
            for conn in list(self._connections.values()):
                conn.writer.close()
            if self._connections:
                _, late = await asyncio.wait(list(self._connections), timeout=5)
                for task in late:  # a command that would not end: the browser closes next
                    task.cancel()
            if (paths.LiveInfo.read(self.socket) or paths.LiveInfo("", self.socket, "", 0, "")
                    ).token == self.token:  # only our own files: a successor may own them
                paths.remove(self.socket)

    def _keep(self, event: Event) -> None:
        if event.kind.startswith("command."):
            self.commands.append(event)
        elif event.kind.startswith(("agent.", "agents.")):
            self.agent.append(event)

    def history(self) -> list[Event]:
        return list(heapq.merge(self.commands, self.agent, key=lambda e: e.time))

    # --- one client -------------------------------------------------------------------
    async def _serve_client(self, reader: asyncio.StreamReader,
                            writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        conn = self._connections[task] = _Connection(self, reader, writer)
        try:
            await conn.serve()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away: nothing to answer
        finally:
            self._connections.pop(task, None)
            await conn.close()

    def refuse(self, reason: str) -> None:
        self.refused += 1
        self.session.bus.emit(ev.CONTROL_REFUSED, reason=reason)
        print(f"cockpit: control socket: refused a client: {reason}", file=sys.stderr)


class _Connection:
    def __init__(self, server: ControlServer, reader, writer) -> None:
        self.server = server
        self.session = server.session
        self.reader = reader
        self.writer = writer
        self.tasks: set[asyncio.Task] = set()
        self.write_lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        async with self.write_lock:
            self.writer.write(encode(message))
            await self.writer.drain()

    async def read(self) -> bytes | None:
        """One request line; None at the end of input. An oversized line is answered and
        ends the connection (the rest of it cannot be told from the next request)."""
        try:
            line = await self.reader.readline()
        except ValueError:
            await self.send({"ok": False, "error": f"request line over {MAX_REQUEST} bytes: "
                             "send smaller requests (one command a line)"})
            return None
        return line or None

    async def serve(self) -> None:
        if not await self.handshake():
            return
        while (line := await self.read()) is not None:
            if not line.strip():
                continue
            try:
                op, request = check_request(decode(line))
            except ProtocolError as exc:
                await self.send({"id": exc.request_id, "ok": False, "error": str(exc)})
                continue
            # started now, in arrival order: Session.run queues them fairly (FIFO lock)
            task = asyncio.create_task(self.answer(op, request))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        # end of input (or a half-closed socket): answer what was asked, then close
        await asyncio.gather(*[t for t in self.tasks if not _is_stream(t)],
                             return_exceptions=True)

    async def handshake(self) -> bool:
        line = await self.read()
        if line is None:
            return False  # connected and left without a word: a liveness probe
        try:
            hello = decode(line or b"")
            token = hello.get("token")
            good = isinstance(token, str) and hmac.compare_digest(token, self.server.token)
        except ProtocolError:
            good, token = False, None
        if not good:
            reason = "no token" if not token else "wrong token"
            self.server.refuse(reason)
            await self.send({"ok": False, "error": f"{reason}: a client must first send "
                             '{"token": ...} with the token from the session\'s .json file'})
            return False
        await self.send({"ok": True, "session": self.session.name, "protocol": PROTOCOL,
                         "pid": os.getpid()})
        return True

    async def answer(self, op: str, request: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"id": request.get("id")}
        if op == "run":
            source = request.get("source", "agent")
            if source == "agent" and self.session.agents_held:  # say why before it waits
                await self.send({"id": request.get("id"), "waiting": self.session.agents_held})
            result = await self.session.run(request["command"],
                                            source=source,
                                            timeout=request.get("timeout"))
            reply.update(result.to_json(), exit_code=result.exit_code)
        elif op == "ping":
            reply.update(ok=True)
        elif op == "state":
            reply.update(ok=True, data=state_of(self.session))
        elif op == "picture":
            png = await self.session.picture(labels=bool(request.get("labels")))
            reply.update(ok=png is not None, data={
                "png": base64.b64encode(png).decode() if png else None},
                error=None if png else "no picture: the tab is closed or a dialog is open")
        elif op == "subscribe":
            await self.stream(request)
            return
        await self.send(reply)

    async def stream(self, request: dict[str, Any]) -> None:
        """Every event from now on (after the kept history, when asked), as they come."""
        asyncio.current_task().set_name("cockpit-stream")
        queue: asyncio.Queue[Event] = asyncio.Queue()
        dropped = 0

        def put(event: Event) -> None:
            nonlocal dropped
            if queue.qsize() >= SUBSCRIBER_BACKLOG:
                queue.get_nowait()
                dropped += 1
            queue.put_nowait(event)

        past = self.server.history() if request.get("history") else []
        unsubscribe = self.session.bus.subscribe(put)
        try:
            await self.send({"id": request.get("id"), "ok": True, "history": len(past)})
            for event in past:
                await self.send({"event": event.to_json()})
            while True:
                event = await queue.get()
                if dropped:
                    await self.send({"event": {"kind": "events.dropped", "time": event.time,
                                               "data": {"count": dropped}}})
                    dropped = 0
                await self.send({"event": event.to_json()})
        finally:
            unsubscribe()

    async def close(self) -> None:
        # a command already sent still runs to its end (its answer has nowhere to go):
        # cutting it off halfway would leave the page in a state nobody asked for
        for task in self.tasks:
            if _is_stream(task):
                task.cancel()
        try:
            self.writer.close()
            await self.writer.wait_closed()
        except (ConnectionError, OSError):
            pass


def _is_stream(task: asyncio.Task) -> bool:
    return task.get_name() == "cockpit-stream"


def state_of(session) -> dict[str, Any]:
    return {"status": session.status(), "tabs": session.tabs_info(),
            "refs": session.refs_info()}
