"""`--remote-header "Name: value"` for hosted browsers: the headers reach the endpoint
with the connection (`--cdp`: the /json/version request and the WebSocket upgrade;
`--ws-endpoint`: the upgrade), a browser behind a header-checking proxy is driven only
with them, and the values are masked everywhere Cockpit writes (status, errors, the
recording, the log)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import socketserver
import subprocess
import threading
import tempfile
import urllib.request

import pytest
from test_attach_browser import COCKPIT, Chromium

SECRET = "Bearer s3cret-4f9a1c"


class HeaderProxy(socketserver.ThreadingTCPServer):
    """A hosted browser's front door, in small: every request's headers are recorded; one
    without `Authorization: SECRET` is refused (401); the others reach the Chromium
    behind it (its /json/version rewritten to point here, WebSockets piped through)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, upstream: int | None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.upstream = upstream
        self.seen: list[tuple[str, dict[str, str]]] = []  # (request line, headers)
        self.port = self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(socketserver.BaseRequestHandler):
    server: HeaderProxy

    def handle(self) -> None:
        conn: socket.socket = self.request
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = conn.recv(65536)
            if not chunk:
                return
            head += chunk
        first, *lines = head.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in
                   (line.partition(":") for line in lines)}
        self.server.seen.append((first, headers))
        if headers.get("authorization") != SECRET or self.server.upstream is None:
            conn.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n"
                         b"Connection: close\r\n\r\n")
            return
        path = first.split()[1]
        if path.startswith("/json/version"):
            upstream = f"127.0.0.1:{self.server.upstream}"
            with urllib.request.urlopen(f"http://{upstream}/json/version", timeout=10) as r:
                body = r.read().replace(upstream.encode(), f"127.0.0.1:{self.server.port}".encode())
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
            return
        with socket.create_connection(("127.0.0.1", self.server.upstream)) as up:
            up.sendall(head)  # the upgrade as it came, then bytes both ways
            pipe = threading.Thread(target=_pipe, args=(up, conn), daemon=True)
            pipe.start()
            _pipe(conn, up)
            pipe.join(5)


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        try:
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass


@pytest.fixture
def private_env():
    """A socket directory no other test or session shares."""
    runtime = tempfile.mkdtemp(prefix="rh", dir="/tmp")  # short: sockets fit
    yield {**os.environ, "XDG_RUNTIME_DIR": runtime}
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture(scope="module")
def hosted():
    """A Chromium behind the header-checking proxy."""
    browser = Chromium()
    proxy = HeaderProxy(browser.port)
    yield proxy
    proxy.stop()
    browser.stop()


def test_cdp_with_the_header_drives_the_browser_behind_the_proxy(hosted, site, private_env,
                                                                 tmp_path):
    recording, log = tmp_path / "rec.jsonl", tmp_path / "cockpit.log"
    hosted.seen.clear()
    done = subprocess.run(
        COCKPIT + ["run", "--json", "--cdp", f"http://127.0.0.1:{hosted.port}",
                   "--remote-header", f"Authorization: {SECRET}", "--remote-header",
                   "X-Team: qa", "--log", str(log), "--record", str(recording)],
        input=f"goto {site.url}/login\nstatus\n", capture_output=True, text=True,
        env=private_env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    went, status = (json.loads(line) for line in done.stdout.splitlines())
    assert went["ok"], went
    assert f"over CDP at http://127.0.0.1:{hosted.port}" in status["output"]
    lines = [line for line, _ in hosted.seen]
    assert any(line.startswith("GET /json/version") for line in lines), lines
    assert any(line.startswith("GET /devtools/browser/") for line in lines), lines
    assert all(h.get("authorization") == SECRET and h.get("x-team") == "qa"
               for _, h in hosted.seen), hosted.seen  # on every request, the upgrade too
    written = done.stderr + done.stdout + recording.read_text() + (
        log.read_text() if log.exists() else "")
    assert "s3cret" not in written


def test_cdp_without_the_header_is_refused_and_says_so(hosted, private_env, tmp_path):
    done = subprocess.run(COCKPIT + ["run", "--no-record", "--cdp",
                                     f"http://127.0.0.1:{hosted.port}"],
                          input="title\n", capture_output=True, text=True, env=private_env,
                          cwd=tmp_path, timeout=120)
    assert done.returncode != 0
    assert f"could not attach to http://127.0.0.1:{hosted.port}" in done.stderr, done.stderr


def test_ws_endpoint_sends_the_header_with_the_upgrade_and_masks_it(private_env, tmp_path):
    server = HeaderProxy(None)  # records the upgrade's headers, then refuses it
    try:
        done = subprocess.run(COCKPIT + ["run", "--no-record", "--ws-endpoint",
                                         f"ws://127.0.0.1:{server.port}/pw-{SECRET[-6:]}",
                                         "--remote-header", f"Authorization: {SECRET}"],
                              input="title\n", capture_output=True, text=True,
                              env=private_env, cwd=tmp_path, timeout=120)
    finally:
        server.stop()
    assert done.returncode != 0
    assert server.seen, "the browser server was never reached"
    line, headers = server.seen[0]
    assert line.startswith("GET /pw-") and headers.get("upgrade", "").lower() == "websocket"
    assert headers.get("authorization") == SECRET
    assert "could not attach to ws://127.0.0.1" in done.stderr
    assert "s3cret" not in done.stderr + done.stdout
