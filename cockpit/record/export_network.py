"""The pytest-playwright form of the network and emulation steps (export.py asks): routes
as `page.context.route(...)` (every tab of the test, as the session's routes are), and
each emulation as the Playwright call that makes it."""

from __future__ import annotations

import re
from typing import Any

from ..core import MASK, header_pairs, matcher

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

class Exporter:
    """One recording's export of these steps: the helper code the test needs, and the
    extra headers set so far (set_extra_http_headers replaces them all, as `headers set`
    adds one)."""

    def __init__(self) -> None:
        self.helpers: dict[str, str] = {}
        self.headers: dict[str, str] = {}
        self.test_device: str | None = None  # the test's device (the first one named)

    @staticmethod
    def writes(name: str) -> bool:
        """Whether `name` is one of the commands this exporter writes."""
        return name in FORMS

    def step(self, name: str, p: dict[str, Any]) -> list[str] | None:
        """The lines of one step, or None when `name` is not one of these commands."""
        form = FORMS.get(name)
        return None if form is None else getattr(self, form)(p)

    def unroute(self, p: dict[str, Any]) -> list[str]:
        return [f"page.context.unroute({_pattern(p['pattern'])})" if p.get("pattern")
                else "page.context.unroute_all()"]

    def geo(self, p: dict[str, Any]) -> list[str]:
        if p["lat"].lower() == "off":
            return ["page.context.set_geolocation(None)"]
        geo = {"latitude": float(p["lat"]), "longitude": float(p["lon"]),
               "accuracy": float(p.get("accuracy") or 10)}
        return ['page.context.grant_permissions(["geolocation"])',
                f"page.context.set_geolocation({geo!r})"]

    def offline(self, p: dict[str, Any]) -> list[str]:
        return [f"page.context.set_offline({p['state'] == 'on'})"]

    def media(self, p: dict[str, Any]) -> list[str]:
        scheme, motion = p.get("color_scheme"), p.get("reduced_motion")
        if scheme is None and motion is None:
            return ['page.emulate_media(color_scheme="null", reduced_motion="null")']
        given = [f"{k}={v!r}" for k, v in (("color_scheme", scheme),
                                           ("reduced_motion", motion)) if v]
        return [f"page.emulate_media({', '.join(given)})"]

    def _cdp(self, method: str, key: str, value: str) -> list[str]:
        self.helpers["cdp"] = CDP_HELPER
        value = "" if value.lower() == "off" else value
        return [f"cdp(page).send({method!r}, {{{key!r}: {value!r}}})"]

    def timezone(self, p: dict[str, Any]) -> list[str]:
        return self._cdp("Emulation.setTimezoneOverride", "timezoneId", p["id"])

    def locale(self, p: dict[str, Any]) -> list[str]:
        return self._cdp("Emulation.setLocaleOverride", "locale", p["tag"])

    def set_headers(self, p: dict[str, Any]) -> list[str]:
        if p["action"] == "clear":
            self.headers.clear()
            return ["page.context.set_extra_http_headers({})"]
        self.headers[p["name"]] = p["value"]
        shown = ", ".join(f"{k!r}: {_value(k, v)}" for k, v in self.headers.items())
        return [f"page.context.set_extra_http_headers({{{shown}}})"]

    def permissions(self, p: dict[str, Any]) -> list[str]:
        if p["action"] == "clear":
            return ["page.context.clear_permissions()"]
        return [f"page.context.grant_permissions({list(p['names'])!r})"]

    def device(self, p: dict[str, Any]) -> list[str]:
        """Playwright sets a device when a context is made, never on a running one (the
        session relaunched its browser): the first device named is the whole test's,
        from its first step; a later change is said, not made."""
        device = p["name"].strip().strip("\"'")
        if device.lower() == "list":
            return []
        cannot = "Playwright cannot change the device of a running context"
        if self.test_device is not None:
            now = "no device" if device.lower() == "off" else repr(device)
            if now == repr(self.test_device):
                return [f"# device {device!r}: the test runs on it already"]
            return [f"# device {device.lower() if now == 'no device' else repr(device)}: "
                    f"not exported ({cannot}); the test stays on {self.test_device!r}"]
        if device.lower() == "off":
            return ["# device off: the test runs on no device (browser_context_args)"]
        self.test_device = device
        self.helpers["device"] = DEVICE_FIXTURE.format(name=device)
        return [f"# device {device!r}: {cannot}, so the whole test runs on it, from its "
                "first step (browser_context_args)"]

    def credentials(self, p: dict[str, Any]) -> list[str]:
        return ["# credentials: give them as browser_context_args' http_credentials "
                "(not exported: the password is masked)"]

    def har(self, p: dict[str, Any]) -> list[str]:
        return ["# har: not exported (Playwright records a HAR with the context's "
                "record_har_path)"]

    def route(self, p: dict[str, Any]) -> list[str]:
        return _route(p)


# The pytest form of each network and emulation command.
# (the method of an Exporter that writes it: export_network_ts.py writes them in TypeScript)
FORMS: dict[str, str] = {
    "route": "route", "unroute": "unroute", "har": "har", "device": "device", "geo": "geo",
    "offline": "offline", "media": "media", "timezone": "timezone", "locale": "locale",
    "headers": "set_headers", "credentials": "credentials", "permissions": "permissions",
}


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
