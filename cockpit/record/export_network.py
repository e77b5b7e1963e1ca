"""The network and emulation steps in an export (export.py asks), for pytest-playwright
and for @playwright/test (the dialect, dialects.py): routes as `page.context.route(...)`
(every tab of the test, as the session's routes are), and each emulation as the
Playwright call that makes it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..core import MASK, header_pairs, matcher
from .dialects import PYTHON, Python

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

TS_CDP_HELPER = """
type CDP = Awaited<ReturnType<ReturnType<Page['context']>['newCDPSession']>>;
const cdpSessions = new WeakMap<Page, CDP>();

/** A CDP session of the page (timezone and locale change live through it). */
async function cdp(page: Page): Promise<CDP> {
  let session = cdpSessions.get(page);
  if (!session) {
    session = await page.context().newCDPSession(page);
    cdpSessions.set(page, session);
  }
  return session;
}
"""

TS_DEVICE = """
import {{ devices }} from '@playwright/test';

// The device the recording emulated (`device {name}`), for the whole test: Playwright
// makes a device with its context (on Chromium, as the recording ran).
test.use({{ ...devices[{lit}], defaultBrowserType: 'chromium' }});
"""

TS_LOCALE = """
// No locale of Playwright Test's own (en-US): Chromium takes one locale override, and
// the walk's `locale` steps make theirs
test.use({ locale: '' });
"""


class Exporter:
    """One recording's export of these steps: the helper code the test needs, and the
    extra headers set so far (set_extra_http_headers replaces them all, as `headers set`
    adds one). `d`: the language it is written in."""

    def __init__(self, d: Python = PYTHON) -> None:
        self.d = d
        self.helpers: dict[str, str] = {}
        self.headers: dict[str, str] = {}
        self.test_device: str | None = None  # the test's device (the first one named)

    @property
    def ts(self) -> bool:
        return self.d is not PYTHON

    def _on_context(self, method: str, *args: str) -> list[str]:
        return [self.d.do(self.d.call(self.d.context(), method, *args))]

    @staticmethod
    def writes(name: str) -> bool:
        """Whether `name` is one of the commands this exporter writes."""
        return name in FORMS

    def step(self, name: str, p: dict[str, Any]) -> list[str] | None:
        """The lines of one step, or None when `name` is not one of these commands."""
        form = FORMS.get(name)
        return None if form is None else form(self, p)

    def unroute(self, p: dict[str, Any]) -> list[str]:
        if p.get("pattern"):
            return self._on_context("unroute", _pattern(p["pattern"], self.d))
        return self._on_context("unroute_all")

    def geo(self, p: dict[str, Any]) -> list[str]:
        if p["lat"].lower() == "off":
            return self._on_context("set_geolocation", self.d.lit(None))
        geo = {"latitude": float(p["lat"]), "longitude": float(p["lon"]),
               "accuracy": float(p.get("accuracy") or 10)}
        if self.ts:
            return [*self._on_context("grant_permissions", self.d.lit(["geolocation"])),
                    *self._on_context("set_geolocation", self.d.lit(geo))]
        return ['page.context.grant_permissions(["geolocation"])',
                f"page.context.set_geolocation({geo!r})"]

    def offline(self, p: dict[str, Any]) -> list[str]:
        return self._on_context("set_offline", self.d.lit(p["state"] == "on"))

    def media(self, p: dict[str, Any]) -> list[str]:
        scheme, motion = p.get("color_scheme"), p.get("reduced_motion")
        if self.ts:  # null resets a feature, as `media` with no flag does
            given = {"color_scheme": scheme, "reduced_motion": motion} \
                if scheme is None and motion is None else \
                {k: v for k, v in (("color_scheme", scheme), ("reduced_motion", motion)) if v}
            return [self.d.do(self.d.call("page", "emulate_media", **given))]
        if scheme is None and motion is None:
            return ['page.emulate_media(color_scheme="null", reduced_motion="null")']
        given_py = [f"{k}={v!r}" for k, v in (("color_scheme", scheme),
                                              ("reduced_motion", motion)) if v]
        return [f"page.emulate_media({', '.join(given_py)})"]

    def _cdp(self, method: str, key: str, value: str) -> list[str]:
        value = "" if value.lower() == "off" else value
        if self.ts:
            self.helpers["cdp"] = TS_CDP_HELPER
            return [self.d.do(f"(await cdp(page)).send({self.d.lit(method)}, "
                              f"{{ {key}: {self.d.lit(value)} }})")]
        self.helpers["cdp"] = CDP_HELPER
        return [f"cdp(page).send({method!r}, {{{key!r}: {value!r}}})"]

    def timezone(self, p: dict[str, Any]) -> list[str]:
        return self._cdp("Emulation.setTimezoneOverride", "timezoneId", p["id"])

    def locale(self, p: dict[str, Any]) -> list[str]:
        if self.ts:
            self.helpers["locale"] = TS_LOCALE
        return self._cdp("Emulation.setLocaleOverride", "locale", p["tag"])

    def useragent(self, p: dict[str, Any]) -> list[str]:
        if not p.get("ua"):  # back to the browser's own: a test starts with it
            return [self.d.comment("useragent: the browser's own from here (a new test "
                                   "starts with it)")]
        key = "userAgent"
        return self._cdp("Emulation.setUserAgentOverride", key, p["ua"])

    def set_headers(self, p: dict[str, Any]) -> list[str]:
        # TypeScript spells it setExtraHTTPHeaders (camel() would write ...Http...)
        method = "page.context().setExtraHTTPHeaders" if self.ts else \
            "page.context.set_extra_http_headers"
        if p["action"] == "clear":
            self.headers.clear()
            return [self.d.do(f"{method}({{}})")]
        self.headers[p["name"]] = p["value"]
        shown = ", ".join(f"{self.d.lit(k)}: {_value(k, v, self.d)}"
                          for k, v in self.headers.items())
        return [self.d.do(f"{method}({{ {shown} }})" if self.ts else f"{method}({{{shown}}})")]

    def permissions(self, p: dict[str, Any]) -> list[str]:
        if p["action"] == "clear":
            return self._on_context("clear_permissions")
        return self._on_context("grant_permissions", self.d.lit(list(p["names"])))

    def device(self, p: dict[str, Any]) -> list[str]:
        """Playwright sets a device when a context is made, never on a running one (the
        session relaunched its browser): the first device named is the whole test's,
        from its first step; a later change is said, not made."""
        device = p["name"].strip().strip("\"'")
        if device.lower() == "list":
            return []
        cannot = "Playwright cannot change the device of a running context"
        if self.test_device is not None:
            if device == self.test_device:
                return [self.d.comment(f"device {self.d.lit(device)}: the test runs on it "
                                       "already")]
            now = "off" if device.lower() == "off" else self.d.lit(device)
            return [self.d.comment(f"device {now}: not exported ({cannot}); the test stays "
                                   f"on {self.d.lit(self.test_device)}")]
        if device.lower() == "off":
            return [self.d.comment("device off: the test runs on no device")]
        self.test_device = device
        if self.ts:
            self.helpers["device"] = TS_DEVICE.format(name=device, lit=self.d.lit(device))
            return [self.d.comment(f"device {self.d.lit(device)}: {cannot}, so the whole "
                                   "test runs on it, from its first step (test.use)")]
        self.helpers["device"] = DEVICE_FIXTURE.format(name=device)
        return [f"# device {device!r}: {cannot}, so the whole test runs on it, from its "
                "first step (browser_context_args)"]

    def credentials(self, p: dict[str, Any]) -> list[str]:
        where = "test.use's httpCredentials" if self.ts else \
            "browser_context_args' http_credentials"
        return [self.d.comment(f"credentials: give them as {where} (not exported: the "
                               "password is masked)")]

    def har(self, p: dict[str, Any]) -> list[str]:
        option = "recordHar" if self.ts else "record_har_path"
        return [self.d.comment(f"har: not exported (Playwright records a HAR with the "
                               f"context's {option})")]

    def route(self, p: dict[str, Any]) -> list[str]:
        return _route_ts(p, self.d) if self.ts else _route(p)


# The pytest form of each network and emulation command.
FORMS: dict[str, Callable[[Exporter, dict[str, Any]], list[str]]] = {
    "route": Exporter.route, "unroute": Exporter.unroute, "har": Exporter.har,
    "device": Exporter.device, "geo": Exporter.geo, "offline": Exporter.offline,
    "media": Exporter.media, "timezone": Exporter.timezone, "locale": Exporter.locale,
    "headers": Exporter.set_headers, "credentials": Exporter.credentials,
    "useragent": Exporter.useragent,
    "permissions": Exporter.permissions,
}


def _value(name: str, value: str, d: Python = PYTHON) -> str:
    """A header's value: one masked when recorded, or a $NAME, read from the environment."""
    m = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", value)
    if m:
        return d.env(m.group(1))
    if MASK in value:
        return d.env("HEADER_" + re.sub(r"\W", "_", name).upper())
    return d.lit(value)


