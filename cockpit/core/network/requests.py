"""One request of `network` in full (`request N`): method, URL, status, headers, a body
preview and timing, with what grants access masked: cookies, Authorization headers,
tokens in query strings, credentials in a URL, bearer tokens and JWTs in a body."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from playwright.async_api import Error as PlaywrightError

from ..page.buffers import NetworkEntry
from ..secrets.mask import Masker

log = logging.getLogger("cockpit")

HIDDEN = "***"
SECRET_HEADERS = frozenset({"cookie", "set-cookie", "authorization", "proxy-authorization",
                            "x-api-key", "x-auth-token", "x-csrf-token", "x-xsrf-token"})
# query parameters that carry a credential (access_token, api_key, sig, password...)
SECRET_PARAM = re.compile(r"(?i)(token|secret|passw|pwd|api[-_]?key|apikey|^key$|auth|"
                          r"session|^sid$|sig(nature)?$|credential|^code$)")
BODY_PREVIEW = 2_000  # characters of a body shown
BODY_WAIT_S = 2.0  # how long `request N` waits for a body still arriving
TEXTUAL = re.compile(r"(?i)^(text/|application/(json|.*\+json|xml|.*\+xml|javascript|"
                     r"x-www-form-urlencoded|graphql))")

_TOKENS = Masker(tokens=True)  # JWTs and `Bearer ...` wherever they appear


def mask_url(url: str) -> str:
    """The URL with its password and its credential-like query values as ***."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if parts.password:
        netloc = netloc.replace(f":{parts.password}@", f":{HIDDEN}@", 1)
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(SECRET_PARAM.search(k) for k, _ in pairs):
            query = urlencode([(k, HIDDEN if SECRET_PARAM.search(k) else v)
                               for k, v in pairs], safe="*/:")
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def mask_headers(headers: dict[str, str]) -> dict[str, str]:
    return {k: HIDDEN if k.lower() in SECRET_HEADERS else _TOKENS.text(v)
            for k, v in sorted(headers.items())}


def mask_credentials(text: str, content_type: str = "") -> str:
    """A request body with its tokens masked, and a form's credential fields as ***."""
    if "x-www-form-urlencoded" in content_type:
        pairs = parse_qsl(text, keep_blank_values=True)
        text = urlencode([(k, HIDDEN if SECRET_PARAM.search(k) else v) for k, v in pairs],
                         safe="*/:")
    return _TOKENS.text(text)


def mask_body(text: str, content_type: str = "") -> str:
    """A body preview: cut, tokens masked, and a form's credential fields as ***."""
    text = mask_credentials(text, content_type)
    return text if len(text) <= BODY_PREVIEW else \
        f"{text[:BODY_PREVIEW]}… ({len(text) - BODY_PREVIEW} more characters)"


async def detail(entry: NetworkEntry) -> dict[str, Any]:
    """What is known of the request: all of it while its page lives, else the list's."""
    out: dict[str, Any] = {"id": entry.id, "tab": entry.tab, "method": entry.method,
                           "url": mask_url(entry.url), "resource": entry.resource,
                           "status": entry.status, "failure": entry.failure,
                           "ms": entry.ms, "gone": False}
    request = entry.ref() if entry.ref is not None else None
    if request is None:
        out["gone"] = True
        return out
    try:
        out["request_headers"] = mask_headers(await request.all_headers())
        post = request.post_data
        if post:
            out["request_body"] = mask_body(post, request.headers.get("content-type", ""))
        timing = request.timing
        out["timing"] = {k: round(v, 1) for k, v in timing.items() if v is not None and v >= 0}
        response = await request.response()
        if response is not None:
            out["status"] = response.status
            out["status_text"] = response.status_text
            headers = await response.all_headers()
            out["response_headers"] = mask_headers(headers)
            out["response_body"] = await _body_preview(response,
                                                       headers.get("content-type", ""))
    except PlaywrightError:  # its page closed meanwhile: what was read stays
        log.debug("request %s: not all of it could be read", entry.id, exc_info=True)
        out["gone"] = True
    return out


async def _body_preview(response: Any, content_type: str) -> str | None:
    if not TEXTUAL.match(content_type or "text/"):
        return f"({content_type or 'binary'} body not shown)"
    try:
        # bounded: Chromium finishes a fetch's response only once the page reads its body,
        # and Playwright's body() waits for that (a `fetch().then(r => r.status)`)
        body = await asyncio.wait_for(response.body(), BODY_WAIT_S)
    except PlaywrightError:  # a redirect, or the body was not kept
        return None
    except TimeoutError:
        return "(the body has not finished arriving: the page has not read it, or it " \
               "still streams)"
    return mask_body(body.decode("utf-8", "replace"), content_type)


def as_text(found: dict[str, Any]) -> str:
    status = found.get("failure") or found.get("status") or "pending"
    text = f" {found['status_text']}" if found.get("status_text") else ""
    ms = f"{found['ms']:.0f} ms" if found.get("ms") is not None else "pending"
    lines = [f"#{found['id']} {found['method']} {found['url']}",
             f"status: {status}{text}, {ms}, {found['resource']}, tab {found['tab']}"]
    for key, label in (("request_headers", "request headers"),
                       ("response_headers", "response headers")):
        if found.get(key):
            lines.append(f"{label}:")
            lines += [f"  {k}: {v}" for k, v in found[key].items()]
    for key, label in (("request_body", "request body"), ("response_body", "response body")):
        if found.get(key):
            lines += [f"{label}:", "  " + found[key].replace("\n", "\n  ")]
    if found.get("timing"):
        lines.append("timing (ms from start): " + ", ".join(
            f"{k} {v}" for k, v in found["timing"].items() if k != "startTime"))
    if found.get("gone"):
        lines.append("(its page is gone: headers and body are no longer available)")
    return "\n".join(lines)
