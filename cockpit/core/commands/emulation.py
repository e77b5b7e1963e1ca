"""Emulation: device, geo, offline, media, timezone, locale, headers, credentials,
permissions (core/network/state.py keeps them; every relaunch applies them again)."""

from __future__ import annotations

import math
from typing import Any, TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from ..base.errors import CommandError, UsageError
from ..network.options import check_locale, check_timezone
from .relaunching import devices, relaunch_for, set_device
from ..language.registry import Arg, Flag, command
from ..base.result import Outcome
from ..language.parser import excerpt

if TYPE_CHECKING:
    from ..language.parser import Invocation
    from ..session.session import CommandContext

SURVIVES = "It survives a handoff and a browser relaunch."


@command("device", "emulation", "Emulate a device (viewport, user agent, touch, mobile, "
         "scale), list the names, or turn it off.",
         args=(Arg("name", "a Playwright device name (\"iPhone 13\", \"Pixel 7\"), list or "
                   "off", raw=True),),
         details=("A running browser cannot become a touch or mobile one: the browser is "
                  "relaunched with the device, keeping tabs, cookies and storage. " + SURVIVES),
         examples=('device "iPhone 13"', "device list", "device off"))
async def device(ctx: CommandContext, a: Invocation) -> Outcome:
    name = a.name.strip().strip("\"'")
    if name.lower() == "list":
        names = sorted(devices(ctx.session))
        return Outcome("\n".join(names), {"devices": names})
    return await set_device(ctx.session, None if name.lower() == "off" else name)


def _number(word: str, what: str, low: float, high: float) -> float:
    try:
        value = float(word)
    except ValueError:
        raise UsageError(f"geo: {what} {excerpt(word)!r} is not a number") from None
    if not math.isfinite(value) or not low <= value <= high:
        raise UsageError(f"geo: {what} must be between {low:g} and {high:g}")
    return value


@command("geo", "emulation", "Set the geolocation pages read (and grant it), or turn it off.",
         args=(Arg("lat", "latitude, or off"), Arg("lon", "longitude", optional=True)),
         flags=(Flag("--accuracy", help="metres (default 10)", value="M"),),
         details="navigator.geolocation answers with it. " + SURVIVES,
         examples=("geo 48.8584 2.2945", "geo 51.5 -0.12 --accuracy 50", "geo off"))
async def geo(ctx: CommandContext, a: Invocation) -> Outcome:
    state = ctx.session.network
    if a.lat.lower() == "off":
        if a.lon is not None:
            raise UsageError("geo off takes nothing more")
        state.geo = None
        await state.apply_live(ctx.session.browser_context())
        return Outcome("geolocation off", {"geo": None})
    if a.lon is None:
        raise UsageError("geo needs LAT LON: geo 48.8584 2.2945")
    found = {"latitude": _number(a.lat, "latitude", -90, 90),
             "longitude": _number(a.lon, "longitude", -180, 180),
             "accuracy": _number(a.accuracy or "10", "accuracy", 0, 1e7)}
    state.geo = found
    await state.apply_live(ctx.session.browser_context())
    return Outcome(f"geolocation {found['latitude']} {found['longitude']} "
                   f"(±{found['accuracy']:g} m), permission granted", {"geo": found})


@command("offline", "emulation", "Take the browser offline (requests fail) or back online.",
         args=(Arg("state", "on or off", choices=("on", "off")),),
         details=SURVIVES, examples=("offline on", "offline off"))
async def offline(ctx: CommandContext, a: Invocation) -> Outcome:
    state = ctx.session.network
    state.offline = a.state == "on"
    await ctx.session.browser_context().set_offline(state.offline)
    return Outcome("offline: requests fail" if state.offline else "online",
                   {"offline": state.offline})


@command("media", "emulation", "Emulate CSS media features: colour scheme, reduced motion.",
         flags=(Flag("--color-scheme", help="light, dark, no-preference (none: the "
                     "browser's own)", value="S"),
                Flag("--reduced-motion", help="reduce, no-preference (none: the browser's "
                     "own)", value="M")),
         details="matchMedia and CSS media queries see it. With no flag: both back to the "
                 "browser's own. " + SURVIVES,
         examples=("media --color-scheme dark", "media --reduced-motion reduce", "media"))
async def media(ctx: CommandContext, a: Invocation) -> Outcome:
    state = ctx.session.network
    scheme = _choice(a.color_scheme, "--color-scheme", ("light", "dark", "no-preference"))
    motion = _choice(a.reduced_motion, "--reduced-motion", ("reduce", "no-preference"))
    if a.color_scheme is None and a.reduced_motion is None:
        state.color_scheme = state.reduced_motion = None
    else:
        if a.color_scheme is not None:
            state.color_scheme = scheme
        if a.reduced_motion is not None:
            state.reduced_motion = motion
    await state.apply_pages(ctx.session.browser_context())
    said = [f"color scheme {state.color_scheme or 'the browser`s own'}",
            f"reduced motion {state.reduced_motion or 'the browser`s own'}"]
    return Outcome("; ".join(said), {"color_scheme": state.color_scheme,
                                     "reduced_motion": state.reduced_motion})


def _choice(value: str | None, flag: str, choices: tuple[str, ...]) -> str | None:
    if value is None or value.lower() == "none":
        return None
    if value.lower() not in choices:
        raise UsageError(f"media: {flag} takes {', '.join(choices)} or none, "
                         f"not {excerpt(value)!r}")
    return value.lower()


