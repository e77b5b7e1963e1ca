"""One browser tab: its page, its current and previous snapshot, and its modal state."""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from typing import TYPE_CHECKING, Any

from . import changes, quick_click
from ..base import events as ev
from .buffers import (
    CONSOLE_FLOOD_PER_S,
    CONSOLE_MAX_PAUSE_S,
    CONSOLE_PAUSE_S,
    ConsoleEntry,
    DialogEntry,
    FloodGuard,
    NetworkEntry,
    cut,
)
from .downloads import TabDownloads
from .hidden import keep_snapshot_refs
from ..base.logs import spawn, tolerated
from ..secrets.secret_fields import count_secret_fields, mask_secrets
from ..settle.watch import Watch
from ..model.refnames import RefNames
from ..model.snapshot import Snapshot

if TYPE_CHECKING:
    from playwright.async_api import (
        ConsoleMessage, Dialog, FileChooser, Frame, JSHandle, Page, Request, Response,
    )
    from playwright.async_api import Error as PlaywrightError

    from .host import TabHost

log = logging.getLogger(__name__)


# Snapshots this long (~10 ms of parsing and up) are parsed in a worker thread: the event
# loop, which the TUI shares, keeps echoing keys meanwhile (the GIL is handed back every
# few ms). Shorter ones are parsed in place.
THREAD_PARSE_CHARS = 50_000

# Read (and on first read, set) a random token on the page's window: a new document has
# none, so a changed token means the refs of older snapshots are void. History API
# navigations keep the document, and so keep their refs and a meaningful diff.
DOC_TOKEN_JS = "() => (window.__cockpitDoc ??= Math.random().toString(36).slice(2))"


