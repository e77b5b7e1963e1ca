"""Attaching to a browser Cockpit did not launch: a Chromium started here with remote
debugging (`--cdp PORT`, `--cdp auto`), and a Playwright browser server
(`python -m playwright launch-server`, `--ws-endpoint`). The browser is driven, its open
tabs become the session's, and it is still running with its tabs after the session ends;
a handoff never relaunches it."""

from __future__ import annotations

import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from cockpit.core.browser.attach import Attach, attach_request, find_local, shown
from cockpit.core.browser.browser import CHROMIUM_FLAGS
from cockpit.core.base.errors import BrowserNotFoundError
from cockpit.core.session.session import Session

COCKPIT = [sys.executable, "-m", "cockpit"]
CHROMIUM = "/usr/lib/chromium/chromium"

pytestmark = pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK),
                                reason=f"no system Chromium at {CHROMIUM}")


class Chromium:
    """A Chromium with remote debugging on, as a user would start it (not by Cockpit)."""

    def __init__(self, *, headless: bool = True, url: str = "about:blank") -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="cockpit-cdp-"))
        args = [CHROMIUM, "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
                "--no-sandbox", *CHROMIUM_FLAGS, url]
        if headless:
            args.insert(1, "--headless=new")
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (file.exists() and len(file.read_text().split()) >= 2):
            assert self.proc.poll() is None, "Chromium exited at start"
            assert time.monotonic() < deadline, "Chromium wrote no DevToolsActivePort"
            time.sleep(0.1)
        self.port = int(file.read_text().split()[0])

    def titles_and_urls(self) -> list[tuple[str, str]]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list",
                                    timeout=10) as answer:
            return [(t["title"], t["url"]) for t in json.load(answer) if t["type"] == "page"]

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        shutil.rmtree(self.profile, ignore_errors=True)


MINE = "data:text/html,<title>mine</title><p>opened by the user"


@pytest.fixture(scope="module")
def chromium():
    browser = Chromium(url=MINE)
    yield browser
    browser.stop()


@pytest.fixture
def private_env(tmp_path):
    """An environment of its own: a socket directory no other test or session shares."""
    runtime = Path(tempfile.mkdtemp(prefix="ck", dir="/tmp"))  # short: sockets fit
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    yield env
    shutil.rmtree(runtime, ignore_errors=True)


