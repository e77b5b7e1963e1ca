"""The control socket, `cockpit exec` and `cockpit.client` against a live session.

The server runs in the test's event loop on the shared browser session; `cockpit exec`
runs as a real subprocess, as an agent would call it.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys

import pytest

from cockpit.client import AsyncCockpit, Cockpit, CommandFailed, Unreachable
from cockpit.core import events as ev
from cockpit.remote import paths
from cockpit.remote.server import AlreadyLive, ControlServer
from cockpit.remote.wire import MAX_REQUEST


@pytest.fixture
async def live(s, tmp_path):
    """The shared session behind a control socket of its own (a workspace of the test)."""
    server = ControlServer(s, workspace=tmp_path)
    await server.start()
    yield server
    await server.close()


async def cockpit_exec(server, *args: str, cwd=None, env=None) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cockpit", "exec", *args, cwd=cwd,
        env={**os.environ, paths.ENV_SOCKET: str(server.socket), **(env or {})}
        if server else {**os.environ, **(env or {})},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode, out.decode(), err.decode()


async def raw(server, *lines: bytes, token: str | None = None) -> list[dict]:
    """Send the token then raw lines; every line answered until the server closes."""
    reader, writer = await asyncio.open_unix_connection(str(server.socket), limit=1 << 24)
    writer.write(json.dumps({"token": token or server.token}).encode() + b"\n")
    for line in lines:
        writer.write(line)
    await writer.drain()
    writer.write_eof()  # half-closed: the server still answers what was asked
    replies = []
    while line := await asyncio.wait_for(reader.readline(), 30):
        replies.append(json.loads(line))
    writer.close()
    return replies


async def test_exec_runs_commands_with_the_contract_exit_codes(live, site, tmp_path):
    code, out, err = await cockpit_exec(live, "goto", f"{site.url}/login")
    assert code == 0 and "opened" in out, err
    code, out, _ = await cockpit_exec(live, "snapshot", "-i")  # -i is snapshot's flag
    assert code == 0 and 'button "Sign in"' in out
    code, out, _ = await cockpit_exec(live, "--json", "fill @e4 'jane doe'")
    reply = json.loads(out)
    assert set(reply) == {"ok", "command", "output", "error", "ms", "data"}
    code, _, err = await cockpit_exec(live, "click", "@e999")
    assert code == 1 and "@e999" in err and "snapshot" in err
    code, _, err = await cockpit_exec(live, "clik", "@e4")
    assert code == 2 and "did you mean click" in err
    code, _, err = await cockpit_exec(live, "--wat", "title")
    assert code == 2 and "unknown option '--wat'" in err
    code, _, err = await cockpit_exec(None, "--session", "nobody-here", "title", cwd=tmp_path,
                                      env={paths.ENV_SOCKET: ""})
    assert code == 3 and "no live session 'nobody-here'" in err
    assert "cockpit serve --session nobody-here" in err


async def test_exec_finds_the_session_by_name_from_a_subdirectory(live, tmp_path):
    sub = tmp_path / "src" / "deep"
    sub.mkdir(parents=True)
    code, out, err = await cockpit_exec(None, "--session", live.session.name, "url", cwd=sub,
                                        env={paths.ENV_SOCKET: ""})
    assert code == 0 and out.strip() == live.session.active.url, err


async def test_held_agents_wait_and_time_out_with_code_4(live, s):
    s.hold_agents("paused by the test")
    try:
        code, _, err = await cockpit_exec(live, "--timeout", "0.5", "title")
        assert code == 4 and "agents are held: paused by the test" in err, err
        assert "did not run" in err
        result = await s.run("title", source="human")  # a human still gets through
        assert result.ok
        waiting = asyncio.ensure_future(cockpit_exec(live, "title"))
        await asyncio.sleep(0.5)
        assert not waiting.done()  # queued behind the hold, not refused
    finally:
        s.release_agents()
    code, _, _ = await waiting
    assert code == 0


async def test_socket_and_directory_modes_and_token(live, s):
    assert stat.S_IMODE(live.socket.stat().st_mode) == 0o600
    assert stat.S_IMODE(live.socket.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(paths.info_path(live.socket).stat().st_mode) == 0o600
    refused = []
    unsubscribe = s.bus.subscribe(lambda e: e.kind == ev.CONTROL_REFUSED and refused.append(e))
    try:
        replies = await raw(live, b'{"id": 1, "command": "title"}\n', token="0" * 32)
    finally:
        unsubscribe()
    assert replies == [{"ok": False, "error": replies[0]["error"]}]
    assert "wrong token" in replies[0]["error"]
    assert refused and refused[0].data["reason"] == "wrong token"
    assert live.refused == 1


async def test_bad_requests_get_errors_and_the_session_serves_on(live):
    replies = await raw(live, b"not json\n", b"[1, 2]\n",
                        b'{"id": 3, "command": "title", "colour": "red"}\n',
                        b'{"id": 4, "op": "fly"}\n', b'{"id": 5, "command": ""}\n',
                        b'{"id": 6, "command": "title", "source": "martian"}\n',
                        b'{"id": 7, "command": "title", "timeout": -1}\n',
                        b'{"id": 8, "command": "title"}\n')
    hello, *answers = replies
    assert hello["ok"]
    errors = {a.get("id"): a["error"] for a in answers if not a["ok"] and a.get("id")}
    no_id = [a["error"] for a in answers if a.get("id") is None]
    assert "not JSON" in no_id[0] and "expected a JSON object, got list" in no_id[1]
    assert "unknown field 'colour'" in errors[3]
    assert "unknown op 'fly'" in errors[4] and "non-empty string" in errors[5]
    assert "unknown source 'martian'" in errors[6] and "above 0" in errors[7]
    assert [a["id"] for a in answers if a["ok"]] == [8]  # answered after the bad ones
    big = b'{"id": 9, "command": "js ' + b"1" * (MAX_REQUEST + 10) + b'"}\n'
    hello, answer = await raw(live, big, b'{"id": 10, "command": "title"}\n')
    assert not answer["ok"] and "over 1048576 bytes" in answer["error"]
    hello, answer = await raw(live, b'{"id": 11, "command": "title"}\n')
    assert answer["id"] == 11 and answer["ok"]  # others are still served


async def test_a_stale_socket_is_cleaned_up_and_a_live_one_is_not_taken(s, tmp_path):
    sock = paths.socket_path(s.name, tmp_path)
    paths.private_dir(create=True)
    sock.write_text("")  # a dead session's leftovers: a file and an info with a gone pid
    paths.info_path(sock).write_text(json.dumps(
        {"session": s.name, "token": "x", "pid": 2 ** 22 + 7, "workspace": "/"}))
    assert paths.alive(sock) is None and not sock.exists()
    first = ControlServer(s, workspace=tmp_path)
    await first.start()
    try:
        with pytest.raises(AlreadyLive, match="already live"):
            await ControlServer(s, workspace=tmp_path).start()
    finally:
        await first.close()
    assert not sock.exists() and not paths.info_path(sock).exists()


async def test_commands_from_two_clients_run_in_arrival_order_with_their_source(live, s):
    queued, started = [], []

    def note(e) -> None:
        if e.kind in (ev.COMMAND_QUEUED, ev.COMMAND_STARTED):
            (queued if e.kind == ev.COMMAND_QUEUED else started).append(
                (e.data["command"], e.data["source"]))
    unsubscribe = s.bus.subscribe(note)

    async def arrived(count: int) -> None:
        while len(queued) < count:
            await asyncio.sleep(0.01)
    try:
        async with AsyncCockpit(socket_path=str(live.socket)) as agent, \
                AsyncCockpit(socket_path=str(live.socket), source="human") as person:
            slow = asyncio.ensure_future(
                agent.run("js 'new Promise(r => setTimeout(() => r(1), 300))'"))
            await arrived(1)
            second = asyncio.ensure_future(person.run("js 2"))
            await arrived(2)
            third = asyncio.ensure_future(agent.run("js 3"))
            results = await asyncio.gather(slow, second, third)
    finally:
        unsubscribe()
    assert [r.output for r in results] == ["1", "2", "3"], results
    assert started == queued  # one at a time, in the order they arrived
    assert [source for _, source in started] == ["agent", "human", "agent"]


async def test_the_blocking_client(live, site):
    def drive() -> tuple:
        with Cockpit(socket_path=str(live.socket)) as browser:
            browser.goto(f"{site.url}/login")
            snapshot = browser.snapshot("-i").output
            with pytest.raises(CommandFailed, match="@e999"):
                browser.click("@e999")
            return snapshot, browser.run("title"), browser.state()
    snapshot, title, state = await asyncio.to_thread(drive)
    assert 'textbox "Email' in snapshot
    assert title.ok and title.exit_code == 0 and title.output
    assert state["tabs"][0]["url"].endswith("/login") and state["refs"]
    with pytest.raises(Unreachable, match="no live session"):
        Cockpit(socket_path=str(live.socket) + ".gone")


async def test_events_stream_with_history(live, s):
    await s.run("js 40 + 2", source="agent")
    async with AsyncCockpit(socket_path=str(live.socket)) as viewer:
        seen = []

        async def read():
            async for event in viewer.events(history=True):
                seen.append(event)
                if event.kind == ev.COMMAND_FINISHED and event.data["command"] == "js 'after'":
                    return
        reader = asyncio.ensure_future(read())
        await asyncio.sleep(0.2)
        await s.run("js 'after'")
        await asyncio.wait_for(reader, 10)
    commands = [e.data["command"] for e in seen if e.kind == ev.COMMAND_FINISHED]
    assert "js 40 + 2" in commands  # from before the viewer came: the kept history
    assert commands[-1] == "js 'after'"


async def test_serve_until_sigterm_then_clean_up(site, tmp_path):
    env = {**os.environ, paths.ENV_SOCKET: "", paths.ENV_SESSION: ""}
    serve = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cockpit", "serve", "--session", "srv", f"{site.url}/login",
        cwd=tmp_path, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        printed = ""
        while "socket:" not in printed:
            line = await asyncio.wait_for(serve.stdout.readline(), 60)
            assert line, f"serve ended early: {await serve.stderr.read()}"
            printed += line.decode()
        assert "cockpit exec --session srv snapshot -i" in printed
        sock = paths.socket_path("srv", tmp_path)
        code, out, err = await cockpit_exec(None, "--session", "srv", "url", cwd=tmp_path,
                                            env=env)
        assert code == 0 and out.strip().endswith("/login"), err
        second = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cockpit", "serve", "--session", "srv", cwd=tmp_path,
            env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(second.communicate(), 60)
        assert second.returncode == 2 and b"already live" in err
        serve.terminate()
        assert await asyncio.wait_for(serve.wait(), 30) == 0
        assert not sock.exists() and not paths.info_path(sock).exists()
    finally:
        if serve.returncode is None:
            serve.kill()
            await serve.wait()


async def test_a_cancelled_command_ends_in_the_log_and_frees_the_session(s):
    finished = []
    unsubscribe = s.bus.subscribe(
        lambda e: e.kind == ev.COMMAND_FINISHED and finished.append(e.data))
    try:
        slow = asyncio.ensure_future(s.run("js 'new Promise(r => setTimeout(r, 5000))'"))
        await asyncio.sleep(0.3)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        assert finished[-1]["error"] == "cancelled before it ended"
        assert finished[-1]["exit_code"] == 1
        assert (await s.run("js 1")).output == "1"  # nothing left holding the session
    finally:
        unsubscribe()
