"""`--allow-domain`: the browser talks to the allowed domains only, whoever asks.

Two layers, because Playwright's routes never see a redirect's next hop:
- a context route (every page, popup, frame and worker of the context, and of every
  context a relaunch makes) aborts each request to another host before it is sent;
- for a Chromium that Cockpit launches, `--host-resolver-rules` makes every other host
  name unresolvable, so a server redirect (or anything else that escapes the route)
  fails before a connection is made.
- for any other Chromium (attached with --cdp / --ws-endpoint, or one behind a proxy, which
  resolves the names itself), a DevTools `Fetch` interception on every page fails a
  redirect's hop to another host (redirects.py).
Firefox and WebKit get the route only: a redirect to another domain is not stopped there,
and `gap` says so (a warning at start, a line of `status`).

Every refused request is noted; a command during which one was refused says so in its
result (policy/__init__.py): a page of a tab refused fails the command with
`refused: HOST is not an allowed domain`, a frame's or a resource's is a note.
"""

from __future__ import annotations

import collections
import itertools
import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError

from ..base.logs import tolerated
from .redirects import RedirectGuard

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Request, Route

log = logging.getLogger(__name__)

KEPT = 200  # refusals remembered (the last command's are what matter)
NOT_RESOLVED = "ERR_NAME_NOT_RESOLVED"  # what the resolver rules make of another host
_HOST = re.compile(r"^(\*\.)?([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])\.?$")


def pattern_of(text: str) -> str:
    """The host an `--allow-domain` value names, lower case: `example.com`, `*.example.com`
    (the same: subdomains are always allowed), `https://example.com/x` or `127.0.0.1:8000`
    (the host only); ValueError naming a value that names no host."""
    given = text.strip().lower()
    host = given
    if "://" in host:
        host = urlsplit(host).hostname or ""
        host = f"[{host}]" if ":" in host else host
    elif not host.startswith("["):
        host = host.split("/", 1)[0].rsplit(":", 1)[0] if host.count(":") == 1 else \
            host.split("/", 1)[0]
    host = host.removeprefix("*.").rstrip(".")
    if not _HOST.match(host):
        raise ValueError(f"--allow-domain {text!r} is not a domain: give a host name like "
                         "example.com (its subdomains are allowed too) or an address like "
                         "127.0.0.1")
    return host


