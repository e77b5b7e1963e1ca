"""Network and emulation that outlive the browser: every setting survives a handoff to a
visible window (under Xvfb) and back; a HAR recorded once replays a site whose server has
stopped; HTTP credentials (a relaunch) are never shown; the session flags."""

from __future__ import annotations

import base64
import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cockpit.core import Session
from cockpit.core.network.options import configure_network

from conftest import PAGES, Handler, fails, ok, page, ref_of

ROOT = Path(__file__).resolve().parents[2]

SHOP = page("w3n-shop", "<button onclick='load()'>Load users</button><ul id='list'></ul>",
            head="<script>async function load() {"
                 "  const users = await (await fetch('/api/w3n-users')).json();"
                 "  document.getElementById('list').innerHTML ="
                 "    users.map(u => '<li>' + u.name + '</li>').join('');"
                 "}</script>")
PAGES["api/w3n-users"] = json.dumps([{"name": "Grace Hopper"}])

READ_ALL = """async () => ({
  ua: navigator.userAgent, touch: navigator.maxTouchPoints > 0, width: innerWidth,
  dpr: devicePixelRatio,
  dark: matchMedia('(prefers-color-scheme: dark)').matches,
  zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  number: (1234.5).toLocaleString(),
  geo: await new Promise(r => navigator.geolocation.getCurrentPosition(
    p => r([p.coords.latitude, p.coords.longitude]), e => r(e.message))),
  mocked: await (await fetch('/api/mocked')).text(),
})"""


class Server:
    """A server of PAGES of its own, stopped by the test (the HAR replays without it)."""

    def __init__(self, handler=Handler) -> None:
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    served = Server()
    yield served
    served.stop()


@pytest.fixture
async def own(request):
    """A session of its own (these relaunch its browser), headless, closed after."""
    session = Session(f"w3n-{request.node.name[:40]}")
    events: list = []
    session.bus.subscribe(events.append)
    session.events = events
    yield session
    if session.context is not None:
        await session.close()


async def read_all(session: Session) -> dict:
    return await session.active.page.evaluate(READ_ALL)


def assert_emulated(found: dict) -> None:
    assert "iPhone" in found["ua"] and found["touch"] and found["dpr"] == 3, found
    assert found["dark"] and found["zone"] == "Asia/Tokyo" and found["number"] == "1.234,5"
    assert found["geo"] == [35.68, 139.69] and found["mocked"] == "mocked!"


async def test_every_setting_survives_a_handoff_and_back(own, server, display):
    s = await own.start()
    for line in ('device "iPhone 13"', "geo 35.68 139.69", "media --color-scheme dark",
                 "timezone Asia/Tokyo", "locale de-DE", "route **/api/mocked --body mocked!",
                 "headers set X-W3n kept"):
        await ok(s, line)
    await ok(s, f"goto {server.url}{SHOP}")
    assert_emulated(await read_all(s))
    assert (await s.active.page.evaluate("innerWidth")) == 980  # a mobile layout viewport
    result = await ok(s, "handoff check the phone layout")
    assert s.headed and not s.plan.headless
    assert_emulated(await read_all(s))  # the human's window is the same phone
    await ok(s, "offline on")  # set while the human has control: kept on the way back
    await ok(s, "resume")
    assert not s.headed
    await ok(s, "offline off")
    assert_emulated(await read_all(s))
    await ok(s, "js await fetch('/w3n-shop?h').then(r => r.status)")
    listing = (await ok(s, "network --filter w3n-shop?h")).output
    assert "x-w3n: kept" in (await ok(s, f"request {listing.split('#')[-1]}")).output
    status = (await ok(s, "status")).output
    assert "device iPhone 13" in status and "routes (1): **/api/mocked" in status
    assert result.ok


async def test_offline_survives_a_relaunch_and_the_tabs_still_come_back(own, server):
    s = await own.start()
    await ok(s, f"goto {server.url}{SHOP}")
    await ok(s, "offline on")
    result = await ok(s, 'device "Pixel 7"')  # a relaunch
    assert "not carried" not in result.output, result.output  # the tab loaded again
    assert s.active.url == f"{server.url}{SHOP}"
    assert await s.active.page.evaluate("navigator.onLine") is False
    await ok(s, "device off")
    assert await s.active.page.evaluate("[navigator.onLine, navigator.maxTouchPoints]") \
        == [False, 0]


