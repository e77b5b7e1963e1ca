"""The session surface: every face gets the same one, so what the local TUI does works in
`cockpit attach` too (the F12 walkthrough, F8/F9 on the host's agent, recording), and mypy
keeps the local, remote and fake sessions in step with it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ok
from test_attach import attached, commands, until
from test_tui_recordings import cell, record
from textual.widgets import DataTable

from cockpit.control.agent_process import AgentProcess
from cockpit.control.remote_session import RemoteSession
from cockpit.record.recorder import Recorder
from cockpit.tui.agent_pane import AgentPane
from cockpit.tui.recordings import RecordingsScreen
from cockpit.tui.status_bar import StatusBar

TESTS = Path(__file__).resolve().parents[1]  # tests/, where surface_check.py is



async def test_f12_walks_a_recording_step_by_step_in_an_attached_tui(
        s, site, live, tmp_path, monkeypatch):
    monkeypatch.setenv("COCKPIT_RECORDINGS_DIR", str(tmp_path))
    await record(s, site, tmp_path / "walk.jsonl")  # goto, snapshot -i, fill @eN
    await ok(s, "goto about:blank")
    remote, app = await attached(live)
    try:
        async with app.run_test(size=(180, 50)) as pilot:
            await pilot.press("f12")
            await until(pilot, lambda: isinstance(app.screen, RecordingsScreen))
            await pilot.press("enter")  # the only recording
            steps = app.screen.query_one("#recording-steps", DataTable)
            await until(pilot, lambda: steps.row_count == 3)
            await pilot.press("n")
            await until(pilot, lambda: cell(app, 0, 6) == "as recorded")
            assert s.active.url == f"{site.url}/login" and cell(app, 1, 6) == ""
            await pilot.press("n")
            await until(pilot, lambda: cell(app, 1, 6) == "as recorded")
            assert cell(app, 2, 6) == ""
            # its ref found again over the socket (this step failed silently in attach:
            # replay asked the remote session for its tab object)
            await pilot.press("n")
            await until(pilot, lambda: cell(app, 2, 6) == "as recorded")
            email = next(r for r, n in s.active.snapshot.refs.items() if n.name == "Email")
            assert s.active.snapshot.refs[email].value == site.email  # ran in the host
            # each step in the live session's log, as the replay's
            await until(pilot, lambda: [(c[0].split()[0], c[2]) for c in commands(app)
                                        if c[1] == "replay"] == [
                ("goto", "ok"), ("snapshot", "ok"), ("fill", "ok")])
    finally:
        await remote.close()


async def test_f8_and_f9_in_an_attached_tui_control_the_hosts_agent(s, live):
    agent = AgentProcess("echo started; sleep 60", s, live.socket)
    s.agent = agent  # as the lifecycle does when it starts one
    remote, app = await attached(live)
    try:
        await agent.start()
        async with app.run_test(size=(160, 48)) as pilot:
            status = app.query_one(StatusBar).status
            await until(pilot, lambda: status.agent == "running")  # agent.state came over
            await pilot.press("f8")
            await until(pilot, lambda: agent.state == "paused")
            assert s.agents_held == "the agent is paused"
            await until(pilot, lambda: status.agent == "paused"
                        and status.control.startswith("agents wait"))
            await pilot.press("f8")
            await until(pilot, lambda: agent.state == "running" and s.agents_held is None)
            await until(pilot, lambda: status.agent == "running")
            await pilot.press("f9")  # stop
            await until(pilot, lambda: agent.state == "exited")
            await until(pilot, lambda: "killed by signal" in app.query_one(AgentPane).border_title)
            await pilot.press("f9")  # start again
            await until(pilot, lambda: agent.running)
            await until(pilot, lambda: status.agent == "running")
    finally:
        await remote.close()
        await agent.close()


async def test_without_an_agent_the_host_says_so(s, live):
    remote = await RemoteSession(socket_path=str(live.socket)).start()
    try:
        assert (await remote.agent_control("pause")).startswith("no agent:")
    finally:
        await remote.close()


async def test_a_recorder_on_a_remote_session_has_targets_from_the_events(s, site, live,
                                                                        tmp_path):
    remote = await RemoteSession(socket_path=str(live.socket)).start()
    path = tmp_path / "remote.jsonl"
    recorder = Recorder(remote, path).start()
    try:
        assert (await remote.run(f"goto {site.url}/login")).ok
        assert (await remote.run("snapshot -i")).ok
        refs = {name: ref for ref, role, name, _ in remote.refs_info()}
        assert (await remote.run(f"fill @{refs['Email']} {site.email}")).ok
        assert (await remote.run(f"fill @{refs['Password']} {site.password}")).ok
        await asyncio_until(lambda: recorder.steps == 4)
    finally:
        recorder.close()
        await remote.close()
    text = path.read_text()
    steps = [json.loads(line) for line in text.splitlines()
             if json.loads(line)["type"] == "step"]
    assert steps[2]["targets"] == {refs["Email"]: {"role": "textbox", "name": "Email",
                                                   "nth": 0}}
    assert steps[3]["targets"][refs["Password"]]["name"] == "Password"
    # known as a password field from the event's targets: the value typed is masked
    # (the demo page itself shows it in its hint, so earlier steps have it)
    assert site.password not in json.dumps(steps[3])
    assert steps[3]["command"].endswith("$PASSWORD")
    assert steps[0]["url"] == f"{site.url}/login"


async def asyncio_until(condition, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


# --- the surface, checked by mypy ---------------------------------------------------------

def mypy(path: Path, cache: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("mypy")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-error-summary",
         "--cache-dir", str(cache), str(path)],
        check=False, capture_output=True, text=True, cwd=TESTS.parent, timeout=300)


def test_every_session_has_the_surface_and_mypy_says_when_one_does_not(tmp_path):
    cache = tmp_path / "mypy-cache"
    kept = mypy(TESTS / "surface_check.py", cache)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    broken = tmp_path / "broken_surface.py"
    broken.write_text(
        "from cockpit.control.remote_session import RemoteSession\n"
        "from cockpit.core.session.surface import SessionSurface\n\n\n"
        "class Lacking(RemoteSession):  # as if agent_control had been removed\n"
        "    agent_control = None  # type: ignore[assignment]\n\n\n"
        "def remote(session: Lacking) -> SessionSurface:\n"
        "    return session\n")
    planted = mypy(broken, cache)
    assert planted.returncode == 1 and "agent_control" in planted.stdout, planted.stdout
