"""visual: screenshot (page, viewport, element, clip, annotated with refs) and pdf."""

from __future__ import annotations

import time
from pathlib import Path

from ..errors import CommandError, UsageError
from ..registry import FILE, TARGET, Arg, Flag, command
from ..result import Outcome
from ..annotate import draw_ref_labels, remove_ref_labels

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


def _looks_like_path(word: str) -> bool:
    return word.lower().endswith((".png", ".jpg", ".jpeg")) or "/" in word


def _clip(text: str) -> dict:
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
async def screenshot(ctx, a) -> Outcome:
    if a.target and not a.out and _looks_like_path(a.target):
        a.target, a.out = None, a.target  # `screenshot shot.png`, as other tools take it
    path = _output_path(ctx, a.out, ".png")
    page = ctx.page
    clip = _clip(a.clip) if a.clip else None
    annotated = 0
    if a.annotate:
        boxes = await draw_ref_labels(page)
        annotated = len(boxes)
    try:
        if a.target:
            await ctx.on(a.target, lambda loc: loc.screenshot(path=path, timeout=ctx.timeout))
        else:
            # A clip is in page pixels, so it is cut from the full page (below the fold too).
            await page.screenshot(path=path, full_page=not a.viewport, clip=clip)
    finally:
        if a.annotate:
            await remove_ref_labels(page)
    size = path.stat().st_size
    note = f", {annotated} refs drawn" if a.annotate else ""
    return Outcome(f"saved {path} ({size // 1024} KB{note})",
                   {"path": str(path), "bytes": size, "annotated": annotated})


@command("pdf", "visual", "Save the page as a PDF (Chromium, headless only).",
         args=(Arg("file", "where to save it (default: the session's files folder)", kind=FILE,
                   optional=True),),
         examples=("pdf", "pdf report.pdf"), read_only=True)
async def pdf(ctx, a) -> Outcome:
    if ctx.session.engine != "chromium" or ctx.session.headed:
        raise CommandError("pdf works only in headless Chromium: use `screenshot` instead, or "
                           "run the session headless")
    path = _output_path(ctx, a.file, ".pdf")
    await ctx.page.pdf(path=str(path), print_background=True)
    size = path.stat().st_size
    return Outcome(f"saved {path} ({size // 1024} KB)", {"path": str(path), "bytes": size})
