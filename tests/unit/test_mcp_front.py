"""`cockpit mcp --port`'s HTTP front (control/mcp_http.py) and the fleet's naming
(cli/mcp_fleet.py), without a browser: paths, the refusal of the stateless protocol,
the client told when its initialize is answered and when it leaves, idle sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cockpit.cli.mcp_fleet import beside, session_name_for
from cockpit.control.mcp_http import Activity, SessionFront, request_session
from cockpit.core import check_session_name


class App:
    """The SDK's app, as the front sees it: answers with a session id when asked."""

    def __init__(self, sid: str | None = "abc123") -> None:
        self.sid = sid
        self.scopes: list[dict] = []
        self.bodies: list[bytes] = []

    async def __call__(self, scope, receive, send) -> None:
        self.scopes.append(scope)
        self.bodies.append((await receive()).get("body", b""))
        headers = [(b"mcp-session-id", self.sid.encode())] if self.sid else []
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"{}"})


async def request(front, method: str, path: str, body: dict | None = None,
                  headers: dict[str, str] | None = None) -> tuple[int, dict]:
    data = json.dumps(body or {}).encode()
    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(),
             "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]}
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": data, "more_body": False}

    async def send(message):
        sent.append(message)

    await front(scope, receive, send)
    body_bytes = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body_bytes or b"{}")


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "claude-code", "version": "1"}}}


async def test_paths_name_a_shared_session_or_none():
    app = App()
    front = SessionFront(app, check_session_name)
    assert (await request(front, "POST", "/mcp/team-a", {}))[0] == 200
    assert request_session(app.scopes[-1]) == ("team-a", None)
    assert app.scopes[-1]["path"] == "/mcp"  # the SDK serves /mcp only
    assert (await request(front, "POST", "/mcp/", {}))[0] == 200
    assert request_session(app.scopes[-1]) == (None, None)
    status, said = await request(front, "POST", "/mcp/bad$name")
    assert status == 404 and "invalid session name" in said["error"]
    status, said = await request(front, "POST", "/elsewhere")
    assert status == 404 and "/mcp/SESSION" in said["error"]
    assert len(app.scopes) == 2


async def test_a_stateless_client_is_told_the_versions_with_sessions():
    app = App()
    front = SessionFront(app, check_session_name)
    status, said = await request(front, "POST", "/mcp", {"jsonrpc": "2.0", "id": 7,
                                                         "method": "server/discover"},
                                 {"mcp-protocol-version": "2026-07-28"})
    assert status == 400 and said["id"] == 7 and said["error"]["code"] == -32022
    assert "2025-06-18" in said["error"]["data"]["supported"]
    assert not app.scopes  # never reached the SDK
    status, _ = await request(front, "POST", "/mcp", {},
                              {"mcp-protocol-version": "2025-06-18"})
    assert status == 200


async def test_the_fleet_hears_of_a_client_from_its_initialize_to_its_delete():
    opened, ended = [], []

    async def on_end(sid: str) -> None:
        ended.append(sid)

    app = App("s1")
    front = SessionFront(app, check_session_name, on_end,
                         lambda sid, name, client: opened.append((sid, name, client)))
    await request(front, "POST", "/mcp", INITIALIZE)
    assert opened == [("s1", None, "claude-code")]
    assert json.loads(app.bodies[-1])["method"] == "initialize"  # the SDK read it all
    await request(front, "POST", "/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                  {"mcp-session-id": "s1"})
    assert opened == [("s1", None, "claude-code")] and front.activity.last.get("s1")
    await request(front, "DELETE", "/mcp", headers={"mcp-session-id": "s1"})
    assert ended == ["s1"] and "s1" not in front.activity.last


def test_idle_sessions_are_the_ones_with_nothing_running_for_long():
    activity = Activity(busy={"a": 1, "b": 0}, last={"a": 0.0, "b": 0.0, "c": 95.0})
    assert activity.idle(60, now=100.0) == ["b"]


def test_session_names_from_client_names():
    assert session_name_for("claude-code") == "claude-code"
    assert session_name_for("Claude Desktop / 0.9") == "Claude-Desktop-0.9"
    assert session_name_for("···") == "mcp-client"
    assert len(session_name_for("x" * 90)) == 40
    check_session_name(session_name_for("a b@c+d/e"))
    assert beside(Path("runs/all.jsonl"), "cursor-2") == Path("runs/all-cursor-2.jsonl")
    assert beside(None, "x") is None


def test_a_browser_to_attach_to_needs_a_session_every_client_shares(capsys):
    from cockpit.cli.dispatch import dispatch
    with pytest.raises(SystemExit) as exited:
        dispatch(["mcp", "--port", "0", "--cdp", "9222"])
    assert exited.value.code == 2
    assert "--session NAME" in capsys.readouterr().err
