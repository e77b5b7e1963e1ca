"""No page or browser state wedges a session: deadlines, recovery from a hung, crashed,
killed or stopped browser, and clean errors where there were internal ones.

Destructive tests use their own sessions (never the shared `s` browser), with a short
deadline so a hung page costs seconds, not the default 30.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import os
import signal
import subprocess
import sys
import time

import pytest

from cockpit.control.protocol import ProtocolError, check_request
from cockpit.core import Session
from cockpit.core.base import events as ev
from cockpit.core.base.errors import EXIT_FAILED, EXIT_UNREACHABLE
from cockpit.core.browser.processes import browser_pids

PAGE = "data:text/html,<title>Kept</title><button>Go</button>"


async def wait_for(condition, what: str, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {limit} s"
        await asyncio.sleep(0.1)


@pytest.fixture
async def own():
    """A session of its own, with a 3 s deadline, that the test may break."""
    session = Session(f"hard-{os.getpid()}-{time.monotonic_ns()}", command_timeout=3)
    kinds: list[ev.Event] = []
    session.bus.subscribe(kinds.append)
    session.events = kinds  # type: ignore[attr-defined]
    await session.start()
    try:
        yield session
    finally:
        await session.close()


def seen(session, kind: str) -> list[dict]:
    return [e.data for e in session.events if e.kind == kind]


async def test_a_hung_page_ends_at_the_deadline_and_the_next_command_runs(own):
    assert (await own.run(f"goto {PAGE}")).ok
    hung = asyncio.ensure_future(own.run("js while(true){}", source="agent"))
    await asyncio.sleep(0.5)
    status = await asyncio.wait_for(own.run("status"), 5)  # never behind the stuck one
    assert status.ok and not hung.done()
    result = await asyncio.wait_for(hung, 30)
    assert not result.ok and result.exit_code == EXIT_FAILED
    assert "did not finish within 3 s" in result.error
    assert "replaced by a fresh page" in result.error and "\n" not in result.error
    after = await asyncio.wait_for(own.run("js 6*7", source="agent"), 10)
    assert after.ok and after.output == "42"
    assert [d["what"] for d in seen(own, ev.BROWSER_RECOVERED)] == ["renderer"]


async def test_chrome_hang_is_recovered_too(own):
    await own.run("goto chrome://hang")  # the navigation itself may fail or hang
    first = await asyncio.wait_for(own.run("js 1+1"), 30)
    second = await asyncio.wait_for(own.run("js 2+2"), 30)
    assert second.ok and second.output == "4", (first.error, second.error)


async def test_a_crashed_renderer_is_replaced_and_the_agent_told(own):
    assert (await own.run(f"goto {PAGE}")).ok
    await own.run("goto chrome://crash")
    await wait_for(lambda: seen(own, ev.BROWSER_RECOVERED), "the tab replaced", 20)
    assert seen(own, ev.BROWSER_LOST)[0]["what"] == "renderer"
    result = await own.run("js 6*7", source="agent")
    assert result.ok and result.output.endswith("42")
    assert "crashed" in result.output and "refs are void" in result.output
    assert "crashed" not in (await own.run("js 1", source="agent")).output  # said once


async def test_a_killed_browser_is_relaunched_with_its_tabs(own, site):
    assert (await own.run(f"goto {site.url}/login")).ok
    assert (await own.run(f"newtab {PAGE}")).ok
    os.kill(browser_pids(own.profile_dir)[0], signal.SIGKILL)
    started = time.monotonic()
    await wait_for(lambda: seen(own, ev.BROWSER_LOST), "the death noticed", 5)
    assert time.monotonic() - started < 5  # noticed at once, not at the next command
    await wait_for(lambda: own.recovery.relaunches == 1, "relaunched", 60)
    result = await own.run("tabs", source="agent")
    assert result.ok, result.error
    assert "relaunched with its tabs" in result.output
    assert f"{site.url}/login" in result.output and "Kept" in result.output
    lines = result.output.splitlines()
    assert "login" in lines[1] and "Kept" in lines[2]  # in their order, the second in front
    assert lines[2].startswith("*")
    assert (await own.run("js 6*7", source="agent")).output == "42"
    assert "Target page, context or browser has been closed" not in result.output


async def test_a_stopped_browser_is_killed_and_relaunched(own):
    assert (await own.run(f"goto {PAGE}")).ok
    pid = browser_pids(own.profile_dir)[0]
    os.kill(pid, signal.SIGSTOP)
    try:
        result = await asyncio.wait_for(own.run("js 1+1"), 60)
    finally:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
    assert not result.ok and "stopped answering" in result.error, result.error
    assert "relaunched" in result.error
    after = await own.run("js document.title")
    assert after.ok and after.output == "Kept"


async def test_a_browser_that_cannot_start_again_ends_the_session_with_exit_3(own):
    assert own.plan is not None
    own.plan = dataclasses.replace(own.plan, executable="/nonexistent/chrome",
                                   headless_shell=None)
    os.kill(browser_pids(own.profile_dir)[0], signal.SIGKILL)
    await wait_for(lambda: own.recovery.dead, "given up", 60)
    result = await own.run("js 1")
    assert result.exit_code == EXIT_UNREACHABLE
    assert "could not be started again" in result.error
    assert "Target page" not in result.error
    assert (await own.run("status")).ok  # it still says how things are
    assert [d["ok"] for d in seen(own, ev.BROWSER_RECOVERED)] == [False]


async def test_wait_may_take_as_long_as_it_is_told(own):
    result = await own.run("wait 4000")  # beyond the 3 s deadline: it asked for that
    assert result.ok, result.error


def test_run_ends_at_end_of_input_even_after_a_hung_command(tmp_path):
    env = {**os.environ, "COCKPIT_COMMAND_TIMEOUT": "3"}
    proc = subprocess.run(
        [sys.executable, "-m", "cockpit", "run", "--json", "--no-record", "--session",
         f"hard-run-{os.getpid()}"], input="js while(true){}\njs 6*7\n", text=True,
        capture_output=True, timeout=120, env=env)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [a["ok"] for a in answers] == [False, True], proc.stderr
    assert answers[1]["output"] == "42"
    assert proc.returncode == EXIT_FAILED


def test_run_exits_3_when_the_browser_cannot_come_back(tmp_path):
    """The browser (a wrapper that starts it only once) is killed under `cockpit run`."""
    real = next(p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
                if os.path.exists(p)) if any(
        os.path.exists(p) for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium")) \
        else pytest.skip("needs a system Chromium to wrap")
    once = tmp_path / "once"
    wrapper = tmp_path / "chrome"
    wrapper.write_text(f"#!/bin/sh\nif [ -e {once} ]; then exit 1; fi\ntouch {once}\n"
                       f'exec {real} "$@"\n')
    wrapper.chmod(0o755)
    name = f"hard-run3-{os.getpid()}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cockpit", "run", "--json", "--no-record", "--session", name],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        bufsize=1, env={**os.environ, "COCKPIT_BROWSER_PATH": str(wrapper)})
    try:
        assert proc.stdin and proc.stdout
        proc.stdin.write("js 1+1\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["output"] == "2"
        pids = [p for p in _all_browsers() if name in _cmdline(p)]
        assert pids, "the session's browser was not found"
        os.kill(pids[0], signal.SIGKILL)
        time.sleep(3)
        proc.stdin.write("js 2+2\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        proc.stdin.close()
        assert proc.wait(timeout=60) == EXIT_UNREACHABLE
        assert not answer["ok"] and "could not be started again" in answer["error"]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _all_browsers() -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and "--user-data-dir=" in _cmdline(int(entry)) \
                and "--type=" not in _cmdline(int(entry)):
            pids.append(int(entry))
    return pids


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


# --- what used to be internal errors ---------------------------------------------------
@pytest.mark.parametrize("line, expect", [
    ("js new Date(Date.UTC(2024, 0, 2))", "2024-01-02T00:00:00"),
    ("js /re/g", "/re/"),
    ("js (() => { const a = {}; a.self = a; return a })()", "[Circular]"),
    ("js [NaN, Infinity]", '["NaN", "Infinity"]'),
])
async def test_page_values_json_cannot_hold_come_back_cleanly(s, line, expect):
    result = await s.run(line)
    assert result.ok, result.error
    assert expect in result.output
    json.dumps(result.to_json(), allow_nan=False)  # the answer is strict JSON


@pytest.mark.parametrize("line, words", [
    ("state save ./", ["is a folder", "give a file name"]),
    ("state save /proc/self/environ", ["could not write /proc/self/environ"]),
    ("goto http://[::1", ["not a valid URL"]),
])
async def test_bad_paths_and_urls_are_clean_errors(s, line, words):
    result = await s.run(line)
    assert not result.ok and "internal error" not in result.error
    for word in words:
        assert word in result.error


async def test_select_on_a_missing_element_waits_as_long_as_click(s):
    started = time.monotonic()
    result = await s.run("select #nothing-here x")
    assert not result.ok and "nothing matches" in result.error
    assert time.monotonic() - started < 20  # the action timeout (5 s), not Playwright's 30


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_socket_timeouts_must_be_finite(bad):
    with pytest.raises(ProtocolError, match="finite"):
        check_request({"id": 1, "command": "status", "timeout": bad})
