"""The @playwright/test (TypeScript) form of the network and emulation steps: the same
steps as export_network.py writes for pytest, as `page.context().route(...)` and the
Playwright call of each emulation; timezone and locale through a CDP session."""

from __future__ import annotations

import re
from typing import Any

from ..core import MASK, header_pairs, matcher
from .dialects import TYPESCRIPT
from .export_network import Exporter, _json_type

lit = TYPESCRIPT.lit

# Helpers a spec gets only when one of its steps needs them (before its `test(...)`).
CDP_HELPER = """
/** A CDP session of the page (timezone and locale change live through it). */
const cdpSessions = new WeakMap<Page, Promise<import('@playwright/test').CDPSession>>();
function cdp(page: Page): Promise<import('@playwright/test').CDPSession> {
  if (!cdpSessions.has(page)) cdpSessions.set(page, page.context().newCDPSession(page));
  return cdpSessions.get(page)!;
}
"""

DEVICE_USE = """
// The device the recording emulated (`device @@NAME@@`), for the whole test: Playwright
// makes a device with its context (on Chromium, as the recording ran).
test.use({ ...devices[@@LIT@@], defaultBrowserType: 'chromium' });
"""

LOCALE_USE = """
// No locale of Playwright Test's own (en-US): Chromium takes one locale override, and
// the walk's `locale` steps make theirs
test.use({ locale: '' });
"""


class TsExporter(Exporter):
    """export_network.Exporter's steps, written in TypeScript."""

    def route(self, p: dict[str, Any]) -> list[str]:
        headers = header_pairs(list(p.get("header") or []))
        body: list[str] = []
        if p.get("delay"):
            body.append(f"await new Promise((done) => setTimeout(done, {int(p['delay'])}));")
        if p.get("abort"):
            body.append("await route.abort();")
        elif any(p.get(k) is not None for k in ("status", "body", "file", "content_type")):
            given = [f"status: {int(p.get('status') or 200)}"]
            given.append(f"path: {lit(p['file'])}" if p.get("file")
                         else f"body: {lit(p.get('body') or '')}")
            if headers:
                given.append(f"headers: {_object(headers)}")
            content_type = p.get("content_type") or _json_type(p, headers)
            if content_type:
                given.append(f"contentType: {lit(content_type)}")
            body.append(f"await route.fulfill({{ {', '.join(given)} }});")
        elif headers:
            body += ["const response = await route.fetch();",
                     "await route.fulfill({ response, headers: { ...response.headers(), "
                     f"...{_object(headers)} }} }});"]
        else:
            body.append("await route.fallback();")
        times = f", {{ times: {int(p['times'])} }}" if p.get("times") else ""
        return ([f"await page.context().route({_pattern(p['pattern'])}, async (route) => {{"]
                + [f"  {line}" for line in body] + [f"}}{times});"])

    def unroute(self, p: dict[str, Any]) -> list[str]:
        return [f"await page.context().unroute({_pattern(p['pattern'])});" if p.get("pattern")
                else "await page.context().unrouteAll();"]

    def geo(self, p: dict[str, Any]) -> list[str]:
        if p["lat"].lower() == "off":
            return ["await page.context().setGeolocation(null);"]
        return ["await page.context().grantPermissions(['geolocation']);",
                f"await page.context().setGeolocation({{ latitude: {float(p['lat'])}, "
                f"longitude: {float(p['lon'])}, accuracy: {float(p.get('accuracy') or 10)} }});"]

    def offline(self, p: dict[str, Any]) -> list[str]:
        return [f"await page.context().setOffline({'true' if p['state'] == 'on' else 'false'});"]

    def media(self, p: dict[str, Any]) -> list[str]:
        scheme, motion = p.get("color_scheme"), p.get("reduced_motion")
        if scheme is None and motion is None:
            return ["await page.emulateMedia({ colorScheme: null, reducedMotion: null });"]
        given = [f"{k}: {lit(v)}" for k, v in (("colorScheme", scheme),
                                              ("reducedMotion", motion)) if v]
        return [f"await page.emulateMedia({{ {', '.join(given)} }});"]

    def _cdp(self, method: str, key: str, value: str) -> list[str]:
        self.helpers["cdp"] = CDP_HELPER
        value = "" if value.lower() == "off" else value
        return [f"await (await cdp(page)).send({lit(method)}, {{ {key}: {lit(value)} }});"]

    def locale(self, p: dict[str, Any]) -> list[str]:
        self.helpers["locale"] = LOCALE_USE
        return super().locale(p)

    def set_headers(self, p: dict[str, Any]) -> list[str]:
        if p["action"] == "clear":
            self.headers.clear()
            return ["await page.context().setExtraHTTPHeaders({});"]
        self.headers[p["name"]] = p["value"]
        shown = ", ".join(f"{lit(k)}: {_value(k, v)}" for k, v in self.headers.items())
        return [f"await page.context().setExtraHTTPHeaders({{ {shown} }});"]

    def permissions(self, p: dict[str, Any]) -> list[str]:
        if p["action"] == "clear":
            return ["await page.context().clearPermissions();"]
        return [f"await page.context().grantPermissions({lit(list(p['names']))});"]

    def device(self, p: dict[str, Any]) -> list[str]:
        lines = [f"//{line[1:]}" for line in super().device(p)]
        if "device" in self.helpers and self.test_device is not None:
            self.helpers["device"] = DEVICE_USE.replace("@@NAME@@", self.test_device) \
                .replace("@@LIT@@", lit(self.test_device))
        return [line.replace("(browser_context_args)", "(test.use)") for line in lines]

    def credentials(self, p: dict[str, Any]) -> list[str]:
        return ["// credentials: give them as test.use({ httpCredentials }) (not exported: "
                "the password is masked)"]

    def har(self, p: dict[str, Any]) -> list[str]:
        return ["// har: not exported (Playwright records a HAR with the context's "
                "recordHar option)"]


def _object(values: dict[str, str]) -> str:
    return "{ " + ", ".join(f"{lit(k)}: {lit(v)}" for k, v in values.items()) + " }"


def _value(name: str, value: str) -> str:
    """A header's value: one masked when recorded, or a $NAME, read from the environment."""
    m = re.fullmatch(r"\$\{?([A-Za-z_]\w*)\}?", value)
    if m:
        return f"env({lit(m.group(1))})"
    if MASK in value:
        return f"env({lit('HEADER_' + re.sub(r'[^A-Za-z0-9]', '_', name).upper())})"
    return lit(value)


def _pattern(pattern: str) -> str:
    found = matcher(pattern)
    if isinstance(found, str):
        return lit(found)
    flags = "".join(f for f, bit in (("i", re.I), ("m", re.M), ("s", re.S))
                    if found.flags & bit)
    return f"new RegExp({lit(found.pattern)}{', ' + lit(flags) if flags else ''})"
