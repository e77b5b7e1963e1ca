"""Handoff benchmark (run by hand, with a display): python tests/bench/bench_handoff.py

Starts its own Xvfb when $DISPLAY is not set. With three tabs open on the demo site:
  - `handoff` (headless -> a visible window, everything restored) and
  - `resume` (window -> headless, everything restored, what changed computed)
are each timed through Session.run and compared with a baseline measured in the same run,
alternating with it: a bare headed launch of the same browser on a fresh profile, plus
opening the same three URLs one after another. Target: each within 1.5x of the baseline.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))

from playwright.async_api import async_playwright

from cockpit.core import Session
from cockpit.core.browser.browser import plan_launch
from cockpit.demo.server import DemoSite

ROUNDS = 7
PATHS = ("/reference", "/playground", "/")


def ensure_display() -> subprocess.Popen | None:
    if os.environ.get("DISPLAY"):
        return None
    if not shutil.which("Xvfb"):
        sys.exit("no $DISPLAY and no Xvfb: install xvfb (apt-get install xvfb)")
    server = subprocess.Popen(["Xvfb", ":77", "-screen", "0", "1400x1000x24", "-nolisten",
                               "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not Path("/tmp/.X11-unix/X77").exists():
        time.sleep(0.05)
    os.environ["DISPLAY"] = ":77"
    return server


async def baseline(playwright, urls: list[str]) -> float:
    """A bare headed launch on a fresh profile, then the three URLs, one after another."""
    plan = plan_launch(playwright, headless=False)
    with tempfile.TemporaryDirectory(prefix="cockpit-bench-profile-") as profile:
        started = time.perf_counter()
        context = await playwright.chromium.launch_persistent_context(
            profile, headless=False, executable_path=plan.executable, args=plan.args,
            viewport={"width": 1280, "height": 800})
        page = context.pages[0] if context.pages else await context.new_page()
        for n, url in enumerate(urls):
            if n:
                page = await context.new_page()
            await page.goto(url, wait_until="load")
        took = (time.perf_counter() - started) * 1000
        await context.close()
    return took


async def timed_run(session: Session, line: str) -> float:
    result = await session.run(line)
    assert result.ok, f"{line}: {result.error}"
    return result.ms


async def main() -> None:
    xvfb = ensure_display()
    try:
        with DemoSite() as site:
            urls = [site.url + p for p in PATHS]
            session = Session("bench-handoff")
            await session.start()
            async with async_playwright() as playwright:
                try:
                    await session.run(f"goto {urls[0]}")
                    for url in urls[1:]:
                        await session.run(f"newtab {url}")
                    await session.run("tab 2")
                    base, hand, back = [], [], []
                    for _ in range(ROUNDS):
                        base.append(await baseline(playwright, urls))
                        hand.append(await timed_run(session, "handoff bench"))
                        back.append(await timed_run(session, "resume"))
                finally:
                    await session.close()
        b = statistics.median(base)
        print(f"three tabs on the demo site, median of {ROUNDS} rounds")
        print(f"{'':36}{'median ms':>10}{'vs baseline':>13}")
        print(f"{'baseline: headed launch + 3 URLs':36}{b:10.0f}{1:12.2f}x")
        for label, times in (("handoff (to a window)", hand), ("resume (to headless)", back)):
            m = statistics.median(times)
            verdict = "met" if m <= 1.5 * b else "MISSED"
            print(f"{label:36}{m:10.0f}{m / b:12.2f}x  target 1.5x: {verdict}")
    finally:
        if xvfb is not None:
            xvfb.terminate()


if __name__ == "__main__":
    asyncio.run(main())
