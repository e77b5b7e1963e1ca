"""Recording benchmark (run by hand): python tests/bench/bench_recording.py

The cost of recording a step: the same commands through Session.run with and without a
Recorder attached, alternating, in one run on the demo site. Target: under 5% per step.
Two kinds of step: a click that changes the page (settles, snapshots, diffs: the usual
step, with a diff to write) and `title` (the cheapest command: the worst case).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))

from cockpit.core import Session
from cockpit.demo.server import DemoSite
from cockpit.record.recorder import Recorder

ROUNDS = 100


async def one(session: Session, line: str) -> float:
    started = time.perf_counter()
    result = await session.run(line)
    assert result.ok, result.error
    return (time.perf_counter() - started) * 1000


async def measure(session: Session, line: str, path: Path) -> tuple[float, float]:
    plain, recorded = [], []
    for _ in range(ROUNDS):
        plain.append(await one(session, line))
        recorder = Recorder(session, path).start()
        try:
            recorded.append(await one(session, line))
        finally:
            recorder.close()
    return statistics.median(plain), statistics.median(recorded)


async def main() -> None:
    with DemoSite() as site, tempfile.TemporaryDirectory() as folder:
        session = Session("bench-recording")
        await session.start()
        try:
            await session.run(f"goto {site.url}/playground")
            snap = await session.run("snapshot -i")
            ref = next(line.split()[0][1:] for line in snap.output.splitlines()
                       if line.split()[1:2] == ["button"])
            path = Path(folder) / "bench.jsonl"
            rows = [("click (settle + diff)", *await measure(session, f"click @{ref}", path)),
                    ("title (cheapest)", *await measure(session, "title", path))]
            size = path.stat().st_size
        finally:
            await session.close()
    print(f"median of {ROUNDS}, alternating; {size:,} bytes written")
    print(f"{'step':24}{'without ms':>12}{'with ms':>10}{'overhead':>10}")
    for label, a, b in rows:
        verdict = "met" if b <= a * 1.05 else "MISSED"
        print(f"{label:24}{a:12.2f}{b:10.2f}{(b / a - 1) * 100:9.1f}%  target 5%: {verdict}")


if __name__ == "__main__":
    asyncio.run(main())
