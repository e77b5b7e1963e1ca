"""The `frames` op of the control socket: the session's live picture (core/live/), one
JPEG a line as base64, for a view in another process (`cockpit web`'s live view).

The newest frame only: a client that reads slowly skips frames, never falls behind the
page. The session's screencast runs while at least one such stream (or a local view)
is open."""

from __future__ import annotations

import asyncio
import base64
from typing import Any, Awaitable, Callable


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
