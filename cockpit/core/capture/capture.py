"""Capture: what a person does in the browser becomes steps.

While a person drives (the window of a `handoff`, or a whole `cockpit record` session),
each click, double-click, fill, select, check, key press and navigation they make is
posted as an ordinary step sent by `human`, with the role and name of its element as
`targets` (as a typed ref step has them): shown in the log as it happens, recorded,
replayed and exported like any other. It is never run again: the person already did it.

The page reports trusted DOM events through a binding (capture_js.py). The cockpit's own
commands make trusted events too (Playwright's input is the browser's input), so events
that happened while a command ran are dropped: only the person's are steps.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import time
import weakref
from collections import deque
from typing import TYPE_CHECKING, Any, Protocol

from playwright.async_api import Error as PlaywrightError

from ..base import events as ev
from ..base.logs import spawn
from ..base.sources import HUMAN
from ..language.registry import REGISTRY
from ..language.shell_words import positional
from .capture_js import BINDING, capture_script

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, Page

    from ..base.events import Event, EventBus

log = logging.getLogger("cockpit")

SETTLE_S = 0.3  # after an action, before its step is posted: where it led is its URL
LOAD_WAIT_MS = 3000  # ... and at most this for the page it led to to load
NAVIGATION_GRACE_S = 2.5  # a new document this soon after an action is that action's
COMMAND_SLACK_S = 0.005  # Date.now() is in whole ms: an event this close to a command is its
SPANS_KEPT = 50
TELL_S = 2.0  # a page told whether to capture answers in this long, or is not waited for
REF = "e1"  # the one ref a captured step names: its element is in the step's targets


class CaptureHost(Protocol):
    """What capture needs of the session: its bus (commands' times, and where steps
    go), whether a person has the browser now, and a way to post a step."""

    @property
    def bus(self) -> EventBus: ...
    @property
    def human_has_control(self) -> bool: ...
    def tab_of_page(self, page: Page) -> dict[str, Any] | None: ...
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
        self._queue: deque[tuple[Page, dict[str, Any]]] = deque()  # not yet posted
        self._worker: asyncio.Task[Any] | None = None
        self._contexts: weakref.WeakSet[BrowserContext] = weakref.WeakSet()
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
        await self._tell_pages()

    async def _tell_pages(self) -> None:
        """Each page's script, whether to report: it costs a page nothing while off."""
        on = self.on
        for context in list(self._contexts):
            for page in context.pages:
                try:  # a page that hangs (a script's endless loop) is not waited for
                    await asyncio.wait_for(page.evaluate(
                        "v => window.__cockpitCaptureOn && window.__cockpitCaptureOn(v)",
                        on), TELL_S)
                except (PlaywrightError, TimeoutError) as exc:  # closing, navigating (its
                    log.debug("capture: %s not told: %r", page.url, exc)  # next asks)

    # --- installing ------------------------------------------------------------------
    async def install(self, context: BrowserContext) -> None:
        """The binding and the script for every page of `context`, those open already
        too (a handoff in a browser that was headed already loads nothing new)."""
        if context in self._contexts:
            return
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
        page.on("framenavigated", lambda frame: self._navigated(page, frame.url)
                if frame == page.main_frame else None)
        def closed(_: Page) -> None:
            self._last_action.pop(page, None)
        page.on("close", closed)

    # --- what the cockpit itself does is not the person's ------------------------------
    def _on_event(self, event: Event) -> None:
        if event.kind in (ev.HANDOFF, ev.RESUMED):  # a person has control, or not now
            spawn(self._tell_pages(), "telling the pages whether to capture")
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
        if source.get("frame") is not page.main_frame:  # refs of frames: not yet
            log.debug("capture: an action in a frame is not captured")
            return
        spec = REGISTRY.get(str(action.get("kind")))
        if spec is None or not spec.captured:  # the registry says which actions are steps
            return
        at = float(action.get("t") or 0) / 1000 or time.time()
        if self._ours(at):
            return
        self._last_action[page] = time.time()
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
        self._queue.append((page, {**action, "received": time.time()}))
        if self._worker is None or self._worker.done():
            self._worker = spawn(self._post_all(), "posting captured steps")

    async def _post_all(self) -> None:
        """Post the actions in the order the person made them, each once the page it
        led to has settled (its step ends there)."""
        while self._queue:
            page, action = self._queue.popleft()
            wait = float(action.get("received") or 0) + SETTLE_S - time.time()
            if wait > 0 and not self._queue:
                await asyncio.sleep(wait)
            ended = self._next_on(page)
            if ended is None and not page.is_closed():
                try:
                    await page.wait_for_load_state("load", timeout=LOAD_WAIT_MS)
                except PlaywrightError as exc:  # still loading, or gone: posted as it is
                    log.debug("capture: the page did not load: %s", exc)
                ended = self._next_on(page)
            await self.post(page, action, ended)

    def _next_on(self, page: Page) -> dict[str, Any] | None:
        """Where the person's next action on `page` was done: where this one ended
        (None: they have done nothing since, or went elsewhere by themselves)."""
        following = next((a for p, a in self._queue if p is page), None)
        if following is None or following.get("kind") == "goto":
            return None
        return {"url": following.get("url"), "title": following.get("title")}

    async def post(self, page: Page, action: dict[str, Any],
             ended: dict[str, Any] | None = None) -> None:
        """Post one action as a step; `ended`: where it ended, when known (else the tab's
        page now)."""
        step = step_of(action)
        if step is None:
            return
        line, targets, output = step
        tab = self.host.tab_of_page(page)
        if tab is not None and ended is not None:
            tab = {**tab, **ended}
        at = None
        if action.get("kind") != "goto":  # where it was done: replay checks it is there
            at = {"tab": (tab or {}).get("index"), "url": action.get("url"),
                  "title": action.get("title")}
        self.steps += 1
        await self.host.post_step(line, source=HUMAN, targets=targets, at=at, tab=tab,
                            output=output)

    async def close(self) -> None:
        if self._worker is not None and not self._worker.done():
            try:  # what the person did last is still a step
                await asyncio.wait_for(asyncio.shield(self._worker), SETTLE_S * 10)
            except TimeoutError:
                log.warning("capture: the last steps were not posted in time")


