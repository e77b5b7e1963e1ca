"""The embedded demo site, over plain HTTP (no browser): flow, API, variants, robustness."""

from __future__ import annotations

import http.client
import json
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from http.cookiejar import CookieJar

import pytest

from cockpit.demo.server import DemoSite


class Browser:
    """A cookie-keeping HTTP client that follows redirects, like a very plain browser."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookies = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def get(self, path: str) -> tuple[int, str, str]:
        """(status, final path, body text)."""
        return self._open(urllib.request.Request(self.base + path))

    def post(self, path: str, **fields: str) -> tuple[int, str, str]:
        data = urllib.parse.urlencode(fields).encode()
        return self._open(urllib.request.Request(self.base + path, data=data))

    def api(self, method: str, path: str, body: object = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        status, _, text = self._open(request)
        return status, json.loads(text)

    def _open(self, request: urllib.request.Request) -> tuple[int, str, str]:
        try:
            with self.opener.open(request, timeout=10) as response:
                return (response.status, urllib.parse.urlsplit(response.url).path,
                        response.read().decode())
        except urllib.error.HTTPError as error:
            return error.code, urllib.parse.urlsplit(error.url).path, error.read().decode()


@pytest.fixture
def site() -> Iterator[DemoSite]:
    with DemoSite() as running:
        yield running
    assert not running.errors, running.errors[-1]  # no handler crashed


def sign_in(site: DemoSite) -> Browser:
    browser = Browser(site.url)
    status, path, _ = browser.post("/login", email=site.email, password=site.password)
    assert (status, path) == (200, "/mfa")
    status, path, _ = browser.post("/mfa", code=site.mfa_code)
    assert (status, path) == (200, "/challenge")
    status, path, _ = browser.post("/challenge", answer=site.captcha_answer.lower())
    assert (status, path) == (200, "/inbox")
    return browser


def test_without_the_human_check_the_code_leads_to_the_inbox() -> None:
    with DemoSite(human_check=False) as site:
        browser = Browser(site.url)
        browser.post("/login", email=site.email, password=site.password)
        status, path, body = browser.post("/mfa", code=site.mfa_code)
        assert (status, path) == (200, "/inbox") and "Notes on the Analytical Engine" in body
        assert browser.get("/challenge")[1] == "/challenge"  # reachable, never required
    assert DemoSite().human_check  # the default keeps the picture


def test_defaults_and_url() -> None:
    site = DemoSite()
    assert (site.email, site.password, site.mfa_code, site.variant) == (
        "jane@example.com", "cockpit-demo", "246810", "normal")
    assert re.fullmatch(r"[A-Z2-9]{5}", site.captcha_answer)
    assert not set(site.captcha_answer) & set("01OIL")
    with pytest.raises(RuntimeError):
        _ = site.url
    url = site.start()
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url) and site.url == url
    finally:
        site.stop()


def test_home_links(site: DemoSite) -> None:
    status, _, body = Browser(site.url).get("/")
    assert status == 200 and "<h1>Cockpit Demo</h1>" in body
    for href, text in [("/login", "Sign in"), ("/reference", "Reference"),
                       ("/playground", "Playground")]:
        assert f'<a href="{href}">{text}</a>' in body


def test_full_sign_in_flow(site: DemoSite) -> None:
    browser = Browser(site.url)
    _, _, body = browser.get("/login")
    assert 'type="email"' in body and 'type="password"' in body and "cockpit-demo" in body
    _, path, body = browser.post("/login", email="jane@example.com", password="cockpit-demo")
    assert path == "/mfa"
    assert 'autocomplete="one-time-code"' in body and 'inputmode="numeric"' in body
    assert "Demo phone: your code is 246810" in body
    assert any(c.name == "cockpit_demo_session" and c.has_nonstandard_attr("HttpOnly")
               for c in browser.cookies)

    _, path, body = browser.post("/mfa", code="000000")
    assert path == "/mfa" and 'role="alert">That code is not right' in body
    _, path, body = browser.post("/mfa", code="246810")
    assert path == "/challenge"
    assert "<title>Verify you are human — Cockpit Demo</title>" in body
    assert 'class="cockpit-human-challenge' in body and 'data-challenge="captcha"' in body
    assert 'alt="Challenge image"' in body and 'src="/challenge.svg' in body

    _, path, body = browser.post("/challenge", answer=site.captcha_answer.lower())
    assert path == "/inbox"
    assert "<h1>Inbox</h1>" in body and "4 messages" in body
    assert body.count(">Archive</button>") == 4
    assert 'aria-label="Archive: Lunch on Friday?"' in body
    assert '<a href="/report" target="_blank">Open report</a>' in body

    _, path, _ = browser.post("/logout")
    assert path == "/"
    assert browser.get("/inbox")[1] == "/login"


def test_wrong_password(site: DemoSite) -> None:
    status, path, body = Browser(site.url).post("/login", email=site.email, password="nope")
    assert (status, path) == (200, "/login")
    assert '<p class="error" role="alert">Wrong email or password</p>' in body


def test_pages_redirect_to_the_missing_step(site: DemoSite) -> None:
    browser = Browser(site.url)
    for page in ("/inbox", "/mfa", "/challenge"):
        assert browser.get(page)[1] == "/login"
    browser.post("/login", email=site.email, password=site.password)
    assert browser.get("/inbox")[1] == "/mfa"
    assert browser.get("/challenge")[1] == "/mfa"
    browser.post("/mfa", code=site.mfa_code)
    assert browser.get("/inbox")[1] == "/challenge"
    assert browser.api("GET", "/api/messages")[0] == 401


def test_wrong_captcha_rotates_unless_fixed(site: DemoSite) -> None:
    browser = Browser(site.url)
    browser.post("/login", email=site.email, password=site.password)
    browser.post("/mfa", code=site.mfa_code)
    first = site.captcha_answer
    _, path, body = browser.post("/challenge", answer="wrong!")
    assert path == "/challenge" and 'role="alert">Those characters do not match' in body
    assert site.captcha_answer != first or len(first) != 5  # (a repeat is ~1 in 5 million)
    with DemoSite(captcha_text="K7MPX") as fixed:
        other = Browser(fixed.url)
        other.post("/login", email=fixed.email, password=fixed.password)
        other.post("/mfa", code=fixed.mfa_code)
        other.post("/challenge", answer="wrong")
        assert fixed.captcha_answer == "K7MPX"
        assert other.post("/challenge", answer="k7 mpx")[1] == "/inbox"


def test_challenge_svg_hides_the_answer(site: DemoSite) -> None:
    for _ in range(5):
        site.captcha.rotate()
        with urllib.request.urlopen(site.url + "/challenge.svg", timeout=10) as response:
            assert response.headers["Content-Type"] == "image/svg+xml"
            svg = response.read().decode()
        answer = site.captcha_answer
        assert svg.startswith("<svg") and svg.count("<text") == len(answer)
        assert answer.lower() not in svg.lower()
        glyphs = re.findall(r'<text x="([\d.]+)"[^>]*>(.)</text>', svg)
        assert "".join(g for _, g in glyphs) != answer  # shuffled in the source...
        assert "".join(g for _, g in sorted(glyphs, key=lambda g: float(g[0]))) == answer


def test_messages_api_and_archive(site: DemoSite) -> None:
    browser = sign_in(site)
    status, data = browser.api("GET", "/api/messages")
    assert status == 200 and data["count"] == 4 and data["archive_label"] == "Archive"
    first = data["messages"][0]
    status, data = browser.api("POST", "/api/archive", {"id": first["id"]})
    assert status == 200 and data["count"] == 3 and data["archived"] == first["id"]
    assert first["id"] not in [m["id"] for m in data["messages"]]
    assert "3 messages" in browser.get("/inbox")[2]
    assert browser.api("POST", "/api/archive", {"id": "x"})[0] == 400

    _, data = browser.api("POST", "/api/check-mail", {})
    assert data["count"] == 4 and data["messages"][0] == data["message"]
    assert site.deliver("Test Sender", "Delivered by the test") == 1
    _, data = browser.api("GET", "/api/messages")
    assert data["messages"][0]["subject"] == "Delivered by the test"
    _, data = browser.api("POST", "/api/delete-all", {})
    assert data["count"] == 0 and data["messages"] == []
    assert "0 messages" in browser.get("/inbox")[2]


def test_sessions_have_their_own_inbox(site: DemoSite) -> None:
    one, two = sign_in(site), sign_in(site)
    one.api("POST", "/api/delete-all", {})
    assert two.api("GET", "/api/messages")[1]["count"] == 4


def test_variant_changed_renames_archive(site: DemoSite) -> None:
    browser = sign_in(site)
    site.variant = "changed"
    body = browser.get("/inbox")[2]
    assert body.count(">File away</button>") == 4 and ">Archive<" not in body
    assert 'aria-label="File away: Lunch on Friday?"' in body
    assert browser.api("GET", "/api/messages")[1]["archive_label"] == "File away"
    site.variant = "normal"
    assert browser.get("/inbox")[2].count(">Archive</button>") == 4


def test_reference_is_large_and_deterministic(site: DemoSite) -> None:
    browser = Browser(site.url)
    status, _, body = browser.get("/reference")
    assert status == 200 and 1_000_000 < len(body.encode()) < 2_000_000
    assert body.count("<section") == 200 and 'type="search"' in body
    assert browser.get("/reference")[2] == body


def test_playground_hostile_and_misc_pages(site: DemoSite) -> None:
    browser = Browser(site.url)
    body = browser.get("/playground")[2]
    for needle in ['<iframe src="/frame"', 'type="file"', 'id="upload-result"', 'id="consent"',
                   "Bottom of playground", 'href="/download"', 'href="/slow?ms=1500"',
                   'style="display:none">Hidden button', "disabled>Disabled button"]:
        assert needle in body
    assert "Frame button" in browser.get("/frame")[2]
    assert "Weekly report" in browser.get("/report")[2]
    hostile = browser.get("/hostile")[2]
    assert "<title>[bold red]pwned[/] &#27;[31mred&#27;[0m</title>" in hostile
    assert "[link=x]click[/link]</button>" in hostile
    with urllib.request.urlopen(site.url + "/download", timeout=10) as response:
        assert "attachment" in response.headers["Content-Disposition"]
        assert response.read().startswith(b"Hello")
    assert "script" not in browser.get("/static/style.css")[2]
    assert browser.get("/static/../server.py")[0] == 404


def test_upload(site: DemoSite) -> None:
    boundary = "----cockpitboundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"attachment\"; "
            f"filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\nhello world\r\n"
            f"--{boundary}--\r\n").encode()
    request = urllib.request.Request(
        site.url + "/upload", data=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert "notes.txt (11 bytes)" in response.read().decode()


def test_slow_endpoints(site: DemoSite) -> None:
    started = time.monotonic()
    assert "Slow page loaded" in Browser(site.url).get("/slow?ms=300")[2]
    assert time.monotonic() - started >= 0.3
    assert Browser(site.url).api("GET", "/api/slow?ms=10") == (200, {"ok": True, "ms": 10})


def test_unknown_path_is_404(site: DemoSite) -> None:
    status, _, body = Browser(site.url).get("/no/such/page")
    assert status == 404 and '<a href="/">' in body


def test_never_does_not_block_stop() -> None:
    site = DemoSite()
    host, port = site.start().removeprefix("http://").split(":")
    connections = []
    for _ in range(3):
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request("GET", "/never")
        response = connection.getresponse()
        assert response.status == 200
        assert b"never finishes" in response.read1(4096)  # the start of the page arrives
        connections.append(connection)
    slow = threading.Thread(target=Browser(site.url).get, args=("/slow?ms=30000",), daemon=True)
    slow.start()
    time.sleep(0.2)
    started = time.monotonic()
    site.stop()
    assert time.monotonic() - started < 5
    for connection in connections:
        connection.close()
    slow.join(timeout=5)
    assert not slow.is_alive()
