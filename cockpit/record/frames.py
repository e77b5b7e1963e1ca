"""Elements inside iframes, as a recording names them: a target's `frame` is the
selectors of the iframes around it, outermost first (core/capture/frames.py). Replay
enters them by a Playwright selector; export by `frame_locator`."""

from __future__ import annotations

import json
from typing import Any

ENTER = "internal:control=enter-frame"  # what Playwright's frame_locator chains by


def framed_selector(want: dict[str, Any]) -> str:
    """One selector for the element `want` names inside its frames: what `page.locator`
    takes, so a replayed step finds it in a same- or cross-origin frame alike."""
    parts = [p for sel in want.get("frame") or [] for p in (sel, ENTER)]
    if want.get("name") or not want.get("label"):
        parts.append(f"internal:role={want['role']}[name={json.dumps(want['name'])}s]")
    else:  # nameless to Playwright: by its words
        parts += [f"internal:role={want['role']}",
                  f"internal:has-text={json.dumps(want['label'])}i"]
    return " >> ".join([*parts, f"nth={int(want.get('nth') or 0)}"])
