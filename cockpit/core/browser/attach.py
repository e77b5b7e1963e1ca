"""A browser Cockpit did not launch: a Chrome/Chromium/Edge with remote debugging (`--cdp`)
or a Playwright browser server (`--ws-endpoint`). Which endpoint a user means, where a
local one announces itself (`DevToolsActivePort`), and how an endpoint is shown without
what grants access to it.

core/browser.py connects (it is the one place that obtains a browser); this module only
reads option values and files, so a bad value is refused before anything starts."""

from __future__ import annotations

import os
import re
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from ..base.errors import BrowserNotFoundError

CDP = "cdp"
WS = "ws"

CDP_VALUES = ("a port (9222), a URL (http://127.0.0.1:9222, ws://HOST:PORT/devtools/"
              "browser/ID) or auto")
START_ONE = ("start one with remote debugging, e.g. `google-chrome --remote-debugging-port="
             "9222 --user-data-dir=$HOME/.config/chrome-cockpit` (Chrome 136+ refuses it on "
             "its default profile), or turn it on in chrome://inspect/#remote-debugging "
             "(Chrome 144+), then give --cdp 9222 or --cdp auto")

# Where Chromium-based browsers keep their user data (and so `DevToolsActivePort`, written
# while remote debugging is on), per platform, relative to the home directory.
USER_DATA_DIRS = {
    "linux": [
        ("Google Chrome", ".config/google-chrome"),
        ("Google Chrome Beta", ".config/google-chrome-beta"),
        ("Google Chrome Dev", ".config/google-chrome-unstable"),
        ("Chromium", ".config/chromium"),
        ("Microsoft Edge", ".config/microsoft-edge"),
        ("Microsoft Edge Beta", ".config/microsoft-edge-beta"),
        ("Brave", ".config/BraveSoftware/Brave-Browser"),
        ("Vivaldi", ".config/vivaldi"),
        ("Chromium (snap)", "snap/chromium/common/chromium"),
    ],
    "darwin": [
        ("Google Chrome", "Library/Application Support/Google/Chrome"),
        ("Google Chrome Canary", "Library/Application Support/Google/Chrome Canary"),
        ("Chromium", "Library/Application Support/Chromium"),
        ("Microsoft Edge", "Library/Application Support/Microsoft Edge"),
        ("Brave", "Library/Application Support/BraveSoftware/Brave-Browser"),
    ],
    "win32": [
        ("Google Chrome", "AppData/Local/Google/Chrome/User Data"),
        ("Chromium", "AppData/Local/Chromium/User Data"),
        ("Microsoft Edge", "AppData/Local/Microsoft/Edge/User Data"),
        ("Brave", "AppData/Local/BraveSoftware/Brave-Browser/User Data"),
    ],
}


@dataclass(frozen=True)
class Attach:
    """What the user asked to attach to, checked: `kind` is "cdp" or "ws"; `endpoint` is
    as given ("auto" is resolved when the session starts: the browser may start later)."""

    kind: str
    endpoint: str
    # --remote-header: (name, value) sent with the connection (a hosted browser's key);
    # the values are secrets: never in repr, logs, status or files
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @property
    def option(self) -> str:
        return "--cdp" if self.kind == CDP else "--ws-endpoint"

    @property
    def header_dict(self) -> dict[str, str] | None:
        """The headers as Playwright's connect and connect_over_cdp take them."""
        return dict(self.headers) if self.headers else None


