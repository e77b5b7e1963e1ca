"""--allow-domain on a browser Cockpit launched: a server redirect to another domain is
refused too (its host never resolves), and the policy survives a relaunch of the
browser (a kill, recovered) and a handoff's relaunch (core/policy/domains.py)."""

from __future__ import annotations

import asyncio
import http.client
import http.server
import threading
import time
from urllib.parse import urlsplit

import pytest

from cockpit.core import Session
from cockpit.core.browser.recovery import kill_browser
from cockpit.core.browser.relaunch import capture, relaunch

SEEN: list[str] = []  # "host path" of every request the server got


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        SEEN.append(f"{self.headers.get('Host', '').split(':')[0]} {self.path}")
        port = self.server.server_address[1]
        if self.path.startswith("/far"):  # a redirect to a name only a proxy resolves
            self.send_response(302)
            self.send_header("Location", "http://far.example/evil")
            self.end_headers()
            return
        if self.path.startswith("/away"):  # a redirect to the other name of this server
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{port}/evil")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        # a link elsewhere: the route (not `goto`'s own check) must refuse it
        self.wfile.write(f"<title>home</title><a href='http://localhost:{port}/evil'>away"
                         "</a><button onclick=\"window.open('/away?popup')\">popup</button>"
                         .encode())

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
async def session():
    s = Session(f"policy-{time.monotonic_ns()}")
    s.policy.configure(["127.0.0.1"], [], s.registry)
    await s.start()
    yield s
    await s.close()


async def refused(s: Session, line: str, why: str = "") -> str:
    result = await s.run(line)
    assert not result.ok, result.output
    assert result.error.startswith(f"refused: localhost is not an allowed domain{why}"), \
        result.error
    return result.error


async def test_a_redirect_elsewhere_is_refused_and_the_policy_survives_relaunches(
        session, server):
    s = session
    assert (await s.run(f"goto {server}/")).ok
    SEEN.clear()
    await refused(s, f"goto {server}/away", " (a redirect)")
    assert SEEN == ["127.0.0.1 /away"]  # the redirect's target was never asked
    await refused(s, f"goto {server.replace('127.0.0.1', 'localhost')}/")

    # the browser killed: the next command relaunches it, with the same policy
    kill_browser(s.profile_dir)
    for _ in range(200):
        if s.recovery.pending:
            break
        await asyncio.sleep(0.05)
    assert (await s.run(f"goto {server}/")).ok
    SEEN.clear()
    await refused(s, f"goto {server}/away", " (a redirect)")
    await refused(s, f"goto {server.replace('127.0.0.1', 'localhost')}/")
    assert (await s.run(f"goto {server}/")).ok
    await refused(s, "click a")
    assert not any(seen.startswith("localhost") for seen in SEEN), SEEN

    # a handoff's relaunch (headless again here): the same
    await relaunch(s, True, await capture(s))
    await refused(s, "click a")
    await refused(s, f"goto {server}/away", " (a redirect)")
    await refused(s, f"goto {server.replace('127.0.0.1', 'localhost')}/")
    assert not any(seen.startswith("localhost") for seen in SEEN)


@pytest.mark.parametrize("option, said", [
    (["--confirm", "clik:*Delete*"], "--confirm 'clik:*Delete*': there is no command 'clik'"),
    (["--allow-domain", "ex ample.com"], "--allow-domain 'ex ample.com' is not a domain")])
def test_a_bad_policy_option_is_a_usage_error_before_a_browser_starts(option, said, tmp_path):
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "cockpit", "run", "--no-record", *option],
                          input="", capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.fixture(params=["cdp", "ws"])
def attached(request):
    """How a Chromium Cockpit did not launch is reached: over CDP, or a Playwright
    browser server (--ws-endpoint); the Attach, and whether the browser still runs."""
    from cockpit.core.browser.attach import Attach
    if request.param == "cdp":
        from test_attach_browser import Chromium
        browser = Chromium()
        yield Attach("cdp", f"http://127.0.0.1:{browser.port}"), browser.alive
        browser.stop()
    else:
        proc, endpoint = request.getfixturevalue("browser_server")
        yield Attach("ws", endpoint), lambda: proc.poll() is None


@pytest.fixture(scope="module")
def browser_server():
    from test_attach_browser import browser_server as serving
    yield from serving.__wrapped__()


async def test_a_redirect_elsewhere_is_refused_in_an_attached_chromium(attached, server):
    """Its resolver is the user's own: the redirect guard (policy/redirects.py) fails the
    hop before it is sent, for the page and for a popup it opens."""
    attach, alive = attached
    s = Session(f"policy-{attach.kind}-{time.monotonic_ns()}", attach=attach)
    s.policy.configure(["127.0.0.1"], [], s.registry)
    await s.start()
    try:
        assert (await s.run(f"goto {server}/")).ok
        SEEN.clear()
        await refused(s, f"goto {server}/away", " (a redirect)")
        assert SEEN == ["127.0.0.1 /away"]  # the redirect's target was never asked
        # the hop is aborted, not failed: no error page comes to cut into what follows
        await asyncio.sleep(0.5)
        assert s.active.page.url == f"{server}/", s.active.page.url
        assert (await s.run(f"goto {server}/")).ok
        await refused(s, "click a")  # a direct request: the route, as before
        back = await s.run(f"goto {server}/")
        assert back.ok, back
        SEEN.clear()
        # a popup's first document, redirected before its page is ours to guard
        result = await s.run("click button")
        assert not result.ok and "refused: localhost is not an allowed domain (a popup" \
            in result.error, result
        assert len(s.tabs) == 1 and SEEN == ["127.0.0.1 /away?popup"], SEEN
        assert not any(seen.startswith("localhost") for seen in SEEN), SEEN
        assert "warning" not in (await s.run("status")).output
    finally:
        await s.close()
    assert alive()  # attached: never closed by us


class Proxy(http.server.BaseHTTPRequestHandler):
    """A forward proxy that answers every page itself: what reaches it is what the
    browser sent out."""

    def do_GET(self) -> None:
        SEEN.append(f"proxy {self.path}")
        target = urlsplit(self.path)
        if target.hostname == "127.0.0.1":  # the test's server: relayed, redirects as is
            connection = http.client.HTTPConnection("127.0.0.1", target.port, timeout=10)
            connection.request("GET", target.path or "/")
            answer = connection.getresponse()
            body = answer.read()
            self.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in ("connection", "transfer-encoding", "content-length"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            connection.close()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<title>via the proxy</title>")

    def log_message(self, format: str, *args: object) -> None:
        pass


async def test_a_redirect_elsewhere_is_refused_behind_a_proxy(server):
    """Behind a proxy the browser resolves no name (the proxy does): the resolver rules
    cannot stop a redirect there, the redirect guard does."""
    proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    s = Session(f"policy-proxy-{time.monotonic_ns()}")
    s.network.proxy = f"http://127.0.0.1:{proxy.server_address[1]}"
    s.policy.configure(["127.0.0.1"], [], s.registry)
    await s.start()
    try:
        assert (await s.run(f"goto {server}/")).ok
        SEEN.clear()
        result = await s.run(f"goto {server}/far")
        assert not result.ok, result.output
        assert result.error.startswith("refused: far.example is not an allowed domain "
                                       "(a redirect)"), result.error
        assert not any("far.example" in seen for seen in SEEN), SEEN  # never asked for
        assert "warning" not in (await s.run("status")).output
    finally:
        await s.close()
        proxy.shutdown()
        proxy.server_close()
