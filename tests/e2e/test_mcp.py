"""`cockpit mcp`: tools generated from the registry, driven with the official MCP SDK's
own clients over stdio and streamable HTTP: sign in on the demo, hand the browser to a
person while a tool call waits, and see every call in the session's log with its client."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import uuid

import pytest

from cockpit.control import mcp_tools
from cockpit.control.async_client import AsyncCockpit
from cockpit.control.remote_session import RemoteSession
from cockpit.core.base import events as ev
from cockpit.core.language.registry import REGISTRY, TARGET, Arg, Flag, Registry, command

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp_types import Implementation  # noqa: E402

COCKPIT = [sys.executable, "-m", "cockpit"]
CLIENT = "mcp-test"
SNAPSHOT_LINE = re.compile(r'^@(\w+) (\w+) "([^"]*)"', re.M)  # `snapshot -i`: @e6 button "Sign in"


def name() -> str:
    return f"mcp-{uuid.uuid4().hex[:8]}"


def ref(snapshot: str, role: str, label: str) -> str:
    for found_ref, found_role, found_name in SNAPSHOT_LINE.findall(snapshot):
        if found_role == role and label in found_name:
            return "@" + found_ref
    raise AssertionError(f"no {role} {label!r} in:\n{snapshot}")


def text(result) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


# --- the tools, from the registry -------------------------------------------------------------
def test_each_named_tool_is_a_commands_declaration():
    tools = mcp_tools.by_name()
    assert next(iter(tools)) == mcp_tools.RUN
    declared = [s for specs in REGISTRY.by_category().values() for s in specs if s.tool]
    assert [t.spec for t in tools.values()][1:] == declared and len(declared) >= 8
    for spec in declared:
        tool = tools[spec.tool]
        assert tool.description.startswith(spec.summary)
        props = tool.input_schema["properties"]
        assert list(props) == [a.name for a in spec.args] + [f.key for f in spec.flags]
        assert tool.input_schema.get("required", []) == \
            [a.name for a in spec.args if not a.optional]
        assert f"MCP tool: {spec.tool}" in spec.help_text()  # `help CMD` says so
    # browser_run names every command, by the registry's categories
    run = tools[mcp_tools.RUN].description
    assert all(re.search(rf"\b{re.escape(c)}\b", run) for c in REGISTRY.commands)
    assert "Interact: click" in run


def test_a_declaration_is_all_a_new_tool_takes():
    registry = Registry()

    async def handler(ctx, a):
        return None

    command("zap", "interact", "Zap an element.", args=(Arg("target", kind=TARGET),),
            flags=(Flag("--hard", help="harder"),), tool="browser_zap",
            registry=registry)(handler)
    zap = mcp_tools.by_name(registry)["browser_zap"]
    assert zap.input_schema == {"type": "object", "required": ["target"], "properties": {
        "target": {"type": "string"}, "hard": {"type": "boolean", "description": "harder"}}}
    assert zap.line({"target": "#a b", "hard": True}) == "zap --hard '#a b'"
    command("zip", "interact", "Zip.", tool="browser_zap", registry=registry)(handler)
    with pytest.raises(ValueError, match="same MCP tool"):
        mcp_tools.tools(registry)


def test_tool_arguments_become_the_command_line_exec_would_send():
    tools = mcp_tools.by_name()
    assert tools["browser_fill"].line({"target": "@e4", "text": "Jane Doe"}) == \
        "fill @e4 'Jane Doe'"
    # a secret stays a name: the session expands it (and masks it in the recording)
    assert tools["browser_fill"].line({"target": "@e5", "text": "$PASSWORD"}) == \
        "fill @e5 $PASSWORD"
    assert tools["browser_fill"].line({"target": "#n", "text": "-5"}) == "fill -- '#n' -5"
    assert tools["browser_snapshot"].line({"interactive": True, "scope": "main"}) == \
        "snapshot --interactive --scope main"
    assert tools["browser_select"].line({"target": "@e2", "options": ["a b", "c"]}) == \
        "select @e2 'a b' c"
    assert tools["browser_run"].line({"command": "js 6*7"}) == "js 6*7"
    with pytest.raises(mcp_tools.ToolError, match="no parameter 'colour'"):
        tools["browser_click"].line({"target": "@e1", "colour": "red"})
    with pytest.raises(mcp_tools.ToolError, match="needs 'target'"):
        tools["browser_click"].line({})
    with pytest.raises(mcp_tools.ToolError, match="'name' needs 'action' too"):
        mcp_tools.command_line(REGISTRY.get("cookies"), (), {"name": "sid"})


def test_the_tool_list_costs_fewer_tokens_than_playwright_mcps():
    bpe = pytest.importorskip("bpe_openai")
    from cockpit.control.mcp_server import _mcp_tool
    listed = [_mcp_tool(t).model_dump(by_alias=True, mode="json", exclude_none=True)
              for t in mcp_tools.tools()]
    tokens = len(bpe.get_encoding("o200k_base").encode(json.dumps({"tools": listed})))
    assert tokens < 2000  # playwright-mcp's default list: about 4,000 (tests/bench)


async def finished_commands(session: str, count: int) -> list[dict]:
    """The command.finished events `cockpit attach` gets (the kept history first)."""
    remote = await RemoteSession(session).start()
    seen: list = []
    remote.bus.subscribe(seen.append)
    try:
        for _ in range(100):
            done = [e.data for e in seen if e.kind == ev.COMMAND_FINISHED]
            if len(done) >= count:
                break
            await asyncio.sleep(0.1)
    finally:
        await remote.close()
    return done


def test_the_log_names_the_client_that_sent_a_command():
    from cockpit.tui.command_log import CommandLog, describe_entry
    log = CommandLog()
    log.handle(ev.Event(ev.COMMAND_QUEUED, {"id": 1, "command": "click @e6",
                                            "source": "agent", "client": "claude-code"}))
    log.handle(ev.Event(ev.COMMAND_QUEUED, {"id": 2, "command": "resume", "source": "human"}))
    mcp_row, human_row = log.rows
    assert mcp_row.cells()[1:3] == ["claude-code", "click @e6"]  # the "from" column
    assert human_row.cells()[1:3] == ["human", "resume"]
    assert "from agent (claude-code)" in describe_entry(mcp_row)


# --- over stdio, with the SDK's client ----------------------------------------------------------
def stdio(session: str, *extra: str) -> Client:
    params = StdioServerParameters(command=COCKPIT[0], args=COCKPIT[1:] + [
        "mcp", "--session", session, *extra], env=dict(os.environ), cwd=os.getcwd())
    # through stdio_client: 2.0's Client takes a transport, not StdioServerParameters
    return Client(stdio_client(params), client_info=Implementation(name=CLIENT, version="1"))


async def test_an_mcp_client_signs_in_and_waits_for_the_human_at_the_challenge(
        site, tmp_path, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)  # the terminal handoff: no window
    session, record = name(), tmp_path / "mcp.jsonl"
    async with stdio(session, "--record", str(record)) as client:
        listed = [t.name for t in (await client.list_tools()).tools]
        assert listed[0] == "browser_run" and "browser_click" in listed

        async def call(tool: str, **arguments) -> str:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, text(result)
            return text(result)

        await call("browser_navigate", url=f"{site.url}/login")
        page = await call("browser_snapshot", interactive=True)
        await call("browser_fill", target=ref(page, "textbox", "Email"), text=site.email)
        await call("browser_fill", target=ref(page, "textbox", "Password"),
                   text=site.password)
        after = await call("browser_click", target=ref(page, "button", "Sign in"))
        assert "/mfa" in after  # the answer carries the diff: the next page
        page = await call("browser_snapshot", interactive=True)
        await call("browser_fill", target=ref(page, "textbox", "code"), text=site.mfa_code)
        page = await call("browser_click", target=ref(page, "button", "Verify"))
        assert "needs: captcha" in page
        failed = await client.call_tool("browser_click", {"target": "@e999"})
        assert failed.is_error and "snapshot" in text(failed)

        # a person takes the browser from outside; the agent's next call waits for them
        async with AsyncCockpit(session, source="human", client="test") \
                as human:
            assert (await human.run("handoff --terminal solve the challenge")).ok
            said: list[str] = []

            async def progress(done: float, total: float | None, message: str | None):
                said.append(message or "")

            waiting = asyncio.ensure_future(client.call_tool(
                "browser_snapshot", {"interactive": True}, progress_callback=progress))
            for _ in range(300):
                if any("human has control" in m for m in said):
                    break
                await asyncio.sleep(0.1)
            assert any("human has control" in m for m in said), said
            assert not waiting.done()
            assert (await human.run(f"fill '#answer' {site.captcha_answer}")).ok
            assert (await human.run("click 'button[type=submit]'")).ok
            assert (await human.run("resume")).ok
            report = text(await asyncio.wait_for(waiting, 60))
        assert "The human had control" in report and "/inbox" in report

        # what `cockpit attach` shows: every tool call, from the agent, with its client
        done = await finished_commands(session, 14)
    agents = [(d["command"], d.get("client")) for d in done if d["source"] == "agent"]
    assert agents[0] == (f"goto {site.url}/login", CLIENT)
    assert {c for _, c in agents} == {CLIENT} and len(agents) == 10
    assert agents[-1] == ("snapshot --interactive", CLIENT)
    humans = [d["command"] for d in done if d["source"] == "human"]
    assert humans[0].startswith("handoff") and humans[-1] == "resume"
    steps = [json.loads(line) for line in record.read_text().splitlines()]
    steps = [s for s in steps if s["type"] == "step"]
    assert [s.get("client") for s in steps if s["source"] == "agent"] == [CLIENT] * 10
    # typed into a password field: masked in the recording (the demo page shows it, though)
    assert not [s for s in steps if site.password in s["command"]]


async def test_stdout_carries_protocol_only_and_exec_reaches_the_session(tmp_path):
    session = name()
    proc = await asyncio.create_subprocess_exec(
        *COCKPIT, "mcp", "--session", session, "--no-record", stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(message: dict) -> None:
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())

    send({"id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw-pipe", "version": "1"}}})
    send({"method": "notifications/initialized"})
    # a page that writes to its console, and a command that would print if it could
    send({"id": 2, "method": "tools/call", "params": {"name": "browser_run", "arguments": {
        "command": "js console.log('to stdout?'); return 6*7"}}})
    answers: dict = {}
    while 2 not in answers:
        line = await asyncio.wait_for(proc.stdout.readline(), 120)
        assert line, (await proc.stderr.read()).decode()
        message = json.loads(line)  # every line is a JSON-RPC message
        assert message["jsonrpc"] == "2.0"
        answers[message.get("id")] = message
    assert answers[1]["result"]["serverInfo"]["name"] == "cockpit"
    assert answers[2]["result"]["content"][0]["text"] == "42"
    done = await asyncio.to_thread(subprocess.run, COCKPIT + [
        "exec", "--session", session, "url"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "about:blank"
    proc.stdin.close()  # the client leaves: the server closes the browser and ends
    rest, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in rest.splitlines())
    assert "is live on" in err.decode()  # what Cockpit says goes to stderr


# --- over streamable HTTP --------------------------------------------------------------------
async def test_http_needs_the_token():
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    session = name()
    proc = await asyncio.create_subprocess_exec(
        *COCKPIT, "mcp", "--port", "0", "--session", session, "--no-record",
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        said = ""
        while "token file:" not in said:
            line = await asyncio.wait_for(proc.stderr.readline(), 120)
            assert line, f"cockpit mcp ended: {said}"
            said += line.decode()
        url = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", said)[1]
        token = re.search(r"Bearer (\S+)", said)[1]
        path = re.search(r"token file: (\S+)", said)[1]
        with open(path) as saved:
            assert saved.read().strip() == token
        assert os.stat(path).st_mode & 0o777 == 0o600
        async with httpx2.AsyncClient() as http:
            for headers in ({}, {"Authorization": "Bearer wrong"}):
                refused = await http.post(url, headers=headers, json={
                    "jsonrpc": "2.0", "id": 1, "method": "tools/list"})
                assert refused.status_code == 401 and "Bearer" in refused.text
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http, \
                Client(streamable_http_client(url, http_client=http),
                       client_info=Implementation(name="http-test", version="1")) as client:
            assert len((await client.list_tools()).tools) == len(mcp_tools.tools())
            result = await client.call_tool("browser_run", {"command": "js 6*7"})
            assert text(result) == "42"
        done = await finished_commands(session, 1)
        assert [(d["command"], d["source"], d.get("client")) for d in done] == [
            ("js 6*7", "agent", "http-test")]
    finally:
        proc.terminate()
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    assert not os.path.exists(path)  # the token file goes with the server