# RFC 9110's token: the characters a header's name may have
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def remote_headers(specs: list[str] | tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """`--remote-header "Name: value"` values, checked; ValueError says what is wrong
    (without the value: it is a secret)."""
    headers = []
    for spec in specs:
        name, colon, value = spec.partition(":")
        name, value = name.strip(), value.strip()
        example = '"Name: value" (e.g. "Authorization: Bearer TOKEN")'
        if not colon:  # the whole of it may be the secret: not repeated
            raise ValueError(f"--remote-header takes {example}: the one given has no colon")
        if not HEADER_NAME.match(name):
            raise ValueError(f"--remote-header takes {example}: {name[:40]!r} is not a "
                             f"header name")
        if not value:
            raise ValueError(f"--remote-header {name}: the value is empty")
        if any(c in value for c in "\r\n\0"):
            raise ValueError(f"--remote-header {name}: the value has a line break in it")
        headers.append((name, value))
    return tuple(headers)


def attach_request(cdp: str | None, ws_endpoint: str | None, *, engine: str = "chromium",
                   headed: bool = False, browser_path: str | None = None,
                   headers: list[str] | tuple[str, ...] = ()) -> Attach | None:
    """None (launch our own browser), or the checked request; ValueError says what is wrong
    with the options, before anything starts."""
    checked = remote_headers(headers)
    if cdp is None and ws_endpoint is None:
        if checked:
            raise ValueError("--remote-header is sent to a browser Cockpit attaches to: give "
                             "--cdp URL or --ws-endpoint URL with it (or drop it)")
        return None
    if cdp is not None and ws_endpoint is not None:
        raise ValueError("--cdp and --ws-endpoint both name a browser to attach to: give one")
    option = "--cdp" if cdp is not None else "--ws-endpoint"
    if headed:
        raise ValueError(f"--headed launches a browser; with {option} the browser is already "
                         "running, visible or not as it was started: drop --headed")
    if browser_path:
        raise ValueError(f"--browser-path launches a browser; with {option} the browser is "
                         "already running: drop one of them")
    if cdp is not None:
        if engine != "chromium":
            raise ValueError(f"--cdp attaches to Chrome, Chromium or Edge, not {engine}: drop "
                             "--browser, or use --ws-endpoint for a Playwright server")
        return Attach(CDP, cdp_endpoint(cdp), checked)
    assert ws_endpoint is not None
    parts = urlsplit(ws_endpoint.strip())
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise ValueError(f"--ws-endpoint takes a WebSocket URL like ws://127.0.0.1:3000/ID "
                         f"(what `playwright launch-server` or `run-server` prints), not "
                         f"{shown(ws_endpoint)!r}")
    return Attach(WS, ws_endpoint.strip(), checked)


def cdp_endpoint(value: str) -> str:
    """--cdp's value as Playwright's connect_over_cdp takes it (or "auto")."""
    value = value.strip()
    if value == "auto":
        return value
    if value.isdigit():
        if not 0 < int(value) < 65536:
            raise ValueError(f"--cdp {value}: a port is 1 to 65535")
        return f"http://127.0.0.1:{value}"
    if "://" not in value and re.fullmatch(r"[\w.-]+:\d{1,5}", value):
        return f"http://{value}"  # localhost:9222
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
        raise ValueError(f"--cdp takes {CDP_VALUES}; got {shown(value)!r}")
    return value


def shown(endpoint: str) -> str:
    """The endpoint without what may grant access to it (user and password, a token in the
    query, the random path of a browser server or of DevTools), for logs, status and
    messages: `ws://127.0.0.1:3000/…`."""
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname
        port = parts.port
    except ValueError:
        return "(an endpoint that is not a URL)"
    if not parts.scheme or not host:
        return endpoint if endpoint.isdigit() or endpoint == "auto" else "(not a URL)"
    host = f"[{host}]" if ":" in host else host
    where = f"{parts.scheme}://{host}" + (f":{port}" if port else "")
    hidden = parts.path.strip("/") or parts.query or parts.username
    return where + ("/…" if hidden else "")


def redact(text: str, endpoint: str) -> str:
    """`text` (say, Playwright's error) with the endpoint shown as `shown()` does."""
    return text.replace(endpoint, shown(endpoint)) if endpoint else text


@dataclass(frozen=True)
class Found:
    """A local browser found by --cdp auto."""

    browser: str  # "Chromium"
    file: Path  # its DevToolsActivePort
    endpoint: str  # ws://127.0.0.1:PORT/devtools/browser/ID

    @property
    def description(self) -> str:
        return f"{self.browser}'s, from {self.file}"


def _port_answers(port: int, timeout: float = 0.5) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=timeout).close()
        return True
    except OSError:
        return False


def find_local(home: Path | None = None) -> Found:
    """The running local browser with remote debugging on, from the `DevToolsActivePort`
    file it writes into its user-data directory (port, then the browser's WebSocket path);
    the newest one that answers. BrowserNotFoundError says where it looked and why each
    one would not do."""
    home = Path(home or os.environ.get("HOME") or Path.home())
    platform = "linux" if sys.platform.startswith("linux") else sys.platform
    candidates = []
    notes = []
    for browser, folder in USER_DATA_DIRS.get(platform, USER_DATA_DIRS["linux"]):
        file = home / folder / "DevToolsActivePort"
        try:
            lines = file.read_text(encoding="utf-8").split()
            mtime = file.stat().st_mtime
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError) as exc:
            notes.append(f"{file}: unreadable ({exc})")
            continue
        if not lines or not lines[0].isdigit():
            notes.append(f"{file}: not a port")
            continue
        port = int(lines[0])
        if not _port_answers(port):
            notes.append(f"{file}: port {port} does not answer ({browser} has closed, or "
                         "it was started without remote debugging since)")
            continue
        path = lines[1] if len(lines) > 1 and lines[1].startswith("/") else ""
        endpoint = f"ws://127.0.0.1:{port}{path}" if path else f"http://127.0.0.1:{port}"
        candidates.append((mtime, Found(browser, file, endpoint)))
    if candidates:
        return max(candidates, key=lambda c: c[0])[1]
    where = ", ".join(f"~/{folder}" for _, folder in
                      USER_DATA_DIRS.get(platform, USER_DATA_DIRS["linux"])[:5])
    why = "; ".join(notes) if notes else f"no DevToolsActivePort in {where} or the like"
    raise BrowserNotFoundError(f"--cdp auto found no running browser with remote debugging "
                               f"({why}): {START_ONE}")