def step_of(action: dict[str, Any]) -> tuple[str, dict[str, dict[str, Any]], str] | None:
    """The command line, targets and output of one reported action (None: not a step)."""
    kind = str(action.get("kind"))
    if kind == "goto":
        url = str(action.get("url") or "")
        return (f"goto {shlex.quote(url)}", {}, f"went to {url}") if url else None
    if kind == "press":
        key = str(action.get("key") or "")
        return (f"press {words(key)}", {}, f"pressed {key}") if key else None
    target = action.get("target")
    if not isinstance(target, dict) or not target.get("role"):
        return None
    want = {"role": str(target["role"]), "name": str(target.get("name") or ""),
            "nth": int(target.get("nth") or 0)}
    said = f'{want["role"]} "{want["name"]}"'
    if kind == "fill":
        if action.get("secret"):
            return f"fill @{REF} $PASSWORD", {REF: want}, f"filled {said}"
        return (f"fill {words(f'@{REF}', str(action.get('value') or ''))}", {REF: want},
                f"filled {said}")
    if kind == "select":
        values = [str(v) for v in action.get("values") or []]
        if not values:
            return None
        return (f"select {words(f'@{REF}', *values)}", {REF: want},
                f"selected {', '.join(values)} in {said}")
    done = {"click": "clicked", "dblclick": "double-clicked", "check": "checked",
            "uncheck": "unchecked"}.get(kind)
    return (f"{kind} @{REF}", {REF: want}, f"{done} {said}") if done else None


def words(*args: str) -> str:
    """A step's arguments as its line writes them: each quoted (a value the person typed
    stays their text, `$HOME` too), after `--` when one starts with '-'."""
    return " ".join(shlex.quote(word) if word != "--" else word
                    for word in positional(*args))
