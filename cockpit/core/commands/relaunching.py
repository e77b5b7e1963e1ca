"""What only a new browser context can change (a device, HTTP credentials): the browser
is relaunched in the same mode, with its tabs, cookies and storage (browser/relaunch.py).
Helpers of the `device` and `credentials` commands (emulation.py)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ..base.errors import BrowserNotFoundError, CommandError
from ..base.result import Outcome
from ..browser.relaunch import capture, not_ours, relaunch
from ..network.emulate import device_options

if TYPE_CHECKING:
    from ..session.session import Session

log = logging.getLogger("cockpit")


def devices(session: Session) -> dict[str, dict[str, Any]]:
    """Playwright's device descriptors by name."""
    return dict(session.playwright.devices)


async def relaunch_for(session: Session, what: str) -> str:
    """Relaunch the browser so a new context has the session's settings; a note of what
    could not be carried ("" when all was)."""
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
