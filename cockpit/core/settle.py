"""Settling: after an action, wait for what it started, and no longer.

`networkidle` alone returns too early (a click's fetch may not have begun) or too late
(a page that polls is never idle). So we count the requests that start while the action
runs and shortly after, wait for those to finish and for the network to stay quiet, and
wait for a navigation's `load` if the action started one. Everything is bounded.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from playwright.async_api import Error as PlaywrightError

GRACE_S = 0.1  # for handlers to start their requests, navigation or a new tab
QUIET_S = 0.5  # the network caused by the action must stay quiet this long
LOAD_CAP_S = 10.0  # the most we wait for a navigation's load or the action's requests
IGNORED_TYPES = frozenset({"websocket", "eventsource", "manifest", "other"})


@dataclass
class Watch:
    """Requests and navigations seen since an action on one tab began."""

    tab_id: int = 0
    started: float = field(default_factory=time.monotonic)
    pending: set = field(default_factory=set)
    count: int = 0
    navigated: bool = False
    last_activity: float = field(default_factory=time.monotonic)
    open: bool = True  # still counting new requests as caused by the action

    def request_started(self, request, resource: str, is_navigation: bool) -> None:
        if is_navigation:
            self.navigated = True
        if not self.open or resource in IGNORED_TYPES:
            return
        self.pending.add(request)
        self.count += 1
        self.last_activity = time.monotonic()

    def request_ended(self, request) -> None:
        if request in self.pending:
            self.pending.discard(request)
            self.last_activity = time.monotonic()


async def settle(page, watch: Watch, quiet: float = QUIET_S, cap: float = LOAD_CAP_S) -> str:
    """Wait for the action's effects; return a note when we gave up waiting, else ''."""
    await asyncio.sleep(GRACE_S)
    deadline = time.monotonic() + cap
    note = ""
    if watch.navigated:
        try:
            await page.wait_for_load_state("load", timeout=cap * 1000)
        except PlaywrightError:  # a timeout, or the page closed: the note says so
            note = f"the page was still loading after {cap:.0f} s"
    while time.monotonic() < deadline:
        if watch.count == 0:
            break  # the action started no requests: nothing to wait for
        idle_for = time.monotonic() - watch.last_activity
        if not watch.pending and idle_for >= quiet:
            break
        await asyncio.sleep(0.02 if watch.pending else max(0.01, quiet - idle_for))
    else:
        if watch.pending:
            note = note or (f"{len(watch.pending)} request(s) the action started were still "
                            f"running after {cap:.0f} s")
    watch.open = False
    return note