def _pattern(pattern: str, d: Python = PYTHON) -> str:
    found = matcher(pattern)
    if isinstance(found, str):
        return d.lit(found)
    if d is not PYTHON:  # JavaScript has no verbose (x) flag
        js = "".join(f for f, bit in (("i", re.I), ("m", re.M), ("s", re.S))
                     if found.flags & bit)
        return f"new RegExp({d.lit(found.pattern)}{', ' + d.lit(js) if js else ''})"
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


def _route_ts(p: dict[str, Any], d: Python) -> list[str]:
    """`route` for @playwright/test: the same answer, in an async handler."""
    headers = header_pairs(list(p.get("header") or []))
    inner = d.indent
    out = [f"await page.context().route({_pattern(p['pattern'], d)}, async (route) => {{"]
    if p.get("delay"):
        out.append(f"{inner}await page.waitForTimeout({int(p['delay'])});")
    if p.get("abort"):
        out.append(f"{inner}await route.abort();")
    elif any(p.get(k) is not None for k in ("status", "body", "file", "content_type")):
        given: dict[str, Any] = {"status": int(p.get("status") or 200)}
        if p.get("file"):
            given["path"] = p["file"]
        else:
            given["body"] = p.get("body") or ""
        if headers:
            given["headers"] = headers
        content_type = p.get("content_type") or _json_type(p, headers)
        if content_type:
            given["contentType"] = content_type
        options = ", ".join(f"{k}: {d.lit(v)}" for k, v in given.items())
        out.append(f"{inner}await route.fulfill({{ {options} }});")
    elif headers:
        out += [f"{inner}const response = await route.fetch();",
                f"{inner}await route.fulfill({{ response, headers: {{ "
                f"...response.headers(), ...{d.lit(headers)} }} }});"]
    else:
        out.append(f"{inner}await route.fallback();")
    times = f", {{ times: {int(p['times'])} }}" if p.get("times") else ""
    return [*out, f"}}{times});"]