class Tab(TabDownloads):
    """Wraps a Playwright page; listens to it and reports through the session's bus."""

    def __init__(self, session: TabHost[Tab], page: Page, tab_id: int) -> None:
        self.session = session
        self.page = page
        self._navigating = False  # a main-frame navigation request is on its way
        self.id = tab_id
        self.title = ""
        self.loading = False
        self.snapshot: Snapshot | None = None
        # The diff of the step that took `snapshot` (as `(snapshot, Diff)`), while that is
        # still the tab's: `snapshot -D` right after the step shows all of it. Dropped with
        # its snapshot: a page of 10,000 refs costs ~12 MB a snapshot, and a session kept one
        # stale snapshot this way (and another in a field nobody read).
        self.last_diff: tuple[Snapshot, Any] | None = None
        # `snapshot` was taken when a step's new page was still loading (settling gave up):
        # what came of the page since is not the next step's doing (session/execute.py)
        self.partial_page = False
        self.names = RefNames()  # the refs this tab shows for Playwright's (refnames.py)
        # A region snapshot (changes.py) left Playwright's `aria-ref=` map of the main frame
        # holding that region only: refs are then found with the `cockpit-ref=` engine.
        self.partial_refs = False
        self.dialog: Dialog | None = None  # the open one, if any
        self.dialog_entry: DialogEntry | None = None
        self.file_chooser: FileChooser | None = None  # a pending one
        self.acting: asyncio.Task[Any] | None = None  # the task running a command on this tab
        self.cancelled_for_dialog = False
        self._network: dict[Any, NetworkEntry] = {}
        # Playwright keeps each request (and its response) of a page until the page
        # closes: core/recycle.py gives the tab a fresh page past a bound
        self.requests_seen = 0
        self.earlier_url: str | None = None  # where the page before a recycled one was
        # the main frame's latest document response, and a copy of its body once read
        # (core/carry.py: a POST-reached page is shown again from it after a relaunch)
        self.document_response: Any = None
        self.document_copy: tuple[Any, Any] | None = None
        self._console_guard = FloodGuard(CONSOLE_FLOOD_PER_S)
        self._console_pause = CONSOLE_PAUSE_S  # grows while a flood goes on
        self._console_reopened = float("-inf")
        # The tab whose page opened this one (window.open, target=_blank): the one to go
        # back to when this one closes itself (Session.tab_closed).
        self.opener: Tab | None = None
        self._attach()
        spawn(self._learn_opener(), f"finding the opener of tab {self.id}")

    # --- state other parts read -------------------------------------------------------
    @property
    def url(self) -> str:
        return self.page.url

    @property
    def index(self) -> int:
        """1-based position among the session's tabs (what `tab N` takes)."""
        return self.session.tabs.index(self) + 1

    def info(self) -> dict[str, Any]:
        return {"index": self.index, "id": self.id, "title": self.title, "url": self.url,
                "loading": self.loading, "active": self.session.active is self,
                "dialog": self.dialog_entry.to_json() if self.dialog and self.dialog_entry
                else None}  # set together (_on_dialog)

    # --- snapshots --------------------------------------------------------------------
    async def document_id(self) -> str:
        """A token that names the main frame's current document (refs die with it)."""
        token: str = await self.page.evaluate(DOC_TOKEN_JS)
        return token

    async def take_snapshot(self) -> Snapshot:
        """Take a full snapshot; it becomes the one refs are checked against."""
        # The change trackers of every frame start over first (what changes from now on
        # is what the next action's diff looks at), and read the document's token.
        doc, unread = await changes.mark(self.page)
        # Round trips at once: the snapshot itself dominates, the others ride along.
        text, title, fields, _ = await asyncio.gather(
            self.page.aria_snapshot(mode="ai"), self.page.title(),
            count_secret_fields(self.page),
            changes.read_stylesheets(self.page, unread, self.session.stylesheets))
        self.title = title

        async def retake() -> Snapshot:  # the field lookups replaced Playwright's ref map
            return await self._parse(await self.page.aria_snapshot(mode="ai"), doc)

        if self.snapshot is None or self.snapshot.doc != doc:  # a new document
            spawn(quick_click.prime(self.page), f"priming tab {self.id} for clicks")
        snap = await self._parse(text, doc)
        # a page with password fields: each one's lookup left Playwright's ref map of the
        # main frame holding that field only, and our engine finds its refs (no second look)
        snap, looked = await mask_secrets(self.page, snap, self.session.redactor.learn_value,
                                          fields=fields, before=self.snapshot, retake=retake)
        # elements a popover hid or showed again keep their refs (hidden.py)
        keep_snapshot_refs(self.snapshot, snap, self.names)
        if self.snapshot is not None and self.snapshot.doc == snap.doc:
            snap.behind = {ref: node for ref, node in self.snapshot.behind.items()
                           if ref not in snap.refs}  # still behind the popover
            snap.inert = self.snapshot.inert
        self.partial_refs = self.page.main_frame in looked
        self.adopt(snap)
        self.names.keep_only((n.pw for n in snap.refs.values() if n.pw), len(snap.refs))
        return snap

    def blank_snapshot(self) -> Snapshot | None:
        """The snapshot of a new tab's blank page, without asking the browser (it is
        empty), or None when the tab shows anything else (a page, a frame, a snapshot
        taken already)."""
        if self.snapshot is not None or self.page.url != "about:blank" or \
                len(self.page.frames) > 1:
            return None
        snap = Snapshot.from_text("", self.names, url="about:blank", title="",
                                  doc=f"blank-{self.id}")  # no real document's token
        self.adopt(snap)
        return snap

    def adopt(self, snap: Snapshot) -> None:
        """Make `snap` (full, or patched from regions) the one refs are checked against."""
        self.title = snap.title
        self.snapshot = snap
        self.partial_page = False
        if self.last_diff is not None and self.last_diff[0] is not snap:
            self.last_diff = None
        self.session.bus.emit(ev.SNAPSHOT, tab=self.id, url=snap.url, refs=len(snap.refs))

    async def _parse(self, text: str, doc: str) -> Snapshot:
        if len(text) < THREAD_PARSE_CHARS:  # a thread hop would cost more than it saves
            return Snapshot.from_text(text, self.names, url=self.page.url, title=self.title,
                                      doc=doc)
        # a big page: parsed beside the event loop, which a TUI shares (keys keep echoing)
        return await asyncio.to_thread(Snapshot.from_text, text, self.names,
                                       url=self.page.url, title=self.title, doc=doc)

    # --- settling -----------------------------------------------------------------------
    def watch(self) -> Watch:
        """Start counting what an action on this tab causes. Requests of every tab count
        (a link may open its page in a new one); navigation only of this tab's own."""
        watch = Watch(tab_id=self.id)
        self.session.watches.append(watch)
        return watch

    def unwatch(self, watch: Watch) -> None:
        if watch in self.session.watches:
            self.session.watches.remove(watch)

    # --- page events --------------------------------------------------------------------
    def _attach(self) -> None:
        p = self.page
        p.on("console", self._on_console)
        p.on("pageerror", self._on_pageerror)
        p.on("dialog", self._on_dialog)
        p.on("filechooser", self._on_filechooser)
        p.on("download", self._on_download)
        p.on("popup", self._on_popup)
        p.on("request", self._on_request)
        # A response ends a request for settling: `requestfinished` waits for the body,
        # which never comes for a fetch whose body the page does not read.
        p.on("response", self._on_response)
        p.on("requestfinished", lambda r: self._on_request_end(r, None))
        p.on("requestfailed", lambda r: self._on_request_end(r, r.failure or "failed"))
        p.on("framenavigated", self._on_framenavigated)
        p.on("domcontentloaded", lambda _: self._set_loading(False, refresh_title=True))
        p.on("load", lambda _: self._set_loading(False, refresh_title=True))
        p.on("close", lambda _: self._on_close(p))
        p.on("crash", lambda _: self._on_crash(p))

    async def _learn_opener(self) -> None:
        with tolerated(f"finding the opener of tab {self.id}", log):  # it closed already
            page = await self.page.opener()
            self.opener = next((t for t in self.session.tabs if t.page is page), None) \
                if page is not None else None

    def rebind(self, page: Page) -> None:
        """Take over a page of a relaunched browser (handoff): same tab, new page. The
        snapshot stays for diffing; its refs fail as "from an earlier page"."""
        self.page = page
        self.names.new_page()  # Playwright's refs start over on it: e1 is another element
        self.loading = self._navigating = False
        self.partial_refs = False
        self.dialog = self.dialog_entry = self.file_chooser = None
        self._network = {}
        self.requests_seen = 0
        self.earlier_url = None
        self.document_response = self.document_copy = None
        self._console_guard.reopen()
        self._attach()

    def _on_crash(self, page: Page) -> None:
        if page is self.page and not self.session.closing:
            self.session.recovery.renderer_crashed(self)

    def _on_close(self, page: Page) -> None:
        if page is self.page and not self.session.switching:
            self.session.tab_closed(self)

    def _emit(self, kind: str, **data: Any) -> None:
        self.session.bus.emit(kind, **{"tab": self.id, **data})

    def _on_console(self, msg: ConsoleMessage) -> None:
        if not self._console_guard.admit():
            self._pause_console()
            return
        entry = ConsoleEntry(self.id, msg.type, cut(msg.text), cut(self.page.url))
        if msg.args:  # its text is all we keep: the page's objects can go (Playwright
            # keeps a handle to each until the page navigates: a page that logs for
            # hours would grow us, and its renderer, without end)
            spawn(_dispose(msg.args), "releasing a console message's arguments")
        self.session.buffers.console.add(entry)
        self._emit(ev.CONSOLE, level=entry.level, text=entry.text)

    def _pause_console(self) -> None:
        """A flood (`for(;;) console.log(...)`): stop listening for a while — Playwright
        then stops sending them to us at all — rather than spend the event loop and
        hundreds of MB on lines nobody can read. Said in the console buffer, at once."""
        page = self.page
        page.remove_listener("console", self._on_console)
        loop = asyncio.get_running_loop()
        # a flood that goes on finds us back each time: each pause twice the last
        again = loop.time() - self._console_reopened < 2 * self._console_pause
        self._console_pause = (min(self._console_pause * 2, CONSOLE_MAX_PAUSE_S) if again
                               else CONSOLE_PAUSE_S)
        text = (f"console flood: more than {CONSOLE_FLOOD_PER_S} messages in a second; "
                f"messages of the next {self._console_pause:g} s are not kept")
        self.session.buffers.console.add(ConsoleEntry(self.id, "warning", text,
                                                      cut(page.url)))
        self._emit(ev.CONSOLE, level="warning", text=text)
        loop.call_later(self._console_pause, self._listen_console, page)

    def _listen_console(self, page: Page) -> None:
        if page is self.page and not page.is_closed():
            self._console_reopened = asyncio.get_running_loop().time()
            self._console_guard.reopen()
            page.on("console", self._on_console)

    def _on_pageerror(self, error: PlaywrightError) -> None:
        text = f"{getattr(error, 'name', 'Error')}: {getattr(error, 'message', error)}"
        text = cut(text)
        self.session.buffers.console.add(ConsoleEntry(self.id, "pageerror", text,
                                                      cut(self.page.url)))
        self._emit(ev.PAGE_ERROR, text=text)

    def _on_dialog(self, dialog: Dialog) -> None:
        self.dialog = dialog
        self.dialog_entry = DialogEntry(self.id, dialog.type, dialog.message,
                                        dialog.default_value)
        self.session.buffers.dialogs.add(self.dialog_entry)
        self._emit(ev.DIALOG_OPENED, **self.dialog_entry.to_json())
        if self.acting is not None and not self.cancelled_for_dialog:
            self.cancelled_for_dialog = True  # the command's await can never finish now
            self.acting.cancel()

    def dialog_answered(self, answer: str) -> None:
        if self.dialog_entry:
            self.dialog_entry.answer = answer
            self._emit(ev.DIALOG_CLOSED, type=self.dialog_entry.type, answer=answer)
        self.dialog = None

    def _on_filechooser(self, chooser: FileChooser) -> None:
        self.file_chooser = chooser
        for watch in self.session.watches:  # the action that opened it waits for this
            if watch.tab_id == self.id:
                watch.file_chooser = True
        self._emit(ev.FILE_CHOOSER, multiple=chooser.is_multiple())

    def _on_popup(self, page: Page) -> None:
        for watch in self.session.watches:  # the action that opened it waits for this
            if watch.tab_id == self.id:
                watch.popup = True

    def _on_request(self, request: Request) -> None:
        entry = NetworkEntry(self.id, request.method, cut(request.url), request.resource_type,
                             id=next(self.session.request_ids), ref=weakref.ref(request))
        self._network[request] = entry
        self.requests_seen += 1
        self.session.buffers.network.add(entry)
        resource = request.resource_type
        is_nav = request.is_navigation_request() and request.frame == self.page.main_frame
        self._navigating = self._navigating or is_nav
        # a fetch or XHR of this page's main frame: its settle script follows it (settle.py)
        own = resource in ("fetch", "xhr") and request.frame == self.page.main_frame
        for watch in self.session.watches:
            mine = watch.tab_id == self.id
            watch.request_started(request, resource, is_nav and mine, own and mine)

    def _on_response(self, response: Response) -> None:
        request = response.request
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            self.document_response = response
        entry = self._network.get(request)
        if entry is not None:
            entry.status = response.status
            entry.ms = (time.time() - entry.started) * 1000
        for watch in self.session.watches:
            watch.request_ended(response.request)

    def _on_request_end(self, request: Request, failure: str | None) -> None:
        if failure and request.is_navigation_request() and \
                request.frame == self.page.main_frame:
            self._navigating = False  # no document comes of it
        entry = self._network.pop(request, None)
        if entry is not None:
            if entry.ms is None:
                entry.ms = (time.time() - entry.started) * 1000
            if failure and entry.status is None:
                entry.failure = failure
        for watch in self.session.watches:
            watch.request_ended(request, final=True)

    def _on_framenavigated(self, frame: Frame) -> None:
        if frame != self.page.main_frame:
            return
        for watch in self.session.watches:
            if watch.tab_id == self.id:
                watch.committed = True
        # a same-document navigation (`#part`, pushState) loads nothing: no `load` follows
        self.loading, self._navigating = self._navigating, False
        self.file_chooser = None
        self._emit(ev.NAVIGATION, url=frame.url)
        self._emit(ev.TAB_UPDATED, **self.info())

    def _set_loading(self, loading: bool, refresh_title: bool = False) -> None:
        self.loading = loading
        if refresh_title:
            spawn(self._refresh_title(), f"reading the title of tab {self.id}")

    async def _refresh_title(self) -> None:
        with tolerated(f"reading the title of tab {self.id}"):  # it navigated or closed
            self.title = await self.page.title()
        if self in self.session.tabs:  # closed meanwhile: nothing to update
            self._emit(ev.TAB_UPDATED, **self.info())


async def _dispose(handles: list[JSHandle]) -> None:
    for handle in handles:
        with tolerated("disposing of a console argument", log):  # its page may be gone
            await handle.dispose()
