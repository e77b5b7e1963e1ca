"""Keeping a session alive past a page or a browser that stops answering or dies.

Three things go wrong that no command can fix by itself: a renderer that never answers
again (`js while(true){}`, `chrome://hang`, a stopped process), a renderer that crashed
(its Playwright page is dead for good), and a browser that was killed or stopped. The
session notices them (a command past its deadline, Playwright's `crash` and `close`
events), replaces the tab or relaunches the browser on the same profile with its tabs
(core/relaunch.py, as a handoff does), and says so: an event at once, and a line in the
next result of every source, so an agent learns that its refs are void.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from ..base import events as ev
from ..base.logs import spawn, tolerated
from .processes import browser_pids
from .relaunch import BrowserState, TabState, relaunch

if TYPE_CHECKING:
    from playwright.async_api import Page

    from ..base.result import Result
    from .host import BrowserHost
    from ..page.tab import Tab

log = logging.getLogger(__name__)

PROBE_S = 2.0  # a browser or page that does not answer a trivial question in this is hung
RELAUNCH_S = 60.0  # a relaunch that takes longer than this has failed
CLOSED_WITH_BROWSER_S = 2.0  # tabs closed this shortly before the browser died went with it
CRASH_AGAIN_S = 30.0  # a tab that crashes again this soon is not reopened at its URL
NOTES_KEPT = 3


def reopenable(url: str) -> bool:
    """Whether a tab may be opened again at its URL: not the browser's own debugging pages
    (chrome://crash, chrome://hang would do it all again) nor a blank one."""
    return bool(url) and not url.startswith(("chrome:", "chrome-error:", "about:",
                                             "devtools:", "view-source:"))


def kill_browser(profile_dir: Path) -> list[int]:
    """SIGKILL the browser of this profile (a stopped one answers nothing else)."""
    pids = browser_pids(profile_dir)
    for pid in pids:
        with tolerated(f"killing browser process {pid}", log):  # already gone
            os.kill(pid, signal.SIGKILL)
    return pids


@dataclass
class Note:
    """What happened to the browser, for the next result of each source."""

    text: str
    data: dict[str, Any]
    told: set[str] = field(default_factory=set)


class Recovery:
    """The session's watch over its browser; `session.recovery`."""

    def __init__(self, session: BrowserHost) -> None:
        self.session = session
        self.browser_lost: str | None = None  # why the browser must be relaunched
        self.crashed: list[Tab] = []  # tabs whose renderer crashed, to be replaced
        self.dead: str | None = None  # the browser could not be started again
        self.relaunches = 0
        self._notes: list[Note] = []
        self._closed: list[tuple[float, int, Tab]] = []  # (when, index, tab) just closed
        self._front: Tab | None = None  # the active tab before those closed
        self._crash_times: dict[int, float] = {}
        self._scheduled = False

    @property
    def pending(self) -> bool:
        return bool(self.browser_lost or self.crashed)

    # --- noticing (Playwright's events, synchronous) --------------------------------------
    def tab_closed(self, tab: Tab, index: int) -> None:
        """Remembered briefly: a killed browser closes every page just before itself."""
        now = time.monotonic()
        self._closed = [c for c in self._closed if now - c[0] < CLOSED_WITH_BROWSER_S]
        if not self._closed:  # the first of a burst: the tab in front before it began
            self._front = self.session.active
        self._closed.append((now, index, tab))

    def browser_died(self) -> None:
        if self.dead or self.browser_lost:
            return
        self.browser_lost = "the browser closed unexpectedly (killed, or it crashed)"
        self.session.bus.emit(ev.BROWSER_LOST, what="browser", reason=self.browser_lost)
        self._soon()

    def renderer_crashed(self, tab: Tab) -> None:
        if tab in self.crashed or self.browser_lost:
            return
        self.crashed.append(tab)
        self.session.bus.emit(ev.BROWSER_LOST, what="renderer",
                              reason=f"the page of tab {tab.index} crashed ({tab.url})")
        self._soon()

    def _soon(self) -> None:
        """Recover in the background as soon as no command runs (within a second when
        idle); a command that gets its turn first recovers before it runs."""
        if not self._scheduled:
            self._scheduled = True
            spawn(self._in_background(), "recovering the browser")

    async def _in_background(self) -> None:
        try:
            async with self.session.command_lock:
                await self.ensure()
        finally:
            self._scheduled = False

    # --- recovering (called holding the session's command lock) ---------------------------
    async def ensure(self) -> None:
        """Do what the events asked for: relaunch a lost browser, replace crashed tabs."""
        if self.dead or self.session.closing:
            return
        if self.browser_lost:
            await self._relaunch(self.browser_lost, killed=False)
        for tab in list(self.crashed):
            self.crashed.remove(tab)
            if tab in self.session.tabs:
                await self._replace(tab, "its page crashed", reopen=True)

    async def after_deadline(self, tab: Tab | None) -> str:
        """A command ran past its deadline: find what hangs and recover it. Returns what
        was done ("" when the browser and the page answer: the command was only slow)."""
        session = self.session
        if self.pending:
            return await self._ensure_said()
        context = session.context
        if context is None:
            return ""
        try:
            await asyncio.wait_for(context.cookies(), PROBE_S)  # the browser process itself
        except (TimeoutError, PlaywrightError):
            return await self._relaunch("the browser stopped answering", killed=True)
        if tab is None or tab not in session.tabs or tab.page.is_closed():
            return ""
        try:
            await asyncio.wait_for(tab.page.evaluate("1"), PROBE_S)
        except (TimeoutError, PlaywrightError):
            return await self._replace(tab, "its page stopped answering (a script that never "
                                       "ends, or a hung renderer)", reopen=False)
        return ""

    async def _ensure_said(self) -> str:
        before = len(self._notes)
        await self.ensure()
        return "; ".join(n.text for n in self._notes[before:])

    async def _replace(self, tab: Tab, why: str, *, reopen: bool) -> str:
        """A fresh page in the tab's place (same position; a new tab id). A page that
        crashed is opened again at its URL once; a hung one is not (it would hang again)."""
        session = self.session
        url, index, old = tab.url, session.tabs.index(tab), tab.page
        now = time.monotonic()
        again = now - self._crash_times.get(tab.id, -CRASH_AGAIN_S) < CRASH_AGAIN_S
        reopen = reopen and not again and reopenable(url)
        try:
            page = await asyncio.wait_for(session.browser_context().new_page(), PROBE_S * 5)
        except (TimeoutError, PlaywrightError):
            return await self._relaunch(f"tab {tab.index} {why} and no new page opened",
                                        killed=True)
        spawn(_close_quietly(old), f"closing the old page of tab {tab.id}")
        fresh = next(t for t in session.tabs if t.page is page)
        self._crash_times[fresh.id] = now
        session.tabs.remove(fresh)
        if tab in session.tabs:
            session.tabs[session.tabs.index(tab)] = fresh
        else:
            session.tabs.insert(min(index, len(session.tabs)), fresh)
        session.bus.emit(ev.TAB_CLOSED, tab=tab.id, index=index + 1)
        if session.active is tab or session.active is None:
            session.active = fresh
        session.bus.emit(ev.TAB_UPDATED, **fresh.info())
        session.bus.emit(ev.TAB_CHANGED, **session.active.info())
        if reopen:
            with tolerated(f"reopening {url} in the replaced tab", log):
                await page.goto(url, wait_until="commit", timeout=PROBE_S * 5000)
        where = f"reopened at {url}" if reopen else "blank" if not reopenable(url) else \
            f"blank (it was at {url}: `goto` it again)"
        text = (f"tab {index + 1} was replaced by a fresh page because {why}: it is {where}; "
                "its refs are void, take a new snapshot")
        self._note(text, {"what": "renderer", "tab": index + 1, "url": url,
                          "reopened": reopen})
        return text

    async def _relaunch(self, why: str, *, killed: bool) -> str:
        """Start the browser again on the same profile with the tabs it had."""
        session = self.session
        self.browser_lost = None
        self.crashed.clear()
        if not session.owns_browser:  # the user's own browser: never killed nor restarted
            reason = (f"{why}; it is a browser Cockpit attached to (--cdp/--ws-endpoint), "
                      "which Cockpit never restarts: start it again, then Cockpit")
            self.dead = reason
            session.bus.emit(ev.BROWSER_RECOVERED, what="browser", ok=False, reason=reason,
                             tabs=[t.url for t in session.tabs])
            return reason
        if killed:
            session.switching = True  # its pages now close: not tabs that a person closed
            kill_browser(session.profile_dir)
        now = time.monotonic()
        gone = [(i, t) for when, i, t in self._closed if now - when < CLOSED_WITH_BROWSER_S]
        self._closed.clear()
        tabs = list(session.tabs)
        for index, tab in reversed(gone):  # undone in reverse: each index is as it was
            if tab not in tabs:
                tabs.insert(min(index, len(tabs)), tab)
        front = self._front if gone else session.active
        active = tabs.index(front) if front in tabs else 0
        state = BrowserState([TabState(t, t.url if reopenable(t.url) else "about:blank")
                              for t in tabs], active, [])
        session.tabs = tabs  # the tabs it had, so their ids and positions carry over
        for _ in range(50):  # a dying browser keeps its profile locked until it is gone
            if not browser_pids(session.profile_dir):
                break
            await asyncio.sleep(0.1)
        urls = [s.url for s in state.tabs] or ["about:blank"]
        try:
            await asyncio.wait_for(relaunch(session, not session.headed, state), RELAUNCH_S)
        except Exception as exc:  # said in the result and the event; logged
            log.error("relaunching the browser failed", exc_info=True)
            reason = f"{why}, and it could not be started again: {exc or type(exc).__name__}"
            self.dead = reason
            session.bus.emit(ev.BROWSER_RECOVERED, what="browser", ok=False, reason=reason,
                             tabs=urls)
            return reason
        self.relaunches += 1
        text = (f"{why}, so it was relaunched with its tabs ({', '.join(urls)}); session "
                "cookies and refs are void: take a new snapshot")
        self._note(text, {"what": "browser", "tabs": urls})
        return text

    def _note(self, text: str, data: dict[str, Any]) -> None:
        self._notes = [*self._notes[-(NOTES_KEPT - 1):], Note(text, data)]
        self.session.bus.emit(ev.BROWSER_RECOVERED, what=data["what"], ok=True, reason=text,
                              tabs=[t.url for t in self.session.tabs])

    # --- saying so --------------------------------------------------------------------------
    def tell(self, result: Result, source: str, *, skip: str = "") -> Result:
        """The result with what happened since this source's last result said in it (each
        thing once to each source)."""
        news = [n for n in self._notes if source not in n.told]
        for note in news:
            note.told.add(source)
        news = [n for n in news if n.text != skip]
        if not news:
            return result
        said = "; ".join(n.text for n in news)
        data = {**result.data, "recovered": [n.data for n in news]}
        if result.ok:
            return result.but(data=data, output=f"note: {said}" + (
                f"\n{result.output}" if result.output else ""))
        return result.but(data=data, error=f"{result.error} (meanwhile {said})")


async def _close_quietly(page: Page) -> None:
    with tolerated("closing a page that crashed or hung", log):
        await asyncio.wait_for(page.close(run_before_unload=False), PROBE_S * 5)
