"""`har start FILE` / `har stop`: the session's traffic written as a HAR 1.2 file that
`--har FILE` (Playwright's `route_from_har`) answers requests from.

Playwright records a HAR only for a whole context, written when it closes; a session's
recording starts and stops while the browser runs, so the responses are collected here,
from the context's `requestfinished` events (bodies included, base64 for binary ones).
What grants access is not written: Cookie, Set-Cookie and Authorization headers are
masked (a replay needs none of them), so are a form body's credential fields and bearer
tokens, and the file is its owner's only (mode 0600). A URL (the request's, a redirect's
Location, a Referer) is kept as it was but for the values of query parameters named like
a credential (token, access_token, code, key, signature...: `requests.mask_url`) and the
session's --secret values anywhere in it: a replay does not answer those requests from the
file (it matches requests by their URL), which is the price of not writing them."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import re
import time
from datetime import datetime, UTC
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError

from ..base.logs import spawn
from ..secrets.mask import Masker
from .requests import HIDDEN, SECRET_HEADERS, TEXTUAL, mask_credentials, mask_url

log = logging.getLogger("cockpit")

MAX_ENTRIES = 5_000  # a recording that runs for hours stays bounded
MAX_BODY = 20 * 1024 * 1024  # bytes of one body kept
URL_HEADERS = frozenset({"referer", "location", "content-location"})  # a URL as the value


def url_filter(pattern: str | None) -> re.Pattern[str] | None:
    """A /regex/, or a glob (`**` anything, `*` anything but `/`), or plain text found
    anywhere in the URL."""
    if not pattern:
        return None
    if len(pattern) > 2 and pattern.startswith("/") and pattern.endswith("/"):
        return re.compile(pattern[1:-1])
    if "*" not in pattern:
        return re.compile(re.escape(pattern))
    parts = re.split(r"(\*\*|\*)", pattern)
    body = "".join(".*" if p == "**" else "[^/]*" if p == "*" else re.escape(p) for p in parts)
    return re.compile(f"^{body}$")


def _pairs(headers: dict[str, str], url: Any) -> list[dict[str, str]]:
    """The headers as HAR pairs: credentials as ***, a URL's secrets masked (`url`)."""
    return [{"name": k, "value": HIDDEN if k.lower() in SECRET_HEADERS else
             url(v) if k.lower() in URL_HEADERS else v} for k, v in headers.items()]


class HarRecorder:
    """Collects the entries of every context it follows until `stop()` writes them."""

    def __init__(self, path: Path, pattern: str | None = None,
                 masker: Masker | None = None) -> None:
        self.path = path
        self.masker = masker  # the session's --secret values (and typed passwords)
        self.pattern = pattern
        self._filter = url_filter(pattern)
        self.entries: list[dict[str, Any]] = []
        self.skipped = 0  # past MAX_ENTRIES
        self._pending: set[asyncio.Task[Any]] = set()
        self._contexts: list[Any] = []

    def describe(self) -> str:
        where = f" of {self.pattern}" if self.pattern else ""
        return f"recording {len(self.entries)} requests{where} to {self.path}"

    def _url(self, url: str) -> str:
        """The URL as written: credential-like query values and secrets masked."""
        url = mask_url(url)
        return self.masker.text(url) if self.masker else url

    def _text(self, text: str) -> str:
        return self.masker.text(text) if self.masker else text

    def follow(self, context: Any) -> None:
        context.on("requestfinished", self._finished)
        self._contexts.append(context)

    def _finished(self, request: Any) -> None:
        if self._filter is not None and not self._filter.search(request.url):
            return
        if request.url.startswith(("data:", "blob:")):
            return
        task = spawn(self._entry(request), "recording a request into the HAR")
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _entry(self, request: Any) -> None:
        started = time.time()
        try:
            response = await request.response()
            if response is None:
                return
            request_headers = await request.all_headers()
            headers = await response.all_headers()
            content = await _content(response, headers.get("content-type", ""))
        except PlaywrightError:  # its page closed before the body was read
            log.debug("HAR: %s was not recorded", request.url, exc_info=True)
            return
        if len(self.entries) >= MAX_ENTRIES:
            self.skipped += 1
            return
        timing = request.timing
        total = max(0.0, timing.get("responseEnd", 0) or 0)
        entry: dict[str, Any] = {
            "startedDateTime": datetime.fromtimestamp(
                (timing.get("startTime") or started * 1000) / 1000, UTC).isoformat(),
            "time": total,
            "request": {"method": request.method, "url": self._url(request.url),
                        "httpVersion": "HTTP/1.1", "cookies": [],
                        "headers": _pairs(request_headers, self._url),
                        "queryString": [], "headersSize": -1, "bodySize": -1},
            "response": {"status": response.status, "statusText": response.status_text,
                         "httpVersion": "HTTP/1.1", "cookies": [],
                         "headers": _pairs(headers, self._url), "content": content,
                         "redirectURL": self._url(headers.get("location", "")),
                         "headersSize": -1, "bodySize": content.get("size", -1)},
            "cache": {},
            "timings": {"send": 0, "wait": total, "receive": 0},
        }
        post = request.post_data
        if post is not None:
            mime = request_headers.get("content-type", "")
            entry["request"]["postData"] = {  # a login form's password is no replay's
                "mimeType": mime, "text": self._text(mask_credentials(post, mime))}
        self.entries.append(entry)

    async def stop(self) -> int:
        """Wait for the bodies still being read, write the file; how many entries."""
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=10)
        for context in self._contexts:
            try:
                context.remove_listener("requestfinished", self._finished)
            except (KeyError, ValueError):  # a context that is gone took its listeners
                pass
        har = {"log": {"version": "1.2", "creator": {"name": "Cockpit", "version": "1"},
                       "pages": [], "entries": self.entries}}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="utf-8") as out:
            json.dump(har, out)
        return len(self.entries)


async def _content(response: Any, content_type: str) -> dict[str, Any]:
    try:
        body = await response.body()
    except PlaywrightError:  # a redirect has none
        return {"size": 0, "mimeType": content_type}
    body = body[:MAX_BODY]
    if TEXTUAL.match(content_type or "text/"):
        try:
            return {"size": len(body), "mimeType": content_type, "text": body.decode("utf-8")}
        except UnicodeDecodeError:
            pass
    return {"size": len(body), "mimeType": content_type,
            "text": base64.b64encode(body).decode("ascii"), "encoding": "base64"}
