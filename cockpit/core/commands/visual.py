"""visual: screenshot (page, viewport, element, clip, annotated with refs), pdf, and zoom
(the picture a view enlarges)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..base.errors import CommandError, UsageError
from ..base.paths import given_path
from ..language.registry import FILE, TARGET, Arg, Flag, command
from ..base.result import Outcome
from ..page.annotate import draw_ref_labels, ref_boxes, remove_ref_labels

if TYPE_CHECKING:
    from playwright.async_api import FloatRect, Locator, Page

    from ..session.session import CommandContext
    from ..language.parser import Invocation


def _output_path(ctx: CommandContext, given: str | None, suffix: str) -> Path:
    if given:
        # Said in full: the session may run in another directory than the caller.
        path = given_path(given)
        if path.suffix.lower() != suffix:
            raise UsageError(f"{path} should end in {suffix}")
    else:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = ctx.session.files_dir / f"{suffix[1:]}-tab{ctx.needs_tab().index}-{stamp}{suffix}"
        n = 1
        while path.exists():
            n += 1
            path = path.with_name(f"{path.stem.rsplit('_', 1)[0]}_{n}{suffix}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


# A full-page picture stops here: on a page hundreds of thousands of pixels tall (the demo's
# /reference, 397k px) Chromium ran past the 30 s timeout, and such a picture is of no use
# to a person or a model.
MAX_SHOT_PX = 8_192
PAGE_SIZE_JS = ("() => [document.documentElement.scrollWidth, "
                "document.documentElement.scrollHeight]")


async def _tall_page_clip(page: Page) -> tuple[FloatRect | None, int]:
    """The clip of a full-page picture of a page too tall to take whole, and its height
    (None, 0 for a page of sensible height)."""
    width, height = await page.evaluate(PAGE_SIZE_JS)
    if height <= MAX_SHOT_PX:
        return None, 0
    return {"x": 0, "y": 0, "width": width, "height": MAX_SHOT_PX}, height


def _looks_like_path(word: str) -> bool:
    return word.lower().endswith((".png", ".jpg", ".jpeg")) or "/" in word


def _clip(text: str) -> FloatRect:
    try:
        x, y, w, h = (float(v) for v in text.split(","))
    except ValueError:
        raise UsageError(f"--clip takes x,y,width,height in pixels, e.g. 0,0,800,600; got "
                         f"'{text}'") from None
    if w <= 0 or h <= 0:
        raise UsageError("--clip width and height must be positive")
    return {"x": x, "y": y, "width": w, "height": h}


@command("screenshot", "visual", "Save a PNG of the page, the viewport, an element or a region.",
         args=(Arg("target", "an element to picture (default: the whole page); a word "
                   "ending in .png or holding a / is the file to save", kind=TARGET,
                   optional=True),),
         flags=(Flag("--viewport", "-v", "only what is on screen"),
                Flag("--clip", help="a region x,y,width,height in page pixels",
                     value="X,Y,W,H"),
                Flag("--annotate", "-a", "draw each interactive element's ref on it"),
                Flag("--out", "-o", "where to save it (default: the session's files folder)",
                     value="FILE")),
         aliases=("shot",),
         examples=("screenshot", "screenshot page.png", "screenshot --annotate --viewport",
                   "screenshot @e5",
                   "screenshot --clip 0,0,800,400 -o top.png"), read_only=True,
         tool="browser_screenshot")
async def screenshot(ctx: CommandContext, a: Invocation) -> Outcome:
    target: str | None = a.target
    out: str | None = a.out
    if target and not out and _looks_like_path(target):
        out, target = target, None  # `screenshot shot.png`, as other tools take it
    path = _output_path(ctx, out, ".png")
    page = ctx.page
    clip = _clip(a.clip) if a.clip else None
    annotated, cut = 0, 0
    if a.annotate:
        boxes = await draw_ref_labels(page, ctx.needs_tab().names)
        annotated = len(boxes)
    try:
        if target:
            await ctx.on(target, lambda loc: loc.screenshot(path=path, timeout=ctx.timeout))
        else:
            if clip is None and not a.viewport:
                clip, cut = await _tall_page_clip(page)
            # A clip is in page pixels, so it is cut from the full page (below the fold too).
            # a whole long page takes a while: bounded by the command's deadline instead
            await page.screenshot(path=path, full_page=not a.viewport, clip=clip,
                                  timeout=ctx.session.command_timeout * 1000)
    finally:
        if a.annotate:
            await remove_ref_labels(page)
    size = path.stat().st_size
    note = f", {annotated} refs drawn" if a.annotate else ""
    if cut:
        note += (f"; the page is {cut:,} px tall, this is its top {MAX_SHOT_PX:,} px: "
                 "`screenshot --clip X,Y,W,H`, an element, or `scroll` and `-v` for the rest")
    return Outcome(f"saved {path} ({size // 1024} KB{note})",
                   {"path": str(path), "bytes": size, "annotated": annotated})


@command("pdf", "visual", "Save the page as a PDF (Chromium, headless only).",
         args=(Arg("file", "where to save it (default: the session's files folder)", kind=FILE,
                   optional=True),),
         examples=("pdf", "pdf report.pdf"), read_only=True)
async def pdf(ctx: CommandContext, a: Invocation) -> Outcome:
    if ctx.session.engine != "chromium" or ctx.session.headed:
        raise CommandError("pdf works only in headless Chromium: use `screenshot` instead, or "
                           "run the session headless")
    path = _output_path(ctx, a.file, ".pdf")
    await ctx.page.pdf(path=str(path), print_background=True)
    size = path.stat().st_size
    return Outcome(f"saved {path} ({size // 1024} KB)", {"path": str(path), "bytes": size})


# The viewport's size in CSS pixels (page.viewport_size is None in a headed window).
VIEWPORT_JS = "() => [innerWidth, innerHeight]"


@command("zoom", "visual", "Show the page, or one element, filling the cockpit.",
         args=(Arg("target", "the element to enlarge, e.g. a CAPTCHA's image (default: "
                   "what the page shows)", kind=TARGET, optional=True),),
         details="In the TUI the picture fills the screen, scaled to the terminal's cells, "
                 "with the refs drawn as text over it (t: on/off; l: live); Escape returns. "
                 "Elsewhere it says what would be pictured: `screenshot TARGET FILE.png` "
                 "saves it. Its data `zoom` holds the pictured area and the ref boxes in it, "
                 "in CSS pixels of the viewport.",
         examples=("zoom", "zoom @e7", "zoom img.captcha"), read_only=True)
async def zoom(ctx: CommandContext, a: Invocation) -> Outcome:
    page = ctx.page
    width, height = await page.evaluate(VIEWPORT_JS)
    area = {"x": 0.0, "y": 0.0, "w": float(width), "h": float(height)}
    what = f"the page ({width}x{height} px)"
    if a.target:
        async def box_of(loc: Locator) -> FloatRect | None:
            await loc.scroll_into_view_if_needed(timeout=ctx.timeout)
            return await loc.bounding_box(timeout=ctx.timeout)
        box = await ctx.on(a.target, box_of)
        if not box or box["width"] <= 0 or box["height"] <= 0:
            raise CommandError(f"{ctx.describe(a.target)} is not visible: nothing to zoom "
                               "into; `snapshot -s` shows what it holds")
        area = {"x": box["x"], "y": box["y"], "w": box["width"], "h": box["height"]}
        what = f"{ctx.describe(a.target)} ({round(area['w'])}x{round(area['h'])} px)"
    labels = [b for b in await _labels(page, ctx.needs_tab().names) if _inside(b, area)]
    return Outcome(f"zoom: {what}, {len(labels)} refs in it",
                   {"zoom": {"target": a.target, "area": area, "labels": labels}})


async def _labels(page: Page, names: Callable[[str], str]) -> list[dict[str, Any]]:
    boxes = await ref_boxes(page, names)
    # The boxes snapshot replaced Playwright's ref map; a plain one restores it (refs are
    # stable, so it is the same map), as draw_ref_labels does.
    await page.aria_snapshot(mode="ai")
    return boxes


def _inside(box: dict[str, Any], area: dict[str, float]) -> bool:
    """The box's top-left corner is in the area (where its label is drawn)."""
    x: float = box["x"]  # a ref box: JSON from the page (annotate.ref_boxes)
    y: float = box["y"]
    return (area["x"] <= x < area["x"] + area["w"] and
            area["y"] <= y < area["y"] + area["h"])
