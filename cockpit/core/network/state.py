"""The session's network and emulation settings, in one object applied to every browser
context the session makes (its start, a relaunch for a handoff, a recovery, `device`)."""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError

from ..base.errors import CommandError
from ..base.logs import spawn
from .routes import RouteRule, matcher

log = logging.getLogger("cockpit")

# What only a new browser context can change: these settings relaunch the browser.
LAUNCH_ONLY = ("device", "credentials", "proxy")


@dataclass
class NetworkState:
    """Routes, HAR replay and recording, and emulation: what `status` shows and what
    every (re)made context gets."""

    routes: list[RouteRule] = field(default_factory=list)
    har_replay: Path | None = None  # --har FILE: requests answered from it
    har_missing: str = "fallback"  # a request the HAR lacks: to the network, or abort
    device: str | None = None  # a name of playwright.devices
    device_options: dict[str, Any] = field(default_factory=dict)
    geo: dict[str, float] | None = None  # latitude, longitude, accuracy
    offline: bool = False
    color_scheme: str | None = None
    reduced_motion: str | None = None
    timezone: str | None = None
    locale: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    credentials: tuple[str, str] | None = None
    permissions: list[str] = field(default_factory=list)
    proxy: str | None = None
    recorder: Any = None  # har.HarRecorder while `har start` records
    engine: str = "chromium"
    _cdp: weakref.WeakKeyDictionary[Any, Any] = field(default_factory=weakref.WeakKeyDictionary)

    # --- what a new context is launched with ----------------------------------------
    def launch_options(self) -> dict[str, Any]:
        """Options for launch_persistent_context: what a live context cannot change, and
        the rest too, so the first document already has them."""
        options: dict[str, Any] = dict(self.device_options)
        if self.proxy:
            options["proxy"] = proxy_option(self.proxy)
        if self.credentials:
            options["http_credentials"] = {"username": self.credentials[0],
                                           "password": self.credentials[1]}
        if self.geo:
            options["geolocation"] = dict(self.geo)
        if self.granted:
            options["permissions"] = self.granted
        if self.color_scheme:
            options["color_scheme"] = self.color_scheme
        if self.reduced_motion:
            options["reduced_motion"] = self.reduced_motion
        if self.headers:
            options["extra_http_headers"] = dict(self.headers)
        return options

    @property
    def granted(self) -> list[str]:
        """The permissions granted: those asked for, and geolocation while `geo` is on."""
        names = list(self.permissions)
        if self.geo and "geolocation" not in names:
            names.append("geolocation")
        return names

    def prepare(self, playwright: Any) -> None:
        """Before the first launch: the options of a device named by --device (ValueError
        for a name Playwright does not know)."""
        if self.device and not self.device_options:
            from ..base.errors import UsageError
            from .emulate import device_options
            try:
                self.device, self.device_options = device_options(
                    dict(playwright.devices), self.device)
            except UsageError as exc:
                raise ValueError(f"--device: {exc}") from None

    # --- applying it ------------------------------------------------------------------
    async def apply(self, context: Any, *, restoring: bool = False) -> None:
        """Everything on a context just made: the HAR, the routes (after it: they win),
        the live settings, and the per-page ones on its pages and on every later page.
        `restoring`: its tabs are about to load again (a relaunch), so it goes offline
        only afterwards (`restored()`)."""
        self._cdp = weakref.WeakKeyDictionary()  # the old context's sessions are gone
        if self.har_replay is not None:
            await context.route_from_har(self.har_replay, not_found=self.har_missing)
        for rule in self.routes:
            await context.route(matcher(rule.pattern), rule.handler())
        # only what is set: a browser attached with --cdp keeps its own permissions,
        # headers and media (a reset would take away what its user granted)
        if self.granted:
            await context.grant_permissions(self.granted)
        if self.geo:
            await context.set_geolocation(dict(self.geo))
        if self.offline and not restoring:
            await context.set_offline(True)
        if self.headers:
            await context.set_extra_http_headers(dict(self.headers))
        if self.recorder is not None:
            self.recorder.follow(context)
        context.on("page", lambda page: spawn(self.apply_page(page, quiet=True),
                                               "emulating a new page"))
        for page in context.pages:
            await self.apply_page(page, quiet=True)

    async def apply_live(self, context: Any, offline: bool | None = None) -> None:
        """What a running context can change: geolocation, permissions, offline, headers."""
        await context.clear_permissions()
        if self.granted:
            await context.grant_permissions(self.granted)
        await context.set_geolocation(dict(self.geo) if self.geo else None)
        await context.set_offline(self.offline if offline is None else offline)
        await context.set_extra_http_headers(dict(self.headers))

    async def restored(self, context: Any) -> None:
        """After a relaunch restored the tabs: offline again, if it was."""
        if self.offline:
            await context.set_offline(True)

    async def apply_pages(self, context: Any) -> None:
        """A command changed media, timezone or locale: every page, set or reset."""
        for page in context.pages:
            await self.apply_page(page, force=True)

    async def apply_page(self, page: Any, quiet: bool = False, force: bool = False) -> None:
        """Media, timezone and locale of one page (a context option cannot change live:
        media through Playwright, timezone and locale through a CDP session of ours).
        `quiet`: a page that closed meanwhile is logged, not raised. `force`: media is
        set back to the browser's own too (else only what is set is applied)."""
        try:
            if page.is_closed():
                return
            if force or self.color_scheme or self.reduced_motion:
                await page.emulate_media(color_scheme=self.color_scheme or "null",
                                         reduced_motion=self.reduced_motion or "null")
            if self.timezone or self.locale or page in self._cdp:
                await self._emulate_cdp(page)
        except (PlaywrightError, CommandError):
            if not quiet:
                raise
            log.info("emulating page %s failed", page.url, exc_info=True)

    async def _emulate_cdp(self, page: Any) -> None:
        if self.engine != "chromium":
            raise CommandError(f"timezone and locale need Chromium; this session runs "
                               f"{self.engine}")
        cdp = self._cdp.get(page)
        if cdp is None:
            cdp = self._cdp[page] = await page.context.new_cdp_session(page)
            # the session refers to its page: dropped when the page closes, or it would
            # keep the closed page alive as its own key
            page.once("close", lambda closed: self._cdp.pop(closed, None))
        try:
            await cdp.send("Emulation.setTimezoneOverride", {"timezoneId": self.timezone or ""})
        except PlaywrightError as exc:
            raise CommandError(f"timezone {self.timezone!r} was refused "
                               f"({_first_line(exc)}): give an IANA name like "
                               "Europe/Paris") from None
        try:
            await cdp.send("Emulation.setLocaleOverride", {"locale": self.locale or ""})
        except PlaywrightError as exc:
            raise CommandError(f"locale {self.locale!r} was refused ({_first_line(exc)}): "
                               "give a BCP 47 tag like de-DE") from None

    # --- what it shows ----------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """For `status` and the views: never a password (credentials show the user only)."""
        return {
            "routes": [r.describe() for r in self.routes],
            "har_replay": str(self.har_replay) if self.har_replay else None,
            "har_recording": self.recorder.describe() if self.recorder else None,
            "emulation": self.emulation_lines(),
        }

    def emulation_lines(self) -> list[str]:
        lines = []
        if self.device:
            lines.append(f"device {self.device}")
        if self.geo:
            lines.append(f"geo {self.geo['latitude']} {self.geo['longitude']} "
                         f"(±{self.geo.get('accuracy', 0)} m)")
        if self.offline:
            lines.append("offline")
        if self.color_scheme:
            lines.append(f"color scheme {self.color_scheme}")
        if self.reduced_motion:
            lines.append(f"reduced motion {self.reduced_motion}")
        if self.timezone:
            lines.append(f"timezone {self.timezone}")
        if self.locale:
            lines.append(f"locale {self.locale}")
        if self.headers:
            lines.append("headers " + ", ".join(sorted(self.headers)))
        if self.credentials:
            lines.append(f"credentials {self.credentials[0]} / ***")
        if self.permissions:
            lines.append("permissions " + " ".join(self.permissions))
        if self.proxy:
            lines.append(f"proxy {shown_proxy(self.proxy)}")
        return lines


