"""Engine benchmark (run by hand): python tests/bench/bench_engine.py

Every figure is a ratio against a baseline measured in the same run, on the demo site's
large /reference page, so a noisy shared machine moves both sides alike:
  - `snapshot -i` size versus the page's HTML (characters, ~tokens), and no interactive
    element lost;
  - `snapshot -i` latency through Session.run versus Playwright's raw aria_snapshot;
  - `js 1+1` through Session.run versus raw page.evaluate (target: within 1.1x);
  - diff time versus snapshot time (target: under 10%).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))

from cockpit.core import Session
from cockpit.core.page.diff import diff
from cockpit.core.model.snapshot import Snapshot
from cockpit.demo.server import DemoSite

# Interactive elements a person could use: visible ones, by the browser's own test.
COUNT_INTERACTIVE_JS = """() => [...document.querySelectorAll(
  'a[href], button, input:not([type=hidden]), select, textarea')]
  .filter(el => el.checkVisibility({visibilityProperty: true, opacityProperty: true}))
  .length"""
# A real large page, when this machine has one offline (the Rust book, from rustup's docs).
REAL_PAGES = sorted(Path.home().glob(".rustup/toolchains/*/share/doc/rust/html/book/print.html"))


async def timed(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        await fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


async def interleaved(a, b, n: int) -> tuple[float, float]:
    """Median ms of a and b, alternating so drift hits both alike."""
    ta, tb = [], []
    for _ in range(n):
        ta += await timed(a, 1)
        tb += await timed(b, 1)
    return statistics.median(ta), statistics.median(tb)


async def size_rows(session: Session, label: str, url: str) -> list[tuple[str, ...]]:
    r = await session.run(f"goto {url}")
    if not r.ok and "did not finish" in (r.error or ""):  # a big page on a loaded machine
        r = await session.run("wait --load --timeout 120000")
    assert r.ok, r.error
    page = session.active.page
    html = await page.content()
    text_i = (await session.run("snapshot -i")).output
    dom_interactive = await page.evaluate(COUNT_INTERACTIVE_JS)
    in_snapshot = sum(1 for line in text_i.splitlines() if line.split()[1:2] != ["heading"])
    lost = dom_interactive - in_snapshot
    return [(f"snapshot -i size, {label}", f"{len(text_i):,} chars (~{len(text_i)//4:,} tok)",
             f"HTML {len(html):,} chars (~{len(html)//4:,} tok)",
             f"{len(html) / len(text_i):.1f}x smaller (target >= 20x)"),
            (f"interactive elements, {label}", f"{in_snapshot} in snapshot -i",
             f"{dom_interactive} visible in the DOM",
             "none lost" if lost <= 0 else f"{lost} LOST")]


async def main() -> None:
    rows: list[tuple[str, str, str, str]] = []
    with DemoSite() as site:
        async with Session("bench") as session:
            page = session.active.page
            pages = [("demo /reference", f"{site.url}/reference")]
            pages += [("Rust book print.html", f"file://{p}") for p in REAL_PAGES[:1]]
            for label, url in pages:
                rows += await size_rows(session, label, url)
            await session.run(f"goto {site.url}/reference")

            async def run_snapshot():
                await session.run("snapshot -i")

            async def raw_snapshot():
                await page.aria_snapshot(mode="ai")
            ours, raw = await interleaved(run_snapshot, raw_snapshot, 15)
            rows.append(("snapshot -i latency", f"{ours:.1f} ms", f"raw {raw:.1f} ms",
                         f"{ours / raw:.2f}x"))

            await session.run("goto about:blank")

            async def run_js():
                await session.run("js 1+1")

            async def raw_js():
                await page.evaluate("1+1")
            await interleaved(run_js, raw_js, 50)  # warm up
            ours, raw = await interleaved(run_js, raw_js, 400)
            rows.append(("js 1+1", f"{ours:.3f} ms", f"raw evaluate {raw:.3f} ms",
                         f"{ours / raw:.2f}x (target <= 1.1x)"))

            await session.run(f"goto {site.url}/reference")
            text = await page.aria_snapshot(mode="ai")
            before = Snapshot.from_text(text, doc="d")
            await page.evaluate("document.querySelector('h2').textContent += ' (edited)';"
                                "document.body.prepend(Object.assign("
                                "document.createElement('button'), {textContent: 'New'}))")

            async def take():
                return Snapshot.from_text(await page.aria_snapshot(mode="ai"), doc="d")
            snap_ms = statistics.median(await timed(take, 10))
            after = await take()
            diff_times = []
            for _ in range(20):
                t = time.perf_counter()
                d = diff(before, after)
                diff_times.append((time.perf_counter() - t) * 1000)
            diff_ms = statistics.median(diff_times)
            rows.append(("diff", f"{diff_ms:.2f} ms ({d.summary})",
                         f"snapshot {snap_ms:.1f} ms ({len(after.refs):,} refs)",
                         f"{100 * diff_ms / snap_ms:.1f}% (target < 10%)"))
    width = [max(len(r[i]) for r in rows) for i in range(4)]
    print(f"engine benchmark (Python {sys.version.split()[0]}, demo site /reference page)")
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, width)))


if __name__ == "__main__":
    asyncio.run(main())
