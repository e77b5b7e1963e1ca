"""Soak benchmark (run by hand): python tests/bench/bench_soak.py [soak|flood|both]
                                    [--commands N] [--cap N] [--recycle N]

Two figures, each on a real headless Chromium and the demo site:

  soak: N mixed commands (default 10,000: goto, snapshot -i, click and fill by ref, js,
    text, console, tabs, status, an unknown command, a missing ref) through a LiveSession
    (control server, recorder, the lot), memory sampled every 250 commands: our Python
    process, Playwright's Node driver and the browser (all its processes), each as PSS
    (shared pages split between the processes, so the sum is honest). The control server
    keeps the commands of the last `--cap` commands (default 2,000 here, so the steady
    state is reached within the run; the shipped cap is 10,000 and the same code bounds
    it); a tab's page is recycled at a goto past `--recycle` requests (default 300 here,
    shipped 1,000: core/recycle.py). Reported: MB per 1,000 commands before the cap and
    after it, per process and in total (a least-squares slope over the samples; target
    after the cap: flat, ~0).
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
from cockpit.core.browser import recycle
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


def pss_mb(pid: int | str) -> float:
    """A process's proportional set size (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def children(pid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                found.append(int(name))
    return found


def memory() -> tuple[float, float, float]:
    """MB of (this process, Playwright's driver, the browser's processes)."""
    driver = next((pid for pid in children(os.getpid())
                   if b"run-driver" in Path(f"/proc/{pid}/cmdline").read_bytes()), None)
    browser, todo = 0.0, children(driver) if driver else []
    while todo:
        pid = todo.pop()
        browser += pss_mb(pid)
        todo += children(pid)
    return pss_mb("self"), pss_mb(driver) if driver else 0.0, browser


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


async def soak(commands: int, cap: int, recycle_after: int) -> None:
    server_module.COMMAND_HISTORY = 3 * cap  # queued, started, finished: 3 events each
    recycle.RECYCLE_AFTER = recycle_after
    with DemoSite() as site:
        async with LiveSession(SessionOptions(name=f"bench-soak-{os.getpid()}")) as live:
            samples: list[tuple[int, tuple[float, float, float]]] = []
            began = time.perf_counter()
            for i in range(commands):
                await live.session.run(mixed(site.url, i), source="script")
                if i % 250 == 249:
                    gc.collect()
                    samples.append((i + 1, memory()))
            seconds = time.perf_counter() - began
    print(f"soak: {commands} commands in {seconds:.0f} s; history cap {cap} commands, "
          f"a fresh page past {recycle_after} requests")
    parts = ("python", "driver", "browser")
    for n, name in enumerate((*parts, "total")):
        points = [(i, sum(m) if n == 3 else m[n]) for i, m in samples]
        warm = [p for p in points if 500 <= p[0] <= cap]
        after = [p for p in points if p[0] > cap + 500]
        print(f"  {name:8} {points[0][1]:6.0f} MB at {points[0][0]}, {points[-1][1]:6.0f} MB "
              f"at {points[-1][0]}; MB per 1,000 commands: {slope(warm):6.2f} before the "
              f"cap, {slope(after):6.2f} after it")
    print(f"  peak RSS of this process {peak_mb():.0f} MB")


async def flood() -> None:
    from cockpit.tui.app import CockpitApp
    from cockpit.tui.prompt import Prompt
    with DemoSite() as site:
        async with LiveSession(SessionOptions(name="bench-flood", no_record=True)) as live:
            await live.session.run(f"goto {site.url}/login")
            app = CockpitApp(live.session, pictures=False)
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
    parser.add_argument("--recycle", type=int, default=300)
    args = parser.parse_args()
    if args.part in ("flood", "both"):  # first: its peak RSS is its own
        asyncio.run(flood())
    if args.part in ("soak", "both"):
        asyncio.run(soak(args.commands, args.cap, args.recycle))


if __name__ == "__main__":
    main()
