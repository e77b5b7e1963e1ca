"""Back-pressure: what a page or an agent floods us with costs a bounded amount — buffers
bounded in entries and bytes, a console flood paused at its source and said, an agent's
output recorded at a bounded rate with the rest counted — and commands still answer."""

from __future__ import annotations

import json

from cockpit.core.base import events as ev
from cockpit.core.page.buffers import BUFFER_BYTES, ConsoleEntry, FloodGuard, Ring, cut
from cockpit.record import recorder as recorder_module
from cockpit.record.recorder import Recorder
from tui_fake import FakeSession


def test_the_console_buffer_is_bounded_in_bytes_and_counts_what_it_dropped():
    from cockpit.core.page.buffers import Buffers
    console = Buffers().console
    for _ in range(400):  # 400 messages of 100 KB: 40 MB offered
        console.add(ConsoleEntry(1, "log", cut("x" * 100_000), "about:blank"))
    assert console.bytes <= BUFFER_BYTES
    assert len(console) + console.dropped == 400 and console.dropped > 0
    assert all(len(e.text) < 8_100 and e.text.endswith("more characters)") for e in console)


def test_a_ring_keeps_one_entry_bigger_than_its_budget():
    ring: Ring[str] = Ring(10, 5, len)
    ring.add("abcdefgh")
    assert list(ring) == ["abcdefgh"]
    ring.add("z")
    assert list(ring) == ["z"] and ring.dropped == 1 and ring.bytes == 1


def test_the_flood_guard_trips_past_its_rate_and_reopens():
    now = [0.0]
    guard = FloodGuard(3, clock=lambda: now[0])
    assert [guard.admit() for _ in range(5)] == [True, True, True, False, False]
    now[0] = 5.0
    assert not guard.admit()  # closed until reopened, whatever the time
    guard.reopen()
    assert guard.admit() and guard.floods == 1


async def test_a_console_flood_is_paused_said_and_the_session_answers(s):
    seen: list = []
    unsubscribe = s.bus.subscribe(seen.append)
    try:
        result = await s.run("js for(let i=0;i<20000;i++)console.log('x'+i)")
        assert result.ok, result.error
        answer = await s.run("js 6*7")
        assert answer.ok and answer.output == "42"
    finally:
        unsubscribe()
    console = [e for e in seen if e.kind == ev.CONSOLE]
    assert len(console) < 10_000  # not every one of the 20,000 went through us
    assert any("console flood" in e.data["text"] for e in console)
    listing = (await s.run("console")).output
    assert "console flood: more than" in listing and "not kept" in listing


async def test_an_agent_flood_is_recorded_at_a_bounded_rate_and_counted(tmp_path):
    fake = FakeSession()
    path = tmp_path / "r.jsonl"
    recorder = Recorder(fake, path).start()
    sent = 0
    for i in range(500):  # 500 reads of 200 lines of 1,000 characters in one second
        lines = [f"{i:04d}" + "b" * 996] * 200
        sent += len(lines)
        fake.bus.emit_at(1_000.0 + i / 1000, ev.AGENT_OUTPUT, stream="stdout",
                         lines=lines, dropped=0)
    recorder.close()
    records = [json.loads(line) for line in path.read_text().splitlines()]
    output = [r["data"] for r in records if r.get("kind") == ev.AGENT_OUTPUT]
    recorded = sum(len(line) for d in output for line in d["lines"])
    assert recorded <= recorder_module.AGENT_BYTES_A_SECOND
    assert sum(len(d["lines"]) + d["dropped"] for d in output) == sent  # all counted
    assert path.stat().st_size < 200_000  # not the 100 MB offered
