"""Shared fixtures: the demo site on 127.0.0.1, one real headless browser session, and the
real third-party apps (tests/realapps/apps.py).

The tests come in three tiers, each a directory (and a marker of its name):
- tests/unit: no browser, no process; the inner loop, in seconds (`pytest tests/unit`);
- tests/engine: the one shared headless browser (`s`) against pages on 127.0.0.1;
- tests/e2e: own browsers, processes, terminals; tests/realapps (the real apps) is e2e too.

Engine tests run against our own demo site and small pages, never the network. One browser
serves the whole run (a launch per test would dominate the suite); `s` gives each test a
clean session: one blank tab, no dialog, empty buffers.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import logging
import os
import re
import socket
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

# Profiles and files go to a throwaway state directory, never the user's.
os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-test-state-"))
os.environ.setdefault("COCKPIT_RECORDINGS_DIR", tempfile.mkdtemp(prefix="cockpit-test-rec-"))
# The suite's browsers at the normal priority, as its timings were set for: the tests
# start many processes at once on small CI machines. The background priority has its
# own tests (test_browser_priority.py), which ask for it.
os.environ.setdefault("COCKPIT_BROWSER_NICE", "0")

from cockpit.core import Session
from cockpit.demo.server import DemoSite

TESTS = Path(__file__).resolve().parent
REALAPPS = TESTS / "realapps"
sys.path.insert(0, str(REALAPPS))  # tests/realapps/apps.py: `import apps`


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each test gets its tier's marker (`-m unit`, `-m "not e2e"`), from its directory."""
    for item in items:
        where = item.path.relative_to(TESTS).parts[0]
        if where == "realapps":
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.realapps)
        elif where in ("unit", "engine", "e2e"):
            item.add_marker(getattr(pytest.mark, where))


@pytest.fixture(autouse=True)
def _cockpit_logs_reach_caplog():
    """A face's logging set-up (cli/options.configure_logging), run in-process by a test,
    stops the "cockpit" logger's propagation for the whole process: each test starts with
    it on again, so that `caplog` sees the engine's records (else a test that asserts no
    warning was logged could not fail)."""
    logger = logging.getLogger("cockpit")
    logger.propagate = True
    yield
    logger.propagate = True


@pytest.fixture(scope="session")
def realapps_venv() -> Path:
    """The real apps' venv (.ci/realapps installs it once, then it is cached). Skipped with
    the reason when it cannot be installed, except under CI=true: CI must run them."""
    import apps
    try:
        return apps.venv()
    except (RuntimeError, OSError) as exc:
        why = f"the real apps' venv could not be installed (.ci/realapps): {exc}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test on the shop shows the end of its server's log: which request the
    server was slow to answer, when a page was still loading (the dev server once stalled
    for ten seconds in CI, and never here)."""
    outcome = yield
    report = outcome.get_result()
    shop = getattr(item, "funcargs", {}).get("shop")
    if report.when == "call" and report.failed and shop is not None:
        try:
            lines = shop.log.read_text(errors="replace").splitlines()[-40:]
        except OSError as exc:
            lines = [f"(not read: {exc})"]
        report.sections.append(("the shop's server log, its last 40 lines", "\n".join(lines)))


@pytest.fixture(scope="session")
def shop(realapps_venv):
    """Django's admin behind django-two-factor-auth, with django-simple-captcha."""
    import apps
    with apps.shop() as started:
        yield started


@pytest.fixture(scope="session")
def notebook(realapps_venv):
    """`marimo edit` on a small notebook: its URL."""
    import apps
    with apps.notebook() as url:
        yield url


@pytest.fixture(scope="session")
def data_app(realapps_venv):
    """`streamlit run` on a small app: its URL."""
    import apps
    with apps.data_app() as url:
        yield url


@pytest.fixture(scope="session")
def explorer(realapps_venv):
    """`datasette` on a small SQLite database (its SQL editor is a CodeMirror 5): its URL."""
    import apps
    with apps.explorer() as url:
        yield url


@pytest.fixture(scope="session")
def model_demo(realapps_venv):
    """A Gradio app (a form whose answer comes through its queue): its URL."""
    import apps
    with apps.model_demo() as url:
        yield url


@pytest.fixture(scope="session")
def site():
    with DemoSite(captcha_text="K7RWM") as demo:
        yield demo


@pytest.fixture(scope="session")
async def browser_session():
    session = Session("tests")
    await session.start()
    yield session
    await session.close()


