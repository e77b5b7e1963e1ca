"""A step whose new page was still loading when settling gave up (a server slow to send
it: Django's dev server did, in CI, for ten seconds) is recorded as such, and replay does
not hold the next run to the half-parsed page's diff, nor take a slow page now for a
changed one without saying so; and the next step's diff is its own, not the rest of the
page arriving."""

from __future__ import annotations

import importlib

import conftest
from conftest import ok, page, ref_of

from cockpit.record.reader import read
from cockpit.record.recorder import Recorder
from cockpit.record.replay import UNLOADED_NOW, UNLOADED_WHEN_RECORDED, Replayer

TARGET = "unloaded-target"
settle = importlib.import_module("cockpit.core.settle.settle")  # the module, not its function


async def record_the_walk(s, base, path) -> None:
    start = page("unloaded-start", "<a href='/unloaded-target'>Go on</a>")
    page(TARGET, "<p>Arrived</p><button>Onward</button>")
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"goto {base}{start}")
        await ok(s, "snapshot -i")
        went = await ok(s, f"click {ref_of(s, 'link', 'Go on')}")
    finally:
        recorder.close()
    return went


async def replay(s, path):
    await ok(s, "goto about:blank")
    rec = read(path)
    replayer = Replayer(s, rec)
    return [await replayer.step(step) for step in rec.steps]


async def test_a_step_recorded_on_a_page_still_loading_replays_without_its_diff(
        s, base, tmp_path, monkeypatch):
    monkeypatch.setattr(settle, "LOAD_CAP_S", 2.0)  # settling gives up after 2 s, not 10
    path = tmp_path / "slow.jsonl"
    conftest.STALL_ONCE[TARGET] = 4000  # the page's body comes 4 s after its head
    went = await record_the_walk(s, base, path)
    assert "note: the page was still loading after 2 s" in went.output, went.output
    assert went.data["still_loading"] is True
    assert "Arrived" not in went.output  # what had come of the page: its head
    recorded = read(path).steps[-1]
    assert recorded["still_loading"] is True

    reports = await replay(s, path)  # the server is quick now
    assert [r.status for r in reports] == ["same"] * 3, [r.line for r in reports]
    assert reports[-1].reasons[-1] == UNLOADED_WHEN_RECORDED  # after "@e4 is @e11 now"
    assert UNLOADED_WHEN_RECORDED in reports[-1].line
    assert "Arrived" in (await ok(s, "snapshot")).output


async def test_a_page_still_loading_in_the_replay_is_named_as_the_divergence(
        s, base, tmp_path, monkeypatch):
    monkeypatch.setattr(settle, "LOAD_CAP_S", 2.0)
    path = tmp_path / "quick.jsonl"
    went = await record_the_walk(s, base, path)
    assert "still loading" not in went.output and "still_loading" not in went.data
    assert "still_loading" not in read(path).steps[-1]

    conftest.STALL_ONCE[TARGET] = 4000  # slow in the replay only
    reports = await replay(s, path)
    last = reports[-1]
    assert last.status == "diverged", last.line
    changed = next(r for r in last.reasons if r.startswith("the page changed differently"))
    assert 'missing' in changed and 'button "Onward"' in changed, last.reasons
    assert last.reasons[-1] == UNLOADED_NOW


async def test_what_came_of_a_page_still_loading_is_not_the_next_steps_change(
        s, base, monkeypatch):
    monkeypatch.setattr(settle, "LOAD_CAP_S", 2.0)
    start = page("unloaded-start", "<a href='/unloaded-target'>Go on</a>")
    page(TARGET, "<p>Arrived</p><button>Onward</button>")
    conftest.STALL_ONCE[TARGET] = 3000
    await ok(s, f"goto {base}{start}")
    await ok(s, "snapshot -i")
    went = await ok(s, f"click {ref_of(s, 'link', 'Go on')}")
    assert "still loading" in went.output and "Onward" not in went.output
    await s.active.page.wait_for_load_state("load")  # the rest of the page came since
    pressed = await ok(s, "press Shift")  # a step that changes nothing on this page
    assert "note: the page went on loading after the last step (+" in pressed.output, \
        pressed.output
    assert pressed.data["diff"]["changes"] == [], pressed.output  # none of it is the key's
    assert "Onward" in (await ok(s, "snapshot -i")).output