async def _page_setting(ctx: CommandContext, key: str, value: str | None) -> Outcome:
    state = ctx.session.network
    before = getattr(state, key)
    setattr(state, key, value)
    try:
        await state.apply_pages(ctx.session.browser_context())
    except CommandError:
        setattr(state, key, before)
        await state.apply_pages(ctx.session.browser_context())
        raise
    return Outcome(f"{key} {value or 'back to the browser`s own'} (every tab)", {key: value})


@command("timezone", "emulation", "Emulate a timezone (IANA name), or `off`.",
         args=(Arg("id", "an IANA timezone such as Europe/Paris, or off"),),
         details="Date and Intl see it. " + SURVIVES,
         examples=("timezone Asia/Tokyo", "timezone off"))
async def timezone(ctx: CommandContext, a: Invocation) -> Outcome:
    if a.id.lower() == "off":
        return await _page_setting(ctx, "timezone", None)
    return await _page_setting(ctx, "timezone", valid_timezone(a.id))


def valid_timezone(name: str) -> str:
    try:
        return check_timezone(name)
    except ValueError as exc:
        raise UsageError(f"timezone: {exc}") from None


def valid_locale(tag: str) -> str:
    try:
        return check_locale(tag)
    except ValueError as exc:
        raise UsageError(f"locale: {exc}") from None


@command("locale", "emulation", "Emulate a locale (BCP 47 tag), or `off`.",
         args=(Arg("tag", "a language tag such as de-DE, or off"),),
         details="Intl formats numbers and dates with it. " + SURVIVES,
         examples=("locale de-DE", "locale off"))
async def locale(ctx: CommandContext, a: Invocation) -> Outcome:
    return await _page_setting(ctx, "locale",
                               None if a.tag.lower() == "off" else valid_locale(a.tag))


@command("headers", "emulation", "Send extra HTTP headers with every request, or clear them.",
         args=(Arg("action", "set or clear", choices=("set", "clear")),
               Arg("name", "the header name (for set)", optional=True),
               Arg("value", "its value (for set)", optional=True)),
         details="Values are masked in recordings and listings. " + SURVIVES,
         examples=('headers set X-Test-Run "nightly"', "headers clear"),
         masked_args=("value",))
async def headers(ctx: CommandContext, a: Invocation) -> Outcome:
    state = ctx.session.network
    if a.action == "clear":
        if a.name or a.value:
            raise UsageError("headers clear takes nothing more")
        state.headers = {}
    else:
        if not a.name or a.value is None:
            raise UsageError("headers set needs NAME and VALUE: headers set X-Test nightly")
        if not all(33 <= ord(c) <= 126 and c != ":" for c in a.name):
            raise UsageError(f"headers: {a.name!r} is not a header name")
        state.headers = {**state.headers, a.name: a.value}
    await ctx.session.browser_context().set_extra_http_headers(dict(state.headers))
    if a.action == "clear":
        return Outcome("extra headers cleared", {"headers": []})
    return Outcome(f"sending header {a.name} (value masked) with every request",
                   {"headers": sorted(state.headers)})


@command("credentials", "emulation", "Answer HTTP authentication (Basic, Digest) with a user "
         "and password, or clear them.",
         args=(Arg("user", "the user name, or clear"),
               Arg("password", "the password ($NAME for a --secret)", optional=True)),
         details=("The browser is relaunched with them (keeping tabs, cookies and "
                  "storage). The password is masked in every output and recording. "
                  + SURVIVES),
         examples=("credentials admin $ADMIN_PASSWORD", "credentials clear"),
         masked_args=("password",), secret_args=("password",))
async def credentials(ctx: CommandContext, a: Invocation) -> Outcome:
    session = ctx.session
    if a.user.lower() == "clear" and a.password is None:
        session.network.credentials = None
        lost = await relaunch_for(session, "credentials")
        return Outcome("HTTP credentials cleared" + lost, {"credentials": None})
    if a.password is None:
        raise UsageError("credentials needs USER and PASSWORD: credentials admin $PASSWORD")
    if not a.password.startswith("$"):  # never shown again, in any result, event or file
        session.redactor.shown.add(a.password)
        session.redactor.files.add(a.password)
    session.network.credentials = (a.user, a.password)
    lost = await relaunch_for(session, "credentials")
    return Outcome(f"HTTP credentials set for user {a.user} (password masked)" + lost,
                   {"credentials": a.user})


@command("permissions", "emulation", "Grant browser permissions to every site, or clear them.",
         args=(Arg("action", "grant or clear", choices=("grant", "clear")),
               Arg("names", "permission names: geolocation, notifications, camera, "
                   "microphone, clipboard-read, clipboard-write...", optional=True,
                   variadic=True)),
         details=SURVIVES,
         examples=("permissions grant notifications clipboard-read", "permissions clear"))
async def permissions(ctx: CommandContext, a: Invocation) -> Outcome:
    state = ctx.session.network
    names: list[Any] = list(a.names or [])
    if a.action == "clear":
        if names:
            raise UsageError("permissions clear takes no names")
        state.permissions = []
    else:
        if not names:
            raise UsageError("permissions grant needs names: permissions grant notifications")
        before = state.permissions
        state.permissions = list(dict.fromkeys([*before, *names]))
        try:
            await state.apply_live(ctx.session.browser_context())
        except PlaywrightError as exc:
            state.permissions = before
            await state.apply_live(ctx.session.browser_context())
            raise UsageError(f"permissions: {str(exc).splitlines()[0]}; names such as "
                             "geolocation, notifications, clipboard-read") from None
        return Outcome(f"granted {', '.join(state.permissions)}",
                       {"permissions": state.permissions})
    await state.apply_live(ctx.session.browser_context())
    return Outcome("permissions cleared" + (" (geolocation stays while `geo` is on)"
                                            if state.geo else ""), {"permissions": []})
