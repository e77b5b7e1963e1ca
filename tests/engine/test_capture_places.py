"""Capture where a person acts beyond the page's own document: inside iframes (same- and
cross-origin), in popups the page opens, and dragging one element onto another (HTML5
drag and drop, and a list sorted by the pointer). Playwright's mouse and keyboard play
the person: the page sees trusted input, as from a real one."""

from __future__ import annotations

import asyncio

from capture_walks import (BOARD, FRAMED, OPENER, walk_in_a_popup, walk_in_frames,
                           walk_on_the_board)
from conftest import ok, page
from test_capture import steps_of, until


async def captured(s, events, walk, url: str, count: int) -> list[tuple[str, dict]]:
    await ok(s, f"goto {url}")
    await s.capture.capture_everything(True)
    try:
        await walk(s.active.page)
        try:
            await until(lambda: len(steps_of(events)) >= count, timeout=10)
        except AssertionError:
            raise AssertionError(steps_of(events)) from None
        await asyncio.sleep(0.8)  # and nothing more comes
    finally:
        await s.capture.capture_everything(False)
    return steps_of(events)


async def test_actions_in_frames_are_steps_that_name_their_frames(s, base):
    events: list = []
    unsubscribe = s.bus.subscribe(events.append)
    try:
        got = await captured(s, events, walk_in_frames, f"{base}{FRAMED}", 5)
    finally:
        unsubscribe()
    assert [c for c, _ in got] == ["fill @e1 4242", "fill @e1 $PASSWORD", "click @e1",
                                   "fill @e1 hello", "press Tab"], got
    pay, notes = ['iframe[name="pay"]'], ['iframe[title="Notes"]']
    assert [t.get("e1") for _, t in got] == [
        {"role": "textbox", "name": "Card number", "nth": 0, "frame": pay},
        {"role": "textbox", "name": "Card password", "nth": 0, "frame": pay},
        {"role": "button", "name": "Pay", "nth": 0, "frame": pay},
        {"role": "textbox", "name": "Note", "nth": 0, "frame": notes}, None], got
    places = [e.data["at"] for e in events if e.kind == "command.started"
              and e.data.get("captured") and e.data.get("at")]
    assert {a["url"] for a in places} == {f"{base}{FRAMED}"}, places  # the page's, not the frame's
    assert {a["title"] for a in places} == {"capture_framed"}, places


async def test_actions_in_a_popup_are_steps_on_its_tab(s, base):
    events: list = []
    unsubscribe = s.bus.subscribe(events.append)
    try:
        got = await captured(s, events, walk_in_a_popup, f"{base}{OPENER}", 5)
    finally:
        unsubscribe()
    assert [c for c, _ in got] == ["click @e1", "tab 2", "fill @e1 Ann", "click @e1",
                                   "click @e1"], got
    finished = [e.data for e in events if e.kind == "command.finished"
                and (e.data.get("data") or {}).get("captured")]
    # where each ended: Save closed the popup, the session is back on its opener
    assert [(f["data"].get("tab") or {}).get("index") for f in finished] == [1, 2, 2, 1, 1]
    started = [e.data for e in events if e.kind == "command.started" and e.data.get("captured")]
    assert [(d.get("at") or {}).get("tab") for d in started] == [1, None, 2, 2, 1]
    assert s.active.index == 1  # the popup closed itself: back on its opener


async def test_a_drag_is_one_step_from_the_element_to_where_it_was_dropped(s, base):
    events: list = []
    unsubscribe = s.bus.subscribe(events.append)
    try:
        got = await captured(s, events, walk_on_the_board, f"{base}{BOARD}", 2)
    finally:
        unsubscribe()
    assert got == [
        ("drag @e1 @e2", {"e1": {"role": "listitem", "name": "", "nth": 0,
                                 "label": "Write tests"},
                          "e2": {"role": "region", "name": "Done", "nth": 0}}),
        ("drag @e1 @e2", {"e1": {"role": "listitem", "name": "", "nth": 0, "label": "Gamma"},
                          "e2": {"role": "listitem", "name": "", "nth": 0, "label": "Alpha"}}),
    ], got


QUICK_POPUP = page("capture_quick_popup",
                   '<button type="button" onmousedown="window.close()">Close</button>')
QUICK_OPENER = page("capture_quick_opener", f"""<button type="button"
  onclick="window.open('{QUICK_POPUP}', 'quick', 'width=400,height=300')">Open</button>""")


async def test_a_typed_click_that_closes_its_popup_is_done_not_failed(s, base):
    """A popup's button that closes its window as it is pressed (window.close() in its
    handler): Playwright is still finishing the click when the tab goes. The click was
    done all the same, and the tab closed by it: replay of a popup walk depends on it."""
    await ok(s, f"goto {base}{QUICK_OPENER}")
    await ok(s, "click 'button >> nth=0'")  # the popup opens
    await ok(s, "tab 2")
    closed = await ok(s, "click 'button >> nth=0'")  # closes on mousedown, before the up
    assert "tab 2 closed" in closed.output, closed.output
    assert s.active.index == 1 and len(s.tabs) == 1
