"""The `frames` op of the control socket: the session's live picture (core/live/), one
JPEG a line as base64, for a view in another process (`cockpit web`'s live view).

The newest frame only: a client that reads slowly skips frames, never falls behind the
page. The session's screencast runs while at least one such stream (or a local view)
is open."""

from __future__ import annotations

import asyncio
import base64
import logging
import time
from typing import Any, Awaitable, Callable

from . import wire

log = logging.getLogger("cockpit")


async def stream_frames(session: Any, send: Callable[[dict[str, Any]], Awaitable[None]],
                        request_id: Any) -> None:
    """Answer `{"op": "frames"}`: ok, then `{"frame": {...}}` whenever the page paints,
    until the client goes (its task is cancelled)."""
    latest: list[Any] = []
    ready = asyncio.Event()

    def put(frame: Any) -> None:
        latest[:] = [frame]
        ready.set()

    unsubscribe = session.live_view.subscribe(put)
    try:
        await send({"id": request_id, "ok": True})
        while True:
            await ready.wait()
            ready.clear()
            if not latest:
                continue
            frame = latest.pop()
            await send({"frame": {"jpeg": base64.b64encode(frame.data).decode(),
                                  "width": frame.width, "height": frame.height,
                                  "css_width": frame.css_width,
                                  "css_height": frame.css_height, "source": frame.source}})
    finally:
        unsubscribe()


class RemoteLiveView:
    """A live session's frames in another process (`cockpit attach`), as the session's
    own LiveView gives them: one `frames` stream over the socket while anyone watches."""

    def __init__(self, info: Any) -> None:
        self.info = info
        self._listeners: list[Callable[[Any], None]] = []
        self._task: asyncio.Task[Any] | None = None
        self.latest: Any = None
        self.frames = 0

    @property
    def watchers(self) -> int:
        return len(self._listeners)

    def subscribe(self, listener: Callable[[Any], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        if self.latest is not None:
            listener(self.latest)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        return lambda: self._unsubscribe(listener)

    def _unsubscribe(self, listener: Callable[[Any], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)
        if not self._listeners and self._task is not None:
            self._task.cancel()  # the stream ends: the session stops its screencast
            self._task = None

    async def close(self) -> None:
        self._listeners.clear()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _run(self) -> None:
        from ..core import Frame
        from .client import READ_LIMIT, hello
        from .protocol import encode
        reader, writer = await asyncio.open_unix_connection(self.info.socket,
                                                            limit=READ_LIMIT)
        try:
            writer.write(hello(self.info, "attach-frames"))
            await reader.readline()  # the welcome
            writer.write(encode({"id": 1, "op": "frames"}))
            await writer.drain()
            while line := await reader.readline():
                got = wire.loads(line).get("frame")
                if not got:
                    continue
                frame = Frame(base64.b64decode(got["jpeg"]), got["width"], got["height"],
                              got["css_width"], got["css_height"], time.perf_counter(),
                              got.get("source", "screencast"))
                self.latest = frame
                self.frames += 1
                for listener in list(self._listeners):
                    try:
                        listener(frame)
                    except Exception:  # a broken view must not stop the others' pictures
                        log.exception("a live view listener failed")
        except OSError as exc:  # the session went: no more frames
            log.info("live frames from %s ended: %s", self.info.session, exc)
        finally:
            writer.close()