async def test_a_har_recorded_once_replays_the_site_with_its_server_stopped(own, tmp_path):
    served = Server()
    har = tmp_path / "shop.har"
    s = await own.start()
    await ok(s, f"har start {har}")
    await ok(s, f"goto {served.url}{SHOP}")
    await ok(s, "snapshot -i")
    assert "Grace Hopper" in (await ok(s, f"click {ref_of(s, 'button', 'Load users')}")).output
    assert (await ok(s, "har stop")).data["entries"] >= 2
    await s.close()
    served.stop()

    replay = Session("w3n-har-replay")
    configure_network(replay.network, replay.owns_browser, har=har, har_missing="abort")
    await replay.start()
    try:
        await ok(replay, f"goto {served.url}{SHOP}")  # nobody listens there any more
        await ok(replay, "snapshot -i")
        shown = await ok(replay, f"click {ref_of(replay, 'button', 'Load users')}")
        assert "Grace Hopper" in shown.output
        assert "answering from HAR" in (await ok(replay, "status")).output
        missing = await replay.run(f"goto {served.url}/not-recorded")
        assert not missing.ok  # --har-missing abort: what it lacks fails
    finally:
        await replay.close()


class AuthHandler(Handler):
    def do_GET(self) -> None:
        wanted = "Basic " + base64.b64encode(b"ada:s3cret-pass-9").decode()
        if self.headers.get("Authorization") != wanted:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="w3n"')
            self.end_headers()
            self.wfile.write(b"who are you")
            return
        super().do_GET()


async def test_credentials_answer_http_auth_and_are_never_shown(own):
    served = Server(AuthHandler)
    try:
        s = await own.start()
        result = await ok(s, "credentials ada s3cret-pass-9")
        assert "user ada (password masked)" in result.output
        await ok(s, f"goto {served.url}{SHOP}")
        assert await s.active.page.title() == "w3n-shop"
        status = await ok(s, "status")
        assert "credentials ada / ***" in status.output
        shown = json.dumps([e.data for e in s.events]) + result.command + status.output
        assert "s3cret-pass-9" not in shown, "the password reached an event or a result"
        assert "s3cret-pass-9" not in s.redactor.files.text("x s3cret-pass-9 y")
        await ok(s, "credentials clear")
        # no one answers it: the full build's navigation fails at the sign-in prompt it
        # cannot show; the headless shell has none and opens the 401 page. Either way the
        # agent is told what to do
        again = await s.run(f"goto {served.url}{SHOP}?again")
        said = again.output if again.ok else again.error
        assert ("(401)" in said) if again.ok else ("net::ERR_INVALID_AUTH" in said), said
        assert "`credentials USER PASSWORD`" in said, said
        assert await s.active.page.title() != "w3n-shop"
        assert "needs USER and PASSWORD" in (await fails(s, "credentials ada")).error
    finally:
        served.stop()


def run_cli(*args: str, stdin: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "cockpit", "run", "--no-record", *args],
                          input=stdin, capture_output=True, text=True, env=env, timeout=120,
                          cwd=ROOT)


def test_session_flags_reach_the_browser_and_bad_ones_are_usage_errors():
    done = run_cli("--session", "w3n-flags", "--device", "iPhone 13", "--timezone",
                   "Asia/Tokyo", "--locale", "de-DE", "--json", stdin=(
                       "js [navigator.userAgent.includes('iPhone'), navigator.maxTouchPoints"
                       " > 0, Intl.DateTimeFormat().resolvedOptions().timeZone, "
                       "(1234.5).toLocaleString()]\nstatus\n"))
    assert done.returncode == 0, done.stderr
    first, status = (json.loads(line) for line in done.stdout.splitlines())
    assert first["output"] == '[true, true, "Asia/Tokyo", "1.234,5"]', first
    assert "device iPhone 13" in status["output"] and "timezone Asia/Tokyo" in status["output"]
    bad = run_cli("--timezone", "Mars/Olympus", stdin="")
    assert bad.returncode == 2 and "not an IANA timezone" in bad.stderr, bad.stderr
    bad = run_cli("--device", "Nokia 3310 Ultra", stdin="")
    assert bad.returncode == 2 and "device list" in bad.stderr, bad.stderr
