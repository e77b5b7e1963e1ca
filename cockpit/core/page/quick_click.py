"""A click that costs what the click costs, when the element is plainly clickable.

Playwright's `locator.click()` proves an element actionable before it clicks: visible,
enabled, stable (its box unchanged over two animation frames, ~33 ms on a headless
Chromium) and the one that receives the click at its centre. That proof is most of a
click's time on a quiet page (34 ms of a 54 ms click with its diff on stdtypes.html).

Here one evaluate in the page answers the same questions for the common case: the element
is in the main frame, connected, not disabled, laid out, not moving (no running animation
or transition on it or an ancestor), and scrolled into view it is what the page hit-tests
at its centre. Then the mouse clicks that point. Anything else (an element that is hidden,
disabled, covered, animating, in an iframe, or not there yet) goes to Playwright's own
click, which waits for it and says what is wrong, as before.

What the click did is asked before the mouse moves: settling's probe waits in the page
for the click (by its id) to be over and answers at the start of the next frame, before
the browser paints what changed (a click that scrolls a big page to an anchor took, in
process, 37 ms on functions.html and 80 ms on stdtypes.html asking after the mouse, 30
and 55 ms asking first).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Awaitable, Callable, Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from ..settle.settle import probe
from ..settle.watch import Watch

log = logging.getLogger("cockpit.click")

Button = Literal["left", "middle", "right"]  # as Playwright names the mouse's buttons
Modifier = Literal["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]

QUICK_MS = 250  # an element that is there answers at once; one that is not waits below

# Returns [x, y] (CSS pixels of the main frame's viewport) when the element can be clicked
# at once, else null. Shadow roots are entered for the hit test, as a click would.
POINT_JS = r"""
(el, [doc, clickId]) => {
  // `doc`: the document the ref came from (Tab.DOC_TOKEN_JS); another one is for the
  // caller's checks to explain
  if (doc != null && window.__cockpitDoc !== doc) return null;
  if (window.top !== window || !el.isConnected) return null;
  if (el.matches(':disabled, option, optgroup') || el.closest('[aria-disabled="true"]'))
    return null;
  if (!el.checkVisibility({visibilityProperty: true})) return null;
  const moving = document.getAnimations().some((a) => {
    const target = a.effect && a.effect.target;
    return a.playState === 'running' && target && target.contains(el);
  });
  if (moving) return null;
  // Playwright's point: the centre of the first box (a link wrapped over two lines has
  // two, and the centre of their union may be between them).
  const box = () => [...el.getClientRects()].find((b) => b.width >= 1 && b.height >= 1);
  let r = box();
  if (!r) return null;
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    r = box();
    if (!r) return null;
  }
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  let on = false;
  for (let n = hit; n && !on; n = n.parentNode || n.host) on = n === el;
  if (!on) return null;
  // The point may still move before the click lands (an image above it loads): a guard
  // lets the click's events through only when they reach the element, as Playwright's
  // own does, and notes a miss. It expires with the click (or a second after).
  // The button's release (`pointerup`; the click and what it does by default, such as a
  // link's navigation, follow in the same task) ends the click, by its id, for settling's
  // probe, which was sent before this and waits in the page (PROBE_JS): at the next
  // frame's start or the next task, whichever comes first. A frame is due when the click
  // changed what is shown (it scrolled to an anchor, say): its animation frame runs before
  // the frame is painted, which on a big page takes several milliseconds.
  let guard = window.__cockpitClickGuard;
  if (!guard) {
    guard = {el: null, until: 0, missed: false, armed: false, id: null};
    Object.defineProperty(window, '__cockpitClickGuard', {value: guard});
    const check = (e) => {
      if (!e.isTrusted) return;
      if (guard.armed && (e.type === 'pointerup' || e.type === 'contextmenu')) {
        // A right button's `contextmenu` comes with its press (on Linux), and the menu
        // takes the release, unless the page shows its own menu (it prevents the event)
        const S = window.__cockpitSettle, id = guard.id;
        const end = () => {
          if (!guard.armed || guard.id !== id) return;
          if (e.type === 'contextmenu' && e.defaultPrevented) return;
          guard.armed = false;
          S.clicked(id);
        };
        if (S && S.clicked) { S.later(end); S.nextFrame(end); }
      }
      if (!guard.el || Date.now() > guard.until) return;
      if (!e.composedPath().includes(guard.el)) {
        guard.missed = true;
        e.preventDefault();
        e.stopImmediatePropagation();
      }
      if (e.type === 'click' || e.type === 'contextmenu') guard.el = null;
    };
    for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click',
                        'contextmenu'])
      window.addEventListener(type, check, true);
  }
  Object.assign(guard, {el, until: Date.now() + 1000, missed: false, armed: true,
                        id: clickId});
  return [x, y];
}
"""

# The mouse's button is up (its answer came) but the page did not see it released (a
# select's popup, a context menu took the release): the probe waiting for it goes on.
RELEASE_JS = "(id) => { const S = window.__cockpitSettle; if (S && S.clicked) S.clicked(id); }"
RELEASE_AFTER_S = 0.05  # the probe mostly answers with the mouse, or a frame later


async def prime(page: Page) -> None:
    """Have Playwright build its main-world helper of the page's document now: the first
    `locator.evaluate` in a document builds it (~15 ms on a big page), and that would be
    the first click's. Called in the background after a new document's snapshot, while
    the agent reads it."""
    try:
        await page.locator(":root").evaluate("() => 0", timeout=QUICK_MS)
    except PlaywrightError as exc:  # the page went on to another document: nothing to do
        log.debug("priming the page for a quick click failed: %s", exc)


async def click_ref(page: Page, selector: str, doc: str, button: Button = "left",
                    watch: Watch | None = None) -> bool | None:
    """Click a ref of the last snapshot (`aria-ref=e5`) at once when it is plainly
    clickable there (True). False: the page does not call it plainly clickable (any
    more); None: it could not tell (gone, several, another document). On either, the
    caller goes the checked way: `targets.resolve`, then `click`.

    One round trip finds the point: `eval_on_selector` finds the element where
    Playwright's ref map lives and evaluates in the page's world in one call; `resolve` +
    `locator.evaluate` are four (counting and the document's token, then find, evaluate
    and release the element)."""
    async def point(click_id: str) -> list[float] | None:
        point: list[float] | None = await page.eval_on_selector(
            selector, POINT_JS, [doc, click_id], strict=True)
        return point
    try:
        return await _quick(page, point, button, watch)
    except _Unfound as exc:
        log.debug("quick click by ref: %s", exc.__cause__)
        return None


async def click(page: Page, locator: Locator, *, timeout: float, button: Button = "left",
                modifiers: list[Modifier] | None = None, quick: bool = True,
                watch: Watch | None = None) -> None:
    """Click the element: at once when it is plainly clickable, else Playwright's way."""
    if quick and not modifiers:
        async def point(click_id: str) -> list[float] | None:
            # `evaluate`, not the one-round-trip `evaluate_all`: that one queries in the
            # main world, where Playwright's ref map (`aria-ref=`) is not
            point: list[float] | None = await locator.evaluate(
                POINT_JS, [None, click_id], timeout=QUICK_MS)
            return point
        try:
            if await _quick(page, point, button, watch):
                return
        except _Unfound:  # not there (yet), or several: Playwright's click says so
            pass
    await locator.click(timeout=timeout, button=button, modifiers=modifiers)


