"""What settling learns of an action from the browser's side: the requests, navigation
and downloads of its tab since it began, and what the page's probes answered (settle.py
waits on it; the tab feeds it its requests)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Request

# A request that starts this long after everything else the action set going is not its
# consequence: an app's autosave a second after the edit, a poll. (The page reports its
# own fetches by their cause, `fetches`; this is for what it cannot.)
LATE_REQUEST_S = 0.5
IGNORED_TYPES = frozenset({"websocket", "eventsource", "manifest", "other"})


@dataclass
class Watch:
    """Requests, navigations and downloads seen since an action on one tab began."""

    tab_id: int = 0
    started: float = field(default_factory=time.monotonic)
    since_ms: float = field(default_factory=lambda: time.time() * 1000 - 5)
    pending: set[Request] = field(default_factory=set)
    count: int = 0
    navigated: bool = False  # a main-frame navigation request of this tab started
    committed: bool = False  # ... and its document replaced the old one
    nav_request: Request | None = None
    nav_done: bool = False  # the navigation request finished or failed (204, download)
    downloads: list[asyncio.Task[Any]] = field(default_factory=list)  # saving a download
    file_chooser: bool = False  # the tab reported a file chooser opening
    last_activity: float = field(default_factory=time.monotonic)
    # The page's own fetches and XHRs (its main frame's), which its init script reports
    # (`fetches`), body reads included: the quiet after the action's requests need not
    # bridge what comes of them. `unreported`: how many others (images, scripts, frames,
    # other tabs'), and when one last started or ended.
    reported: set[Any] = field(default_factory=set)
    unreported: int = 0
    last_unreported: float = field(default_factory=time.monotonic)
    scripted: bool = False  # the page answered a probe: it reports its fetches
    open: bool = True  # still counting new requests as caused by the action
    # A probe made by the action itself, right after it (quick_click.py): settling's
    # first look, not asked again.
    first_probe: dict[str, Any] | None = None
    # What the change tracker answered in probes that found the page quiet (PROBE_JS; each
    # answer starts the tracker over), and whether the last is the last word: settling
    # ended on it and awaited nothing more. Else changes.update queries once more.
    changes: list[Any] = field(default_factory=list)  # each as PROBE_JS gave it
    changes_final: bool = False
    wants_changes: bool = True  # False: a full snapshot follows (COCKPIT_FULL_DIFF=1)
    closed: bool = False  # the action's tab closed while settling (a popup closed itself)
    popup: bool = False  # the tab's page opened another (window.open, a target=_blank link)
    # The fields the browser's constraint validation refused a submission for (settle_js:
    # `refused`), each {label, tag, type, message}; None when it refused none.
    refused: list[dict[str, Any]] | None = None
    # The action's new document had not loaded when settling gave up: its page may be only
    # what was parsed so far (a script in its <head> still coming: an empty body)
    still_loading: bool = False
    # The action's script requests on their way, and when one last arrived (monotonic):
    # a script a new page asks for after its `load` is evaluated after it arrives
    # (after_load.booted)
    scripts: set[Request] = field(default_factory=set)
    last_script: float = 0.0

    def request_started(self, request: Request, resource: str, is_navigation: bool,
                        reported: bool = False) -> None:
        """`reported`: a fetch or XHR of this tab's main frame, which its page reports."""
        if is_navigation:
            self.navigated, self.committed, self.nav_done = True, False, False
            self.nav_request = request
        if not self.open or resource in IGNORED_TYPES:
            return
        if not is_navigation and not self.pending and \
                time.monotonic() - self.last_activity > LATE_REQUEST_S:
            return  # long after all else: not the action's (an autosave, a poll)
        self.pending.add(request)
        self.count += 1
        self.last_activity = time.monotonic()
        if resource == "script":
            self.scripts.add(request)
        if reported:
            self.reported.add(request)
        else:
            self.unreported += 1
            self.last_unreported = self.last_activity

    def request_ended(self, request: Request, final: bool = False) -> None:
        if final and request is self.nav_request:
            self.nav_done = True
        if request in self.pending:
            self.pending.discard(request)
            self.last_activity = time.monotonic()
            if request not in self.reported:
                self.last_unreported = self.last_activity
            if request in self.scripts:
                self.scripts.discard(request)
                self.last_script = self.last_activity