def network_words(summary: dict[str, Any] | None) -> str:
    """A few words for the TUI's status bar from `summary()` as `status` carries it (a
    session attached over the socket has only that); "" when nothing is set."""
    if not summary:
        return ""
    words = []
    routes = summary.get("routes") or []
    if routes:
        words.append(f"{len(routes)} route{'s' if len(routes) > 1 else ''}")
    if summary.get("har_replay"):
        words.append("HAR replay")
    if summary.get("har_recording"):
        words.append("recording HAR")
    words += [line.split(" (")[0] for line in summary.get("emulation") or []]
    return " · ".join(words)


def proxy_option(url: str) -> dict[str, str]:
    """Playwright's proxy option from a URL, its user and password taken out of it."""
    from urllib.parse import urlsplit
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if not parts.hostname:
        raise ValueError(f"--proxy {shown_proxy(url)} is not a proxy URL: give "
                         "http://HOST:PORT or socks5://HOST:PORT")
    server = f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    option = {"server": server}
    if parts.username:
        option["username"] = parts.username
        option["password"] = parts.password or ""
    return option


def shown_proxy(url: str) -> str:
    """The proxy URL without its password."""
    head, at, host = url.rpartition("@")
    if not at:
        return url
    scheme, sep, user = head.rpartition("://")
    return f"{scheme}{sep}{user.split(':')[0]}:***@{host}"


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