class _Unfound(Exception):
    """The element's point could not be asked (see __cause__)."""


async def _quick(page: Page, point: Callable[[str], Awaitable[list[float] | None]], button: Button,
                 watch: Watch | None) -> bool:
    """Click at the element's point when the page calls it plainly clickable; False when
    it does not, or when the guard stopped the click (it would have missed).

    Whether it did is asked in settling's probe (settle.py), sent first: it waits in the
    page for this click to be over, and answers at the start of the frame that shows
    what the click did, before the browser paints it (on a big page, several
    milliseconds). That answer is settling's first look at the page, and when the page is
    quiet it holds what changed, so a click that sets nothing going costs no round trip
    past the click itself."""
    click_id = secrets.token_hex(6)
    since = watch.since_ms if watch is not None else time.time() * 1000 - 5
    asked = asyncio.ensure_future(probe(page, since, click_id=click_id,
                                        changes=watch is not None and watch.wants_changes))
    try:
        try:
            at = await point(click_id)
        except PlaywrightError as exc:
            raise _Unfound() from exc
        if at is None:
            asked.cancel()  # in the page it gives up unanswered: its click never comes
            return False
        await page.mouse.click(at[0], at[1], button=button)
        done, _ = await asyncio.wait({asked}, timeout=RELEASE_AFTER_S)
        if not done:
            try:
                await page.evaluate(RELEASE_JS, click_id)
            except PlaywrightError as exc:  # the page went on: the probe says so below
                log.debug("telling the probe that the click is over failed: %s", exc)
        state = await asked
    except BaseException:  # failed, or a dialog the click opened cancelled the command
        asked.cancel()
        raise
    if state is None or state.get("expired"):  # the click took the page elsewhere: landed
        return True
    if state["missed"]:
        return False
    if watch is not None:
        watch.first_probe = state
    return True
