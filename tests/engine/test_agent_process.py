"""Agent subprocesses: their environment, output, state, pause, stop and restart; and the
cockpit staying up whatever the agent does."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time

import pytest

from cockpit.control import agent_process as agent_module
from cockpit.control.agent_process import AgentProcess
from cockpit.core.base import events as ev
from cockpit.control import server as server_module
from cockpit.control.server import ControlServer
from cockpit.tui.agent_pane import AgentPane
from cockpit.tui.app import CockpitApp
from cockpit.tui.command_log import CommandLog
from cockpit.tui.status_bar import StatusBar


@pytest.fixture
async def served(s, tmp_path):
    server = ControlServer(s, workspace=tmp_path)
    await server.start()
    seen: list = []
    unsubscribe = s.bus.subscribe(seen.append)
    yield server, seen
    unsubscribe()
    await server.close()


async def until(condition, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


def output(seen, stream: str) -> list[str]:
    return [line for e in seen if e.kind == ev.AGENT_OUTPUT and e.data["stream"] == stream
            for line in e.data["lines"]]


def states(seen) -> list[str]:
    return [e.data["state"] for e in seen if e.kind == ev.AGENT_STATE]


async def test_the_agent_reaches_the_session_and_its_output_and_exit_are_shown(s, served):
    server, seen = served
    agent = AgentProcess('echo "session=$COCKPIT_SESSION"; echo oops >&2; '
                         'cockpit exec js 6*7; printf "no newline"; exit 3', s, server.socket)
    await agent.start()
    await until(lambda: agent.state == "exited")
    await agent.close()
    assert output(seen, "stdout") == [f"session={s.name}", "42", "no newline"]
    assert output(seen, "stderr") == ["oops"]
    finished = [e for e in seen if e.kind == ev.COMMAND_FINISHED]
    assert [(e.data["command"], e.data["source"]) for e in finished] == [("js '6*7'", "agent")]
    assert states(seen)[0] == "running" and "waiting" in states(seen)
    last = [e for e in seen if e.kind == ev.AGENT_STATE][-1].data
    assert last["state"] == "exited" and last["exit_code"] == 3
    assert agent_module.describe(last) == "exited with code 3"


async def test_pause_holds_its_commands_and_resume_lets_them_run(s, served):
    server, seen = served
    # the pause lands between the two: an exec starts in ~15 ms, sooner than `until` looks
    agent = AgentProcess("cockpit exec js 1; sleep 1; cockpit exec js 2", s, server.socket)
    agent.pause()  # not running yet: nothing to pause
    assert agent.state == "not started"
    await agent.start()
    await until(lambda: any(e.kind == ev.COMMAND_FINISHED for e in seen))
    agent.pause()
    assert agent.state == "paused" and s.agents_held == "the agent is paused"
    await until(lambda: sum(e.kind == ev.COMMAND_QUEUED for e in seen) == 2)
    await asyncio.sleep(0.3)
    assert sum(e.kind == ev.COMMAND_FINISHED for e in seen) == 1  # js 2 waits
    assert (await s.run("js '\"human\"'")).ok  # the human is not held
    agent.resume()
    await until(lambda: agent.state == "exited")
    finished = [e.data["output"] for e in seen if e.kind == ev.COMMAND_FINISHED]
    assert finished == ["1", "human", "2"] and s.agents_held is None
    await agent.close()


async def test_stop_terminates_then_kills_and_restart_starts_again(s, served, monkeypatch):
    server, seen = served
    monkeypatch.setattr(agent_module, "STOP_GRACE_S", 0.5)
    stubborn = AgentProcess("trap '' TERM; echo up; while true; do sleep 0.1; done", s,
                            server.socket)
    await stubborn.start()
    await until(lambda: "up" in output(seen, "stdout"))
    await stubborn.stop()  # TERM is ignored: killed after the grace period
    assert stubborn.state == "exited" and stubborn.exit_code == -9
    await stubborn.restart()
    await until(lambda: output(seen, "stdout").count("up") == 2)
    assert stubborn.running
    await stubborn.close()
    assert not stubborn.running


async def test_stop_kills_the_whole_group_when_the_wrapper_dies_on_term(s, served, tmp_path):
    """F9 on an agent whose shell wrapper dies on TERM while the agent itself ignores it:
    after "stopped" nothing of its process group is left (the agent was killed)."""
    server, _ = served
    pid_file = tmp_path / "agent.pid"
    script = tmp_path / "agent.py"
    script.write_text(f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))"
                      "\nfor _ in range(600):\n    time.sleep(1)\n")
    agent = AgentProcess(f"sh -c 'trap \"\" TERM; {sys.executable} {script} & wait'", s,
                         server.socket)
    await agent.start()
    group = agent.proc.pid
    try:
        await until(lambda: pid_file.exists() and pid_file.read_text().strip())
        inner_pid = int(pid_file.read_text())
        assert os.getpgid(inner_pid) == group
        await asyncio.wait_for(agent.stop(), 30)
        assert agent.state == "exited"
        assert agent_module.group_members(group) == []
        assert not _alive(inner_pid)  # the agent itself, not only its wrapper
    finally:
        await agent.close()
        if agent_module.group_members(group):
            os.killpg(group, signal.SIGKILL)


async def test_an_agent_left_running_is_killed_when_the_cockpit_exits(s, served):
    """A cockpit that ends without stopping its agent (a crash) kills its group at exit."""
    server, _ = served
    agent = AgentProcess("trap '' TERM; sleep 600 & wait", s, server.socket)
    await agent.start()
    group = agent.proc.pid
    try:
        await until(lambda: len(agent_module.group_members(group) or []) >= 2)
        agent_module._kill_live_groups()  # what atexit runs
        await until(lambda: agent_module.group_members(group) == [])
        await until(lambda: agent.state == "exited")
    finally:
        await agent.close()


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


async def test_stop_returns_when_a_descendant_keeps_its_output_open(s, served, tmp_path):
    server, seen = served
    pid_file = tmp_path / "daemon.pid"
    agent = AgentProcess(f"setsid sh -c 'echo $$ > {pid_file}; exec sleep 30' & "
                         "echo started; sleep 30", s, server.socket)
    await agent.start()
    try:
        await until(lambda: "started" in output(seen, "stdout") and pid_file.exists()
                    and pid_file.read_text().strip())
        began = time.monotonic()
        await asyncio.wait_for(agent.stop(), 20)
        assert time.monotonic() - began < agent_module.STOP_GRACE_S + 3
        assert agent.state == "exited" and not agent.running
        last = [e for e in seen if e.kind == ev.AGENT_STATE][-1].data
        assert last["state"] == "exited" and last["exit_code"] == -signal.SIGTERM
    finally:
        if pid_file.exists() and pid_file.read_text().strip():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)  # it left the group: by hand
        await agent.close()


async def test_a_flooding_or_crashing_agent_does_not_take_the_cockpit_down(s, served):
    server, seen = served
    assert not any(e.kind == ev.AGENT_OUTPUT for e in server.agent)  # a fresh server
    flood = (f"{sys.executable} -c \"import sys; [print('line', i) for i in range(200000)]; "
             f"sys.stdout.write('x' * 100000); sys.exit('crashed')\"")
    app = CockpitApp(s, pictures=False)
    async with app.run_test(size=(160, 48)) as pilot:
        agent = AgentProcess(flood, s, server.socket)
        s.agent = agent  # as the lifecycle sets it
        await agent.start()
        await until(lambda: agent.state == "exited", timeout=60)
        await pilot.pause(0.2)
        pane = app.query_one(AgentPane)
        # every line is on the bus, kept or counted: each read keeps its last lines (the
        # 100,000 x's without a newline come in pieces, each cut to MAX_LINE characters)
        events = [e.data for e in seen
                  if e.kind == ev.AGENT_OUTPUT and e.data["stream"] == "stdout"]
        assert all(len(e["lines"]) <= agent_module.MAX_LINES_AN_EVENT for e in events)
        assert 200_002 <= sum(len(e["lines"]) + e["dropped"] for e in events) <= 200_030
        assert sum(e["dropped"] for e in events) > 100_000
        kept = server.agent  # what a viewer attaching now would get: bounded in bytes
        assert sum(server_module.size_of(e) for e in kept) <= server_module.AGENT_HISTORY_BYTES
        assert kept[-1].kind == ev.AGENT_STATE and kept[-1].data["state"] == "exited"
        text = "\n".join(strip.text for strip in pane.lines)
        assert "lines not shown" in text and "crashed" in text
        long_line = [line for line in output(served[1], "stdout") if line.startswith("xxx")]
        assert long_line and all(len(line) < 4100 for line in long_line)
        assert long_line[0].endswith("more characters)")  # cut, and says so
        status = app.query_one(StatusBar).status
        assert status.agent == "exited with code 1"
        assert "exited with code 1" in pane.border_title
        prompt = app.query_one("#prompt")
        prompt.focus()
        await pilot.press("j", "s", "space", "1", "enter")
        log = app.query_one(CommandLog)
        await until(lambda: any(e.command == "js 1" and e.status == "ok"
                                for e in log.rows))
        await agent.close()


async def test_the_tui_keys_pause_and_stop_the_agent(s, served):
    server, _ = served
    app = CockpitApp(s, pictures=False)
    async with app.run_test(size=(160, 48)) as pilot:
        agent = AgentProcess("echo started; sleep 60", s, server.socket)
        s.agent = agent  # as the lifecycle sets it
        await agent.start()
        await pilot.press("f8")
        assert agent.state == "paused"
        await pilot.pause(0.1)
        assert app.query_one(StatusBar).status.control.startswith("agents wait")
        await pilot.press("f8")
        assert agent.state == "running"
        await pilot.press("f9")  # stop
        await until(lambda: agent.state == "exited")
        await pilot.press("f9")  # start again
        await until(lambda: agent.running)
        await pilot.pause(0.1)
        assert app.query_one(StatusBar).status.agent == "running"
        await agent.close()