@pytest.fixture
async def fresh(request):
    """A started session with a browser of its own (the test may hand it over, relaunch
    or renice it), named after the test, every event kept (`session.events`); closed
    after it."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", request.node.name)[:40]
    session = Session(f"own-{os.getpid()}-{name}")
    await session.start()
    events: list = []
    session.bus.subscribe(events.append)
    session.events = events  # type: ignore[attr-defined]
    yield session
    await session.close()


@pytest.fixture
async def s(browser_session, site):
    """The shared session, reset to one blank tab."""
    session = browser_session
    for tab in list(session.tabs):
        if tab.dialog is not None:
            await tab.dialog.dismiss()
            tab.dialog_answered("dismissed")
    while len(session.tabs) > 1:
        await session.run("closetab")
    await session.switch_to(session.tabs[0])
    await session.context.clear_cookies()
    site.variant = "normal"
    result = await session.run("goto about:blank")
    assert result.ok, result.error
    session.buffers.console.clear()
    session.buffers.network.clear()
    session.buffers.dialogs.clear()
    session.agent = None  # a test's agent is gone with it
    # what a handoff's resume left for the next agent command is an earlier test's
    session.handoff.note = None
    yield session
    session.agent = None


@pytest.fixture
async def live(s, tmp_path):
    """The shared session behind a control socket of its own (a workspace of the test)."""
    from cockpit.control.server import ControlServer
    server = ControlServer(s, workspace=tmp_path)
    await server.start()
    yield server
    await server.close()


@pytest.fixture
def fulls(monkeypatch):
    """How many full snapshots were taken (the incremental path takes none)."""
    from cockpit.core.page.tab import Tab
    count = {"n": 0}
    original = Tab.take_snapshot

    async def counting(self):
        count["n"] += 1
        return await original(self)

    monkeypatch.setattr(Tab, "take_snapshot", counting)
    return count


async def ok(session: Session, line: str):
    """Run a line that must succeed, and return its Result."""
    result = await session.run(line)
    assert result.ok, f"{line!r} failed: {result.error}"
    return result


async def fails(session: Session, line: str):
    """Run a line that must fail, and return its Result."""
    result = await session.run(line)
    assert not result.ok, f"{line!r} should have failed but said: {result.output}"
    assert result.error and "\n" not in result.error, "errors are one line"
    return result


def ref_of(session: Session, role: str, name: str) -> str:
    """The ref of the element with this role and (partial) name in the active tab's snapshot."""
    snap = session.active.snapshot
    assert snap is not None, "take a snapshot first"
    for ref, node in snap.refs.items():  # named as `snapshot -i` names it (by its words
        if node.role == role and name in (node.label or node.name):  # when nameless)
            return "@" + ref
    raise AssertionError(f"no {role} named {name!r} in:\n{snap.raw}")


@pytest.fixture(scope="session")
def display():
    """A virtual X display (Xvfb) for headed-browser tests; sets $DISPLAY while they run."""
    import shutil
    import subprocess
    import time
    from pathlib import Path

    if shutil.which("Xvfb") is None:
        if os.environ.get("CI"):
            pytest.fail("Xvfb is missing: `bash .ci/setup --test` installs it")
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    number = next(n for n in range(90, 200) if not Path(f"/tmp/.X11-unix/X{n}").exists()
                  and not Path(f"/tmp/.X{n}-lock").exists())
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1400x1000x24",
                               "-nolisten", "tcp"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not Path(f"/tmp/.X11-unix/X{number}").exists():
        assert server.poll() is None and time.monotonic() < deadline, "Xvfb did not start"
        time.sleep(0.05)
    before = os.environ.get("DISPLAY")
    os.environ["DISPLAY"] = f":{number}"
    yield f":{number}"
    if before is None:
        os.environ.pop("DISPLAY", None)
    else:
        os.environ["DISPLAY"] = before
    server.terminate()
    server.wait(5)


async def to_the_mfa_code(session: Session, site) -> None:
    """Sign in on the demo site (as a human would, in the page) and type the MFA code; the
    next click on the submit button reaches the "verify you are human" challenge."""
    await ok(session, f"goto {site.url}/login")
    page = session.active.page
    await page.fill("#email", site.email)
    await page.fill("#password", site.password)
    await page.click("button[type=submit]")
    await page.wait_for_url("**/mfa")
    await page.fill("#code", site.mfa_code)


# --- small pages written by the tests themselves ---------------------------------------
PAGES: dict[str, str] = {}
STALL_ONCE: dict[str, int] = {}  # NAME: MS, its next answer's <main> sent that much later


