"""Benchmark settling (run by hand: `python3 tests/bench/bench_settle.py`).

In one run, on the demo's /settle page:
- a click that sets nothing going, through Cockpit, against today's fixed-wait path
  measured alongside (a plain Playwright click + the old 100 ms grace);
- a click whose handler navigates from a 150 ms timer: its own result must already show
  the new page (the old fixed wait answered "No change").
Medians of N rounds; the ratio is what to compare across machines.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))

from cockpit.core import Session
from cockpit.core.settle.settle import GRACE_S
from cockpit.demo.server import DemoSite

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "15"))


def ref(session: Session, name: str) -> str:
    for r, node in session.active.snapshot.refs.items():
        if node.role == "button" and name in node.name:
            return "@" + r
    raise SystemExit(f"no button {name!r}")


async def main() -> None:
    with DemoSite() as site:
        async with Session("bench-settle") as s:
            await s.run(f"goto {site.url}/settle")
            await s.run("snapshot -i")
            nothing = ref(s, "Do nothing")
            new, old = [], []
            for _ in range(ROUNDS):
                t = time.perf_counter()
                r = await s.run(f"click {nothing}")
                new.append(time.perf_counter() - t)
                assert r.ok and "No change" in r.output, r.output
                # today's path: the click, the fixed grace, the same diffing snapshot
                t = time.perf_counter()
                await s.active.page.locator(f"aria-ref={nothing[1:]}").click()
                await asyncio.sleep(GRACE_S)
                await s.active.take_snapshot()
                old.append(time.perf_counter() - t)
            timer, landed = [], 0
            for _ in range(max(3, ROUNDS // 3)):
                await s.run(f"goto {site.url}/settle")
                await s.run("snapshot -i")
                t = time.perf_counter()
                r = await s.run(f"click {ref(s, 'Go in 150 ms')}")
                timer.append(time.perf_counter() - t)
                landed += "/settle/done?ms=150" in r.output and "new page" in r.output
    n, o, tm = (statistics.median(x) * 1000 for x in (new, old, timer))
    print(f"click, no consequence:   {n:6.1f} ms (median of {ROUNDS})")
    print(f"  old fixed-wait path:   {o:6.1f} ms  -> ratio new/old {n / o:.2f}")
    print(f"click, 150 ms timer nav: {tm:6.1f} ms; new page in the click's result "
          f"{landed}/{len(timer)}")


if __name__ == "__main__":
    asyncio.run(main())
