"""Routes: requests answered by Cockpit instead of the network (`route`), as Playwright's
`context.route` does them, with a pattern that is Playwright's URL glob or a /regex/."""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base.errors import UsageError
from ..language.parser import excerpt

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext

log = logging.getLogger("cockpit")

MAX_BODY = 10 * 1024 * 1024  # bytes of a --file served; a bigger one is refused


def matcher(pattern: str) -> str | re.Pattern[str]:
    """What Playwright's route() takes for `pattern`: a compiled regex for `/.../` (flags
    after the last slash, e.g. `/api/i`), else the glob itself."""
    if len(pattern) >= 2 and pattern.startswith("/") and pattern.rfind("/") > 0:
        body, _, flags = pattern[1:].rpartition("/")
        if set(flags) <= set("imsx"):
            bits = 0
            for letter in flags:
                bits |= {"i": re.I, "m": re.M, "s": re.S, "x": re.X}[letter]
            try:
                return re.compile(body, bits)
            except re.error as exc:
                raise UsageError(f"route: /{body}/ is not a valid regular expression "
                                 f"({exc}); write a glob like **/api/* instead") from None
    return pattern


def header_pairs(given: list[str]) -> dict[str, str]:
    """`--header "K: V"` values as a dict; a malformed one is a usage error."""
    headers: dict[str, str] = {}
    for item in given:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"--header takes \"Name: value\", not {excerpt(item)!r}")
        headers[name.strip()] = value.strip()
    return headers


@dataclass
class RouteRule:
    """One `route`: what answers the requests its pattern matches."""

    pattern: str
    status: int | None = None
    body: str | None = None
    file: str | None = None  # served as the body, read when the route is made
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str | None = None
    abort: bool = False
    delay_ms: int = 0
    times: int | None = None  # answers this many requests, then lets them through
    hits: int = 0
    _file_body: bytes | None = field(default=None, repr=False)
    _handler: Any = field(default=None, repr=False)  # the callable routed, for unroute

    def __post_init__(self) -> None:
        matcher(self.pattern)  # a bad regex is said now, not at the first request
        if self.abort and (self.status or self.body is not None or self.file):
            raise UsageError("route: --abort fails the request; it takes no --status, "
                             "--body or --file")
        if self.body is not None and self.file:
            raise UsageError("route: give --body TEXT or --file F, not both")
        if self.status is not None and not 100 <= self.status <= 599:
            raise UsageError(f"route: --status {self.status} is not an HTTP status (100-599)")
        if self.times is not None and self.times < 1:
            raise UsageError("route: --times takes a count of 1 or more")
        if self.delay_ms < 0:
            raise UsageError("route: --delay takes milliseconds, 0 or more")
        if self.file:
            path = Path(self.file).expanduser()
            if not path.is_file():
                raise UsageError(f"route: no such file: {path}")
            if path.stat().st_size > MAX_BODY:
                raise UsageError(f"route: {path} is over {MAX_BODY // 2**20} MiB")
            self._file_body = path.read_bytes()

    @property
    def fulfils(self) -> bool:
        """Whether Cockpit answers itself (else the server answers, maybe changed)."""
        return self.status is not None or self.body is not None or self.file is not None \
            or self.content_type is not None

    @property
    def exhausted(self) -> bool:
        return self.times is not None and self.hits >= self.times

    def describe(self) -> str:
        """One line for `routes` and `status`."""
        if self.abort:
            what = "abort"
        elif self.fulfils:
            what = f"fulfil {self.status or 200}"
            if self.file:
                what += f" with {self.file}"
            elif self.body is not None:
                what += f" with {len(self.body)} characters"
        else:
            what = "pass through"
        extra = [f"{k}: {v}" for k, v in self.headers.items()]
        if self.content_type:
            extra.append(f"content-type {self.content_type}")
        if self.delay_ms:
            extra.append(f"after {self.delay_ms} ms")
        count = f"{self.hits}/{self.times}" if self.times is not None else str(self.hits)
        more = f" ({', '.join(extra)})" if extra else ""
        return f"{self.pattern} -> {what}{more}; answered {count}"

    def to_json(self) -> dict[str, Any]:
        return {"pattern": self.pattern, "status": self.status, "body": self.body,
                "file": self.file, "headers": dict(self.headers),
                "content_type": self.content_type, "abort": self.abort,
                "delay_ms": self.delay_ms, "times": self.times, "hits": self.hits}

    def handler(self) -> Any:
        """The function Playwright calls for each matching request."""

        async def answer(route: Any) -> None:
            if self.exhausted:  # its --times are used up: as if it were not there
                await route.fallback()
                return
            self.hits += 1
            if self.delay_ms:
                await asyncio.sleep(self.delay_ms / 1000)
            if self.abort:
                await route.abort()
            elif self.fulfils:
                body: str | bytes = self._file_body if self._file_body is not None \
                    else (self.body or "")
                await route.fulfill(status=self.status or 200, body=body,
                                    headers=self.headers or None,
                                    content_type=self.content_type or _guess_type(self))
            elif self.headers:  # the server answers; these headers are added to its answer
                response = await route.fetch()
                await route.fulfill(response=response,
                                    headers={**response.headers, **self.headers})
            else:
                await route.fallback()

        self._handler = answer
        return answer

    async def remove_from(self, context: BrowserContext) -> None:
        """Take this route off the context it was put on (its handler, not its pattern's
        others: a newer route over the same URLs stays)."""
        await context.unroute(matcher(self.pattern), self._handler)


def _guess_type(rule: RouteRule) -> str | None:
    """A body that looks like JSON is served as JSON (what a mocked API answers)."""
    if any(k.lower() == "content-type" for k in rule.headers):
        return None
    if rule.file:
        suffix = Path(rule.file).suffix.lower()
        return {".json": "application/json", ".html": "text/html", ".js": "text/javascript",
                ".css": "text/css", ".txt": "text/plain", ".svg": "image/svg+xml",
                ".png": "image/png"}.get(suffix)
    text = (rule.body or "").lstrip()
    return "application/json" if text[:1] in ("{", "[") else "text/plain"