def page(name: str, body: str, head: str = "") -> str:
    """Serve a page at /NAME (NAME is shared by every test file: make it yours)."""
    PAGES[name] = (f"<!doctype html><html><head><title>{name}</title>{head}</head>"
                   f"<body><main><h1>{name}</h1>{body}</main>"
                   "<nav><a href='#a'>Elsewhere</a><button>Untouched</button></nav></body></html>")
    return "/" + name


def stylesheet(name: str, css: str) -> str:
    """Serve a stylesheet at /NAME.css."""
    PAGES[name + ".css"] = css
    return f"/{name}.css"


def script(name: str, js: str) -> str:
    """Serve a script (a module, too) at /NAME.js."""
    PAGES[name + ".js"] = js
    return f"/{name}.js"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        name = self.path.strip("/").split("?")[0].split("#")[0]
        if "slow=" in self.path:  # `?slow=MS`: answered that much later
            time.sleep(int(self.path.split("slow=")[1].split("&")[0]) / 1000)
        html = PAGES.get(name)
        self.send_response(200 if html else 404)
        kind = "text/css" if name.endswith(".css") else \
            "text/javascript" if name.endswith(".js") else "text/html"
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.end_headers()
        body = (html or "missing").encode()
        stall = (int(self.path.split("stall=")[1].split("&")[0]) if "stall=" in self.path
                 else STALL_ONCE.pop(name, 0))
        if stall:  # `?stall=MS`: its <main> sent that much later
            head, cut, rest = body.partition(b"<main>")
            self.wfile.write(head)
            self.wfile.flush()
            time.sleep(stall / 1000)
            body = cut + rest
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def base():
    """A server of the pages that tests write with `page()` (pages nobody styled)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


PYDOC = Path("/usr/share/doc/python3-doc/html")  # Debian's python3-doc: Python's own docs


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass  # one line per file request would bury the output


@pytest.fixture(scope="session")
def pydoc_url():
    """Python's own documentation (Debian's python3-doc, a Sphinx site) served over HTTP."""
    if not (PYDOC / "library" / "stdtypes.html").exists():
        pytest.skip(f"python3-doc is not installed ({PYDOC} missing): apt-get install "
                    "python3-doc")
    from functools import partial
    handler = partial(QuietHandler, directory=str(PYDOC))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class SocketPeer:
    """A Unix socket in the sessions' directory with a .json that names this process, so
    clients take it for a live session `name`; `handle(conn)` answers each connection, in
    a thread of its own (a client that never gets an answer when there is none)."""

    def __init__(self, name: str, handle=None) -> None:
        from cockpit.control import discovery
        self.path = os.path.join(discovery.private_dir(create=True),
                                 f"{name}-{os.getpid()}.sock")
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(self.path)
        self.listener.listen(8)
        self.connections = 0
        with open(discovery.info_path(self.path), "w", encoding="utf-8") as info:
            json.dump({"session": name, "token": "t", "pid": os.getpid(),
                       "workspace": "/"}, info)
        if handle is not None:
            threading.Thread(target=self._serve, args=(handle,), daemon=True).start()

    def _serve(self, handle) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return  # closed
            self.connections += 1
            with conn:
                handle(conn)

    def close(self) -> None:
        from cockpit.control import discovery
        self.listener.close()
        discovery.remove(self.path)


async def enabled_once_waited(session: Session, line: str, spied: list[str],
                              element_id: str):
    """Run `line` on a disabled element, and enable it once the command has gone
    Playwright's way (`spied`: that path's calls), which waits for it: the moment comes
    from the command, not from a timer that a loaded machine outruns. Its Result."""
    import asyncio
    running = asyncio.create_task(session.run(line))
    while not spied and not running.done():
        await asyncio.sleep(0.01)
    await session.active.page.evaluate(
        f"document.getElementById({element_id!r}).disabled = false")
    return await running


def spy_on(monkeypatch, cls, name: str) -> list[str]:
    """The calls of `cls.name` from now on (each as its object's str), still made."""
    seen: list[str] = []
    original = getattr(cls, name)

    async def counting(self, *args, **kwargs):
        seen.append(str(self))
        return await original(self, *args, **kwargs)
    monkeypatch.setattr(cls, name, counting)
    return seen


@contextlib.asynccontextmanager
async def serving(app: Any) -> AsyncIterator[str]:
    """An aiohttp app served on a free port of 127.0.0.1, for the test's time: its URL.
    (Its pages' sockets stay open: the server gives them 0.5 s at the end.)"""
    from aiohttp import web
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()
