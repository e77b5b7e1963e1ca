"""The control socket's protocol: newline-delimited JSON, one object a line.

    client: {"token": "...", "client": "exec"}            first, always
    server: {"ok": true, "session": "default", "protocol": 2}
    client: {"id": 1, "command": "click @e6", "source": "agent", "timeout": 30,
             "cwd": "/home/me/work"}    cwd (protocol 2): relative file paths are the caller's
    client: {"id": 7, "command": "mouse down 40 60", "source": "human", "relayed": true}
             relayed (protocol 3): a person's own input, relayed from a view of the page
             (`cockpit web`'s live view): what it does in the page is captured as theirs
    server: {"id": 1, "ok": true, "command": "click @e6", "output": "...", "error": null,
             "ms": 41.2, "data": {...}, "exit_code": 0}
    server: {"id": 1, "waiting": "the human has control: ..."}  before an answer that waits
    client: {"id": 2, "op": "subscribe", "history": true}
    server: {"id": 2, "ok": true, ...} then {"event": {"kind": ..., "time": ..., "data": ...}}
    client: {"id": 3, "op": "agent", "action": "pause"}
    server: {"id": 3, "ok": true, "output": "agent paused"}
    client: {"id": 4, "op": "picture", "target": "@e7"}    one element's PNG (zoom)
    server: {"id": 4, "ok": true, "data": {"png": "BASE64..."}}
    client: {"id": 5, "op": "frames"}     the live picture (control/frames.py)
    server: {"id": 5, "ok": true} then {"frame": {"jpeg": "BASE64...", "css_width": ...}}
    client: {"id": 6, "op": "web", "url": "http://127.0.0.1:8123/live", "link": "...?token=..."}
    server: {"id": 6, "ok": true}    `cockpit web` serves the live view, while connected
    ops: run (the default when "command" is given), subscribe, state, picture, ping,
    refs (the active tab's refs for the page it shows now), agent (pause, resume, stop,
    start or restart the session's agent), frames (the page's picture as it paints), web
(a web view of the page is served there, until this connection closes)

Standard library only, and little of it: `cockpit exec` imports this on every agent step
(the JSON is wire.py's, and `math` is left out too: a library to load for one check).
"""

from __future__ import annotations

from ..core import SENT_BY_CLIENTS
from . import wire

TYPE_CHECKING = False  # not typing's import: this module is on `cockpit exec`'s path
if TYPE_CHECKING:
    from typing import Any

# 2: a run request may carry "cwd". Clients send it only to a session that says 2, so a
# new client still talks to an older session (which refuses unknown fields). 3: and
# "relayed". 4: a subscribe request may carry "brief" (events without a command's result
# data, its output cut: a watch of many sessions decoded each page's whole diff).
PROTOCOL = 4
MAX_REQUEST = 1 << 20  # bytes in one request line
SOURCES = SENT_BY_CLIENTS  # core/base/sources.py
OPS = ("run", "subscribe", "state", "picture", "ping", "refs", "agent", "frames", "web")
FIELDS = {"id", "op", "command", "source", "timeout", "history", "labels", "action",
          "target", "cwd", "url", "link", "relayed", "brief"}
AGENT_ACTIONS = ("pause", "resume", "stop", "start", "restart")  # core.agent.ACTIONS
# set in the environment of an agent Cockpit starts (--agent): its `cockpit exec` is an
# agent's, and `--human` (a person's answer to --confirm) is refused there
ENV_AGENT = "COCKPIT_AGENT"


class ProtocolError(Exception):
    """A request the server cannot take; `id` is the request's, when it had one."""

    def __init__(self, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.request_id = request_id


def encode(message: dict[str, Any]) -> bytes:
    # a lone surrogate (a page's JS string, a client's id) cannot be UTF-8: written as
    # its JSON escape instead, it arrives intact (surrogates only occur inside strings)
    return (wire.dumps(message, default=str) + "\n").encode("utf-8", errors="backslashreplace")


def decode(line: bytes) -> dict[str, Any]:
    try:
        message = wire.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"not JSON ({exc}): send one JSON object a line, like "
                            '{"id": 1, "command": "snapshot -i"}') from None
    except RecursionError:  # "[[[[...": the parser recurses once a level
        raise ProtocolError("JSON nested too deeply: send one flat JSON object a line"
                            ) from None
    if not isinstance(message, dict):
        raise ProtocolError(f"expected a JSON object, got {type(message).__name__}")
    return message


def _finite(number: float) -> bool:
    """math.isfinite without math (NaN and the infinities minus themselves are NaN), and
    an int past a float's range is no finite number of seconds either (math.isfinite
    raised OverflowError for it, which ended the connection)."""
    try:
        number = float(number)
    except OverflowError:
        return False
    return number - number == 0


def check_request(message: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(op, request) for a well-formed request, else ProtocolError naming what is wrong."""
    request_id = message.get("id")
    unknown = sorted(set(message) - FIELDS)
    if unknown:
        raise ProtocolError(f"unknown field {unknown[0]!r}; fields: "
                            f"{', '.join(sorted(FIELDS))}", request_id)
    op = message.get("op", "run" if "command" in message else None)
    if op not in OPS:
        raise ProtocolError(f"unknown op {op!r}: send a \"command\", or \"op\" one of "
                            f"{', '.join(OPS)}", request_id)
    if op == "picture" and not isinstance(message.get("target", ""), (str, type(None))):
        raise ProtocolError('"target" must be a ref or a selector, like "@e7"', request_id)
    if op == "run":
        command = message.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ProtocolError('"command" must be a non-empty string, like "snapshot -i"',
                                request_id)
        source = message.get("source", "agent")
        if source not in SOURCES:
            raise ProtocolError(f"unknown source {source!r}; sources: {', '.join(SOURCES)}",
                                request_id)
        timeout = message.get("timeout")
        if timeout is not None and (isinstance(timeout, bool)
                                    or not isinstance(timeout, (int, float))
                                    or not _finite(timeout) or timeout <= 0):
            # NaN and Infinity parse as JSON numbers here; neither bounds a wait
            raise ProtocolError('"timeout" must be a finite number of seconds above 0',
                                request_id)
        if not isinstance(message.get("relayed", False), bool):
            raise ProtocolError('"relayed" must be true or false', request_id)
        cwd = message.get("cwd")
        if cwd is not None and not (isinstance(cwd, str) and cwd.startswith("/")
                                    and "\0" not in cwd and len(cwd) <= 4096):
            raise ProtocolError('"cwd" must be an absolute directory path, like "/home/me"',
                                request_id)
    if op == "web" and not all(isinstance(message.get(k), str) and len(message[k]) < 2048
                               and message[k].startswith(("http://", "https://"))
                               for k in ("url", "link")):
        raise ProtocolError('"url" and "link" must be http(s) URLs, like '
                            '"http://127.0.0.1:8123/live"', request_id)
    if op == "agent" and message.get("action") not in AGENT_ACTIONS:
        raise ProtocolError(f'"action" must be one of {", ".join(AGENT_ACTIONS)}',
                            request_id)
    return op, message
