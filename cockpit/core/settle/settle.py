"""Settling: after an action, wait for what it set going, and no longer.

`networkidle` alone returns too early (a click's fetch may not have begun) or too late
(a page that polls is never idle). So we count the requests that start while the action
runs, and ask the page (through the init script of `settle_js`) what the action set going
there: short timers and animation frames, fetches, a navigation, DOM mutations and CSS
transitions. We wait for those, for a navigation's commit and `load`, and for the
action's requests to finish with the network quiet. Everything is bounded; an action that
sets nothing going costs one round trip to the page.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from . import sockets
from .after_load import booted, nothing_loading
from .settle_js import PROBE_JS, TIMER_LIMIT_MS
from .watch import Watch

log = logging.getLogger("cockpit.settle")

GRACE_S = 0.1  # pages without the init script: time for handlers to start something
# The network caused by the action must stay quiet this long. Short: the page's own
# fetch/XHR chains are followed by the init script (a `then` that fetches again counts),
# and a navigation is followed to its `load`; this only bridges gaps between requests the
# page cannot report (images, scripts, frames). It was 0.5 s, paid by every navigation.
QUIET_S = 0.15
# After a navigation's `load` the document and everything it loads are in; what the new
# page fetches on its own is asked of its init script (`fetches`), so the quiet that
# bridges what it cannot report is shorter. (It was QUIET_S: 150 ms of every navigation.)
AFTER_LOAD_QUIET_S = 0.05
# ... and when the page itself says that nothing of it is loading (LOADING_JS: no image,
# stylesheet or frame still coming), the quiet only bridges the time a request the page
# has just begun takes to be reported to us.
IDLE_AFTER_LOAD_QUIET_S = 0.015
LOAD_CAP_S = 10.0  # the most we wait for a navigation's load or the action's requests
CHAIN_CAP_S = 1.5  # the most we wait for timers, frames, mutations and transitions
NAV_START_CAP_S = 2.0  # a navigation the page started must reach the network by then
# The DOM changed by the action must stay still this long, or until a frame has been
# rendered after its last change and a task has run (the init script tells: `framed`),
# for work it cannot see (a framework's MessageChannel task, a resize or intersection
# observer) to start and show itself. The frame mostly comes first (~8 ms); a page that
# renders no frames (a hidden one) waits the whole time, two frames' worth.
MUTATION_QUIET_S = 0.03
# After a socket's messages, a render in steps (lazy components whose scripts load) has
# not ended until the DOM has been still this long.
RENDER_QUIET_S = 0.15
# A new page that fetched at its load (a Streamlit app asks for its config) may open its
# socket when the answers come: looked for this long after its last fetch.
SOCKET_GRACE_S = 0.1
CHOOSER_CAP_S = 0.5  # a file input was clicked: the chooser's report comes by then, or never
CLOSE_CAP_S = 2.0
# The page asked for a new window (window.open, a link or form with a target): its tab
# comes by then (it came after a fixed 100 ms grace, mostly; not on a loaded machine), or
# the browser refused it.
POPUP_CAP_S = 1.0  # the page called window.close(): the tab goes away by then
ANSWERED_TIMER_MS = 16  # after a socket's answer, timers due later than this are not waited
async def probe(page: Page, since_ms: float, changes: bool | str = False,
                frame: bool = True, click_id: str | None = None,
                hold: tuple[str, float] | None = None,
                limit_ms: float = TIMER_LIMIT_MS) -> dict[str, Any] | None:
    """What the page still has going for an action begun at `since_ms`; None when it
    cannot say (no init script, or a navigation replacing the document). `changes`: when
    the page is quiet, or a socket's answer has come and no fetch is left, the answer
    also holds the change tracker's (`changes`); "busy":
    even when it is not (the look is expected to be the last: a socket's quiet ends with
    it, and timers and animations then no longer count). `frame`:
    a DOM changed just now is given its frame before the answer (False: asked only for
    the page's fetches, the caller does not wait on the DOM). `click_id`: sent before a
    quick click, it answers once that click is over (quick_click.py). `hold`: (mode,
    seconds): the page first waits, that long at most, while only its socket is waited
    for (PROBE_JS `held`). `limit_ms`: timers due later than this after `since_ms` are
    not the action's."""
    quiet_ms = MUTATION_QUIET_S * 1000 if frame else 0
    socket = sockets.caps_ms()
    held = None if hold is None else [hold[0], hold[1] * 1000]
    try:
        state: dict[str, Any] | None = await page.evaluate(
            PROBE_JS, [since_ms, limit_ms, quiet_ms, changes, click_id, socket, held])
        return state
    except PlaywrightError as exc:  # a document going away mid-call: the caller handles it
        log.debug("settle probe failed: %s", exc)
        return None


def _page_delay(state: dict[str, Any], chain_open: bool, elapsed: float) -> float | None:
    """Seconds to wait for the page's own work, or None when it has nothing going.
    `elapsed`: seconds since the action began."""
    if state["fetches"]:
        return 0.02
    ws = sockets.socket_delay(state, elapsed, CHAIN_CAP_S)
    if ws is not None:
        return ws
    if not chain_open:
        return None
    # The app's server answered over its socket, and that has been rendered: a timer due
    # later, or an animation, is the app's own (a spinner's delay, a progress bar's fade),
    # not the answer's.
    answered = state.get("wsIn", -1) >= sockets.socket_quiet(state) * 1000
    if state["timers"] and not (answered and state["next"] > ANSWERED_TIMER_MS):
        return min(max(float(state["next"]) / 1000, 0.005), 0.1)
    if state["anim"] and not answered:
        return min(float(state["anim"]) / 1000 + 0.01, 0.1)
    if 0 <= state["mutated"] < MUTATION_QUIET_S * 1000 and not state["framed"]:
        return MUTATION_QUIET_S - float(state["mutated"]) / 1000
    return None


async def _until_closed(page: Page, watch: Watch, cap: float = CLOSE_CAP_S) -> None:
    """The page called window.close(): wait (bounded) for the tab to go away."""
    end = time.monotonic() + cap
    while not page.is_closed() and time.monotonic() < end:
        await asyncio.sleep(0.01)
    watch.closed = page.is_closed()


async def settle(page: Page, watch: Watch, quiet: float = QUIET_S, cap: float | None = None,
                 on_load: Callable[[], object] | None = None,
                 on_quiet: Callable[[], None] | None = None) -> str:
    """Wait for the action's effects; return a note when we gave up waiting, else ''.
    `on_load`: called when a navigation's new document has loaded, before the waits for
    what it does next (the caller starts its snapshot then: execute._mutate). `on_quiet`:
    called when a look found the page's DOM still and the change tracker answered
    (`watch.changes`), and only a socket's quiet is left to wait out: the next look most
    likely ends settling, so the caller may start its snapshot of what changed meanwhile
    (execute._mutate; changes.update keeps it if nothing changed since)."""
    start = time.monotonic()
    cap = LOAD_CAP_S if cap is None else cap  # read now: a test shortens it
    deadline, chain_end = start + cap, start + CHAIN_CAP_S
    note, scripted, nav_asked, last_look = "", True, 0.0, False
    rendering = ""  # a new page still rendering in steps when we stopped following it
    working = ""  # the page still showed it waited for its server when we stopped
    loaded, snapshotting = 0.0, None  # when the action's new document loaded; its snapshot
    hold: tuple[str, float] | None = None  # the next look waits in the page (probe)
    prepared = on_quiet is None  # on_quiet was called: the next hold is for the quiet
    while time.monotonic() < deadline:
        now = time.monotonic()
        if watch.navigated:
            note = await _follow_navigation(page, watch, deadline)
            watch.still_loading = bool(note)
            if not note:
                loaded = time.monotonic()
                snapshotting = on_load() if on_load is not None else None
                rendering = await _new_page_work(page, watch, deadline)
                quiet = min(quiet, IDLE_AFTER_LOAD_QUIET_S if await nothing_loading(page)
                            else AFTER_LOAD_QUIET_S)
            break
        if page.is_closed():
            watch.closed = True
            break
        state, watch.first_probe = watch.first_probe, None
        if state is None:
            state = await probe(page, watch.since_ms, changes=watch.wants_changes and (
                "busy" if last_look else True), hold=hold)
        hold = None
        if state is None and not watch.navigated:
            if page.is_closed() or not scripted:
                break
            scripted = False  # an old page without the script: the old fixed grace
            await asyncio.sleep(max(0.0, GRACE_S - (time.monotonic() - start)))
            continue
        if state is None:
            continue
        watch.scripted = True
        if "changes" in state:
            watch.changes.append(state["changes"])
        if state.get("refused"):
            watch.refused = state["refused"]
        if state.get("closing"):
            await _until_closed(page, watch)
            break
        if state["nav"] or state["submit"]:  # a new document is asked for: its request
            nav_asked = nav_asked or now
            if now - nav_asked < NAV_START_CAP_S:
                await asyncio.sleep(0.01)
                continue
        if state["open"] and not watch.popup and now - start < POPUP_CAP_S:
            await asyncio.sleep(0.02)  # a new tab is on its way (a loaded machine: slowly)
            continue
        if state["download"] and not watch.downloads and now - start < NAV_START_CAP_S:
            await asyncio.sleep(0.02)
            continue
        if state["chooser"] and not watch.file_chooser and now - start < CHOOSER_CAP_S:
            await asyncio.sleep(0.01)
            continue
        delay = _page_delay(state, now < chain_end, now - start)
        if delay is None:
            # nothing can change after this look: no request of the action's is left, or
            # (the page reporting them all) the ones it made are over
            watch.changes_final = "changes" in state and not watch.downloads and (
                watch.count == 0 or (watch.scripted and not watch.unreported
                                     and not watch.pending))
            if state.get("wsAwait"):  # (late: given up on)
                working = sockets.still_working(state["wsAwait"]["why"],
                                        time.time() - watch.since_ms / 1000)
            break
        # waiting only for a socket's quiet: the next look most likely ends it
        last_look = state.get("wsIn", -1) >= 0 and not state["fetches"]
        if last_look and on_quiet is not None and "changes" in state:
            on_quiet()
            prepared = True
        if sockets.socket_held(state):  # the page tells when that wait is over: no sleep
            until = start + sockets.WS_REPLY_CAP_S if state.get("wsAwait") else chain_end
            hold = ("quiet" if prepared else "answer",
                    min(sockets.HOLD_S, max(0.02, until - time.monotonic())))
            continue
        await asyncio.sleep(delay)
    else:
        note = "the page was still busy after the action"
    note = note or await _network_quiet(watch, quiet, deadline)
    if loaded and not note:  # a new document's modules may go on booting it (after_load)
        note = await booted(page, watch, loaded, min(deadline, loaded + CHAIN_CAP_S),
                            snapshotting if isinstance(snapshotting, asyncio.Future) else None,
                            lambda: _network_quiet(watch, quiet, deadline))
    note = note or rendering or working
    if watch.downloads:
        await asyncio.wait(watch.downloads, timeout=max(0.1, deadline - time.monotonic()))
    watch.open = False
    return note


async def _follow_navigation(page: Page, watch: Watch, deadline: float) -> str:
    """A navigation started: wait for its document to commit, then for `load`."""
    while time.monotonic() < deadline:
        while not watch.committed and not watch.nav_done and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        if watch.committed or not watch.nav_done:
            break
        await asyncio.sleep(0.05)  # the commit event may trail the request's end
        if watch.committed or watch.nav_done:
            break  # (ended with no document: a 204, a download)
        # a new request of the navigation began meanwhile: a redirect's next hop (a
        # POST answered 302, its GET), followed as the first (it was said "still
        # loading after 10 s", at once, and its page's messages went unread)
    if not watch.committed and not watch.nav_done:
        return f"the page was still loading after {deadline - watch.started:.0f} s"
    try:
        await page.wait_for_load_state("load", timeout=max(1, deadline - time.monotonic())
                                       * 1000)
    except PlaywrightError:  # a timeout, or the page closed
        if page.is_closed():  # a document that closes its window (a popup's last word)
            watch.closed = True
            return ""
        return f"the page was still loading after {deadline - watch.started:.0f} s"
    return ""


async def _new_page_work(page: Page, watch: Watch, deadline: float) -> str:
    """Wait for what the new document set going at its load: its fetches and XHRs, and
    an app that renders over a WebSocket (Streamlit) its first render: the socket's
    first messages, the scripts they make it load, the DOM they change. The socket's
    waits are bounded from the load (WS_REPLY_CAP_S), the rest by CHAIN_CAP_S. And a page
    that renders in steps after its load, a short timer after another (`_rendering`),
    until it stops; a note when it had not by CHAIN_CAP_S, else ''."""
    loaded = time.monotonic()
    until = min(deadline, loaded + max(CHAIN_CAP_S, sockets.WS_REPLY_CAP_S))
    followed = False  # the page's sockets spoke: its requests and DOM are followed too
    # its own timers count from its load (an action's from the action), and still do
    # when it is given up on (`_rendering` then says so)
    limit = time.time() * 1000 - watch.since_ms + CHAIN_CAP_S * 1000 + TIMER_LIMIT_MS
    while time.monotonic() < until and not page.is_closed():
        state = await probe(page, watch.since_ms, frame=followed, limit_ms=limit)
        if not state:
            return ""
        if state.get("closing"):
            await _until_closed(page, watch)
            return ""
        elapsed = time.monotonic() - loaded
        ws = sockets.socket_delay(state, elapsed, CHAIN_CAP_S)
        followed = followed or ws is not None or state.get("wsIn", -1) >= 0
        if state["fetches"] or ws is not None:
            await asyncio.sleep(0.02 if ws is None else ws)
            continue
        if not followed and 0 <= state.get("fetched", -1) < SOCKET_GRACE_S * 1000:
            await asyncio.sleep(0.02)  # its answers may open the app's socket next
            continue
        if _rendering(state):
            if elapsed > CHAIN_CAP_S:
                return f"the page was still changing {CHAIN_CAP_S:g} s after it loaded " \
                    "(one timer after another): `snapshot -i` shows it as it is now"
            await asyncio.sleep(min(max(float(state["next"]) / 1000, 0.005), 0.05))
            continue
        if not followed or elapsed > CHAIN_CAP_S:
            return ""
        if watch.pending:  # what the messages made it load (a widget's script)
            await asyncio.sleep(0.02)
            continue
        mutated = state["mutated"]
        if 0 <= mutated < MUTATION_QUIET_S * 1000 and not state["framed"]:
            await asyncio.sleep(MUTATION_QUIET_S - mutated / 1000)
            continue
        if 0 <= mutated < RENDER_QUIET_S * 1000:  # a framework renders in steps
            await asyncio.sleep(RENDER_QUIET_S - mutated / 1000)
            continue
        return ""
    return ""


def _rendering(state: dict[str, Any]) -> bool:
    """Whether a loaded page is still rendering in steps: a timeout of its own due within
    50 ms (PROBE_JS `stepped`; not an animation's frame callbacks) and its DOM changed
    within RENDER_QUIET_S. (Sphinx's search page adds a result each 5 ms, for a second
    and more: the step's result had half of them, and said nothing of the rest.)"""
    return bool(state.get("stepped")) and 0 <= state["mutated"] < RENDER_QUIET_S * 1000


async def _network_quiet(watch: Watch, quiet: float, deadline: float) -> str:
    """The action's requests must be done and the network quiet for `quiet` seconds:
    quiet from those its page cannot report, when it reports the others (`scripted`: the
    probes waited for them, and for what the page did with their answers)."""
    while time.monotonic() < deadline:
        if watch.count == 0:
            return ""  # the action started no requests: nothing to wait for
        if watch.scripted and not watch.unreported and not watch.pending:
            return ""  # all the page's own, followed to their end
        last = watch.last_unreported if watch.scripted else watch.last_activity
        idle_for = time.monotonic() - last
        if not watch.pending and idle_for >= quiet:
            return ""
        await asyncio.sleep(0.02 if watch.pending else max(0.01, quiet - idle_for))
    if watch.pending:
        return (f"{len(watch.pending)} request(s) the action started were still running "
                f"after {LOAD_CAP_S:.0f} s")
    return ""
