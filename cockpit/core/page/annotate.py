"""Ref labels drawn on the page for a picture: each interactive element boxed with its ref."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from playwright.async_api import Page

    from ..model.snapshot import Node

from ..model.snapshot import Snapshot

# Draws a labelled box on every interactive element; removed right after the picture.
ANNOTATE_JS = """(boxes) => {
  const layer = document.createElement('div');
  layer.id = '__cockpit_annotations';
  layer.style.cssText = 'position:absolute;left:0;top:0;pointer-events:none;z-index:2147483647';
  for (const b of boxes) {
    const box = document.createElement('div');
    box.style.cssText = `position:absolute;left:${b.x + scrollX}px;top:${b.y + scrollY}px;` +
      `width:${b.w}px;height:${b.h}px;outline:2px solid #e5484d;box-sizing:border-box`;
    const tag = document.createElement('span');
    tag.textContent = b.ref;
    tag.style.cssText = 'position:absolute;left:-2px;top:-16px;background:#e5484d;color:#fff;' +
      'font:bold 11px/14px monospace;padding:0 3px;border-radius:2px';
    box.appendChild(tag);
    layer.appendChild(box);
  }
  document.body.appendChild(layer);
}"""
REMOVE_JS = "() => document.getElementById('__cockpit_annotations')?.remove()"


async def ref_boxes(page: Page, names: Callable[[str], str]) -> list[dict[str, Any]]:
    """Boxes of the interactive refs, from Playwright's own snapshot with boxes, labelled
    with the tab's names for them (`names`: Tab.names)."""
    text = await page.aria_snapshot(mode="ai", boxes=True)
    boxes: list[dict[str, Any]] = []

    def visit(nodes: list[Node], dx: float, dy: float) -> None:
        for node in nodes:
            box = node.attr("box")
            x = y = w = h = 0.0
            if isinstance(box, str):
                x, y, w, h = (float(v) for v in box.split(","))
            if node.ref and w > 0 and h > 0 and (node.interactive or
                                                 node.attr("cursor") == "pointer"):
                boxes.append({"ref": "@" + node.ref, "x": x + dx, "y": y + dy, "w": w, "h": h})
            # Boxes inside an iframe are relative to it: shift them by the frame's place.
            shift = (x, y) if node.role == "iframe" else (0.0, 0.0)
            visit(node.children, dx + shift[0], dy + shift[1])

    visit(Snapshot.from_text(text, names).roots, 0.0, 0.0)
    return boxes


async def draw_ref_labels(page: Page, names: Callable[[str], str]) -> list[dict[str, Any]]:
    """Draw the labels; returns the boxes drawn. Remove them with `remove_ref_labels`."""
    boxes = await ref_boxes(page, names)
    # The boxes snapshot replaced Playwright's ref map; a plain one restores it (refs are
    # stable, so it is the same map) without touching the tab's snapshots and diffs.
    await page.aria_snapshot(mode="ai")
    await page.evaluate(ANNOTATE_JS, boxes)
    return boxes


async def remove_ref_labels(page: Page) -> None:
    await page.evaluate(REMOVE_JS)