class Driver:
    """`cockpit run --json ...` in a subprocess, fed one line at a time."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(COCKPIT + ["run", "--json", "--no-record", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, env=env,
                                     cwd=cwd)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)

    def send(self, line: str, timeout: float = 60) -> dict:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        if not self.selector.select(timeout):
            raise AssertionError(f"no answer to {line!r} within {timeout} s; stderr: "
                                 f"{self.proc.stderr.read() if self.proc.poll() else ''}")
        out = self.proc.stdout.readline()
        assert out, f"cockpit run ended: {self.proc.stderr.read()}"
        return json.loads(out)

    def close(self) -> tuple[int, str]:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        err = self.proc.stderr.read()
        self.selector.close()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code, err


def ref(snapshot: str, role: str, name: str) -> str:
    # `snapshot -i` lines: @e6 button "Sign in"
    m = re.search(rf'^(@\w+) {role} "[^"]*{re.escape(name)}[^"]*"', snapshot, re.M)
    assert m, f"no {role} {name!r} in:\n{snapshot}"
    return m.group(1)


# --- the options -----------------------------------------------------------------------
def test_attach_options_are_checked_before_anything_starts():
    assert attach_request(None, None) is None
    assert attach_request("9222", None) == Attach("cdp", "http://127.0.0.1:9222")
    assert attach_request("localhost:9333", None).endpoint == "http://localhost:9333"
    assert attach_request("auto", None).endpoint == "auto"
    assert attach_request(None, "ws://h:3000/abc").kind == "ws"
    for cdp, ws, kwargs, says in [
            ("9222", "ws://h:1/x", {}, "give one"),
            ("nonsense", None, {}, "a port (9222)"),
            ("70000", None, {}, "1 to 65535"),
            ("9222", None, {"headed": True}, "drop --headed"),
            ("9222", None, {"browser_path": "/x"}, "--browser-path"),
            ("9222", None, {"engine": "firefox"}, "not firefox"),
            (None, "http://h:3000/x", {}, "WebSocket URL")]:
        with pytest.raises(ValueError, match=re.escape(says)):
            attach_request(cdp, ws, **kwargs)


def test_endpoints_are_shown_without_what_grants_access():
    assert shown("ws://127.0.0.1:42165/30f278931635b83a3775d08cf2b38b18") == \
        "ws://127.0.0.1:42165/…"
    assert "TOKEN" not in shown("wss://user:TOKEN@fleet.example:443/chromium?token=TOKEN")
    assert shown("http://127.0.0.1:9222") == "http://127.0.0.1:9222"


def test_a_bad_attach_option_is_a_usage_error(private_env, tmp_path):
    for args in (["--cdp", "9222", "--ws-endpoint", "ws://127.0.0.1:1/x"],
                 ["--cdp", "not a port"], ["--cdp", "9222", "--headed"]):
        done = subprocess.run(COCKPIT + ["run", "--no-record", *args], input="", text=True,
                              capture_output=True, env=private_env, cwd=tmp_path, timeout=60)
        assert done.returncode == 2, (args, done.stderr)
        assert "--cdp" in done.stderr


def test_a_cdp_port_where_nothing_listens_says_so(private_env, tmp_path):
    import socket
    with socket.socket() as s:  # a port that was free a moment ago
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = subprocess.run(COCKPIT + ["run", "--no-record", "--cdp", str(port)],
                          input="title\n", text=True, capture_output=True, env=private_env,
                          cwd=tmp_path, timeout=60)
    assert done.returncode == 1
    assert f"could not attach to http://127.0.0.1:{port}" in done.stderr
    assert "--remote-debugging-port" in done.stderr


# --- CDP ---------------------------------------------------------------------------------
def test_run_drives_a_running_chromium_over_cdp_and_leaves_it_open(chromium, site,
                                                                    private_env, tmp_path):
    d = Driver(["--cdp", str(chromium.port)], private_env, tmp_path)
    try:
        tabs = d.send("tabs")
        assert tabs["ok"] and "mine" in tabs["output"]  # the user's tab is the session's
        assert d.send("newtab")["ok"]  # the session's own tab, in the user's browser
        assert d.send(f"goto {site.url}/login")["ok"]
        snap = d.send("snapshot -i")["output"]
        assert d.send(f'fill {ref(snap, "textbox", "Email")} "{site.email}"')["ok"]
        assert d.send(f'fill {ref(snap, "textbox", "Password")} "{site.password}"')["ok"]
        answer = d.send(f'click {ref(snap, "button", "Sign in")}')
        assert answer["ok"] and "/mfa" in answer["output"], answer
        status = d.send("status")["output"]
        assert f"over CDP at http://127.0.0.1:{chromium.port}" in status
        assert "not launched by Cockpit" in status
        # a headless browser we did not start: the handoff stays in the terminal, and says why
        handed = d.send("handoff")
        assert handed["ok"], handed
        assert "not started by Cockpit" in handed["output"]
        assert "stays headless" in handed["output"]
        assert d.send("resume")["ok"]
        assert d.send("handoff --terminal")["ok"]
        assert d.send("resume")["ok"]
    finally:
        code, err = d.close()
    assert code == 0, err
    time.sleep(0.5)  # what a close would do, it would have done by now
    assert chromium.alive(), "the session closed a browser it did not launch"
    pages = chromium.titles_and_urls()
    assert any(title == "mine" for title, _ in pages), pages  # the user's tab stays
    assert any("/mfa" in url for _, url in pages), pages  # and so does the session's


def test_cdp_auto_finds_the_local_chromium_from_its_devtools_file(chromium, private_env,
                                                                   tmp_path):
    home = tmp_path / "home"
    config = home / ".config" / "chromium"
    config.mkdir(parents=True)
    shutil.copy(chromium.profile / "DevToolsActivePort", config / "DevToolsActivePort")
    env = {**private_env, "HOME": str(home)}
    done = subprocess.run(COCKPIT + ["run", "--no-record", "--cdp", "auto"],
                          input="status\ntabs\n", text=True, capture_output=True, env=env,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"Chromium's, from {config / 'DevToolsActivePort'}" in done.stdout  # says which
    assert "mine" in done.stdout
    assert chromium.alive()


def test_cdp_auto_says_why_it_found_none(tmp_path):
    with pytest.raises(BrowserNotFoundError, match="no DevToolsActivePort"):
        find_local(tmp_path)
    stale = tmp_path / ".config" / "google-chrome"
    stale.mkdir(parents=True)
    (stale / "DevToolsActivePort").write_text("1\n/devtools/browser/x\n")  # nobody on port 1
    with pytest.raises(BrowserNotFoundError, match="port 1 does not answer"):
        find_local(tmp_path)


async def test_a_session_on_an_attached_browser_never_relaunches_it(chromium, site):
    session = Session("attached-h", attach=Attach("cdp", f"http://127.0.0.1:{chromium.port}"))
    await session.start()
    try:
        assert not session.owns_browser and session.plan.kind == "cdp"
        assert not session.headed  # it told us it is headless
        assert (await session.run(f"goto {site.url}/login")).ok
        handed = await session.run("handoff 'a code'")
        assert handed.ok and session.handoff.mode == "terminal", handed.error
        assert session.agents_held  # agents wait, as in any handoff
        from cockpit.core.browser.relaunch import capture, relaunch
        with pytest.raises(BrowserNotFoundError, match="never closes or restarts"):
            await relaunch(session, False, await capture(session))
        assert (await session.run("resume")).ok
    finally:
        await session.close()
    assert chromium.alive()


async def test_a_visible_attached_browser_is_handed_over_as_it_is(site, display):
    """A user's Chrome with a window: no relaunch, the same process and tabs throughout."""
    visible = Chromium(headless=False, url=MINE)
    session = Session("attached-v", attach=Attach("cdp", f"http://127.0.0.1:{visible.port}"))
    try:
        await session.start()
        assert session.headed  # it has a window
        context = session.context
        assert (await session.run(f"newtab {site.url}/login")).ok
        handed = await session.run("handoff")
        assert handed.ok, handed.error
        assert session.handoff.mode == "headed" and "already visible" in handed.output
        assert "close the window" not in handed.output  # it is the user's own browser
        resumed = await session.run("resume")
        assert resumed.ok, resumed.error
        assert session.context is context  # never relaunched
    finally:
        await session.close()
        alive = visible.alive()
        pages = visible.titles_and_urls() if alive else []
        visible.stop()
    assert alive and any(title == "mine" for title, _ in pages), pages


