"""Where in a page's frames an element is: the iframes around it, outermost first, each
as a selector of its element in the document that holds it, what replay and export enter
the frame by (Playwright's `frame_locator`). Same-origin and cross-origin frames alike:
each selector is made in the frame that holds the iframe. For a frame a person acted in
(capture), and for a ref of the snapshot that lies inside an iframe (a typed step's
target)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from .targets import ref_selector

if TYPE_CHECKING:
    from playwright.async_api import Frame

    from ..model.snapshot import Node
    from .tab import Tab

log = logging.getLogger("cockpit")

# The iframe by what names it (unique among its document's frames), else by its place
# among them: a frame's own name, id or title outlives the page's layout changing.
SELECTOR_JS = r"""e => {
  const tag = e.tagName.toLowerCase();
  const all = [...document.querySelectorAll(tag)];
  for (const attr of ['name', 'id', 'title']) {
    const v = e.getAttribute(attr);
    if (v && all.filter(o => o.getAttribute(attr) === v).length === 1)
      return `${tag}[${attr}=${JSON.stringify(v)}]`;
  }
  return `${tag} >> nth=${all.indexOf(e)}`;
}"""


async def frame_path(frame: Frame) -> list[str] | None:
    """The selectors of the iframes around `frame`, outermost first ([]: the top frame;
    None: it went away before it could be told)."""
    path: list[str] = []
    try:
        while frame.parent_frame is not None:
            element = await frame.frame_element()
            path.insert(0, str(await element.evaluate(SELECTOR_JS)))
            await element.dispose()
            frame = frame.parent_frame
    except PlaywrightError as exc:  # detached meanwhile: its step cannot name its frame
        log.warning("capture: the frame of an action is gone (%s): not a step", exc)
        return None
    return path


async def iframes_around(tab: Tab, node: Node) -> list[str] | None:
    """The selectors of the iframes around a node of the tab's snapshot, outermost first
    ([]: in the top frame; None: a frame went away meanwhile), each found by its ref."""
    iframes: list[Node] = []
    parent = node.parent
    while parent is not None:
        if parent.role == "iframe":
            iframes.insert(0, parent)
        parent = parent.parent
    path: list[str] = []
    try:
        for iframe in iframes:
            selector = ref_selector(tab, iframe.ref or "")
            if selector is None:
                return None
            path.append(str(await tab.page.locator(selector).evaluate(SELECTOR_JS,
                                                                       timeout=2000)))
    except PlaywrightError as exc:  # navigating or gone: the step cannot name its frame
        log.debug("the iframe around %s is gone: %s", node.ref, exc)
        return None
    return path


async def with_frames(tab: Tab, found: dict[str, dict[str, Any]]) -> None:
    """`refs_used`'s targets inside iframes given the iframes around them (`frame`, as a
    person's captured step names them): export enters them by `frame_locator`."""
    snap = tab.snapshot
    if snap is None:
        return
    for ref, target in found.items():
        node = snap.refs.get(snap.live(ref))
        if node is not None and node.in_frame:
            path = await iframes_around(tab, node)
            if path:
                target["frame"] = path
