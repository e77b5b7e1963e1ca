"""Pages outside the sign-in flow: home, report, playground and its helpers, hostile
text, the big reference, slow and never-ending pages, and 404."""

from __future__ import annotations

import time
from email.parser import BytesParser
from email.policy import HTTP
from functools import lru_cache
from http import HTTPStatus
from typing import TYPE_CHECKING

from .pages import SITE_NAME, esc, page
from .reference import reference_page

if TYPE_CHECKING:
    from .server import DemoHandler

SLOW_CAP_MS = 30_000
NEVER_GIVE_UP_S = 60.0

# The hostile page's title, verbatim: Rich markup and an ANSI escape (ESC is written as
# &#27; and the browser's document.title holds the real control character).
HOSTILE_TITLE = "[bold red]pwned[/] &#27;[31mred&#27;[0m"

DOWNLOAD_NAME = "cockpit-demo.txt"
DOWNLOAD_BODY = b"Hello from the Cockpit demo.\nThis file was downloaded from /download.\n"


def home(h: DemoHandler) -> None:
    h.send_html(page("home.html", SITE_NAME))


def report(h: DemoHandler) -> None:
    h.send_html(page("report.html", "Weekly report"))


@lru_cache(maxsize=1)
def _playground_filler() -> str:
    """60 paragraphs so the playground scrolls well past one screen."""
    sentences = [
        "This paragraph is here so the page is long enough to need scrolling.",
        "Agents have to scroll to reach what is below the fold.",
        "Nothing in this section is interactive; it only takes up space.",
    ]
    return "\n".join(f"  <p>Filler paragraph {i}. {sentences[i % 3]} {sentences[(i + 1) % 3]}</p>"
                     for i in range(1, 61))


def playground(h: DemoHandler) -> None:
    h.send_html(page("playground.html", "Playground", scripts=("playground.js",),
                     filler=_playground_filler()))


def tasks(h: DemoHandler) -> None:
    """A list rebuilt from scratch on every change (the diff must pair its new rows)."""
    h.send_html(page("tasks.html", "Tasks"))


def frame(h: DemoHandler) -> None:
    h.send_html(page("frame.html", "Frame", body_class="frame"))


def upload(h: DemoHandler) -> None:
    """A multipart form post: lists each uploaded file's name and size."""
    content_type = h.headers.get("Content-Type", "")
    if not content_type.startswith("multipart/form-data"):
        h.send_text("Expected multipart/form-data", HTTPStatus.BAD_REQUEST)
        return
    # The email package parses MIME multipart bodies (the cgi module is gone in 3.13).
    raw = b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + h.body()
    message = BytesParser(policy=HTTP).parsebytes(raw)
    files = []
    for part in message.iter_parts():
        name = part.get_filename()
        if name:  # an empty file input still sends a part, with no filename
            data = part.get_payload(decode=True) or b""
            files.append(f"  <li>{esc(name)} ({len(data)} bytes)</li>")
    listing = "\n".join(files) or "  <li>No file was selected</li>"
    h.send_html(page("upload.html", "Upload received", files=listing))


def download(h: DemoHandler) -> None:
    h.send_body(DOWNLOAD_BODY, "text/plain; charset=utf-8", headers=[
        ("Content-Disposition", f'attachment; filename="{DOWNLOAD_NAME}"')])


def hostile(h: DemoHandler) -> None:
    h.send_html(page("hostile.html", HOSTILE_TITLE, raw_title=True))


def reference(h: DemoHandler) -> None:
    h.send_html(reference_page())


def slow_page(h: DemoHandler) -> None:
    ms = h.query_int("ms", 1000, 0, SLOW_CAP_MS)
    h.site.sleep(ms / 1000)  # returns early when the site stops
    h.send_html(page("slow.html", "Slow page", ms=ms))


def slow_api(h: DemoHandler) -> None:
    ms = h.query_int("ms", 1000, 0, SLOW_CAP_MS)
    h.site.sleep(ms / 1000)
    h.send_json({"ok": True, "ms": ms})


def never(h: DemoHandler) -> None:
    """Starts a page and never finishes it: the load event never fires.

    Gives up when the browser disconnects (a write fails), the site stops, or after a
    minute; no Content-Length, so the body only ends when the connection closes.
    """
    h.close_connection = True
    h.send_response(HTTPStatus.OK)
    h.send_header("Content-Type", "text/html; charset=utf-8")
    h.send_header("Cache-Control", "no-store")
    h.send_header("Connection", "close")
    h.end_headers()
    h.wfile.write(
        b"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        b"<title>Never finishes \xe2\x80\x94 Cockpit Demo</title>"
        b"<link rel=\"icon\" href=\"data:,\">"
        b"<link rel=\"stylesheet\" href=\"/static/style.css\"></head>\n"
        b"<body><main><h1>This page never finishes loading</h1>\n"
        b"<p>The server keeps the connection open without ending the page.</p>\n")
    h.wfile.flush()
    deadline = time.monotonic() + NEVER_GIVE_UP_S
    ticks = 0
    while time.monotonic() < deadline and h.site.sleep(0.1):
        ticks += 1
        if ticks % 10 == 0:
            # A byte of whitespace a second: the only way to notice the browser left
            # (the write raises) while the page stays visually the same.
            h.wfile.write(b" ")
            h.wfile.flush()


FAVICON = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
           b'<rect width="16" height="16" rx="3" fill="#2563eb"/></svg>')


def favicon(h: DemoHandler) -> None:
    """A tiny icon for pages without the layout's: a 404 would show in console logs."""
    h.send_body(FAVICON, "image/svg+xml")


def not_found(h: DemoHandler) -> None:
    h.send_html(page("not_found.html", "Page not found", path=esc(h.path_only)),
                HTTPStatus.NOT_FOUND)
