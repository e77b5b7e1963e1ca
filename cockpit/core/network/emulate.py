"""What only a new browser context can change (a device, HTTP credentials): the browser
is relaunched in the same mode, with its tabs, cookies and storage (core/relaunch.py)."""

from __future__ import annotations

import difflib
import logging
from typing import TYPE_CHECKING, Any

from ..errors import BrowserNotFoundError, CommandError, UsageError
from ..result import Outcome

if TYPE_CHECKING:
    from ..session import Session

log = logging.getLogger("cockpit")

# The device descriptor's keys that are context options (default_browser_type is not).
DEVICE_KEYS = ("user_agent", "viewport", "screen", "device_scale_factor", "is_mobile",
               "has_touch")


def devices(session: Session) -> dict[str, dict[str, Any]]:
    """Playwright's device descriptors by name."""
    playwright = session._playwright
    if playwright is None:
        raise CommandError("the browser is not running: start Cockpit again")
    return dict(playwright.devices)


def device_options(found: dict[str, dict[str, Any]], name: str) -> tuple[str, dict[str, Any]]:
    """The exact name and the context options of a device, found in any case."""
    by_lower = {n.lower(): n for n in found}
    exact = by_lower.get(name.lower())
    if exact is None:
        near = difflib.get_close_matches(name, list(found), n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(repr(n) for n in near)}? " if near else ""
        raise UsageError(f"no device {name!r}: {hint}`device list` names them all")
    descriptor = found[exact]
    return exact, {k: descriptor[k] for k in DEVICE_KEYS if k in descriptor}


async def relaunch_for(session: Session, what: str) -> str:
    """Relaunch the browser so a new context has the session's settings; a note of what
    could not be carried ("" when all was)."""
    from ..relaunch import capture, not_ours, relaunch
    if not session.owns_browser:
        raise CommandError(f"{what} needs a new browser context, and {not_ours(session)}; "
                           f"give --device/--proxy when starting a browser instead")
    state = await capture(session)
    try:
        lost = await relaunch(session, not session.headed, state)
    except BrowserNotFoundError as exc:
        raise CommandError(f"the browser could not be relaunched for {what}: {exc}") from None
    return f" (not carried over: {'; '.join(lost)})" if lost else ""


async def set_device(session: Session, name: str | None) -> Outcome:
    """`device NAME` / `device off`: the browser relaunched with that device."""
    state = session.network
    if name is None:
        if state.device is None:
            return Outcome("no device is emulated", {"device": None})
        state.device, state.device_options = None, {}
        lost = await relaunch_for(session, "device off")
        return Outcome("device emulation off (desktop viewport 1280x800)" + lost,
                       {"device": None})
    exact, options = device_options(devices(session), name)
    before = (state.device, state.device_options)
    state.device, state.device_options = exact, options
    try:
        lost = await relaunch_for(session, f"device {exact}")
    except CommandError:
        state.device, state.device_options = before
        raise
    view = options.get("viewport") or {}
    touch = ", touch" if options.get("has_touch") else ""
    mobile = ", mobile" if options.get("is_mobile") else ""
    return Outcome(f"device {exact}: {view.get('width')}x{view.get('height')} at "
                   f"{options.get('device_scale_factor', 1)}x{touch}{mobile}" + lost,
                   {"device": exact, "options": options})
