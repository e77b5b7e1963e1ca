"""Capture: what a person does in the browser becomes steps.

While a person drives (the window of a `handoff`, or a whole `cockpit record` session),
each click, double-click, fill, select, check, drag, key press and navigation they make
is posted as an ordinary step sent by `human`, with the role and name of its element as
`targets` (as a typed ref step has them): shown in the log as it happens, recorded,
replayed and exported like any other. It is never run again: the person already did it.
In an iframe, its targets name the frame (frames.py); in another tab than they last
acted on (a popup), a `tab N` step comes first.

The page reports trusted DOM events through a binding (capture_js.py). The cockpit's own
commands make trusted events too (Playwright's input is the browser's input), so events
that happened while a command ran are dropped: only the person's are steps.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import deque
from typing import TYPE_CHECKING, Any, Protocol

from playwright.async_api import Error as PlaywrightError

from ..base import events as ev
from ..base.logs import spawn
from ..base.sources import HUMAN
from ..language.registry import REGISTRY
from .capture_js import BINDING, capture_script
from ..page.frames import frame_path
from .steps import REF, step_of

__all__ = ["REF", "Capture", "CaptureHost", "step_of"]

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Frame, Page

    from ..base.events import Event, EventBus

log = logging.getLogger("cockpit")

SETTLE_S = 0.3  # after an action, before its step is posted: where it led is its URL
HELD_S = 0.35  # a click the page holds back (DOUBLE_MS in capture_js.py) is sent in this
LOAD_WAIT_MS = 3000  # ... and at most this for the page it led to to load
POPUP_CLOSE_MS = 600  # ... and for a popup its last action closes to be gone
NAVIGATION_GRACE_S = 2.5  # a new document this soon after an action is that action's
COMMAND_SLACK_S = 0.005  # Date.now() is in whole ms: an event this close to a command is its
SPANS_KEPT = 50
TELL_S = 2.0  # a page told whether to capture answers in this long, or is not waited for


class CaptureHost(Protocol):
    """What capture needs of the session: its bus (commands' times, and where steps
    go), whether a person has the browser now, its tabs, and a way to post a step."""

    @property
    def bus(self) -> EventBus: ...
    @property
    def human_has_control(self) -> bool: ...
    def tab_of_page(self, page: Page) -> dict[str, Any] | None: ...
    def active_page(self) -> Page | None: ...
    async def follow(self, page: Page) -> dict[str, Any] | None:
        """Make the tab showing `page` the active one; its info (None: no tab shows it)."""
        ...
    async def post_step(self, line: str, *, source: str,
                        targets: dict[str, dict[str, Any]], at: dict[str, Any] | None,
                        tab: dict[str, Any] | None, output: str) -> None: ...


class Capture:
    """`session.capture`: installed on every context the session makes; `everything`
    (set by `cockpit record`) captures the whole session, else only while a person has
    control (a handoff)."""

    def __init__(self, host: CaptureHost) -> None:
        self.host = host
        self._everything = False
        self.steps = 0  # posted so far
        self._running: dict[int, float] = {}  # command id -> when it started
        self._spans: deque[tuple[float, float]] = deque(maxlen=SPANS_KEPT)
        self._last_action: dict[Page, float] = {}  # when a person last acted on a page
        self._acting_on: Page | None = None  # the page they last acted on
        self._queue: deque[tuple[Page, dict[str, Any]]] = deque()  # not yet posted
        self._worker: asyncio.Task[Any] | None = None
        self._contexts: weakref.WeakSet[BrowserContext] = weakref.WeakSet()
        # made while capture was off: installed once it turns on (install())
        self._pending: weakref.WeakSet[BrowserContext] = weakref.WeakSet()
        host.bus.subscribe(self._on_event)

    @property
    def on(self) -> bool:
        return self._everything or self.host.human_has_control

    @property
    def everything(self) -> bool:
        return self._everything

    def relays(self, command: str | None) -> bool:
        """Whether the command `command`, relayed from a person's view of the page, is
        their own input now: what it does in the page becomes their captured steps."""
        spec = REGISTRY.get(command) if command else None
        return self.on and spec is not None and spec.relays_input  # a registry fact

    async def capture_everything(self, on: bool = True) -> None:
        """Capture the whole session (`cockpit record`), or only while a person has
        control again; the pages know it when this returns."""
        self._everything = on
        await self.turned()

    async def turned(self) -> None:
        """Capture turned on or off (a person's control began or ended): the contexts
        that waited for it installed, and every page told."""
        self._acting_on = None  # a person begins where the session is
        if self.on:
            for context in list(self._pending):
                self._pending.discard(context)
                await self._install(context)
        await self._tell_pages()

    async def _tell_pages(self) -> None:
        """Each page's script, whether to report: it costs a page nothing while off."""
        on = self.on
        frames = [f for context in list(self._contexts) for page in context.pages
                  for f in page.frames]  # the iframes too: a person acts in them as well
        await asyncio.gather(*(self._tell(frame, on) for frame in frames))

    @staticmethod
    async def _tell(frame: Frame, on: bool) -> None:
        """One frame, whether to report; the script first where the browser ran none
        (the page a popup opened into keeps its blank first document's window, and
        Chromium runs no init script for it)."""
        told = "window.__cockpitCaptureOn && window.__cockpitCaptureOn(v)"
        try:  # a page that hangs (a script's endless loop) is not waited for
            await asyncio.wait_for(frame.evaluate(
                f"v => {{ {capture_script() if on else ''}; {told}; }}", on), TELL_S)
        except (PlaywrightError, TimeoutError) as exc:  # closing, navigating (its next
            log.debug("capture: %s not told: %r", frame.url, exc)  # document asks)

    # --- installing ------------------------------------------------------------------
    async def install(self, context: BrowserContext) -> None:
        """The binding and the script for every page of `context`, those open already
        too (a handoff in a browser that was headed already loads nothing new). While
        capture is off that waits until it turns on (a handoff, `cockpit record`): the
        binding costs a context 115-260 ms as it starts, which an agent's session that no
        person takes over would pay for nothing."""
        if context in self._contexts:
            return
        if not self.on:
            self._pending.add(context)
            return
        await self._install(context)

    async def _install(self, context: BrowserContext) -> None:
        try:
            await context.expose_binding(BINDING, self._reported)
        except PlaywrightError as exc:  # a browser another cockpit attached to has it
            log.warning("what a person does in this browser is not captured: %s", exc)
            return
        self._contexts.add(context)
        script = capture_script()
        await context.add_init_script(script=script)
        context.on("page", self._watch)
        for page in context.pages:
            self._watch(page)
            for frame in page.frames:
                try:
                    await asyncio.wait_for(frame.evaluate(script), TELL_S)
                except (PlaywrightError, TimeoutError) as exc:  # going away, or hung: its
                    log.debug("capture script not added to %s: %r", frame.url, exc)  # next

    def _watch(self, page: Page) -> None:
        page.on("framenavigated", lambda frame: self._new_document(page, frame))
        if self.on:  # a popup: its first document may be in already, and unseen
            for frame in page.frames:
                spawn(self._tell(frame, True), "capturing in a new page")
        def closed(_: Page) -> None:
            self._last_action.pop(page, None)
        page.on("close", closed)

    def _new_document(self, page: Page, frame: Frame) -> None:
        if self.on:  # its script, in case the browser ran none there (_tell)
            spawn(self._tell(frame, True), "capturing in a new document")
        if frame == page.main_frame:
            self._navigated(page, frame.url)

    # --- what the cockpit itself does is not the person's ------------------------------
    def _on_event(self, event: Event) -> None:
        if event.kind == ev.RESUMED:  # a person's control ended (it began: turned())
            spawn(self.turned(), "telling the pages whether to capture")
        elif event.kind == ev.COMMAND_STARTED and not event.data.get("captured") \
                and not event.data.get("relayed"):  # the person's input: theirs
            self._running[event.data["id"]] = time.time()
        elif event.kind == ev.COMMAND_FINISHED and event.data["id"] in self._running:
            self._spans.append((self._running.pop(event.data["id"]), time.time()))

    def _ours(self, at: float) -> bool:
        """Whether an event at `at` (seconds) happened while a command ran."""
        if self._running:
            return True
        return any(start - COMMAND_SLACK_S <= at <= end + COMMAND_SLACK_S
                   for start, end in self._spans)

    # --- what the person did -----------------------------------------------------------
    def _reported(self, source: dict[str, Any], action: Any) -> bool | None:
        """An action a page reports (None back), or a new document asking whether to
        report (whether capture is on)."""
        if isinstance(action, dict) and action.get("kind") == "hello":
            return self.on
        self._action(source, action)
        return None

    def _action(self, source: dict[str, Any], action: Any) -> None:
        page = source.get("page")
        if not self.on or page is None or not isinstance(action, dict):
            return
        spec = REGISTRY.get(str(action.get("kind")))
        if spec is None or not spec.captured:  # the registry says which actions are steps
            return
        at = float(action.get("t") or 0) / 1000 or time.time()
        if self._ours(at):
            return
        self._last_action[page] = time.time()
        frame = source.get("frame")
        if frame is not None and frame is not page.main_frame:
            # in an iframe: its step names the frame, and happened on the page's URL
            action = {**action, "frame": spawn(frame_path(frame), "naming a frame"),
                      "url": page.url, "title": None}
        self._enqueue(page, action)

    def _navigated(self, page: Page, url: str) -> None:
        """A new document no action of the person led to: they went there themselves
        (the address bar, back, forward, a bookmark)."""
        if not self.on or not url.startswith(("http:", "https:", "file:")):
            return
        now = time.time()
        if self._ours(now) or now - self._last_action.get(page, 0.0) < NAVIGATION_GRACE_S:
            return
        self._last_action[page] = now
        self._enqueue(page, {"kind": "goto", "url": url, "t": now * 1000})

    def _enqueue(self, page: Page, action: dict[str, Any]) -> None:
        """Queued in the order the person acted, after a `tab` step when they acted on
        another tab than they last did (a popup that closed itself has returned them to
        its opener without one: export waits for the close, as for typed steps)."""
        last = self._acting_on or self.host.active_page()
        self._acting_on = page
        if last is not None and page is not last and not last.is_closed():
            tab = self.host.tab_of_page(page)
            if tab is not None:
                self._insert(page, {"kind": "tab", "tab": tab, "t": action.get("t")})
        # its tab as it is now: a popup may have closed by the time its step is posted
        self._insert(page, {**action, "tab": self.host.tab_of_page(page)})

    def _insert(self, page: Page, action: dict[str, Any]) -> None:
        """In the order of when: a click held back in one frame (to see whether it is a
        double-click) comes after what the person did next in another."""
        at = float(action.get("t") or 0)
        place = len(self._queue)
        while place > 0 and float(self._queue[place - 1][1].get("t") or 0) > at:
            place -= 1
        self._queue.insert(place, (page, {**action, "received": time.time()}))
        if self._worker is None or self._worker.done():
            self._worker = spawn(self._post_all(), "posting captured steps")

    async def _post_all(self) -> None:
        """Post the actions in the order the person made them, each once the page it
        led to has settled (its step ends there)."""
        while self._queue:
            # a click another frame holds back (a double-click's first?) may come yet,
            # and go before this one: it comes within HELD_S
            held = float(self._queue[0][1].get("received") or 0) + HELD_S - time.time()
            if held > 0:
                await asyncio.sleep(held)
                continue
            page, action = self._queue.popleft()
            try:
                await self._post_one(page, action)
            except Exception:  # one step's failure must not lose the person's next ones
                log.exception("capture: a %s step was not posted", action.get("kind"))

    async def _post_one(self, page: Page, action: dict[str, Any]) -> None:
        """Post one action, once where it led is known."""
        if action.get("kind") == "tab":
            await self._went_to(page, action)
            return
        wait = float(action.get("received") or 0) + SETTLE_S - time.time()
        if wait > 0 and not self._queue:
            await asyncio.sleep(wait)
        if isinstance(action.get("frame"), asyncio.Task):
            frame = await action["frame"]
            if frame is None:
                return
            action = {**action, "frame": frame, "title": await self._title(page)}
        ended = self._next_on(page)
        if ended is None and not page.is_closed():
            try:
                await page.wait_for_load_state("load", timeout=LOAD_WAIT_MS)
            except PlaywrightError as exc:  # still loading, or gone: posted as it is
                log.debug("capture: the page did not load: %s", exc)
            ended = self._next_on(page)
            if ended is None:
                await self._closing(page)
        await self.post(page, action, ended)

    @staticmethod
    async def _closing(page: Page) -> None:
        """A popup the person's last action there may close (its Save): a moment for it
        to, so that its step ends where the session went (back on the opener)."""
        try:
            if await page.opener() is not None:
                await page.wait_for_event("close", timeout=POPUP_CLOSE_MS)
        except PlaywrightError as exc:  # it stays open (or went while asked): as it is
            log.debug("capture: %s did not close: %s", page.url, exc)

    @staticmethod
    async def _title(page: Page) -> str | None:
        try:
            return await page.title()
        except PlaywrightError as exc:  # navigating or closed: said without
            log.debug("capture: no title of %s: %s", page.url, exc)
            return None

    def _next_on(self, page: Page) -> dict[str, Any] | None:
        """Where the person's next action on `page` was done: where this one ended
        (None: they have done nothing since, or went elsewhere by themselves)."""
        following = next((a for p, a in self._queue if p is page and a.get("kind") != "tab"),
                         None)
        if following is None or following.get("kind") == "goto":
            return None
        if following.get("frame") is not None:  # its URL is the page's; its title, later
            return {"url": following.get("url")}
        return {"url": following.get("url"), "title": following.get("title")}

    async def post(self, page: Page, action: dict[str, Any],
             ended: dict[str, Any] | None = None) -> None:
        """Post one action as a step; `ended`: where it ended, when known (else the tab's
        page now)."""
        step = step_of(action)
        if step is None:
            return
        line, targets, output = step
        done_on = self.host.tab_of_page(page) or action.get("tab")  # as it was then
        tab = self.host.tab_of_page(page)
        if tab is None and page.is_closed() and ended is None:
            # the last step in a popup, which closed it: the session is back on its
            # opener, as after a typed step
            active = self.host.active_page()
            tab = self.host.tab_of_page(active) if active is not None else None
        elif ended is not None:
            tab = {**(tab or done_on or {}), **ended}
        at = None
        if action.get("kind") != "goto":  # where it was done: replay checks it is there
            at = {"tab": (done_on or {}).get("index"), "url": action.get("url"),
                  "title": action.get("title")}
        self.steps += 1
        await self.host.post_step(line, source=HUMAN, targets=targets, at=at, tab=tab,
                            output=output)

    async def _went_to(self, page: Page, action: dict[str, Any]) -> None:
        """The person went on in another tab (a popup, or back to the opener while it is
        open): the session follows, and a `tab N` step says so, for replay and export
        to go there too (the tab it was when they acted there: it may have closed since)."""
        tab = action["tab"]
        if not page.is_closed():
            tab = await self.host.follow(page) or tab
        self.steps += 1
        await self.host.post_step(f"tab {tab['index']}", source=HUMAN, targets={}, at=None,
                                  tab=tab, output=f"switched to tab {tab['index']}")

    async def flush(self) -> None:
        """Post what the person did and is not posted yet, before a command runs (the
        log and the recording keep the order things happened in: their last click comes
        before the `resume`, and a `tab` step of theirs before the command that follows
        it) and before the session closes. The pages first send what they hold back (a
        click that may yet be a double-click's first)."""
        if self.on:  # where they act: the session's tab, or where they acted last
            pages = {p for p in (self.host.active_page(), self._acting_on)
                     if p is not None and not p.is_closed()}
            await asyncio.gather(*(self._send_held(f) for p in pages for f in p.frames))
            await asyncio.sleep(0)  # the binding's calls, already in, reach _reported
        if self._worker is not None and not self._worker.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._worker), SETTLE_S * 10)
            except TimeoutError:
                log.warning("capture: the last steps were not posted in time")

    @staticmethod
    async def _send_held(frame: Frame) -> None:
        try:  # answered after the page's reports so far: they arrive first
            await asyncio.wait_for(frame.evaluate(
                "window.__cockpitCaptureFlush && window.__cockpitCaptureFlush()"), HELD_S)
        except (PlaywrightError, TimeoutError) as exc:  # closing, navigating, hung
            log.debug("capture: %s not asked for its held actions: %r", frame.url, exc)

    async def close(self) -> None:
        await self.flush()  # what the person did last is still a step