# --- a Playwright browser server ----------------------------------------------------------
@pytest.fixture(scope="module")
def browser_server():
    config = Path(tempfile.mkdtemp(prefix="cockpit-ws-")) / "server.json"
    config.write_text(json.dumps({"executablePath": CHROMIUM, "headless": True,
                                  "args": ["--no-sandbox", *CHROMIUM_FLAGS]}))
    proc = subprocess.Popen([sys.executable, "-m", "playwright", "launch-server", "--browser",
                             "chromium", "--config", str(config)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # its node driver and browser: one group
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    assert selector.select(60), "launch-server printed no endpoint"
    endpoint = proc.stdout.readline().strip()
    assert endpoint.startswith("ws://"), endpoint
    yield proc, endpoint
    # the python wrapper, its node driver and the browser go together (terminate() would
    # end only the wrapper and leave the server running after the suite)
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    shutil.rmtree(config.parent, ignore_errors=True)


def test_serve_drives_a_browser_server_and_sessions_lists_it(browser_server, site,
                                                              private_env, tmp_path):
    server, endpoint = browser_server
    workspace = tmp_path / "work"
    workspace.mkdir()
    serve = subprocess.Popen(COCKPIT + ["serve", "--no-record", "--session", "fleet",
                                        "--ws-endpoint", endpoint], cwd=workspace,
                             env=private_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        line = serve.stdout.readline()
        assert "is live on chromium from the browser server" in line, \
            line + serve.stderr.read()
        secret = endpoint.rsplit("/", 1)[1]
        assert secret not in line  # the server's path is its password

        def cockpit(*args: str, cwd: Path = workspace) -> subprocess.CompletedProcess:
            return subprocess.run(COCKPIT + list(args), capture_output=True, text=True,
                                  env=private_env, cwd=cwd, timeout=60)

        assert cockpit("exec", "--session", "fleet", "goto", f"{site.url}/login").returncode \
            == 0
        title = cockpit("exec", "--session", "fleet", "title")
        assert title.returncode == 0 and "Sign in" in title.stdout, title.stderr

        listed = cockpit("sessions", "--json", cwd=tmp_path)
        assert listed.returncode == 0, listed.stderr
        [row] = json.loads(listed.stdout)
        assert row["session"] == "fleet" and row["workspace"] == str(workspace.resolve())
        assert row["browser"]["kind"] == "ws" and row["control"] == "agent"
        assert row["url"].endswith("/login")
        assert secret not in listed.stdout
        table = cockpit("sessions", cwd=tmp_path)
        assert re.search(r"fleet\s+\S*work\s+ws ws://127\.0\.0\.1:\d+/…\s+agent", table.stdout), \
            table.stdout

        # from another directory: not found there, and it says where the live one is
        away = cockpit("exec", "--session", "fleet", "title", cwd=tmp_path)
        assert away.returncode == 3
        assert f"'fleet' in {workspace.resolve()}" in away.stderr
        assert "--socket" in away.stderr
    finally:
        serve.terminate()
        _out, err = serve.communicate(timeout=60)
    assert serve.returncode == 0, err
    assert "leaving the browser running" in err
    assert server.poll() is None, "the browser server was stopped with the session"


def test_sessions_says_when_there_are_none(private_env, tmp_path):
    done = subprocess.run(COCKPIT + ["sessions"], capture_output=True, text=True,
                          env=private_env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0 and "no live sessions" in done.stdout


def test_sessions_lists_one_that_does_not_answer_from_its_file(private_env, tmp_path):
    import socket
    runtime = Path(private_env["XDG_RUNTIME_DIR"]) / "cockpit"
    runtime.mkdir(mode=0o700)
    sock_path = runtime / "0123456789ab-stuck.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock_path))
    listener.listen()  # accepts, never answers: a session stuck in a long step
    (runtime / "0123456789ab-stuck.json").write_text(json.dumps({
        "session": "stuck", "token": "t", "pid": os.getpid(), "workspace": "/somewhere",
        "browser": "cdp", "endpoint": "http://127.0.0.1:9222"}))
    try:
        started = time.monotonic()
        done = subprocess.run(COCKPIT + ["sessions", "--json", "--timeout", "1"],
                              capture_output=True, text=True, env=private_env, cwd=tmp_path,
                              timeout=60)
        assert time.monotonic() - started < 30  # bounded by --timeout, not hanging
        [row] = json.loads(done.stdout)
        assert row["session"] == "stuck" and not row["answered"]
        assert row["browser"] == {"kind": "cdp", "endpoint": "http://127.0.0.1:9222",
                                  "description": None}
        assert "did not answer" in row["error"]
        table = subprocess.run(COCKPIT + ["sessions", "--timeout", "1"], capture_output=True,
                               text=True, env=private_env, cwd=tmp_path, timeout=60).stdout
        assert re.search(r"stuck\s+/somewhere\s+cdp http://127.0.0.1:9222\s+\?", table), table
    finally:
        listener.close()
