"""`cockpit watch` over real sessions (`cockpit serve` processes on the demo site): the one
that needs a person comes first, each need is called once (the session's --notify, the
watch's calls), sessions that start or stop appear and go, and the real command in a
pty sends the bell and OSC 9 / 777 once per need, attaches on Enter and comes back on
Escape. Each test has a socket directory of its own (XDG_RUNTIME_DIR): only its own
sessions are watched."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pexpect
import pytest

from cockpit.control.monitor import Monitor
from cockpit.tui.watch import WatchApp

NOTIFY = 'echo "$COCKPIT_SESSION|$COCKPIT_REASON|$COCKPIT_URL" >> {file}'


class Served:
    """`cockpit serve --session NAME` in a process group of its own, live once it says so."""

    def __init__(self, name: str, env: dict[str, str], cwd: Path, *extra: str) -> None:
        self.name, self.env, self.cwd = name, env, cwd
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cockpit", "serve", "--no-record", "--session", name,
             *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=env, cwd=cwd, start_new_session=True, text=True)
        self.said: list[str] = []
        self.live = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.said.append(line)
            if "is live" in line:
                self.live.set()

    def wait_live(self) -> Served:
        assert self.live.wait(90), "".join(self.said)
        return self

    def exec(self, *words: str) -> str:
        done = subprocess.run([sys.executable, "-m", "cockpit", "exec", "--session",
                               self.name, *words], env=self.env, cwd=self.cwd,
                              capture_output=True, text=True, timeout=90)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)


@pytest.fixture
def sessions(tmp_path, monkeypatch):
    """Start sessions with `sessions(name, *options)`; all stopped after the test."""
    rundir = tempfile.mkdtemp(prefix="cw", dir="/tmp")  # short: XDG_RUNTIME_DIR < 40 chars
    os.chmod(rundir, 0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", rundir)
    env = {**os.environ, "XDG_RUNTIME_DIR": rundir, "COCKPIT_STATE_DIR": str(tmp_path / "state")}
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)  # no desktop: notify-send is not the test's
    started: list[Served] = []

    def start(name: str, *extra: str, **more_env: str) -> Served:
        started.append(Served(name, {**env, **more_env}, tmp_path, *extra))
        return started[-1]

    start.env = env  # type: ignore[attr-defined]
    yield start
    for served in started:
        served.stop()
    shutil.rmtree(rundir, ignore_errors=True)


def to_the_captcha(served: Served, site) -> None:
    """Sign in on the demo site, type the one-time code, reach the CAPTCHA (through
    `cockpit exec`, as an agent would): the code page needs a person, then the CAPTCHA."""
    served.exec("goto", f"{site.url}/login")
    served.exec("fill", "#email", site.email)
    served.exec("fill", "#password", site.password)
    served.exec("click", "button[type=submit]")
    served.exec("fill", "#code", site.mfa_code)
    served.exec("click", "button[type=submit]")


async def until(what, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < end, "timed out"
        await asyncio.sleep(0.1)


async def drawn(app: WatchApp, pilot) -> None:
    """The table drawn from what the monitor has now: the monitor may still be asking the
    session's state before it tells the view (its redraws come at most every 0.25 s;
    tests/unit/test_watch_redraws.py checks that they come)."""
    await pilot.pause()
    app.redraw()
    await pilot.pause()


def cells(app: WatchApp, index: int) -> list[str]:
    from textual.widgets import DataTable
    return [str(cell) for cell in app.query_one(DataTable).get_row_at(index)]


async def test_the_session_that_needs_a_person_comes_first_and_is_called_once(
        sessions, site, tmp_path):
    told, desktop = tmp_path / "told.txt", tmp_path / "desktop.txt"
    fake_bin = tmp_path / "bin"  # a desktop: its notify-send, which writes what it shows
    fake_bin.mkdir()
    (fake_bin / "notify-send").write_text(f'#!/bin/sh\necho "$@" >> {desktop}\n')
    (fake_bin / "notify-send").chmod(0o755)
    alpha = sessions("alpha")
    beta = sessions("beta", "--notify", NOTIFY.format(file=told),
                    DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent",
                    PATH=f"{fake_bin}:{os.environ['PATH']}")
    alpha.wait_live(), beta.wait_live()
    alpha.exec("goto", f"{site.url}/")
    monitor = await Monitor().start()
    app = WatchApp(monitor)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            await until(lambda: len(monitor.rows()) == 2 and all(
                r.connected for r in monitor.rows()))
            await drawn(app, pilot)
            assert [r.session for r in monitor.rows()] == ["alpha", "beta"]
            assert cells(app, 0)[5].startswith("goto http://127.0.0.1")  # its last command
            await asyncio.to_thread(to_the_captcha, beta, site)
            await until(lambda: monitor.rows()[0].need is not None and
                        monitor.rows()[0].need["kind"] == "captcha")
            await drawn(app, pilot)
            first = cells(app, 0)
            assert first[1] == "beta" and first[0] == "! captcha (element img.captcha)", first
            assert first[2] == "headless" and first[4] == "no agent"
            assert "1 NEED A HUMAN" in str(app.query_one("#banner").render())
            # a need that stays raised is not called again, whatever the agent does there
            await asyncio.to_thread(beta.exec, "snapshot", "-i")
            await asyncio.to_thread(beta.exec, "title")
            await until(lambda: (monitor.rows()[0].last or None) is not None
                        and monitor.rows()[0].last.line == "title"
                        and monitor.rows()[0].last.finished is not None)
            await pilot.pause()
            assert [(c.session, c.need) for c in app.calls_made] == [
                ("beta", "code"), ("beta", "captcha")]
            lines = told.read_text().splitlines()
            assert lines == [f"beta|code (input autocomplete=\"one-time-code\")|{site.url}/mfa",
                             f"beta|captcha (element img.captcha)|{site.url}/challenge"]
            shown = desktop.read_text().splitlines()
            assert len(shown) == 2 and all(line.startswith(
                "--app-name=Cockpit --urgency=critical Cockpit: beta needs a human ")
                for line in shown), shown
            # 80x24: the essentials fit, without scrolling sideways
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            from textual.widgets import DataTable
            table = app.query_one(DataTable)
            assert cells(app, 0)[:2] == ["! captcha", "beta"]
            assert table.virtual_size.width <= 80, table.virtual_size
            # a session that starts is found (the directory is watched); one that stops goes
            gamma = sessions("gamma").wait_live()
            await until(lambda: "gamma" in [r.session for r in monitor.rows()])
            alpha.stop()
            await until(lambda: "alpha" not in [r.session for r in monitor.rows()])
            assert [r.session for r in monitor.rows()] == ["beta", "gamma"]
            # an agent that hands the browser over asks for a person: called, and listed
            # among those that need one, until someone resumes
            await asyncio.to_thread(gamma.exec, "handoff", "pick the right invoice")
            await until(lambda: len(app.calls_made) == 3)
            assert (app.calls_made[2].session, app.calls_made[2].reason) == (
                "gamma", "handoff (pick the right invoice)")
            await until(lambda: all(r.needs_person for r in monitor.rows()))
            await asyncio.to_thread(gamma.exec, "resume")
            await until(lambda: not monitor.rows()[1].needs_person)
            await drawn(app, pilot)
            assert app.query_one(DataTable).row_count == 2
            await pilot.press("enter")  # attaches to the first: the one that needs a person
            await pilot.pause()
        assert app.return_value == monitor.rows()[0].socket
        gamma.stop()
    finally:
        await monitor.close()


def test_watch_in_a_terminal_calls_once_per_need_attaches_and_comes_back(sessions, site,
                                                                         tmp_path):
    told = tmp_path / "told.txt"
    one = sessions("one").wait_live()
    two = sessions("two").wait_live()
    one.exec("goto", f"{site.url}/")
    child = pexpect.spawn(sys.executable, ["-m", "cockpit", "watch", "--notify",
                                           NOTIFY.format(file=told)],
                          env={**sessions.env, "TERM": "xterm-256color"}, cwd=str(tmp_path),
                          encoding="utf-8", dimensions=(24, 80), timeout=60)
    seen: list[str] = []
    stop = threading.Event()

    def drain() -> None:  # the pty read all along: a full pty would stall the watch
        while not stop.is_set():
            try:
                seen.append(child.read_nonblocking(100000, timeout=0.2))
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                return

    try:
        child.expect("2 live session")
        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        try:
            to_the_captcha(two, site)
            two.exec("title")  # the need stands: no second call for it
            end = time.monotonic() + 30
            while "1 NEED A HUMAN" not in "".join(seen) and time.monotonic() < end:
                time.sleep(0.2)
            time.sleep(3)  # what else it writes meanwhile, then the count
        finally:
            stop.set()
            reader.join(10)
        out = "".join(seen)
        assert "1 NEED A HUMAN" in out
        calls = re.findall(r"\x1b\]9;Cockpit: (\w+) needs a human: (\w+)", out)
        assert calls == [("two", "code"), ("two", "captcha")], calls
        assert len(re.findall(r"\x1b\]777;notify;Cockpit: two needs a human;", out)) == 2
        assert out.count("\a\x1b]9;") == 2  # the bell with each
        assert len(told.read_text().splitlines()) == 2
        child.send("\r")  # Enter: the full cockpit on the first row's session
        child.expect("Command log")
        child.expect("NEEDS A HUMAN")
        child.send("\x1b")  # Escape: back to the watch
        child.expect("1 NEED A HUMAN")
        child.send("q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0, child.exitstatus


def _middle_colour(picture) -> tuple[int, int, int] | None:
    """The colour drawn in the middle cell of the picture, as the terminal shows it."""
    left, top, width, rows = picture.cells
    if not width:
        return None
    strip = picture.render_line(top + rows // 2)
    x = 0
    for segment in strip:
        if x + len(segment.text) > left + width // 2 and segment.style and \
                segment.style.bgcolor is not None:
            triplet = segment.style.bgcolor.triplet
            return (triplet.red, triplet.green, triplet.blue) if triplet else None
        x += len(segment.text)
    return None


def _is(colour: tuple[int, int, int] | None, want: tuple[int, int, int]) -> bool:
    return colour is not None and all(abs(a - b) < 40 for a, b in zip(colour, want))


async def test_the_session_under_the_cursor_is_shown_live(sessions):
    from cockpit.tui.watch_picture import WatchPicture
    alpha, beta = sessions("alpha"), sessions("beta")
    alpha.wait_live(), beta.wait_live()
    page = "data:text/html,<body style='margin:0;background:rgb({})'>"
    await asyncio.to_thread(alpha.exec, "goto", page.format("200,0,0"))
    await asyncio.to_thread(beta.exec, "goto", page.format("0,0,200"))
    monitor = await Monitor().start()
    app = WatchApp(monitor)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            await until(lambda: len(monitor.rows()) == 2 and all(
                r.connected for r in monitor.rows()))
            picture = app.query_one(WatchPicture)
            await until(lambda: _is(_middle_colour(picture), (200, 0, 0)))
            assert picture.following == monitor.rows()[0].socket  # alpha, under the cursor
            await pilot.press("down")  # the cursor on beta: its page, not alpha's
            await until(lambda: _is(_middle_colour(picture), (0, 0, 200)))
            assert picture.following == monitor.rows()[1].socket
            # live: the page changes with no command from the watch, and the picture follows
            await asyncio.to_thread(beta.exec, "js",
                                    "document.body.style.background = 'rgb(0,200,0)'")
            await until(lambda: _is(_middle_colour(picture), (0, 200, 0)))
            # 80x24: no room, no picture (and no frames asked); `p` shows it anyway
            await pilot.resize_terminal(80, 24)
            await until(lambda: not picture.display and picture.following is None)
            await pilot.press("p")
            await until(lambda: _is(_middle_colour(picture), (0, 200, 0)))
            await pilot.press("p")
            await until(lambda: picture.following is None)
    finally:
        await monitor.close()
