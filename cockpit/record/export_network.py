"""The pytest-playwright form of the network and emulation steps (export.py asks): routes
as `page.context.route(...)` (every tab of the test, as the session's routes are), and
each emulation as the Playwright call that makes it."""

from __future__ import annotations

import re
from typing import Any

from ..core.mask import MASK
from ..core.network.routes import header_pairs, matcher

# Helpers a test gets only when one of its steps needs them (export.py puts them before
# the test function).
CDP_HELPER = '''

def cdp(page: Page):
    """A CDP session of the page (timezone and locale change live through it)."""
    if not hasattr(page, "_cockpit_cdp"):
        page._cockpit_cdp = page.context.new_cdp_session(page)
    return page._cockpit_cdp
'''

DEVICE_FIXTURE = '''

@pytest.fixture(scope="session")
def browser_context_args(browser_context_args, playwright):
    """The device the recording emulated (`device {name}`), for the whole test."""
    return {{**browser_context_args, **{{k: v for k, v in playwright.devices[{name!r}].items()
                                       if k != "default_browser_type"}}}}
'''

NAMES = frozenset({"route", "unroute", "har", "device", "geo", "offline", "media",
                   "timezone", "locale", "headers", "credentials", "permissions"})


def network_step(name: str, p: dict[str, Any], helpers: dict[str, str],
                 headers: dict[str, str]) -> list[str] | None:
    """The lines of one step, or None when `name` is not one of these commands.
    `helpers` gathers the helper code the test needs; `headers` the extra headers set so
    far (set_extra_http_headers replaces them all, as `headers set` adds one)."""
    if name not in NAMES:
        return None
    if name == "route":
        return _route(p)
    if name == "unroute":
        return [f"page.context.unroute({_pattern(p['pattern'])})" if p.get("pattern")
                else "page.context.unroute_all()"]
    if name == "geo":
        if p["lat"].lower() == "off":
            return ["page.context.set_geolocation(None)"]
        geo = {"latitude": float(p["lat"]), "longitude": float(p["lon"]),
               "accuracy": float(p.get("accuracy") or 10)}
        return ['page.context.grant_permissions(["geolocation"])',
                f"page.context.set_geolocation({geo!r})"]
    if name == "offline":
        return [f"page.context.set_offline({p['state'] == 'on'})"]
    if name == "media":
        scheme, motion = p.get("color_scheme"), p.get("reduced_motion")
        if scheme is None and motion is None:
            return ['page.emulate_media(color_scheme="null", reduced_motion="null")']
        given = [f"{k}={v!r}" for k, v in (("color_scheme", scheme),
                                           ("reduced_motion", motion)) if v]
        return [f"page.emulate_media({', '.join(given)})"]
    if name in ("timezone", "locale"):
        helpers["cdp"] = CDP_HELPER
        value = p["id"] if name == "timezone" else p["tag"]
        value = "" if value.lower() == "off" else value
        method, key = (("Emulation.setTimezoneOverride", "timezoneId") if name == "timezone"
                       else ("Emulation.setLocaleOverride", "locale"))
        return [f"cdp(page).send({method!r}, {{{key!r}: {value!r}}})"]
    if name == "headers":
        if p["action"] == "clear":
            headers.clear()
            return ["page.context.set_extra_http_headers({})"]
        headers[p["name"]] = p["value"]
        shown = ", ".join(f"{k!r}: {_value(k, v)}" for k, v in headers.items())
        return [f"page.context.set_extra_http_headers({{{shown}}})"]
    if name == "permissions":
        if p["action"] == "clear":
            return ["page.context.clear_permissions()"]
        return [f"page.context.grant_permissions({list(p['names'])!r})"]
    if name == "device":
        device = p["name"].strip().strip("\"'")
        if device.lower() in ("list", "off"):
            return [] if device.lower() == "list" else \
                ["# device off: the test runs on the device for its whole length"]
        helpers["device"] = DEVICE_FIXTURE.format(name=device)
        return [f"# device {device!r}: the whole test runs on it (browser_context_args)"]
    if name == "credentials":
        return ["# credentials: give them as browser_context_args' http_credentials "
                "(not exported: the password is masked)"]
    return ["# har: not exported (Playwright records a HAR with the context's "
            "record_har_path)"]


def _value(name: str, value: str) -> str:
    """A header's value: one masked when recorded, or a $NAME, read from the environment."""
    m = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", value)
    if m:
        return f"os.environ[{m.group(1)!r}]"
    if MASK in value:
        env = "HEADER_" + re.sub(r"\W", "_", name).upper()
        return f"os.environ[{env!r}]"
    return repr(value)


def _pattern(pattern: str) -> str:
    found = matcher(pattern)
    if isinstance(found, str):
        return repr(found)
    flags = [f"re.{f}" for f, bit in (("I", re.I), ("M", re.M), ("S", re.S), ("X", re.X))
             if found.flags & bit]
    return f"re.compile({found.pattern!r}{', ' + ' | '.join(flags) if flags else ''})"


def _route(p: dict[str, Any]) -> list[str]:
    headers = header_pairs(list(p.get("header") or []))
    times = f", times={int(p['times'])}" if p.get("times") else ""
    out = ["def answer(route):"]
    if p.get("delay"):
        out.append(f"    page.wait_for_timeout({int(p['delay'])})")
    if p.get("abort"):
        out.append("    route.abort()")
    elif any(p.get(k) is not None for k in ("status", "body", "file", "content_type")):
        given = [f"status={int(p.get('status') or 200)}"]
        if p.get("file"):
            given.append(f"path={p['file']!r}")
        else:
            given.append(f"body={p.get('body') or ''!r}")
        if headers:
            given.append(f"headers={headers!r}")
        content_type = p.get("content_type") or _json_type(p, headers)
        if content_type:
            given.append(f"content_type={content_type!r}")
        out.append(f"    route.fulfill({', '.join(given)})")
    elif headers:
        out += ["    response = route.fetch()",
                f"    route.fulfill(response=response, headers={{**response.headers, "
                f"**{headers!r}}})"]
    else:
        out.append("    route.fallback()")
    return out + [f"page.context.route({_pattern(p['pattern'])}, answer{times})"]


def _json_type(p: dict[str, Any], headers: dict[str, str]) -> str | None:
    """As the session answered it: a body that looks like JSON is JSON."""
    if p.get("file") or any(k.lower() == "content-type" for k in headers):
        return None
    return "application/json" if (p.get("body") or "").lstrip()[:1] in ("{", "[") \
        else "text/plain"
