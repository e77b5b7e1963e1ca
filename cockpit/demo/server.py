"""The demo site's HTTP server: `DemoSite` (start/stop) and request plumbing and routing.

Standard library only: a ThreadingHTTPServer on 127.0.0.1 and a free port, served from a
daemon thread, so tests and the `cockpit demo` command need nothing installed.
"""

from __future__ import annotations

import json
import threading
import traceback
from collections.abc import Callable
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from . import auth, extras, inbox, settle
from .captcha import Captcha
from .pages import static_file
from .state import AppState, Session

COOKIE = "cockpit_demo_session"
MAX_BODY = 20 * 1024 * 1024  # uploads included; anything bigger is refused

Route = Callable[["DemoHandler"], None]
ROUTES: dict[tuple[str, str], Route] = {
    ("GET", "/"): extras.home,
    ("GET", "/login"): auth.login_form,
    ("POST", "/login"): auth.login_submit,
    ("GET", "/mfa"): auth.mfa_form,
    ("POST", "/mfa"): auth.mfa_submit,
    ("GET", "/challenge"): auth.challenge_form,
    ("POST", "/challenge"): auth.challenge_submit,
    ("GET", "/challenge.svg"): auth.challenge_image,
    ("POST", "/logout"): auth.logout,
    ("GET", "/inbox"): inbox.inbox_page,
    ("GET", "/api/messages"): inbox.api_messages,
    ("POST", "/api/archive"): inbox.api_archive,
    ("POST", "/api/check-mail"): inbox.api_check_mail,
    ("POST", "/api/delete-all"): inbox.api_delete_all,
    ("GET", "/report"): extras.report,
    ("GET", "/playground"): extras.playground,
    ("GET", "/frame"): extras.frame,
    ("POST", "/upload"): extras.upload,
    ("GET", "/download"): extras.download,
    ("GET", "/hostile"): extras.hostile,
    ("GET", "/reference"): extras.reference,
    ("GET", "/tasks"): extras.tasks,
    ("GET", "/slow"): extras.slow_page,
    ("GET", "/api/slow"): extras.slow_api,
    ("GET", "/never"): extras.never,
    ("GET", "/favicon.ico"): extras.favicon,
    ("GET", "/settle"): settle.settle_page,
    ("GET", "/settle/route"): settle.settle_route,
    ("GET", "/settle/done"): settle.settle_done,
    ("GET", "/settle/login"): settle.settle_login,
    ("GET", "/settle/mfa"): settle.settle_mfa,
    ("GET", "/api/settle-data"): settle.settle_data,
}


