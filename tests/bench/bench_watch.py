"""`cockpit watch` with many sessions (run by hand): python tests/bench/bench_watch.py [N] [S]

Starts N `cockpit serve` sessions (default 10) on the demo site, each driven by a loop of
`cockpit exec` commands for S seconds (default 20), and a Monitor and WatchApp (headless,
200x50) following them all. Reports:
  - event delivery: from a command's `command.finished` in its session to the watch
    having it (p50, p95, max), over every command of every session;
  - redraw: the watch's table redrawn with N rows (p50, p95), the work behind each
    update and each second's tick;
  - keystroke echo: a cursor key pressed in the watch to the table's cursor having moved
    (p50, p95), while the sessions run;
  - memory: the resident memory of each session's process (its browser apart), median;
  - the agents' commands finished meanwhile (what the sessions got done).
The agents and the demo site run in sessions of their own, as programs started elsewhere
would (AGENTS_WITH_WATCH=1 starts the agents from the watch's session instead). Compare
with COCKPIT_BROWSER_NICE=0, the browsers at the normal priority, in the same run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import signal
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cockpit.core.base.events import Event


def quantiles(values: list[float]) -> str:
    if not values:
        return "none"
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
    return (f"p50 {statistics.median(values):.1f} ms, p95 {p95:.1f} ms, max {values[-1]:.1f} ms "
            f"({len(values)})")


class SiteProcess:
    """The demo site in a process of its own (`cockpit demo --serve-only`): served from
    this one, its threads answering ten browsers' page loads took the GIL from the watch
    measured here, which is no cost of the watch's. In a session of its own too, as a site
    served elsewhere: in the watch's, Linux's autogroup scheduler counted its CPU as the
    watch terminal's."""

    def __enter__(self) -> SiteProcess:
        self.process = subprocess.Popen([sys.executable, "-m", "cockpit", "demo", "--serve-only"],
                                        stdout=subprocess.PIPE, text=True,
                                        start_new_session=True)
        line = self.process.stdout.readline() if self.process.stdout else ""
        self.url = line.split()[2] if line.startswith("demo site:") else ""
        if not self.url:
            self.process.kill()
            raise RuntimeError(f"the demo site did not start: {line!r}")
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(10)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def main(count: int, seconds: float) -> None:
    rundir = tempfile.mkdtemp(prefix="bw", dir="/tmp")
    os.chmod(rundir, 0o700)
    os.environ["XDG_RUNTIME_DIR"] = rundir
    from test_watch import Served

    from cockpit.control.monitor import Monitor
    from cockpit.tui.watch import WatchApp
    work = Path(tempfile.mkdtemp(prefix="bench-watch-"))
    env = {**os.environ, "COCKPIT_STATE_DIR": str(work / "state")}
    with SiteProcess() as site:
        sessions = [Served(f"s{i}", env, work) for i in range(count)]
        try:
            for served in sessions:
                served.wait_live()
            delivery: list[float] = []
            monitor = await Monitor().start()
            original = monitor.feed_changed

            def timed(feed, event: Event | None) -> None:
                if event is not None and event.kind == "command.finished":
                    delivery.append((time.time() - event.time) * 1000)
                original(feed, event)

            monitor.feed_changed = timed  # type: ignore[method-assign]
            app = WatchApp(monitor)

            def start_agents() -> subprocess.Popen[bytes]:
                # The agents' commands come from a process of their own, as from a harness
                # started in another terminal: with AGENTS_WITH_WATCH=1 they are spawned from
                # the watch's own session instead (the earlier figures), where Linux's
                # autogroup scheduler counts their CPU as the watch's terminal's.
                return subprocess.Popen(
                    [sys.executable, str(Path(__file__).with_name("watch_agents.py")), site.url,
                     *[s.name for s in sessions]], env=env, cwd=work,
                    start_new_session=not os.environ.get("AGENTS_WITH_WATCH"))

            redraws: list[float] = []
            echoes: list[float] = []
            lags: list[float] = []

            async def loop_lag() -> None:  # how late the loop runs what is due
                while True:
                    due = time.perf_counter() + 0.01
                    await asyncio.sleep(0.01)
                    lags.append((time.perf_counter() - due) * 1000)

            lagging = asyncio.ensure_future(loop_lag())
            async with app.run_test(size=(200, 50)):
                print("sessions live; the watch connects", file=sys.stderr, flush=True)
                while len([r for r in monitor.rows() if r.connected]) < count:
                    await asyncio.sleep(0.1)
                print("the watch follows them all; driving", file=sys.stderr, flush=True)
                agents = start_agents()
                end = time.monotonic() + seconds
                cpu_start, wall_start = time.process_time(), time.monotonic()
                from textual import events
                from textual.widgets import DataTable
                table = app.query_one(DataTable)
                moved = asyncio.Event()  # set by the table itself: no polling beside the watch
                app.watch(table, "cursor_coordinate", lambda *_: moved.set(), init=False)
                key = "down"
                while time.monotonic() < end:
                    # a redraw puts the cursor on row 0 and back: only the row the key
                    # moves it to counts
                    wanted = table.cursor_row + (1 if key == "down" else -1)
                    start = time.perf_counter()
                    app.post_message(events.Key(key, None))  # as the terminal's driver does
                    while table.cursor_row != wanted and time.perf_counter() - start < 5:
                        moved.clear()
                        with contextlib.suppress(asyncio.TimeoutError):
                            await asyncio.wait_for(moved.wait(), 5)
                    echoes.append((time.perf_counter() - start) * 1000)
                    key = "up" if table.cursor_row == count - 1 else \
                        "down" if table.cursor_row == 0 else key
                    # the redraw timed between keys: one forced just before a key would
                    # make every key wait behind the drawing it sets off
                    await asyncio.sleep(0.1)
                    start = time.perf_counter()
                    app.redraw()
                    redraws.append((time.perf_counter() - start) * 1000)
                    await asyncio.sleep(0.1)
                cpu = (time.process_time() - cpu_start) / (time.monotonic() - wall_start)
                if os.environ.get("AGENTS_WITH_WATCH"):
                    agents.kill()  # its commands in flight end by themselves
                else:
                    os.killpg(agents.pid, signal.SIGKILL)
                await asyncio.to_thread(agents.wait, 60)  # not blocking the loop
            lagging.cancel()
            await monitor.close()
            memory = [rss_kb(s.process.pid) / 1024 for s in sessions]
        finally:
            for served in sessions:
                served.stop()
            import shutil
            shutil.rmtree(rundir, ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)
    print(f"{count} sessions, {seconds:g} s of commands")
    print(f"agents' commands finished while driven: {len(delivery)} "
          f"({len(delivery) / seconds:.2f}/s)")
    print(f"event delivery (command.finished -> watch): {quantiles(delivery)}")
    print(f"redraw of {count} rows: {quantiles(redraws)}")
    print(f"event loop lag: {quantiles(lags)}")
    print(f"keystroke echo (cursor key -> cursor moved): {quantiles(echoes)}")
    print(f"the watch's process: {cpu * 100:.0f}% of a core; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"session process memory (RSS, browser apart): median "
          f"{statistics.median(memory):.0f} MiB")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the sessions are stopped
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 10,
                     float(sys.argv[2]) if len(sys.argv) > 2 else 20))
