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

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))

from cockpit.core import Session  # noqa: E402
from cockpit.core.diff import diff  # noqa: E402
from cockpit.core.snapshot import Snapshot  # noqa: E402
from cockpit.demo.server import DemoSite  # noqa: E402

COUNT_INTERACTIVE_JS = """() => [...document.querySelectorAll(
  'a[href], button, input:not([type=hidden]), select, textarea')]
  .filter(el => el.getClientRects().length > 0).length"""


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


async def main() -> None:
    rows: list[tuple[str, str, str, str]] = []
    with DemoSite() as site:
        async with Session("bench") as session:
            page = session.active.page
            r = await session.run(f"goto {site.url}/reference")
            assert r.ok, r.error
            html = await page.content()
            snap_i = await session.run("snapshot -i")
            text_i = snap_i.output
            dom_interactive = await page.evaluate(COUNT_INTERACTIVE_JS)
            refs_interactive = sum(1 for line in text_i.splitlines()
                                   if not line.startswith("- heading"))
            rows.append(("snapshot -i size", f"{len(text_i):,} chars (~{len(text_i)//4:,} tok)",
                         f"HTML {len(html):,} chars (~{len(html)//4:,} tok)",
                         f"{len(html) / len(text_i):.1f}x smaller (target >= 20x)"))
            rows.append(("interactive elements", f"{refs_interactive} in snapshot -i",
                         f"{dom_interactive} visible in the DOM",
                         "none lost" if refs_interactive >= dom_interactive else
                         f"{dom_interactive - refs_interactive} LOST"))

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
