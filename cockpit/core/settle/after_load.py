"""What settling asks of a new document after its `load`, apart from what the action set
going (settle_js.py): whether anything the page shows is still coming
(`nothing_loading`), and whether its scripts are still booting it (`booted`).

An app built of modules (Gradio, most Vite builds) goes on after `load`: the modules its
entry imports arrive, are evaluated in a long task, and only as that task ends does it
ask for the next part of itself (its layout's scripts, then its components'). Between
those steps no request is on its way and the DOM is still for 50-100 ms, and the quiet
after `load` ended in one of them: `goto` of a Gradio app answered with its footer's
controls, or with no line at all, 8 times in 56. So, for a new document that asked for
a script after its `load`, settling also waits while such a script may still be
evaluated (SCRIPT_EVAL_S after it arrived) and while a long task has just ended (the
browser's Long Tasks API: 50 ms and more of script), each time for the network's quiet
again. Cockpit's own snapshot of the page, taken at `load`, is a long task on a big
page: settling waits for it first, and counts only the tasks that ended after it. A
page whose scripts all came before its `load` (most) is not asked.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from .watch import Watch

log = logging.getLogger(__name__)

# A script the page asked for after its `load` is evaluated once it has arrived, and
# what that asks for starts at the evaluation's end: quiet is counted from this long
# after its arrival.
SCRIPT_EVAL_S = 0.1
# A long task of the page's that ended this recently may yet set requests going (they
# start as it ends, and their events reach settling a little later).
BOOT_QUIET_S = 0.05

# What of a loaded page is still on its way, as the page can tell (`nothing_loading`):
# images shown at once and not complete, stylesheets not applied yet, frames not loaded
# (one of another origin cannot say: it counts).
LOADING_JS = r"""
() => {
  let n = 0;
  for (const img of document.images)
    if (!img.complete && img.loading !== 'lazy') n++;
  for (const link of document.querySelectorAll('link[rel~=stylesheet]'))
    if (!link.sheet && !link.disabled && (!link.media || matchMedia(link.media).matches)) n++;
  for (const frame of document.querySelectorAll('iframe, frame')) {
    let doc = null;
    try { doc = frame.contentDocument; } catch (e) { /* another origin's */ }
    if (!doc || doc.readyState !== 'complete') n++;
  }
  return n;
}
"""

# [how long ago (ms) the page's last long task ended, of those that ended after `after`
# (-1: none did), the page's clock now] (ms of the wall clock). The init script
# (settle_js.py) keeps their times; the records its observer has not delivered yet are
# taken here (this look may run right after the task that held it up).
BOOT_JS = r"""
(after) => {
  const S = window.__cockpitSettle, now = Date.now();
  if (!S || !S.longs) return [-1, now];
  if (S.longObserver) for (const e of S.longObserver.takeRecords()) S.long(e);
  let last = -1;
  for (const [, end] of S.longs) if (end > after) last = Math.max(last, end);
  return [last < 0 ? -1 : Math.max(0, now - last), now];
}
"""


async def nothing_loading(page: Page) -> bool:
    """Whether the loaded page has nothing on its way that it can see: every image it
    shows at once complete, every stylesheet applied, every frame loaded (a frame of
    another origin cannot say: it counts as loading)."""
    try:
        return int(await page.evaluate(LOADING_JS)) == 0
    except PlaywrightError as exc:  # the page went on to another document, or closed
        log.debug("whether anything loads not asked: %s", exc)
        return False


async def booted(page: Page, watch: Watch, loaded: float, until: float,
                 snapshotting: asyncio.Future[Any] | None,
                 network_quiet: Callable[[], Awaitable[str]]) -> str:
    """Wait, until `until` (monotonic), while the new document loaded at `loaded` may
    still be booting (see the module's docstring), each time for `network_quiet` again;
    its note, if it gave one. `snapshotting`: Cockpit's own snapshot of the page, begun
    at its load, waited for before the page is asked about its long tasks."""
    if watch.last_script <= loaded:  # no script came after its load: nothing to evaluate
        return ""
    after = time.time() * 1000  # the page's long tasks before now: their requests are seen
    while time.monotonic() < until:
        wait = SCRIPT_EVAL_S - (time.monotonic() - watch.last_script)
        if wait <= 0 and snapshotting is not None and not snapshotting.done():
            await asyncio.wait([snapshotting], timeout=max(0.0, until - time.monotonic()))
            after = time.time() * 1000  # its long task was ours; what the page set
            wait = 0.0  # going meanwhile is asked of the network first
        elif wait <= 0:
            ago, after = await _long_task_ago(page, after)
            if ago < 0:  # none since the last look: what it set going has been seen
                return ""
            wait = BOOT_QUIET_S - ago / 1000
        await asyncio.sleep(min(max(0.0, wait), max(0.0, until - time.monotonic())))
        note = await network_quiet()
        if note:
            return note
    return ""


async def _long_task_ago(page: Page, after: float) -> tuple[float, float]:
    """Milliseconds since the page's last long task that ended after `after` (-1: none
    did, or it cannot say), and the page's clock when it answered."""
    try:
        ago, now = await page.evaluate(BOOT_JS, after)
        return float(ago), float(now)
    except PlaywrightError as exc:  # the page went on to another document, or closed
        log.debug("the page's long tasks not asked: %s", exc)
        return -1.0, after
