"""visual: screenshot (page, viewport, element, clip, annotated with refs) and pdf."""

from __future__ import annotations

import time
from pathlib import Path

from ..errors import CommandError, UsageError
from ..registry import FILE, TARGET, Arg, Flag, command
from ..result import Outcome
from ..snapshot import Snapshot

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


def _output_path(ctx, given: str | None, suffix: str) -> Path:
    if given:
        path = Path(given).expanduser()
        if path.suffix.lower() != suffix:
            raise UsageError(f"{path} should end in {suffix}")
    else:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = ctx.session.files_dir / f"{suffix[1:]}-tab{ctx.tab.index}-{stamp}{suffix}"
        n = 1
        while path.exists():
            n += 1
            path = path.with_name(f"{path.stem.rsplit('_', 1)[0]}_{n}{suffix}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _clip(text: str) -> dict:
    try:
        x, y, w, h = (float(v) for v in text.split(","))
    except ValueError:
        raise UsageError(f"--clip takes x,y,width,height in pixels, e.g. 0,0,800,600; got "
                         f"'{text}'") from None
    if w <= 0 or h <= 0:
        raise UsageError("--clip width and height must be positive")
    return {"x": x, "y": y, "width": w, "height": h}


async def _ref_boxes(page) -> list[dict]:
    """Boxes of the interactive refs, from Playwright's own snapshot with boxes."""
    text = await page.aria_snapshot(mode="ai", boxes=True)
    boxes: list[dict] = []

    def visit(nodes, dx: float, dy: float) -> None:
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

    visit(Snapshot.from_text(text).roots, 0.0, 0.0)
    return boxes


@command("screenshot", "visual", "Save a PNG of the page, the viewport, an element or a region.",
         args=(Arg("target", "an element to picture (default: the whole page)", kind=TARGET,
                   optional=True),),
         flags=(Flag("--viewport", "-v", "only what is on screen"),
                Flag("--clip", help="a region x,y,width,height in page pixels",
                     value="X,Y,W,H"),
                Flag("--annotate", "-a", "draw each interactive element's ref on it"),
                Flag("--out", "-o", "where to save it (default: the session's files folder)",
                     value="FILE")),
         aliases=("shot",),
         examples=("screenshot", "screenshot --annotate --viewport", "screenshot @e5",
                   "screenshot --clip 0,0,800,400 -o top.png"))
async def screenshot(ctx, a) -> Outcome:
    path = _output_path(ctx, a.out, ".png")
    page = ctx.page
    clip = _clip(a.clip) if a.clip else None
    annotated = 0
    if a.annotate:
        boxes = await _ref_boxes(page)
        await ctx.tab.take_snapshot()  # the boxes call replaced the ref map: restore it
        await page.evaluate(ANNOTATE_JS, boxes)
        annotated = len(boxes)
    try:
        if a.target:
            await ctx.on(a.target, lambda loc: loc.screenshot(path=path, timeout=ctx.timeout))
        else:
            # A clip is in page pixels, so it is cut from the full page (below the fold too).
            await page.screenshot(path=path, full_page=not a.viewport, clip=clip)
    finally:
        if a.annotate:
            await page.evaluate(REMOVE_JS)
    size = path.stat().st_size
    note = f", {annotated} refs drawn" if a.annotate else ""
    return Outcome(f"saved {path} ({size // 1024} KB{note})",
                   {"path": str(path), "bytes": size, "annotated": annotated})


@command("pdf", "visual", "Save the page as a PDF (Chromium, headless only).",
         args=(Arg("file", "where to save it (default: the session's files folder)", kind=FILE,
                   optional=True),),
         examples=("pdf", "pdf report.pdf"))
async def pdf(ctx, a) -> Outcome:
    if ctx.session.engine != "chromium" or ctx.session.headed:
        raise CommandError("pdf works only in headless Chromium: use `screenshot` instead, or "
                           "run the session headless")
    path = _output_path(ctx, a.file, ".pdf")
    await ctx.page.pdf(path=str(path), print_background=True)
    size = path.stat().st_size
    return Outcome(f"saved {path} ({size // 1024} KB)", {"path": str(path), "bytes": size})
