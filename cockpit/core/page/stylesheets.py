"""The rules of stylesheets a page may not read itself, for the change tracker.

Incremental diffs need the page's state-dependent CSS rules (`:hover`, `:target`,
`:checked`... that show or hide things: changes_js `rules()`). The page cannot read the
rules of a stylesheet of another origin: a CDN's (`fonts.googleapis.com`, without a
`crossorigin` attribute) and every stylesheet of a `file://` page (each file is its own
origin: Python's offline docs are such pages). Without them every action on such a page
cost a full snapshot. So Python reads the stylesheet, once per address and session,
parses it (tinycss2) and gives the tracker, for each rule, its selector and the names of
the properties it sets: what the tracker needs, and never the values or the text. The
same-origin policy keeps those from the page, and the tracker lives in the page's world,
where the page's scripts can reach anything handed to it.

Only what the browser itself takes as a stylesheet is read: an `http(s)` response of type
`text/css` (fetched with the browser context's request API: its cookies, its proxy), a
`file://` path ending in `.css`, read from the disk only when the browser runs on this
machine (launched by Cockpit, or attached on a loopback address). `@import`s are followed.
A stylesheet that cannot be had, or has a rule Cockpit cannot place (CSS nesting), is
remembered as such: that page stays on full snapshots, as before.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import unquote, urljoin, urlsplit

import tinycss2
from playwright.async_api import Error as PlaywrightError

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext

log = logging.getLogger("cockpit.changes")

MAX_BYTES = 2 * 1024 * 1024  # a larger stylesheet is not read (full snapshots)
FETCH_TIMEOUT_MS = 2000
MAX_IMPORT_DEPTH = 4
LOOPBACK = ("localhost", "127.0.0.1", "::1")
# at-rules whose block holds rules that apply as they are (their conditions are ignored:
# a rule counted when it does not apply costs a region, never a missed change)
GROUPING = frozenset({"media", "supports", "layer", "container", "document", "scope",
                      "-moz-document", "starting-style"})
PARSE = {"skip_comments": True, "skip_whitespace": True}

Rule = tuple[str, list[str]]  # a rule's selector, and the properties it sets


class Endpoint(Protocol):
    """What is attached to (browser.attach.Attach; not imported: the browser part is above
    this one)."""

    @property
    def endpoint(self) -> str: ...


def reads_local_files(attach: Endpoint | None) -> bool:
    """Whether the browser's `file://` is this machine's: a browser we launched, or one
    attached on a loopback address (`--cdp auto` finds a local one)."""
    if attach is None or attach.endpoint == "auto":
        return True
    endpoint = attach.endpoint if "//" in attach.endpoint else f"//{attach.endpoint}"
    return urlsplit(endpoint).hostname in LOOPBACK


class StylesheetRules:
    """The rules of other origins' stylesheets, by address, for one session (None: they
    could not be had)."""

    def __init__(self, local_files: bool) -> None:
        self.local_files = local_files
        self._known: dict[str, list[Rule] | None] = {}

    async def rules(self, context: BrowserContext, hrefs: list[str]) -> dict[str, list[Rule]]:
        """The rules of those that can be had, by address as the page gave it."""
        missing = [href for href in dict.fromkeys(hrefs) if href not in self._known]
        if missing:  # at once: the snapshot that asked waits for them (each bounded)
            read = await asyncio.gather(*(self._sheet(context, href, 0) for href in missing))
            self._known.update(zip(missing, read))
        return {href: rules for href in hrefs if (rules := self._known.get(href)) is not None}

    async def _sheet(self, context: BrowserContext, href: str, depth: int) -> list[Rule] | None:
        text = await self._text(context, href)
        if text is None:
            return None
        return await self._rules(context, tinycss2.parse_stylesheet(text, **PARSE), href,
                                 depth)

    async def _rules(self, context: BrowserContext, nodes: list[Any], href: str,
                     depth: int) -> list[Rule] | None:
        # nodes: tinycss2's, which ships no type information
        out: list[Rule] = []
        for node in nodes:
            if node.type == "qualified-rule":
                if any(token.type == "{} block" for token in node.content):
                    return None  # a nested rule (`& :hover {...}`): not placed here
                names = [d.lower_name for d in
                         tinycss2.parse_declaration_list(node.content, **PARSE)
                         if d.type == "declaration"]
                out.append((tinycss2.serialize(node.prelude).strip(), names))
            elif node.type == "at-rule" and node.lower_at_keyword == "import":
                url = _import_url(node.prelude)
                inner = None if url is None or depth >= MAX_IMPORT_DEPTH else \
                    await self._sheet(context, urljoin(href, url), depth + 1)
                if inner is None:
                    return None  # a rule we cannot see may be the one that matters
                out += inner
            elif node.type == "at-rule" and node.lower_at_keyword in GROUPING and \
                    node.content is not None:
                inner = await self._rules(context, tinycss2.parse_rule_list(node.content,
                                                                           **PARSE),
                                          href, depth)
                if inner is None:
                    return None
                out += inner
        return out

    async def _text(self, context: BrowserContext, href: str) -> str | None:
        url = urlsplit(href)
        if url.scheme == "file":
            path = unquote(url.path)
            if not self.local_files or not path.lower().endswith(".css"):
                return None
            return await asyncio.to_thread(_read_file, path)
        if url.scheme not in ("http", "https"):
            return None
        try:
            response = await context.request.get(href, timeout=FETCH_TIMEOUT_MS,
                                                  fail_on_status_code=False)
            try:
                kind = response.headers.get("content-type", "").split(";")[0].strip()
                if not response.ok or kind.lower() != "text/css":
                    log.debug("stylesheet %s: HTTP %s, %r", href, response.status, kind)
                    return None
                body = await response.body()
            finally:
                await response.dispose()
        except PlaywrightError as exc:
            log.debug("stylesheet %s could not be fetched: %s", href, exc)
            return None
        return body.decode("utf-8", "replace") if len(body) <= MAX_BYTES else None


def _import_url(prelude: list[Any]) -> str | None:  # tinycss2 nodes: it ships no types
    """The address of an `@import` (`url(x.css)`, `url("x.css")` or `"x.css"`)."""
    token = next((t for t in prelude if t.type not in ("whitespace", "comment")), None)
    if token is None:
        return None
    if token.type in ("url", "string"):
        value: str = token.value
        return value
    if token.type == "function" and token.lower_name == "url":
        arg = next((t for t in token.arguments if t.type == "string"), None)
        url: str | None = arg.value if arg is not None else None
        return url
    return None


def _read_file(path: str) -> str | None:
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read()
    except OSError as exc:
        log.debug("stylesheet %s could not be read: %s", path, exc)
        return None
