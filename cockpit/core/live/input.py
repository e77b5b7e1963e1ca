"""Input at viewport coordinates: which element is under a point (what a `mouse` step is
recorded with, so replay and export can find it again by role and name), and where the
mouse is (Playwright does not say; `mouse down|up` act there)."""

from __future__ import annotations

import logging
import re
import weakref
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from ..page.targets import nth_of

if TYPE_CHECKING:
    from ..page.tab import Tab

log = logging.getLogger("cockpit")

LOOKUP_MS = 1000  # the element was there a moment ago: past this, recorded without it

POINT_ENGINE = "cockpit-point"
# `cockpit-point=X Y`: the element at that point of the viewport, or its nearest ancestor,
# that Playwright's last snapshot named (it carries `_ariaRef`, which only the isolated
# world of a content script sees) with a role it can be found by again (not a generic
# <div>, which `get_by_role` never finds): what a `mouse` step acted on.
POINT_ENGINE_JS = r"""{
  queryAll(root, text) {
    const [x, y] = text.split(' ').map(Number);
    const doc = root.ownerDocument || root;
    let e = doc.elementFromPoint(x, y);
    while (e) {
      const mark = e._ariaRef;
      if (mark && !['none', 'presentation', 'generic'].includes(mark.role)) return [e];
      const top = e.getRootNode();
      e = e.parentElement || (top instanceof ShadowRoot ? top.host : null);
    }
    return [];
  }
}"""
REF_IN_LINE = re.compile(r"\[ref=([^\]]+)\]")


async def register_point_engine(playwright: Any) -> None:
    """Make `cockpit-point=X Y` known to every browser context of this Playwright."""
    await playwright.selectors.register(POINT_ENGINE, POINT_ENGINE_JS, content_script=True)


# page -> (x, y): where the last `mouse` command left the pointer
_positions: weakref.WeakKeyDictionary[Any, tuple[float, float]] = weakref.WeakKeyDictionary()


def position(page: Any) -> tuple[float, float]:
    """Where the mouse is on this page, as the last `mouse` command left it ((0, 0) first,
    where Playwright's mouse starts)."""
    return _positions.get(page, (0.0, 0.0))


def moved(page: Any, x: float, y: float) -> None:
    _positions[page] = (x, y)


async def element_at(tab: Tab, x: float, y: float) -> dict[str, Any] | None:
    """The element under a point as the tab's snapshot names it: role, name, its place
    among elements of that role and name (nth), and the point's offset from its top-left
    corner (dx, dy); None when no named element is there (or the page would not say)."""
    snap = tab.snapshot
    if snap is None or not snap.refs:
        return None
    found = tab.page.locator(f"{POINT_ENGINE}={x:g} {y:g}")
    try:
        if not await found.count():  # nothing named there (asked at once: never waited for)
            return None
        # its own line of a snapshot names its ref; depth 0 keeps a big container cheap
        line = await found.aria_snapshot(mode="ai", depth=0, timeout=LOOKUP_MS)
        box = await found.bounding_box(timeout=LOOKUP_MS)
    except PlaywrightError as exc:  # nothing named there, navigating, a dialog: recorded
        log.debug("no element looked up at %s,%s: %s", x, y, exc)  # without it
        return None
    pw = REF_IN_LINE.search(line)
    ref = {node.pw: ref for ref, node in snap.refs.items() if node.pw}.get(
        pw.group(1) if pw else "")
    if ref is None or box is None:
        return None
    node = snap.refs[ref]
    element: dict[str, Any] = {"ref": ref, "role": node.role, "name": node.name,
                               "nth": nth_of(snap, ref),
                               "dx": round(x - box["x"], 1), "dy": round(y - box["y"], 1)}
    if not node.name and node.label:
        element["label"] = node.label
    return element


# Chromium scrolls a frame or more after a wheel event is dispatched, so whatever reads
# the page right after `mouse.wheel` may see it unscrolled (1 in 40 on this machine, more
# under load). Set before the wheel: resolves at the first scroll anywhere in the document
# (capture: an inner scroller's too), or three frames after the wheel event when nothing
# scrolled (a page at its end), or at WHEEL_WAIT_MS (a wheel over an iframe, which this
# document never sees). Exports run the same script (the tests wait as the session did).
WHEEL_WAIT_MS = 500
WHEEL_WATCH_JS = ("() => { window.__cockpitWheel = new Promise(done => {"
                  " const frames = n => n ? requestAnimationFrame(() => frames(n - 1)) : done();"
                  " addEventListener('scroll', () => done(), {capture: true, once: true});"
                  " addEventListener('wheel', () => frames(3),"
                  " {capture: true, once: true, passive: true});"
                  f" setTimeout(done, {WHEEL_WAIT_MS}); }}); }}")
WHEEL_WAITED_JS = "() => window.__cockpitWheel"


async def wheel(page: Any, dx: float, dy: float) -> None:
    """The mouse wheel, and the scroll it starts (see WHEEL_WATCH_JS)."""
    try:
        await page.evaluate(WHEEL_WATCH_JS)
    except PlaywrightError as e:  # a page that runs no script (still loading, closing)
        log.debug("wheel: not watching for its scroll: %s", e)
        await page.mouse.wheel(dx, dy)
        return
    await page.mouse.wheel(dx, dy)
    try:
        await page.evaluate(WHEEL_WAITED_JS)
    except PlaywrightError as e:  # the wheel navigated or closed the page: nothing to wait
        log.debug("wheel: its scroll not awaited: %s", e)
