"""TUI benchmark (run by hand): python tests/bench/bench_tui.py

No browser: a small fake session answers every command after 20 ms, as a fast page would.
Every figure is set against a baseline measured in the same run, so a noisy shared machine
moves both sides alike:
  - ingesting 10,000 command-log events (queued + finished pairs on the bus, as an agent
    flooding the session would) until the log has every row and the app is idle, versus the
    same rows added straight to a bare DataTable in a minimal app (target: under a second);
  - memory (tracemalloc, after gc) of 10,000 rows sent in bursts of 250, then of a second
    and a third 10,000: the log keeps at most 10,000 rows and a bounded cache of rendered
    ones, so once full it should stay flat (second and third ~0x the first);
  - the slowest of those bursts into the full log, against the median burst into the empty
    one: dropping old rows must not stall the app (and the prompt);
  - keystroke to echo in the prompt (from the key event to `prompt.value` holding the key)
    while an agent sends 50 commands a second through `app.submit`, versus no traffic
    (target: the prompt never waits on the browser, ~1x, a few ms), with the log nearly
    empty and with it full (10,000 rows: the steady state of a long session);
  - keystroke to echo while a real session (headless Chromium, in this process, as the
    cockpit runs it) takes `snapshot -i` of a big page again and again: Python's
    library/stdtypes.html from Debian's python3-doc (~600 KB of snapshot, ~5,000 refs:
    parsing, the refs pane's rows, the log), else the demo's /reference page; versus the
    same app with no command running (target: p95 <= 50 ms). `--big-page-only` runs just
    this measure.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
import http.server
import threading
from functools import partial
from pathlib import Path

os.environ.setdefault("COCKPIT_STATE_DIR", tempfile.mkdtemp(prefix="cockpit-bench-"))

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from cockpit.core import REGISTRY
from cockpit.core.base import events as ev
from cockpit.core.base.events import EventBus
from cockpit.core.base.result import Result
from cockpit.tui.app import CockpitApp
from cockpit.tui.command_log import MAX_ROWS, CommandLog
from cockpit.tui.prompt import Prompt
from cockpit.tui.refs_pane import RefsPane

SIZE = (160, 48)
ROWS = 10_000
LATENCY_S = 0.02  # the fake browser's time per command
AGENT_RATE = 50  # commands a second
KEYS = 25  # keystrokes per echo measurement
TYPING_GAP_S = 0.05  # between two keystrokes
BURST = 250  # pairs per bus burst in the memory runs


class FakeSession:
    """What CockpitApp uses of a Session; `run` takes LATENCY_S, as a browser would."""

    name = "bench"
    registry = REGISTRY

    def __init__(self) -> None:
        self.bus = EventBus()
        self._ids = itertools.count(1)
        self.done = 0

    def status(self) -> dict:
        return {"session": self.name, "headed": False, "tabs": 1}

    def tabs_info(self) -> list[dict]:
        return [{"index": 1, "id": 1, "title": "bench", "url": "about:blank",
                 "loading": False, "active": True}]

    def refs_info(self) -> list:
        return []

    def refs(self) -> list:
        return []

    async def picture(self, **_) -> None:
        return None

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def run(self, line: str, source: str = "human") -> Result:
        command_id = next(self._ids)
        started = time.perf_counter()
        self.bus.emit(ev.COMMAND_QUEUED, id=command_id, command=line, source=source)
        self.bus.emit(ev.COMMAND_STARTED, id=command_id, command=line, source=source)
        await asyncio.sleep(LATENCY_S)
        result = Result(line, ok=True, output=f"ran {line}", source=source,
                        ms=(time.perf_counter() - started) * 1000)
        self.bus.emit(ev.COMMAND_FINISHED, id=command_id, source=source, exit_code=0,
                      **result.to_json())
        self.done += 1
        return result


class BareTable(App):
    def compose(self) -> ComposeResult:
        yield DataTable(cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for key, width in (("time", 8), ("source", 6), ("command", 34), ("status", 7),
                           ("ms", 7), ("result", 160)):
            table.add_column(key, key=key, width=width)


def cockpit_app() -> CockpitApp:
    return CockpitApp(FakeSession(), pictures=False)


def emit_pairs(bus: EventBus, first_id: int, count: int) -> None:
    """What tests/engine/test_tui.py sends: `count` queued + finished pairs, in one burst."""
    for i in range(first_id, first_id + count):
        bus.emit(ev.COMMAND_QUEUED, id=i, command=f"js {i}", source="agent")
        bus.emit(ev.COMMAND_FINISHED, id=i, source="agent", ok=True, output=str(i),
                 error=None, ms=1.0, data={}, command=f"js {i}", exit_code=0)


async def until(condition, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.001)


def logged(log: CommandLog, last_id: int) -> bool:
    """Every pair up to `last_id` is in the log, finished."""
    entry = log.entries.get(last_id)
    return entry is not None and entry.status == "ok" and last_id in log.entries


async def ingest(pilot, first_id: int, count: int) -> float:
    """Seconds from the first event on the bus until the log has the rows and the app is
    idle (the 1/30 s batching delay included)."""
    log = pilot.app.query_one(CommandLog)
    t = time.perf_counter()
    emit_pairs(pilot.app.session.bus, first_id, count)
    await until(lambda: logged(log, first_id + count - 1))
    await pilot.pause()
    return time.perf_counter() - t


async def ingest_cockpit() -> float:
    app = cockpit_app()
    async with app.run_test(headless=True, size=SIZE) as pilot:
        await pilot.pause()
        seconds = await ingest(pilot, 1, ROWS)
        assert app.query_one(CommandLog).row_count == ROWS
        return seconds


async def ingest_bare() -> float:
    app = BareTable()
    async with app.run_test(headless=True, size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(DataTable)
        t = time.perf_counter()
        for i in range(ROWS):
            table.add_row(Text("12:00:00"), Text("agent"), Text(f"js {i}"), Text("ok"),
                          Text("1"), Text(str(i)), key=str(i))
        await pilot.pause()
        seconds = time.perf_counter() - t
        assert table.row_count == ROWS
        return seconds


def traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


class Echo:
    """Stamps the moment `prompt.value` becomes the awaited text (a reactive watcher runs
    synchronously in the assignment, inside the prompt's key handler)."""

    def __init__(self) -> None:
        self.expected: str | None = None
        self.at: float | None = None

    def __call__(self, value: str) -> None:
        if value == self.expected and self.at is None:
            self.at = time.perf_counter()


def press(app: App, key: str) -> None:
    """A key press as Pilot sends it (a Key event from the driver), without Pilot's wait
    for the app to go idle afterwards: under steady agent traffic the app is never idle
    and `pilot.press` would sit out its 1 s cap twice per key."""
    event = events.Key(key, key)
    event.set_sender(app)
    app.post_message(event)


async def echo_times(pilot, echo: Echo, keys: int) -> list[float]:
    """ms from each key press to its echo in `prompt.value`, at a fast typist's pace."""
    app = pilot.app
    prompt = app.query_one(Prompt)
    prompt.focus()
    prompt.value = ""
    await pilot.press("x", "backspace")  # the real Pilot path works (and focus is set)
    assert prompt.value == "" and app.focused is prompt
    out = []
    for i in range(keys):
        key = "abcdefghijklmnopqrstuvwxyz"[i % 26]
        echo.expected, echo.at = prompt.value + key, None
        t = time.perf_counter()
        press(app, key)
        await until(lambda: echo.at is not None, timeout=30)
        out.append((echo.at - t) * 1000)
        await asyncio.sleep(TYPING_GAP_S)
    prompt.value = ""
    return out


async def agent(app: CockpitApp, stop: asyncio.Event, sent: list[int]) -> None:
    """AGENT_RATE commands a second through app.submit, on a drift-free schedule."""
    start = time.perf_counter()
    for n in itertools.count():
        if stop.is_set():
            return
        app.submit(f"js {n}", source="agent")
        sent[0] += 1
        await asyncio.sleep(max(0.0, start + (n + 1) / AGENT_RATE - time.perf_counter()))


async def keystrokes(pilot) -> dict:
    """Echo times with no traffic, then with the agent sending AGENT_RATE commands/s."""
    app = pilot.app
    echo = Echo()
    app.watch(app.query_one(Prompt), "value", echo, init=False)
    rows = app.query_one(CommandLog).row_count
    quiet = await echo_times(pilot, echo, KEYS)
    stop, sent = asyncio.Event(), [0]
    done_before, t = app.session.done, time.perf_counter()
    task = asyncio.create_task(agent(app, stop, sent))
    await asyncio.sleep(0.5)  # let the traffic settle in
    busy = await echo_times(pilot, echo, KEYS)
    seconds = time.perf_counter() - t
    stop.set()
    await task
    # the commands only: the theme watcher's worker runs as long as the app
    await app.workers.wait_for_complete([w for w in app.workers if w.group == "commands"])
    return {"quiet": quiet, "busy": busy, "rows": rows, "sent": sent[0] / seconds,
            "done": (app.session.done - done_before) / seconds}


async def keystrokes_near_empty_log() -> dict:
    app = cockpit_app()
    async with app.run_test(headless=True, size=SIZE) as pilot:
        await pilot.pause()
        return await keystrokes(pilot)


async def in_bursts(pilot, first_id: int) -> list[float]:
    """ROWS pairs in bursts of BURST, each waited for; seconds per burst."""
    return [await ingest(pilot, first_id + n, BURST) for n in range(0, ROWS, BURST)]


async def memory_then_keystrokes_full_log() -> tuple[dict, dict]:
    """tracemalloc before and after each of three batches of ROWS pairs sent in bursts;
    a fourth batch untraced, its burst times into the full log; then the echo times in
    the same app, its log full."""
    tracemalloc.start()
    try:
        app = cockpit_app()
        async with app.run_test(headless=True, size=SIZE) as pilot:
            await pilot.pause()
            log = app.query_one(CommandLog)
            memory = [traced()]
            for batch in range(3):
                await in_bursts(pilot, 1_000_001 + batch * ROWS)
                memory.append(traced())
                progress(f"memory: batch {batch + 1}, {log.row_count:,} rows")
            assert log.row_count == MAX_ROWS and len(log.entries) == MAX_ROWS
            tracemalloc.stop()
            full = await in_bursts(pilot, 5_000_001)
            progress(f"bursts into the full log: slowest {max(full):.3f} s")
            keys = await keystrokes(pilot)
        return {"memory": memory, "full": full}, keys
    finally:
        tracemalloc.stop()


def progress(text: str) -> None:
    print(f"  ... {text}", file=sys.stderr, flush=True)


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def echo_rows(label: str, f: dict) -> list[tuple[str, str, str, str]]:
    q, k = f["quiet"], f["busy"]
    mq, mk, pq, pk = statistics.median(q), statistics.median(k), p95(q), p95(k)
    return [(f"key to echo, {label}", f"agent: median {mk:.2f} ms, p95 {pk:.2f} ms",
             f"none: median {mq:.2f} ms, p95 {pq:.2f} ms",
             f"{mk / mq:.2f}x / {pk / pq:.2f}x (target ~1x, a few ms)"),
            ("  agent traffic meanwhile", f"{f['sent']:.0f} cmd/s sent",
             f"{f['done']:.0f} cmd/s finished", f"target {AGENT_RATE}; {KEYS} keys a side")]


PYDOC = Path("/usr/share/doc/python3-doc/html")
BIG_PAGE_TARGET_MS = 50.0


class _QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class LengthEcho:
    """Stamps the first moment `prompt.value` reaches each length (key i: length i + 1)."""

    def __init__(self) -> None:
        self.at: dict[int, float] = {}

    def __call__(self, value: str) -> None:
        self.at.setdefault(len(value), time.perf_counter())


async def typed_from_a_thread(pilot, echo: LengthEcho, keys: int) -> list[float]:
    """ms from each key press to its echo, the keys sent from another thread at a typist's
    pace, as the terminal driver's thread sends them: a key that arrives while the event
    loop is busy waits for it, and that wait is counted (a key posted from the loop
    itself could only ever be sent while the loop is free)."""
    app = pilot.app
    prompt = app.query_one(Prompt)
    prompt.focus()
    prompt.value = ""
    await pilot.pause()
    echo.at.clear()
    loop = asyncio.get_running_loop()
    sent: list[float] = []

    def typist() -> None:
        for i in range(keys):
            sent.append(time.perf_counter())
            loop.call_soon_threadsafe(press, app, "abcdefghijklmnopqrstuvwxyz"[i % 26])
            time.sleep(TYPING_GAP_S)
    thread = threading.Thread(target=typist, daemon=True)
    thread.start()
    await until(lambda: not thread.is_alive() and len(echo.at) >= keys, timeout=120)
    prompt.value = ""
    return [(echo.at[i + 1] - sent[i]) * 1000 for i in range(keys)]


async def snapshots_while_typing() -> tuple[dict, str, int]:
    """Echo times with no command running, then while `snapshot -i` of a big page runs
    back to back in a real session that shares the app's event loop."""
    from cockpit.core import Session
    from cockpit.demo.server import DemoSite
    server = site = None
    if (PYDOC / "library" / "stdtypes.html").exists():
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), partial(_QuietFiles, directory=str(PYDOC)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        label = "stdtypes.html"
        url = f"http://127.0.0.1:{server.server_address[1]}/library/stdtypes.html"
    else:
        site = DemoSite()
        label, url = "demo /reference (no python3-doc)", f"{site.start()}/reference"
    session = Session("bench-tui-big")
    await session.start()
    try:
        app = CockpitApp(session, pictures=False)
        async with app.run_test(headless=True, size=SIZE) as pilot:
            result = await session.run(f"goto {url}")
            assert result.ok, result.error
            await session.run("snapshot -i")
            await until(lambda: app.query_one(RefsPane).refs, timeout=120)
            await pilot.pause()
            refs = len(session.refs_info())
            echo = LengthEcho()
            app.watch(app.query_one(Prompt), "value", echo, init=False)
            quiet = await typed_from_a_thread(pilot, echo, KEYS)
            stop, done = asyncio.Event(), [0]

            async def snapshots() -> None:
                while not stop.is_set():
                    await session.run("snapshot -i", source="agent")
                    done[0] += 1
            task = asyncio.create_task(snapshots())
            t = time.perf_counter()
            busy = await typed_from_a_thread(pilot, echo, KEYS * 4)
            seconds = time.perf_counter() - t
            stop.set()
            await task
            await pilot.pause()
        return ({"quiet": quiet, "busy": busy, "sent": done[0] / seconds,
                 "done": done[0] / seconds}, label, refs)
    finally:
        await session.close()
        if server:
            server.shutdown()
        if site:
            site.stop()


def big_page_rows(f: dict, label: str, refs: int) -> list[tuple[str, str, str, str]]:
    q, k = f["quiet"], f["busy"]
    pk = p95(k)
    return [(f"key to echo, `snapshot -i` of {label} running", f"median "
             f"{statistics.median(k):.1f} ms, p95 {pk:.1f} ms, max {max(k):.0f} ms",
             f"none: median {statistics.median(q):.2f} ms, p95 {p95(q):.2f} ms",
             f"p95 {'<=' if pk <= BIG_PAGE_TARGET_MS else 'OVER'} {BIG_PAGE_TARGET_MS:.0f} ms"
             " (target)"),
            ("  snapshots meanwhile", f"{f['done']:.1f} snapshot -i/s", f"{refs:,} refs a "
             "snapshot", f"{len(k)} keys while busy")]


async def main() -> None:
    started = time.perf_counter()
    rows: list[tuple[str, str, str, str]] = []
    if "--big-page-only" in sys.argv:
        rows += big_page_rows(*await snapshots_while_typing())
        print_rows(rows, started)
        return

    await ingest_bare()  # warm up (imports, first layout) before timing either side
    ours, bare = [], []
    for _ in range(3):  # alternating, so drift hits both alike
        ours.append(await ingest_cockpit())
        bare.append(await ingest_bare())
        progress(f"ingest: cockpit {ours[-1]:.2f} s, bare DataTable {bare[-1]:.2f} s")
    o, b = statistics.median(ours), statistics.median(bare)
    rows.append((f"ingest {ROWS:,} log events", f"{o * 1000:,.0f} ms",
                 f"bare DataTable {b * 1000:,.0f} ms",
                 f"{o / b:.2f}x; {'under' if o < 1 else 'OVER'} 1 s (target < 1 s)"))

    near_empty = await keystrokes_near_empty_log()
    progress("echo, near-empty log: done")
    app = cockpit_app()  # bursts into an empty log: the baseline for bursts into a full one
    async with app.run_test(headless=True, size=SIZE) as pilot:
        await pilot.pause()
        empty = await in_bursts(pilot, 1)
    mem, full = await memory_then_keystrokes_full_log()
    progress("echo, full log: done")

    m = mem["memory"]
    first = m[1] - m[0]
    rows.append((f"memory, first {ROWS:,} rows", f"{first / 2**20:+.1f} MiB",
                 f"{first / ROWS:,.0f} B/row", "tracemalloc current, after gc"))
    for n, label in ((2, "second"), (3, "third")):
        grew = m[n] - m[n - 1]
        rows.append((f"memory, {label} {ROWS:,} (log full)", f"{grew / 2**20:+.1f} MiB",
                     f"first {first / 2**20:+.1f} MiB", f"{grew / first:+.2f}x (flat: ~0)"))
    empty, burst = statistics.median(empty), max(mem["full"])
    rows.append((f"burst of {BURST} into the full log",
                 f"median {statistics.median(mem['full']) * 1000:,.0f} ms, "
                 f"slowest {burst * 1000:,.0f} ms",
                 f"empty log: median {empty * 1000:,.0f} ms",
                 f"{burst / empty:.1f}x; the prompt waits at most that long"))
    rows += echo_rows("near-empty log", near_empty)
    rows += echo_rows(f"full log ({full['rows']:,} rows)", full)
    rows += big_page_rows(*await snapshots_while_typing())
    progress("echo during big snapshots: done")
    print_rows(rows, started)


def print_rows(rows: list[tuple[str, str, str, str]], started: float) -> None:
    width = [max(len(r[i]) for r in rows) for i in range(4)]
    print(f"TUI benchmark (Python {sys.version.split()[0]}, fake session, "
          f"{LATENCY_S * 1000:.0f} ms per command, {SIZE[0]}x{SIZE[1]} headless, "
          f"{time.perf_counter() - started:.0f} s)")
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, width)).rstrip())


if __name__ == "__main__":
    asyncio.run(main())