class DemoSite:
    """The demo web app, served locally until stop(); also a context manager."""

    def __init__(self, *, email: str = "jane@example.com", password: str = "cockpit-demo",
                 mfa_code: str = "246810", captcha_text: str | None = None,
                 variant: str = "normal", host: str = "127.0.0.1", port: int = 0,
                 human_check: bool = True) -> None:
        self.email = email
        self.password = password
        self.mfa_code = mfa_code
        # "changed" renames the inbox's Archive buttons, to make a recorded run diverge.
        self.variant = variant
        # False: the one-time code leads straight to the inbox (no picture to read), for
        # scripted runs such as tests/bench/bench_economy.py.
        self.human_check = human_check
        self.state = AppState()
        self.captcha = Captcha(captcha_text)
        self.errors: list[str] = []  # handler tracebacks: stderr may belong to a TUI
        self._host, self._port = host, port
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def captcha_answer(self) -> str:
        """The text shown in the current challenge image."""
        return self.captcha.text

    @property
    def url(self) -> str:
        """Base URL, like http://127.0.0.1:PORT (no trailing slash)."""
        if self._server is None:
            raise RuntimeError("the demo site is not started; call start() first")
        host, port = self._server.server_address[:2]
        shown = host.decode() if isinstance(host, bytes) else host  # AF_INET: a str
        return f"http://{shown}:{port}"

    def start(self) -> str:
        """Start serving in a daemon thread (if not already) and return the base URL."""
        if self._server is None:
            self._stopping.clear()
            server = _Server((self._host, self._port), DemoHandler)
            server.site = self
            self._server = server
            # A short poll interval keeps shutdown() (hence stop()) quick.
            self._thread = threading.Thread(target=server.serve_forever,
                                            kwargs={"poll_interval": 0.05},
                                            name="cockpit-demo-site", daemon=True)
            self._thread.start()
        return self.url

    def stop(self) -> None:
        """Stop serving; long requests (/slow, /never) notice within ~0.1 s and end."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join(timeout=2)
        self._server = self._thread = None

    def sleep(self, seconds: float) -> bool:
        """Wait in a handler; False when the site is stopping (the handler should end)."""
        return not self._stopping.wait(max(seconds, 0))

    def deliver(self, sender: str, subject: str) -> int:
        """Put a new message in every signed-in inbox (pages pick it up when polling)."""
        return self.state.deliver(sender, subject)

    def __enter__(self) -> DemoSite:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a stuck request must never keep the process (or stop()) alive
    request_queue_size = 64  # browsers open several connections at once
    site: DemoSite


class DemoHandler(BaseHTTPRequestHandler):
    """One request: parses it, finds the route, and offers helpers to answer it."""

    server: _Server
    server_version = "CockpitDemo/1.0"
    timeout = 30  # an idle or half-sent request does not hold a thread for ever

    path_only: str = "/"
    query: dict[str, list[str]] = {}

    @property
    def site(self) -> DemoSite:
        return self.server.site

    def log_message(self, format: str, *args: object) -> None:
        """Silent: the cockpit's terminal UI may own stderr."""

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        parts = urlsplit(self.path)
        self.path_only, self.query = parts.path or "/", parse_qs(parts.query)
        route = ROUTES.get((method, self.path_only))
        try:
            if route is not None:
                route(self)
            elif method == "GET" and self.path_only.startswith("/static/"):
                self._static(self.path_only.removeprefix("/static/"))
            elif any(path == self.path_only for _, path in ROUTES):
                self.send_text("Method not allowed", HTTPStatus.METHOD_NOT_ALLOWED)
            else:
                extras.not_found(self)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True  # the browser went away; nothing left to answer
        except Exception:  # noqa: BLE001  its traceback goes to site.errors
            self.site.errors.append(traceback.format_exc())
            del self.site.errors[:-20]
            self.close_connection = True
            try:
                self.send_text("Internal server error", HTTPStatus.INTERNAL_SERVER_ERROR)
            except OSError:
                pass

    def _static(self, name: str) -> None:
        found = static_file(name)
        if found is None:
            extras.not_found(self)
        else:
            self.send_body(found[0], found[1])

    # -- answering --------------------------------------------------------------------

    def send_body(self, body: bytes, content_type: str, status: int = HTTPStatus.OK,
                  headers: list[tuple[str, str]] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")  # replays must see the live state
        for name, value in headers or []:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def send_html(self, html: str, status: int = HTTPStatus.OK,
                  headers: list[tuple[str, str]] | None = None) -> None:
        self.send_body(html.encode("utf-8"), "text/html; charset=utf-8", status, headers)

    def send_text(self, text: str, status: int = HTTPStatus.OK) -> None:
        self.send_body(text.encode("utf-8"), "text/plain; charset=utf-8", status)

    def send_json(self, data: object, status: int = HTTPStatus.OK) -> None:
        self.send_body(json.dumps(data).encode("utf-8"), "application/json", status)

    def redirect(self, location: str, headers: list[tuple[str, str]] | None = None) -> None:
        """303 See Other: after a POST the browser GETs the new page (no resubmit prompt)."""
        self.send_body(b"", "text/plain", HTTPStatus.SEE_OTHER,
                       [("Location", location), *(headers or [])])

    # -- reading ----------------------------------------------------------------------

    def body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError(f"request body of {length} bytes is too large")
        return self.rfile.read(length) if length > 0 else b""

    def form(self) -> dict[str, str]:
        """An urlencoded form body; the first value of each field."""
        fields = parse_qs(self.body().decode("utf-8", "replace"), keep_blank_values=True)
        return {name: values[0] for name, values in fields.items()}

    def json_body(self) -> dict[str, object] | None:
        """A JSON object body, or None if it is not one."""
        try:
            data = json.loads(self.body() or b"{}")
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def query_int(self, name: str, default: int, low: int, high: int) -> int:
        """An integer query parameter, clamped to [low, high]."""
        try:
            value = int(self.query.get(name, [default])[0])
        except ValueError:
            value = default
        return min(max(value, low), high)

    # -- session ----------------------------------------------------------------------

    @property
    def session(self) -> Session | None:
        try:
            morsel = SimpleCookie(self.headers.get("Cookie", "")).get(COOKIE)
        except CookieError:
            return None
        return self.site.state.get(morsel.value if morsel else None)

    @staticmethod
    def session_cookie(token: str | None) -> tuple[str, str]:
        """Set-Cookie for a session token, or one that clears it (token None)."""
        if token is None:
            return ("Set-Cookie", f"{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")
        return ("Set-Cookie", f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax")