def host_of(url: str) -> str:
    """The URL's host, lower case, without a final dot ("" when it has none)."""
    try:
        return (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:  # an unclosed IPv6 bracket: no host we could allow
        return ""


def allowed(host: str, patterns: list[str]) -> bool:
    """Whether `host` is one of the patterns or a subdomain of one (IPv6 hosts compare
    without their brackets)."""
    host = host.strip("[]")
    for pattern in patterns:
        bare = pattern.strip("[]")
        if host == bare or host.endswith("." + bare):
            return True
    return False


def refusal_text(host: str) -> str:
    """The contract's wording of one refusal."""
    return f"refused: {host} is not an allowed domain"


@dataclass
class Refusal:
    """One request the policy refused: to which host, for what, and from which page."""

    n: int
    host: str
    url: str
    kind: str  # Playwright's resource type: document, image, fetch, script...
    navigation: bool  # a document of a frame
    main_frame: bool  # ... of a page's top frame (a tab, a popup)
    page: Any = None  # the Playwright Page it was for, when known
    redirect: bool = False


@dataclass
class DomainPolicy:
    """The session's allowed domains (none: everything is allowed) and what was refused."""

    patterns: list[str] = field(default_factory=list)
    refused: collections.deque[Refusal] = field(
        default_factory=lambda: collections.deque(maxlen=KEPT))
    _count: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _installed: list[Any] = field(default_factory=list)  # contexts the route is on
    last: int = 0  # the number of the last refusal
    gap: str | None = None  # what this browser cannot refuse, said at start and in status
    _guard: RedirectGuard | None = None

    def allow(self, values: list[str]) -> None:
        """Set the allowed domains from `--allow-domain` values (ValueError: a bad one)."""
        self.patterns = list(dict.fromkeys(pattern_of(v) for v in values))

    @property
    def active(self) -> bool:
        return bool(self.patterns)

    def allows(self, url: str) -> bool:
        """Whether a request to `url` may go (a URL without a host, such as data: or
        about:blank, never reaches the network and always may)."""
        host = host_of(url)
        return not self.active or not host or allowed(host, self.patterns)

    def refuse_goto(self, url: str) -> str | None:
        """Why `goto URL` may not go, said before the browser is asked: another domain,
        or a local file (file:// has no domain to allow, and reads the machine)."""
        if not self.active:
            return None
        if url.lower().startswith("file:"):
            return (f"refused: {url} is a local file, not an allowed domain (allowed: "
                    f"{', '.join(self.patterns)})")
        if not self.allows(url):
            return f"{refusal_text(host_of(url))} (allowed: {', '.join(self.patterns)})"
        return None

    def chromium_args(self, reach: tuple[str, ...] = ()) -> list[str]:
        """The launch flag that makes every other host name unresolvable (redirects
        included); an address (127.0.0.1) is never resolved, so the route guards those.
        `reach`: hosts the browser itself must still resolve (a proxy's), not pages'."""
        if not self.active:
            return []
        keep = [f"EXCLUDE {p}, EXCLUDE *.{p}" for p in self.patterns if not p.startswith("[")]
        keep += [f"EXCLUDE {host}" for host in reach]
        return ["--host-resolver-rules=" + ", ".join(["MAP * ~NOTFOUND", *keep])]

    async def install(self, context: BrowserContext, engine: str = "chromium",
                      resolver: bool = True) -> None:
        """Put the route and the failure watch on a context (a new one after a
        relaunch); nothing when every domain is allowed. `resolver`: the browser was
        launched with `chromium_args()` and no proxy, so its resolver stops redirects;
        another Chromium gets the redirect guard; another engine, a `gap`."""
        if not self.active or context in self._installed:
            return
        await context.route("**/*", self._route)
        context.on("requestfailed", self._failed)
        self._installed = [c for c in self._installed if c is not context][-3:] + [context]
        if engine == "chromium" and not resolver:
            if self._guard is None:
                self._guard = RedirectGuard(self.allows, self._note_hop)
            await self._guard.guard(context)
        elif engine != "chromium" and self.gap is None:
            self.gap = (f"{engine} cannot stop a server redirect to another domain: "
                        "--allow-domain refuses every direct request only (use Chromium "
                        "for redirects too)")
            log.warning("%s", self.gap)

    async def uninstall(self, context: BrowserContext) -> None:
        """Take the route off (a test that set domains on a shared session)."""
        if context in self._installed:
            self._installed.remove(context)
            with tolerated("removing the allowed-domains route", log):
                await context.unroute("**/*", self._route)
            context.remove_listener("requestfailed", self._failed)
            if self._guard is not None:
                await self._guard.release(context)

    async def _route(self, route: Route) -> None:
        request = route.request
        if self.allows(request.url):
            if self._guard is not None and request.is_navigation_request() \
                    and not self._guard.guards(request):
                await self._first_hop(route)
                return
            with tolerated("passing on an allowed request", log):  # its page may be gone
                await route.fallback()
            return
        self._note(request, redirect=False)
        await self._refuse(route)

    async def _refuse(self, route: Route) -> None:
        request = route.request
        with tolerated("refusing a request", log):
            if request.is_navigation_request():
                # "No Content": the browser stays on the page it shows (an abort would
                # put its error page there a moment later, and in the history)
                await route.fulfill(status=204)
            else:
                await route.abort("blockedbyclient")

    async def _first_hop(self, route: Route) -> None:
        """A page the redirect guard is not on yet (a popup's first document): its
        answer fetched here without following a redirect, so a hop elsewhere is
        refused before the browser sees it."""
        request = route.request
        with tolerated("fetching a new page's first document", log):
            response = await route.fetch(max_redirects=0)
            location = response.headers.get("location")
            if 300 <= response.status < 400 and location:
                hop = urljoin(request.url, location)
                if not self.allows(hop):
                    self._add(Refusal(0, host_of(hop), hop, request.resource_type, True,
                                      True, None, True))
                    await self._refuse(route)
                    return
            await route.fulfill(response=response)

    def _failed(self, request: Request) -> None:
        """A request the resolver rules stopped: a redirect's hop, mostly."""
        if NOT_RESOLVED in (request.failure or "") and not self.allows(request.url):
            self._note(request, redirect=request.redirected_from is not None)

    def _note_hop(self, url: str, kind: str, main: bool, page: Any) -> None:
        """A redirect's hop the guard refused (redirects.py)."""
        self._add(Refusal(0, host_of(url), url, kind, kind == "document", main, page, True))

    def _add(self, refusal: Refusal) -> None:
        refusal.n = self.last = next(self._count)
        self.refused.append(refusal)
        log.info("%s (%s %s)", refusal_text(refusal.host), refusal.kind, refusal.url)

    def _note(self, request: Request, *, redirect: bool) -> None:
        page, main = None, False
        navigation = request.is_navigation_request()
        try:
            frame = request.frame
            page, main = frame.page, frame.parent_frame is None
        except PlaywrightError:
            # a new page's first document (a popup's) is asked for before its frame
            # exists; a service worker's request has no frame at all
            main = navigation
        self._add(Refusal(0, host_of(request.url), request.url, request.resource_type,
                          navigation, main, page, redirect))

    def since(self, mark: int) -> list[Refusal]:
        """The refusals after refusal number `mark` (`last` when a command began)."""
        return [r for r in self.refused if r.n > mark]
