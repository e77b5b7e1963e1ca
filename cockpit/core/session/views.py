"""What views ask of a session (the panes, zoom, `status`, `cockpit attach` over the
socket): not commands, so nothing is logged and nothing waits in the command queue,
except the ref labels drawn on the page for a picture, which touch it."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

from ..page.annotate import draw_ref_labels, remove_ref_labels
from ..page.targets import resolve

if TYPE_CHECKING:
    from pathlib import Path

    from ..browser.attach import Attach
    from ..browser.browser import LaunchPlan
    from ..browser.shared import SharedBrowser
    from ..capture.capture import Capture
    from ..handoff.handoff import Handoff
    from ..live.screencast import LiveView
    from ..model.snapshot import Snapshot
    from ..network.state import NetworkState
    from ..page.tab import Tab
    from ..policy import Policy
    from .agent import Agent

log = logging.getLogger(__name__)


async def picture_of(tab: Tab | None, lock: asyncio.Lock, *, labels: bool, timeout: float,
                     target: str | None) -> bytes | None:
    """A PNG of the tab's viewport, optionally with ref labels drawn on it, or of one
    element (`target`: a ref or a selector, as `zoom` takes). None while a dialog blocks
    the page or the tab (or the target) cannot be pictured."""
    if tab is None or tab.dialog is not None or tab.page.is_closed():
        return None
    try:
        if target:
            locator = await resolve(tab, target)
            return await locator.screenshot(type="png", timeout=timeout * 1000)
        if not labels:
            return await tab.page.screenshot(type="png", timeout=timeout * 1000)
        async with lock:  # drawing labels touches the page: not during a command
            # bounded as a whole: a hung page must not keep the lock from commands
            return await asyncio.wait_for(_labelled(tab, timeout), timeout * 3)
    except Exception:  # closing, navigating, a stale target: no picture this time
        log.debug("no picture of tab %s", tab.id, exc_info=True)
        return None


async def _labelled(tab: Tab, timeout: float) -> bytes:
    await draw_ref_labels(tab.page, tab.names)
    try:
        return await tab.page.screenshot(type="png", timeout=timeout * 1000)
    finally:
        await remove_ref_labels(tab.page)


class Described(Protocol):
    """What `status` shows of a session (the Session has it all)."""

    @property
    def name(self) -> str: ...
    @property
    def plan(self) -> LaunchPlan | None: ...
    @property
    def attach(self) -> Attach | None: ...
    @property
    def agent(self) -> Agent | None: ...
    @property
    def engine(self) -> str: ...
    @property
    def headed(self) -> bool: ...
    @property
    def tabs(self) -> list[Tab]: ...
    @property
    def active(self) -> Tab | None: ...
    @property
    def commands_run(self) -> int: ...
    @property
    def agents_held(self) -> str | None: ...
    @property
    def handoff(self) -> Handoff: ...
    @property
    def policy(self) -> Policy: ...
    @property
    def recording_path(self) -> Path | None: ...
    @property
    def started_at(self) -> float: ...
    @property
    def owns_browser(self) -> bool: ...
    @property
    def shared(self) -> SharedBrowser | None: ...
    @property
    def profile_dir(self) -> Path: ...
    @property
    def files_dir(self) -> Path: ...
    @property
    def network(self) -> NetworkState: ...
    @property
    def live_view(self) -> LiveView: ...
    @property
    def capture(self) -> Capture: ...


def status_of(session: Described) -> dict[str, Any]:
    """The session as `status` and the views show it."""
    active, plan = session.active, session.plan
    return {
        "session": session.name,
        "browser": plan.description if plan else None,
        "browser_kind": session.attach.kind if session.attach else "local",
        "endpoint": plan.shown_endpoint if plan else None,
        "agent": session.agent.state if session.agent else None,
        "engine": session.engine,
        "headed": session.headed,
        "tabs": len(session.tabs),
        "active": active.info() if active else None,
        "commands_run": session.commands_run,
        "agents_held": session.agents_held,
        "handoff": session.handoff.status(),
        "policy": session.policy.describe(),  # --allow-domain, --confirm (core/policy)
        "recording": str(session.recording_path) if session.recording_path else None,
        "uptime_s": round(time.time() - session.started_at, 1),
        # an attached browser (--cdp, --ws-endpoint) has a profile of its own, not ours
        "profile": str(session.profile_dir) if session.owns_browser and session.shared is None
        else None,
        "files": str(session.files_dir),
        # routes, HAR and emulation (core/network/state.py): never a password
        "network": session.network.summary(),
        # where `cockpit web` serves the page live (its token is never said here)
        "web_view": session.live_view.web_url,
        # `cockpit record`: the whole session is a person's, captured as they drive it
        "captures_everything": session.capture.everything,
    }


def refs_of(snap: Snapshot | None) -> list[tuple[str, str, str, str]]:
    """(ref, role, name, value) of each ref of a snapshot: an element is named by its
    label where it has one (its words on screen, as `snapshot -i` names it)."""
    if snap is None:
        return []
    return [(ref, n.role, n.label or n.name, n.value) for ref, n in snap.refs.items()]
