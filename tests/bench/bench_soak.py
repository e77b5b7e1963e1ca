"""Soak benchmark (run by hand): python tests/bench/bench_soak.py [soak|flood|both]
                                    [--commands N] [--cap N]

Two figures, each on a real headless Chromium and the demo site:

  soak: N mixed commands (default 10,000: goto, snapshot -i, click and fill by ref, js,
    text, console, tabs, status, an unknown command, a missing ref) through a LiveSession
    (control server, recorder, the lot), the process's RSS sampled every 250 commands.
    The control server keeps the commands of the last `--cap` commands (default 2,000
    here, so the steady state is reached within the run; the shipped cap is 10,000 and
    the same code bounds it). Reported: MB per 1,000 commands before the cap and after
    it (a least-squares slope over the samples; target after the cap: flat, ~0).
  flood: the TUI on a real session; `js for(let i=0;i<100000;i++)console.log('x'+i)`
    runs while keys are typed into the prompt, one every 50 ms, until it ends. Reported: keystroke
    echo p50/p95/max (ms, key event to `prompt.value` holding it), the same with no
    flood as the baseline, how long the flood's command took, and the peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))
os.environ.setdefault("COCKPIT_RECORDINGS_DIR", tempfile.mkdtemp(prefix="cockpit-bench-rec-"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from textual import events

from cockpit.cli.live import LiveSession, SessionOptions
from cockpit.control import server as server_module
from cockpit.demo.server import DemoSite

FLOOD = "js for(let i=0;i<100000;i++)console.log('x'+i)"
KEYS = 25
TYPING_GAP_S = 0.05


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def slope(points: list[tuple[int, float]]) -> float:
    """MB per 1,000 commands: the least-squares slope of (commands, MB)."""
    if len(points) < 2:
        return float("nan")
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return 1000 * sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


def mixed(site_url: str, i: int) -> str:
    return [f"goto {site_url}/login", "snapshot -i", "fill @e3 jane@example.com",
            "click @e5", "js document.title + 1", "text", "console -n 5", "tabs",
            "status", "nosuchcommand", "click @e999", "title"][i % 12]


async def soak(commands: int, cap: int) -> None:
    server_module.COMMAND_HISTORY = 3 * cap  # queued, started, finished: 3 events each
    with DemoSite() as site:
        async with LiveSession(SessionOptions(name="bench-soak")) as live:
            samples: list[tuple[int, float]] = []
            began = time.perf_counter()
            for i in range(commands):
                await live.session.run(mixed(site.url, i), source="script")
                if i % 250 == 249:
                    gc.collect()
                    samples.append((i + 1, rss_mb()))
            seconds = time.perf_counter() - began
    warm = [p for p in samples if 500 <= p[0] <= cap]
    after = [p for p in samples if p[0] > cap + 500]
    print(f"soak: {commands} commands in {seconds:.0f} s; history cap {cap} commands")
    print(f"  RSS {samples[0][1]:.0f} MB at {samples[0][0]}, {samples[-1][1]:.0f} MB at "
          f"{samples[-1][0]}; peak {peak_mb():.0f} MB")
    print(f"  MB per 1,000 commands: {slope(warm):.2f} before the cap, "
          f"{slope(after):.2f} after it")


async def flood() -> None:
    from cockpit.tui.app import CockpitApp
    from cockpit.tui.prompt import Prompt
    with DemoSite() as site:
        async with LiveSession(SessionOptions(name="bench-flood", no_record=True)) as live:
            await live.session.run(f"goto {site.url}/login")
            app = CockpitApp(live.session, owns_session=False, pictures=False)
            async with app.run_test(headless=True, size=(160, 48)) as pilot:
                prompt = app.query_one(Prompt)
                prompt.focus()
                await pilot.pause()
                quiet = await echo_times(app, prompt)
                before = peak_mb()
                started = time.perf_counter()
                task = asyncio.create_task(live.session.run(FLOOD))
                await asyncio.sleep(0.2)
                busy = await echo_times(app, prompt, until=task)
                result = await task
                took = time.perf_counter() - started
    print(f"flood: 100,000 console messages; the command took {took:.1f} s "
          f"(ok={result.ok}); peak RSS {peak_mb():.0f} MB (before the flood {before:.0f})")
    for name, times in (("no flood", quiet), ("during the flood", busy)):
        ordered = sorted(times)
        p95 = ordered[int(0.95 * (len(ordered) - 1))]
        print(f"  keystroke echo {name}: p50 {statistics.median(times):.0f} ms, "
              f"p95 {p95:.0f} ms, max {max(times):.0f} ms")


async def echo_times(app, prompt, until: asyncio.Task | None = None) -> list[float]:
    """Echo times of KEYS keys, or of keys typed until `until` is done."""
    out = []
    prompt.value = ""
    for i in range(100_000):
        if i >= KEYS and (until is None or until.done()):
            break
        if len(prompt.value) > 100:
            prompt.value = ""
        key = "abcdefghijklmnopqrstuvwxyz"[i % 26]
        expected = prompt.value + key
        event = events.Key(key, key)
        event.set_sender(app)
        t = time.perf_counter()
        app.post_message(event)
        while prompt.value != expected:
            await asyncio.sleep(0.001)
            if time.perf_counter() - t > 60:
                raise AssertionError("no echo in 60 s")
        out.append((time.perf_counter() - t) * 1000)
        await asyncio.sleep(TYPING_GAP_S)
    prompt.value = ""
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("part", nargs="?", default="both", choices=("soak", "flood", "both"))
    parser.add_argument("--commands", type=int, default=10_000)
    parser.add_argument("--cap", type=int, default=2_000)
    args = parser.parse_args()
    if args.part in ("flood", "both"):  # first: its peak RSS is its own
        asyncio.run(flood())
    if args.part in ("soak", "both"):
        asyncio.run(soak(args.commands, args.cap))


if __name__ == "__main__":
    main()
