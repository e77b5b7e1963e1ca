"""Video benchmark (run by hand): python tests/bench/bench_video.py

What `video start` costs while it records: the CPU of everything the session runs (this
process, Playwright's driver, Chromium, ffmpeg: every descendant, from /proc) over a
window on an idle page and on a busy one (an animation that repaints every frame),
without and with a video; ffmpeg's own share; and the file's size a minute.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))

from cockpit.core import Session

WINDOW_S = 10.0
TICK = os.sysconf("SC_CLK_TCK")
IDLE = "data:text/html,<h1>Idle</h1><p>nothing moves here</p>"
BUSY = "data:text/html," + quote("<canvas id=c width=1200 height=700></canvas><script>"
        "const g=c.getContext('2d');let t=0;(function f(){t++;"
        "for(let i=0;i<200;i++){g.fillStyle=`hsl(${(t*3+i)%360},80%,50%)`;"
        "g.fillRect((i*37+t*5)%1200,(i*53+t*3)%700,40,40)}"
        "requestAnimationFrame(f)})()</script>")


def descendants(root: int) -> dict[int, tuple[str, float]]:
    """Every process under `root` (and itself): its name and CPU seconds so far."""
    parents, found = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        parents[int(entry)] = (int(fields[1]), name, (int(fields[11]) + int(fields[12])) / TICK)
    for pid, (_, name, cpu) in parents.items():
        walk = pid
        while walk in parents and walk != root:
            walk = parents[walk][0]
        if walk == root:
            found[pid] = (name, cpu)
    return found


async def window(session: Session) -> tuple[float, float]:
    """CPU used in a window, as % of one core: everything, and ffmpeg's part."""
    before = descendants(os.getpid())
    await asyncio.sleep(WINDOW_S)
    after = descendants(os.getpid())
    total = sum(cpu - before.get(pid, (name, 0.0))[1] for pid, (name, cpu) in after.items())
    ffmpeg = sum(cpu - before.get(pid, (name, 0.0))[1] for pid, (name, cpu) in after.items()
                 if name == "ffmpeg")
    return total / WINDOW_S * 100, ffmpeg / WINDOW_S * 100


async def main() -> None:
    out = Path(tempfile.mkdtemp(prefix="cockpit-video-bench-"))
    async with Session("bench-video") as session:
        for label, url in (("idle", IDLE), ("busy", BUSY)):
            result = await session.run(f"goto '{url}'")
            assert result.ok, result.error
            await asyncio.sleep(2)
            without, _ = await window(session)
            video = out / f"{label}.webm"
            assert (await session.run(f"video start {video}")).ok
            await asyncio.sleep(1)
            started = time.monotonic()
            with_video, ffmpeg = await window(session)
            stopped = await session.run("video stop")
            assert stopped.ok, stopped.error
            seconds = time.monotonic() - started + 1
            size = video.stat().st_size / 1024 / seconds * 60
            print(f"{label:5} page: {without:5.1f}% of a core without a video, "
                  f"{with_video:5.1f}% with one (ffmpeg {ffmpeg:4.1f}%); "
                  f"{size:6.0f} KB a minute")


if __name__ == "__main__":
    asyncio.run(main())
