"""The asyncio client of a live session: `AsyncCockpit`, as `Cockpit` (client.py) for
asyncio code. Requests may overlap (the session still runs them in order), and events
come on the same connection. Kept apart from client.py: `cockpit exec`, a new process
per agent step, imports that one and must not pay for asyncio.

    async with AsyncCockpit() as browser:
        print((await browser.run("snapshot -i")).output)
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, AsyncIterator, Coroutine

from ..core import Event, Result
from . import discovery, wire
from .client import (CONNECT_TIMEOUT, READ_LIMIT, CommandFailed, Commands, event_of, hello,
                     result_of, run_fields, welcomed)
from .discovery import Unreachable
from .protocol import encode

__all__ = ["AsyncCockpit"]


class AsyncCockpit(Commands[Coroutine[Any, Any, Result]]):
    """The asyncio client: requests may overlap (the session still runs them in order)."""

    def __init__(self, session: str | None = None, *, socket_path: str | None = None,
                 source: str = "agent", client: str = "python-async") -> None:
        self.info = discovery.find(session, socket_path)
        self.source = source
        self.client = client
        self._ids = 0
        self.protocol = 1  # the session's, told in its welcome
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}  # by request id
        self._events: asyncio.Queue[Event | None] | None = None  # while events() runs
        self._writer: asyncio.StreamWriter | None = None
        self._pump: asyncio.Task[None] | None = None

    @property
    def session(self) -> str:
        return self.info.session

    async def connect(self) -> AsyncCockpit:
        try:
            reader, writer = await asyncio.open_unix_connection(
                str(self.info.socket), limit=READ_LIMIT)
        except OSError as exc:
            raise Unreachable(f"session {self.session!r} did not answer at "
                              f"{self.info.socket}: {exc}") from None
        try:
            writer.write(hello(self.info, self.client))
            line = await asyncio.wait_for(reader.readline(), CONNECT_TIMEOUT)
            self.protocol = welcomed(
                wire.loads(line) if line else {"error": "it closed the connection"},
                self.info)
        except BaseException as exc:  # no socket left behind, whatever went wrong
            writer.close()
            if isinstance(exc, (OSError, asyncio.TimeoutError)):
                raise Unreachable(f"session {self.session!r} did not answer at "
                                  f"{self.info.socket}: {exc or 'timed out'}") from None
            raise
        self._writer = writer
        self._pump = asyncio.create_task(self._read_answers(reader))
        return self

    async def _read_answers(self, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                message = wire.loads(line)
                if "event" in message:
                    if self._events is not None:
                        self._events.put_nowait(event_of(message))
                    continue
                if "waiting" in message and "ok" not in message:
                    continue  # a notice that the command waits; its answer follows
                future = self._waiting.pop(message.get("id"), None)
                if future is not None and not future.done():
                    future.set_result(message)
        except OSError as exc:  # the session went (reset, broken pipe): as at its end
            logging.getLogger("cockpit").info("session %r: connection lost (%s)",
                                              self.session, exc)
        finally:
            gone = Unreachable(f"session {self.session!r} closed the connection")
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(gone)
            if self._events is not None:
                self._events.put_nowait(None)

    async def request(self, op: str, **fields: Any) -> dict[str, Any]:
        writer = self._writer
        if self._pump is None or self._pump.done() or writer is None:
            raise Unreachable(f"not connected to session {self.session!r}")
        self._ids += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[self._ids] = future
        try:
            writer.write(encode({"id": self._ids, "op": op, **fields}))
            await writer.drain()
        except OSError as exc:  # reset, broken pipe: the session is gone
            self._waiting.pop(self._ids, None)
            raise Unreachable(f"session {self.session!r} broke the connection: "
                              f"{exc}") from None
        return await future

    async def run(self, command: str, *, timeout: float | None = None,
                  source: str | None = None, relayed: bool = False) -> Result:
        """Run one command in the session. `relayed`: a person's own input, relayed from
        a view of the page (the live view's mouse and keys): the session captures what it
        does in the page as the person's steps, rather than recording it as typed."""
        fields = run_fields(command, source or self.source, timeout, self.protocol,
                            relayed)
        return result_of(await self.request("run", **fields))

    async def _checked(self, line: str) -> Result:
        result = await self.run(line)
        if not result.ok:
            raise CommandFailed(result)
        return result

    async def state(self) -> dict[str, Any]:
        state: dict[str, Any] = (await self.request("state"))["data"]
        return state

    async def events(self, history: bool = False, brief: bool = False) -> AsyncIterator[Event]:
        """Events on this connection from now on, until the session ends (one stream a
        client: open another AsyncCockpit for a second). `brief`: finished commands
        without their result's data and with their output cut (a session older than
        protocol 4 sends them whole)."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        self._events = queue
        await self.request("subscribe", history=history,
                           **({"brief": True} if brief and self.protocol >= 4 else {}))
        while (event := await queue.get()) is not None:
            yield event

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except (ConnectionError, OSError):
                pass
        if self._pump is not None:
            await asyncio.gather(self._pump, return_exceptions=True)

    async def __aenter__(self) -> AsyncCockpit:
        return await self.connect()

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()
