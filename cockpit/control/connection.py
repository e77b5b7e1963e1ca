"""One client of a live session's control socket: its handshake (the token), its
requests (command lines, state, pictures, the web view, frames) answered as they come,
and its stream of the session's events, bounded for a slow reader. The server
(server.py) accepts clients and keeps the events' history."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import os
import select
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core import events as ev
from ..core import Event, caller_dir
from .frames import stream_frames
from .protocol import MAX_REQUEST, PROTOCOL, ProtocolError, check_request, decode, encode

if TYPE_CHECKING:
    from ..core import Session
    from .server import ControlServer

SUBSCRIBER_BACKLOG = 20_000  # events queued for one slow subscriber before dropping
SUBSCRIBER_BYTES = 32 << 20  # ... or this much of them (roughly)
PEER_CHECK_S = 0.5  # how often a half-closed client is checked for having left for good


class Connection:
    def __init__(self, server: ControlServer, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.session = server.session
        self.reader = reader
        self.writer = writer
        self.tasks: set[asyncio.Task[Any]] = set()
        self.write_lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        async with self.write_lock:
            self.writer.write(encode(message))
            await self.writer.drain()

    async def read(self) -> bytes | None:
        """One request line; None at the end of input. An oversized line is read to its
        end and discarded, then answered, and ends the connection: closing with unread
        data would reset it, and the client would never see why."""
        try:
            return await self.reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            return exc.partial or None  # the last line may lack its newline
        except asyncio.LimitOverrunError as exc:
            await self._discard_line(exc.consumed)
            await self.send({"ok": False, "error": f"request line over {MAX_REQUEST} bytes: "
                             "send smaller requests (one command a line)"})
            return None

    async def _discard_line(self, consumed: int) -> None:
        while True:
            await self.reader.readexactly(consumed)  # drop what is buffered so far
            try:
                await self.reader.readuntil(b"\n")
                return
            except asyncio.IncompleteReadError:
                return  # the end of input came first
            except asyncio.LimitOverrunError as exc:
                consumed = exc.consumed

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
            task = asyncio.create_task(self.answer(op, request), name=f"cockpit-{op}")
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        # end of input: a half-closed socket still wants its answers; a client that left
        # for good (exec stopped by Ctrl+C) takes back what has not started yet
        answers = [t for t in self.tasks if not _is_stream(t)]
        pending = set(answers)
        while pending:
            if self.peer_gone():
                self.cancel_unstarted()
            _, pending = await asyncio.wait(pending, timeout=PEER_CHECK_S)
        await asyncio.gather(*answers, return_exceptions=True)

    def peer_gone(self) -> bool:
        """The client closed its end for good, not only its writing half (Linux reports
        POLLHUP on a Unix socket once both halves are shut)."""
        sock = self.writer.get_extra_info("socket")
        if sock is None or sock.fileno() < 0:
            return True
        poller = select.poll()
        poller.register(sock.fileno(), 0)  # hang-up and error are reported regardless
        return any(flags & (select.POLLHUP | select.POLLERR | select.POLLNVAL)
                   for _, flags in poller.poll(0))

    def cancel_unstarted(self) -> None:
        """Take back this client's commands that still wait for their turn (Session.run
        logs each as cancelled); one that started runs to its end."""
        for task in self.tasks:
            if task.get_name() == "cockpit-run" and task not in self.server.started:
                task.cancel()

    async def handshake(self) -> bool:
        line = await self.read()
        if line is None:
            return False  # connected and left without a word: a liveness probe
        try:
            hello = decode(line or b"")
            token = hello.get("token")
            # bytes: compare_digest refuses str with non-ASCII characters
            good = isinstance(token, str) and hmac.compare_digest(
                token.encode("utf-8", "surrogatepass"), self.server.token.encode())
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
        try:
            await self._answer(op, request)
        except ConnectionError:
            pass  # the client left: the answer has nowhere to go
        except Exception as exc:  # noqa: BLE001  the client must not wait forever
            with contextlib.suppress(ConnectionError):
                await self.send({"id": request.get("id"), "ok": False, "exit_code": 1,
                                 "error": f"{op} failed in the session: "
                                          f"{type(exc).__name__}: {exc}"})

    async def _answer(self, op: str, request: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"id": request.get("id")}
        if op == "run":
            source = request.get("source", "agent")
            command = self.session.command(request["command"])  # parsed once, here
            if self.session.waits(command, source):  # say why before it waits
                await self.send({"id": request.get("id"), "waiting": self.session.agents_held})
            elif why := self.session.policy.would_wait(self.session, command, source):
                await self.send({"id": request.get("id"), "waiting": why})
            cwd = request.get("cwd")
            token = caller_dir.set(Path(cwd) if cwd else None)
            try:  # the command's relative paths are the caller's (core/paths.py)
                result = await self.session.run(command,
                                                source=source,
                                                timeout=request.get("timeout"),
                                                relayed=bool(request.get("relayed")))
            finally:
                caller_dir.reset(token)
            reply.update(result.to_json(), exit_code=result.exit_code)
        elif op == "ping":
            reply.update(ok=True)
        elif op == "state":
            reply.update(ok=True, data=state_of(self.session))
        elif op == "picture":
            target = request.get("target")  # one element's picture (zoom)
            png = await (self.session.picture(labels=bool(request.get("labels")),
                                              target=target) if target else
                         self.session.picture(labels=bool(request.get("labels"))))
            reply.update(ok=png is not None, data={
                "png": base64.b64encode(png).decode() if png else None},
                error=None if png else "no picture: the tab is closed or a dialog is open")
        elif op == "refs":
            reply.update(ok=True, data={"refs": await self.session.current_refs()})
        elif op == "agent":
            reply.update(ok=True, output=await self.session.agent_control(request["action"]))
        elif op in ("subscribe", "frames", "web"):
            if (task := asyncio.current_task()) is not None:
                task.set_name("cockpit-stream")  # ended with the connection
            if op == "web":
                await self.served_web(request)
                return
            await (self.stream(request) if op == "subscribe" else
                   stream_frames(self.session, self.send, request.get("id")))
            return
        await self.send(reply)

    async def served_web(self, request: dict[str, Any]) -> None:
        """`cockpit web` serves the page live at the request's URL: said (the needs
        notices, `status`, the handoff) until its connection closes."""
        stop = self.session.live_view.serve_web(request["url"], request["link"])
        try:
            await self.send({"id": request.get("id"), "ok": True})
            await asyncio.Event().wait()  # until the connection ends (cancelled then)
        finally:
            stop()

    async def stream(self, request: dict[str, Any]) -> None:
        """Every event from now on (after the kept history, when asked), as they come."""
        queue: asyncio.Queue[Event] = asyncio.Queue()
        dropped = queued_bytes = 0

        def put(event: Event) -> None:
            nonlocal dropped, queued_bytes
            queue.put_nowait(event)
            queued_bytes += size_of(event)
            while queue.qsize() > 1 and (queue.qsize() > SUBSCRIBER_BACKLOG
                                         or queued_bytes > SUBSCRIBER_BYTES):
                queued_bytes -= size_of(queue.get_nowait())
                dropped += 1

        past = self.server.history() if request.get("history") else []
        shape = brief if request.get("brief") else Event.to_json
        unsubscribe = self.session.bus.subscribe(put)
        try:
            await self.send({"id": request.get("id"), "ok": True, "history": len(past)})
            for event in past:
                await self.send({"event": shape(event)})
            while True:
                event = await queue.get()
                queued_bytes -= size_of(event)
                if dropped:
                    await self.send({"event": {"kind": "events.dropped", "time": event.time,
                                               "data": {"count": dropped}}})
                    dropped = 0
                await self.send({"event": shape(event)})
        finally:
            unsubscribe()

    async def close(self) -> None:
        # a command already started still runs to its end (its answer has nowhere to
        # go): cutting it off halfway would leave the page in a state nobody asked for
        self.cancel_unstarted()
        for task in self.tasks:
            if _is_stream(task):
                task.cancel()
        try:
            self.writer.close()
            await self.writer.wait_closed()
        except (ConnectionError, OSError):
            pass


BRIEF_OUTPUT = 300  # characters of a command's output in a brief event


def brief(event: Event) -> dict[str, Any]:
    """An event as a watcher of many sessions needs it (a subscribe with "brief"): a
    finished command without its result's data (a new page's diff: 1.9 MB for the demo's
    /reference, decoded by every watcher for every goto) and its output cut."""
    if event.kind != ev.COMMAND_FINISHED:
        return event.to_json()
    data = {k: v for k, v in event.data.items() if k != "data"}
    output = data.get("output")
    if isinstance(output, str) and len(output) > BRIEF_OUTPUT:
        data["output"] = output[:BRIEF_OUTPUT] + "…"
    return {"kind": event.kind, "time": event.time, "data": data}


def _is_stream(task: asyncio.Task[Any]) -> bool:
    return task.get_name() == "cockpit-stream"


# What Python holds for one change of a diff in a result's data (a dict of four strings,
# measured: 380-460 bytes), and for an item of another list there (tabs, messages, requests)
CHANGE_BYTES = 460
ITEM_BYTES = 200


def size_of(event: Event) -> int:
    """Roughly the memory an event holds: its output lines, or a command's output and
    data. The data's diff counts by its changes: a goto of a page of 10,000 elements holds
    ~4.7 MB in them, which a count of its output's characters took for 500 bytes (a
    history of such gotos was bounded by its number of commands alone)."""
    if event.kind == ev.COMMAND_FINISHED:
        held = 400 + len(event.data.get("output") or "") + len(event.data.get("error") or "")
        data = event.data.get("data")
        for key, value in (data.items() if isinstance(data, dict) else ()):
            if key == "diff" and isinstance(value, dict):
                held += CHANGE_BYTES * len(value.get("changes") or ())
            elif isinstance(value, (list, dict)):
                held += ITEM_BYTES * len(value)
        return held
    lines = event.data.get("lines") if event.kind == ev.AGENT_OUTPUT else None
    return 200 + (sum(len(line) + 60 for line in lines) if lines else 0)


def state_of(session: Session) -> dict[str, Any]:
    return {"status": session.status(), "tabs": session.tabs_info(),
            "refs": session.refs_info(), "secrets": session.secret_names,
            # the web view with its token: for the person's faces (attach, watch), which
            # hold the socket's token already; never in `status`, which is recorded
            "web_link": session.live_view.web_link}
