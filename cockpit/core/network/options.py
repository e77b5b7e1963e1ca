"""The session flags --device, --proxy, --locale, --timezone, --har: checked before the
session starts (ValueError: a usage error of the face) and kept in its NetworkState."""

from __future__ import annotations

import json
import re
import zoneinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .state import proxy_option
from ..language.parser import excerpt

if TYPE_CHECKING:
    from .state import NetworkState

LOCALE_TAG = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*")


def check_timezone(name: str) -> str:
    """The IANA name; ValueError for one that is not (Chromium would run in UTC)."""
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"{excerpt(name)!r} is not an IANA timezone: give one like Europe/Paris, "
                         "America/New_York or UTC") from None
    return name


def check_locale(tag: str) -> str:
    if not LOCALE_TAG.fullmatch(tag):
        raise ValueError(f"{excerpt(tag)!r} is not a language tag: give one like de-DE, fr "
                         "or pt-BR")
    return tag


def check_har(path: Path) -> Path:
    path = path.expanduser().resolve()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"--har {path}: {exc.strerror or exc}") from None
    except ValueError:
        raise ValueError(f"--har {path} is not JSON: give a HAR file (`har start` writes "
                         "one)") from None
    if not isinstance(data, dict) or not isinstance(data.get("log"), dict):
        raise ValueError(f"--har {path} is not a HAR file (no \"log\"): give one `har "
                         "start` or a browser's devtools wrote")
    return path


def configure_network(state: NetworkState, owns_browser: bool, *, device: str | None = None,
                      proxy: str | None = None, locale: str | None = None,
                      timezone: str | None = None, har: Path | None = None,
                      har_missing: str = "fallback") -> None:
    """Put the flags into the session's NetworkState (`owns_browser`: Cockpit launches
    the browser, so it can set what only a launch can); ValueError names a bad one."""
    launched: list[tuple[str, Any]] = [("--device", device), ("--proxy", proxy)]
    for flag, value in launched:
        if value and not owns_browser:
            raise ValueError(f"{flag} needs a browser Cockpit launches; a browser attached "
                             "with --cdp or --ws-endpoint keeps its own")
    if proxy:
        proxy_option(proxy)  # a URL it cannot use is said now
        state.proxy = proxy
    state.device = device or None  # its options are read from Playwright at start
    try:
        state.locale = check_locale(locale) if locale else None
    except ValueError as exc:
        raise ValueError(f"--locale {exc}") from None
    try:
        state.timezone = check_timezone(timezone) if timezone else None
    except ValueError as exc:
        raise ValueError(f"--timezone {exc}") from None
    if har is not None:
        state.har_replay = check_har(har)
        state.har_missing = har_missing
