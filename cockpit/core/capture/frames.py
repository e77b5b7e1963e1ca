"""Where in a page's frames a person acted: the iframes around the frame, outermost
first, each as a selector of its element in the document that holds it, what replay and
export enter the frame by (Playwright's `frame_locator`). Same-origin and cross-origin
frames alike: each selector is made in the frame that holds the iframe."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

if TYPE_CHECKING:
    from playwright.async_api import Frame

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
