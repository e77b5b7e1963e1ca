"""Step pictures benchmark (run by hand): python tests/bench/bench_shots.py

What a recording's picture after each step (record/shots.py) costs a step: the same
`fill` through Session.run with a Recorder that takes pictures and one that does not,
alternating, in one run on the demo site; and the size of a picture. Target: a picture
costs under 50 ms a step and under 10 KB.
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

ROUNDS = 40


async def step(session: Session, shots: bool, n: int) -> float:
    recorder = Recorder(session, Path(tempfile.mkdtemp()) / "b.jsonl", {}, shots=shots)
    recorder.start()
    try:
        started = time.perf_counter()
        result = await session.run(f"fill '#email' x{n}@example.com")
        assert result.ok, result.error
        return (time.perf_counter() - started) * 1000
    finally:
        recorder.close()


async def main() -> None:
    with DemoSite() as site:
        session = Session("bench-shots")
        await session.start()
        try:
            await session.run(f"goto {site.url}/login")
            plain, shot = [], []
            for n in range(ROUNDS):
                plain.append(await step(session, False, n))
                shot.append(await step(session, True, n))
            pictures = Path(tempfile.mkdtemp()) / "p.jsonl"
            recorder = Recorder(session, pictures, {}, shots=True).start()
            for n in range(5):
                await session.run(f"fill '#email' y{n}@example.com")
            recorder.close()
            sizes = [p.stat().st_size for p in pictures.with_suffix(".shots").iterdir()]
        finally:
            await session.close()
    a, b = statistics.median(plain), statistics.median(shot)
    print(f"fill: {a:.1f} ms without pictures, {b:.1f} ms with (+{b - a:.1f} ms); "
          f"a picture: {statistics.median(sizes) / 1024:.1f} KiB")


if __name__ == "__main__":
    asyncio.run(main())
