"""What grants access never shows in a request, wherever a request is shown: `network`,
`request N` and the HAR file `har stop` writes, asked by an MCP client (the tool answer
is what reaches an agent) on the demo site signed in: its session cookie, an
Authorization header, a token in a query string and a password in a form body."""

from __future__ import annotations

import json
import re

import pytest

from test_mcp import stdio, name, text

pytest.importorskip("mcp")

AUTH = "Bearer tok-sekrit-7777777777"
QUERY = "qs-sekrit-8888"
FORM = "form-sekrit-9999"


async def test_requests_shown_to_an_mcp_client_and_written_to_a_har_mask_secrets(
        site, tmp_path, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    har = tmp_path / "inbox.har"
    async with stdio(name(), "--no-record") as client:

        async def run(line: str) -> str:
            result = await client.call_tool("browser_run", {"command": line})
            assert not result.is_error, f"{line}: {text(result)}"
            return text(result)

        await run(f"goto {site.url}/login")
        await run(f"fill '#email' {site.email}")
        await run(f"fill '#password' {site.password}")
        await run("click 'button[type=submit]'")
        await run(f"fill '#code' {site.mfa_code}")
        await run("click 'button[type=submit]'")
        await run(f"fill '#answer' {site.captcha_answer}")
        await run("click 'button[type=submit]'")
        assert (await run("url")).endswith("/inbox")
        cookie = next(iter(site.state._sessions))  # the signed-in session's token
        await run(f"headers set Authorization '{AUTH}'")
        await run(f"har start {har}")
        await run(f"js await fetch('/api/messages?access_token={QUERY}&page=1')"
                  ".then(r => r.text()).then(t => t.length)")
        await run("js await fetch('/api/check-mail', {method: 'POST', headers: "
                  "{'Content-Type': 'application/x-www-form-urlencoded'}, "
                  f"body: 'user=jane&password={FORM}'}})"
                  ".then(r => r.text()).then(t => t.length)")
        stopped = await run("har stop")
        listing = await run("network --filter /api/")
        numbers = re.findall(r"#(\d+)", listing)
        get = await run(f"request {numbers[-2]}")
        post = await run(f"request {numbers[-1]}")
        await run("headers clear")
        # a body the page never reads does not finish: said, not waited for (30 s)
        await run("js await fetch('/api/messages?unread=1').then(r => r.status)")
        unread = re.findall(r"#(\d+)", await run("network --filter unread=1"))[-1]
        assert "has not finished arriving" in await run(f"request {unread}")
    shown = "\n".join([listing, get, post, stopped])
    for secret in (cookie, AUTH.split()[1], QUERY, FORM, site.password):
        assert secret not in shown, f"{secret} was shown to the agent:\n{shown}"
    assert "access_token=***" in listing and "access_token=***" in get
    assert "cookie: ***" in get and "authorization: ***" in get, get
    assert "password=***" in post, post
    written = har.read_text()
    entries = json.loads(written)["log"]["entries"]
    assert {e["request"]["method"] for e in entries} >= {"GET", "POST"}
    for secret in (cookie, AUTH.split()[1], FORM):
        assert secret not in written, f"{secret} was written to the HAR"
    headers = {h["name"].lower(): h["value"] for e in entries for h in e["request"]["headers"]}
    assert headers["cookie"] == "***" and headers["authorization"] == "***"
