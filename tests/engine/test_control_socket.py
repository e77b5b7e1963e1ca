"""The control socket, `cockpit exec` and `cockpit.client` against a live session.

The server runs in the test's event loop on the shared browser session; `cockpit exec`
runs as a real subprocess, as an agent would call it.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import stat
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import SocketPeer

from cockpit.client import AsyncCockpit, Cockpit, CommandFailed, Unreachable
from cockpit.core.base import events as ev
from cockpit.control import discovery as paths
from cockpit.control.server import AlreadyLive, ControlServer
from cockpit.control.protocol import MAX_REQUEST



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


async def test_exec_paths_are_the_callers_not_the_sessions(live, site, tmp_path):
    """`cockpit exec screenshot shot.png` run in a subdirectory writes it there (the
    session runs elsewhere: the test's own directory)."""
    caller = tmp_path / "caller"
    caller.mkdir()
    code, _, err = await cockpit_exec(live, "goto", f"{site.url}/login", cwd=caller)
    assert code == 0, err
    code, out, err = await cockpit_exec(live, "screenshot", "shot.png", cwd=caller)
    assert code == 0, err
    assert (caller / "shot.png").is_file() and str(caller / "shot.png") in out
    assert not (Path.cwd() / "shot.png").exists()
    code, _, err = await cockpit_exec(live, "eval", "missing.js", cwd=caller)
    assert code == 2 and f"paths are relative to {caller}" in err, err
    # a command typed in the session itself keeps the session's directory
    result = await live.session.run("eval missing.js")
    assert f"relative to {Path.cwd()}" in (result.error or "")


def test_a_session_that_speaks_protocol_1_gets_no_cwd_field():
    """It refuses unknown fields: a newer client must not send one to an older session."""
    from cockpit.control.client import run_fields
    assert "cwd" not in run_fields("title", "agent", None, protocol=1)
    assert run_fields("title", "agent", 5, protocol=2)["cwd"] == os.getcwd()


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
    assert stat.S_IMODE(Path(paths.info_path(live.socket)).stat().st_mode) == 0o600
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


def dead_socket(path, pid: int = 2 ** 22 + 7) -> None:
    """A dead session's leftovers: a socket nobody listens on, and an info with a gone pid."""
    with socket.socket(socket.AF_UNIX) as leftover:
        leftover.bind(str(path))
    Path(paths.info_path(path)).write_text(json.dumps(
        {"session": "old", "token": "x", "pid": pid, "workspace": "/"}))


async def test_a_stale_socket_is_cleaned_up_and_a_live_one_is_not_taken(s, tmp_path):
    sock = Path(paths.socket_path(s.name, tmp_path))
    paths.private_dir(create=True)
    dead_socket(sock)
    assert paths.alive(sock) is None and not sock.exists()
    assert not Path(paths.info_path(sock)).exists()
    first = ControlServer(s, workspace=tmp_path)
    await first.start()
    try:
        with pytest.raises(AlreadyLive, match="already live"):
            await ControlServer(s, workspace=tmp_path).start()
    finally:
        await first.close()
    assert not sock.exists() and not Path(paths.info_path(sock)).exists()


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


async def test_a_brief_stream_carries_no_diff_and_a_cut_output(live, s, site):
    """What `cockpit watch` follows ten sessions by: a new page's diff (1.9 MB for the
    demo's /reference) stays in the session; the command, its result and its time come."""
    async with AsyncCockpit(socket_path=str(live.socket)) as viewer:
        finished = []

        async def read():
            async for event in viewer.events(brief=True):
                if event.kind == ev.COMMAND_FINISHED:
                    finished.append(event)
                    return
        reader = asyncio.ensure_future(read())
        await asyncio.sleep(0.2)
        whole = await s.run(f"goto {site.url}/reference")
        await asyncio.wait_for(reader, 30)
    assert whole.ok and whole.data["diff"]  # the result itself keeps its diff
    event = finished[0]
    assert "data" not in event.data, list(event.data)
    assert event.data["command"] == f"goto {site.url}/reference" and event.data["ok"]
    assert event.data["ms"] > 0 and len(event.data["output"]) <= 301


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
        sock = Path(paths.socket_path("srv", tmp_path))
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
        assert not sock.exists() and not Path(paths.info_path(sock)).exists()
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


class FakeSession(SocketPeer):
    """A socket in our directory that looks live (its .json names this process) but is no
    session: it never answers (`answer` None), or answers the hello with `answer` and
    notes whether the client then closes its end."""

    def __init__(self, answer: bytes | None) -> None:
        self.answer = answer
        self.left: list[bool] = []
        super().__init__("fake", None if answer is None else self._answer)

    def _answer(self, conn) -> None:
        conn.settimeout(5)
        if not conn.makefile("rb").readline():
            return  # a liveness probe
        assert self.answer is not None
        conn.sendall(self.answer)
        try:
            self.left.append(conn.recv(1) == b"")
        except OSError:
            self.left.append(False)

    def client_left(self, timeout: float = 10) -> bool:
        deadline = time.monotonic() + timeout
        while not self.left and time.monotonic() < deadline:
            time.sleep(0.02)
        return bool(self.left) and self.left.pop(0)


@contextmanager
def fake_session(answer: bytes | None):
    fake = FakeSession(answer)
    try:
        yield fake
    finally:
        fake.close()


async def test_paths_a_user_gave_are_never_removed(tmp_path):
    notes = tmp_path / "notes.sock"  # --socket pointing at a file of the user's
    notes.write_text("mine")
    Path(paths.info_path(notes)).write_text("{}")
    elsewhere = tmp_path / "old.sock"  # a dead session's socket, but not in our directory
    dead_socket(elsewhere)
    for target in (notes, elsewhere):
        code, _, err = await cockpit_exec(None, "--socket", str(target), "title")
        assert code == 3 and "no live session" in err, err
    assert notes.read_text() == "mine" and Path(paths.info_path(notes)).read_text() == "{}"
    assert elsewhere.exists() and Path(paths.info_path(elsewhere)).exists()
    regular = Path(paths.private_dir(create=True)) / f"0123456789ab-regular{os.getpid()}.sock"
    regular.write_text("not a socket")  # even in our directory, only sockets are ours
    try:
        assert paths.alive(regular) is None and regular.read_text() == "not a socket"
    finally:
        regular.unlink()


def test_a_busy_session_is_not_taken_for_dead():
    sock = Path(paths.private_dir(create=True)) / f"busy-{os.getpid()}.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock))
    listener.listen(0)
    queued = []
    try:
        while True:  # fill its listen queue: it never accepts, connecting gets EAGAIN
            client = socket.socket(socket.AF_UNIX)
            client.setblocking(False)
            try:
                client.connect(str(sock))
            except BlockingIOError:
                client.close()
                break
            queued.append(client)
        Path(paths.info_path(sock)).write_text(json.dumps(
            {"session": "busy", "token": "t", "pid": os.getpid(), "workspace": "/"}))
        info = paths.alive(sock)
        assert info is not None and info.session == "busy"
        assert sock.exists() and Path(paths.info_path(sock)).exists()
    finally:
        for client in queued:
            client.close()
        listener.close()
        paths.remove(sock)


async def test_hostile_input_gets_an_error_and_the_session_serves_on(live, s, monkeypatch):
    replies = await raw(live, b'{"id": 1, "command": "title"}\n', token="\u00e9" * 32)
    assert len(replies) == 1 and "wrong token" in replies[0]["error"]
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    _, nested, answer = await raw(live, deep, b'{"id": 2, "command": "title"}\n')
    assert "nested too deeply" in nested["error"] and answer["id"] == 2 and answer["ok"]

    async def broken(labels: bool = False):
        raise RuntimeError("the tab went away")
    monkeypatch.setattr(s, "picture", broken)
    _, answer, after = await raw(live, b'{"id": 3, "op": "picture"}\n',
                                     b'{"id": 4, "command": "js 1"}\n')
    assert answer["id"] == 3 and not answer["ok"]
    assert "picture failed in the session: RuntimeError: the tab went away" in answer["error"]
    assert after["id"] == 4 and after["output"] == "1"
    lone = json.dumps({"id": 5, "command": "js '\"\\ud800\"'"}).encode() + b"\n"
    _, answer = await raw(live, lone)  # a JS string no UTF-8 can hold
    assert answer["id"] == 5 and answer["ok"], answer


async def test_an_over_long_request_is_refused_with_its_reason(live):
    code, _, err = await cockpit_exec(live, "js", *["1" * 110_000] * 10)
    assert code == 2 and "a request holds at most" in err, err

    def send_it():
        with Cockpit(socket_path=str(live.socket)) as browser:
            return browser.run("js " + "1" * (MAX_REQUEST + 10))
    result = await asyncio.to_thread(send_it)
    assert not result.ok and "over 1048576 bytes" in result.error


async def test_exec_gives_up_on_a_session_that_never_answers():
    with fake_session(None) as fake:
        started = time.monotonic()
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cockpit", "exec", "--socket", str(fake.path), "--timeout",
            "2", "title", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            _, err = await asyncio.wait_for(proc.communicate(), 20)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        assert proc.returncode == 3 and b"did not answer within 2 s" in err, err
        assert time.monotonic() - started < 10


async def test_exec_refuses_bad_timeouts_and_replies_that_are_not_json():
    for bad in ("nan", "inf", "-inf"):
        code, _, err = await cockpit_exec(None, "--timeout", bad, "title")
        assert code == 2 and "above 0" in err, (bad, err)
    with fake_session(b"this is not JSON\n") as fake:
        code, _, err = await cockpit_exec(None, "--socket", str(fake.path), "title")
    assert code == 3 and "not JSON" in err, err


async def test_a_refused_handshake_leaves_no_socket_open():
    with fake_session(b'{"ok": false, "error": "wrong token"}\n') as fake:
        # the errors (kept) hold the clients: only closing can end the connections
        with pytest.raises(Unreachable, match="refused the connection") as refused:
            Cockpit(socket_path=str(fake.path))
        assert await asyncio.to_thread(fake.client_left, 5)
        with pytest.raises(Unreachable, match="refused the connection") as refused_async:
            await AsyncCockpit(socket_path=str(fake.path)).connect()
        assert await asyncio.to_thread(fake.client_left, 5)
        del refused, refused_async


async def test_a_command_whose_client_left_before_its_turn_never_runs(live, s):
    seen = []
    unsubscribe = s.bus.subscribe(
        lambda e: e.kind.startswith("command.") and "left early" in e.data.get("command", "")
        and seen.append(e))
    s.hold_agents("held by the test")
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "cockpit", "exec", "js \"document.title = 'left early'\"",
            env={**os.environ, paths.ENV_SOCKET: str(live.socket)},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        assert b"waiting: held by the test" in await asyncio.wait_for(proc.stderr.readline(), 30)
        proc.send_signal(signal.SIGINT)  # Ctrl+C while it waits for its turn
        assert await asyncio.wait_for(proc.wait(), 10) == 130
        deadline = time.monotonic() + 5
        while not any(e.kind == ev.COMMAND_FINISHED for e in seen):  # still held
            assert time.monotonic() < deadline, "the command was not taken back"
            await asyncio.sleep(0.05)
    finally:
        s.release_agents()
    await asyncio.sleep(0.3)
    unsubscribe()
    assert [e.kind for e in seen] == [ev.COMMAND_QUEUED, ev.COMMAND_FINISHED]
    assert seen[-1].data["error"] == "cancelled before it ended"
    assert (await s.run("title")).output != "left early"


async def test_closing_the_server_takes_back_commands_waiting_their_turn(s, tmp_path):
    server = ControlServer(s, workspace=tmp_path)
    await server.start()
    finished = []
    unsubscribe = s.bus.subscribe(
        lambda e: e.kind == ev.COMMAND_FINISHED and finished.append(e.data))
    s.hold_agents("held by the test")
    try:
        async with AsyncCockpit(socket_path=str(server.socket)) as agent:
            waiting = asyncio.ensure_future(agent.run("js 'held'"))
            await asyncio.sleep(0.3)
            started = time.monotonic()
            await server.close()
            assert time.monotonic() - started < 3  # not the 5 s given to running commands
            with pytest.raises(Unreachable):
                await waiting
    finally:
        s.release_agents()
        unsubscribe()
    assert finished and finished[-1]["command"] == "js 'held'"
    assert finished[-1]["error"] == "cancelled before it ended"


async def test_serve_says_what_to_do_when_its_socket_cannot_be_made(tmp_path):
    import tempfile
    long_base = tempfile.mkdtemp(dir="/tmp", prefix="c" * (39 - len("/tmp/") - 8))
    linked = tempfile.mkdtemp(dir="/tmp", prefix="ck")
    os.symlink(tmp_path, os.path.join(linked, "cockpit"))  # not a directory of ours
    try:
        for base, name, code, says in (
                (long_base, "n" * 50, 2, "allows at most 41 characters"),
                (linked, "default", 3, "is not a directory of yours")):
            env = {**os.environ, "XDG_RUNTIME_DIR": base, paths.ENV_SOCKET: ""}
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "cockpit", "serve", "--session", name, cwd=tmp_path,
                env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            _, err = await asyncio.wait_for(proc.communicate(), 60)
            assert proc.returncode == code and says in err.decode(), err.decode()
            assert b"Traceback" not in err
    finally:
        os.unlink(os.path.join(linked, "cockpit"))
        os.rmdir(linked)
        shutil.rmtree(long_base)  # with the cockpit directory a server may have made
