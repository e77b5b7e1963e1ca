"""`mouse move|down|up|click|wheel|drag` at viewport CSS pixels: a slider CAPTCHA solved by
a drag (a jump is refused by the page), an image grid by clicks on its tiles; each step
recorded with the element under its point, replayed on that element where it has moved
to, and exported as `page.mouse.*` calls at the element's box."""

from __future__ import annotations

import conftest
from cockpit.record.export import to_pytest
from cockpit.record.reader import read
from cockpit.record.recorder import Recorder
from cockpit.record.replay import Replayer
from conftest import fails, ok, page
from live_pages import BUS_TILES, grid_url, slider_url, status_of, tile_centre

VERIFY = (60, 450)  # a point on the grid's Verify button


async def test_a_slider_is_solved_by_a_drag_not_by_a_jump(s, base):
    await ok(s, f"goto {slider_url(base)}")
    jump = await ok(s, "mouse drag 60 140 440 140 --steps 1")
    assert jump.output.startswith("dragged from 60,140 to 440,140")
    assert await status_of(s.active.page) == "Too fast: try again"
    short = await ok(s, "mouse drag 60 140 300 140")
    assert await status_of(s.active.page) == "Not at the end: try again", short.output
    done = await ok(s, "mouse drag 60 140 440 140")
    assert await status_of(s.active.page) == "Verified"
    assert '"Verified"' in done.output  # the diff says what the page did
    assert done.data["points"] == [{"x": 60, "y": 140}, {"x": 440, "y": 140}]


async def test_an_image_grid_is_solved_by_clicks_on_its_tiles(s, base):
    await ok(s, f"goto {grid_url(base)}")
    await ok(s, "mouse click {} {}".format(*tile_centre(1)))  # a wrong one, taken back
    await ok(s, "mouse click {} {} --count 2".format(*tile_centre(5)))  # on and off again
    await ok(s, "mouse click {} {}".format(*tile_centre(1)))
    for n in BUS_TILES:
        await ok(s, "mouse click {} {}".format(*tile_centre(n)))
    verify = await ok(s, "mouse click {} {}".format(*VERIFY))
    assert await status_of(s.active.page) == "Verified"
    assert verify.output.startswith('clicked at 60,450 on button "Verify"')
    assert verify.data["under"][0] | {"ref": "x"} == {
        "ref": "x", "role": "button", "name": "Verify", "nth": 0, "dx": 20.0, "dy": 10.0}


async def test_move_down_up_and_the_wheel_act_where_the_mouse_is(s, base):
    url = base + page("live-wheel", "<div style='height:3000px' id='tall'></div>"
                      "<script>addEventListener('pointerdown', e => document.title ="
                      " 'down ' + e.button + ' at ' + e.clientX + ',' + e.clientY);"
                      "addEventListener('pointerup', e => document.title += ' up');"
                      "</script>")
    await ok(s, f"goto {url}")
    await ok(s, "mouse move 100 200")
    await ok(s, "mouse down --button right")
    await ok(s, "mouse up --button right")
    assert (await ok(s, "title")).output == "down 2 at 100,200 up"
    wheel = await ok(s, "mouse wheel 0 500")
    assert wheel.output.startswith("scrolled the wheel by 0,500 at 100,200")
    # answered once the page has scrolled (Chromium scrolls a frame or more later)
    assert await s.active.page.evaluate("scrollY") == 500
    await ok(s, "scroll bottom")  # at the page's end nothing scrolls: it answers all the same
    assert (await ok(s, "mouse wheel 0 500")).ok


async def test_bad_mouse_lines_get_one_line_errors(s, base):
    await ok(s, f"goto {grid_url(base)}")
    cases = {"mouse click 10": "mouse click takes 2 numbers, got 1 (usage: mouse click X Y",
             "mouse drag 1 2 3 x": "mouse drag: X1 Y1 X2 Y2 are numbers",
             "mouse jump 1 2": "'jump' is not one of move, down, up, click, wheel, drag",
             "mouse click 1 2 --button side": "--button is left, right or middle",
             "mouse wheel 0 10 --count 2": "--count goes with `mouse click`",
             "mouse down 5": "mouse down takes no numbers or 2 (X Y), got 1",
             "mouse down --steps 3": "--steps goes with `mouse drag`, `move`, or `up X Y`",
             "mouse up --in @e1": "mouse up takes no --in",
             "mouse click 5 5 --in @e999": "e999"}
    for line, said in cases.items():
        result = await fails(s, line)
        assert said in result.error and "\n" not in result.error, (line, result.error)
    assert await status_of(s.active.page) == "Not verified"


async def test_recorded_with_the_element_replayed_where_it_moved_and_exported(s, base,
                                                                              tmp_path):
    path = tmp_path / "grid.jsonl"
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"goto {grid_url(base)}")
        for n in BUS_TILES:
            await ok(s, "mouse click {} {}".format(*tile_centre(n)))
        await ok(s, "mouse click {} {}".format(*VERIFY))
        await ok(s, f"goto {slider_url(base)}")
        await ok(s, "mouse drag 60 140 440 140")
    finally:
        recorder.close()
    rec = read(path)
    verify = rec.steps[4]
    assert verify["command"] == "mouse click 60 450"
    assert verify["under"][0]["role"] == "button" and verify["under"][0]["name"] == "Verify"
    # the slider's parts have no role: the page's main landmark, and the page itself
    assert [u and u["role"] for u in rec.steps[6]["under"]] == ["main", None]
    # the site moved its Verify button down 60 px: the recorded point is blank page now
    conftest.PAGES["live-grid"] = conftest.PAGES["live-grid"].replace(
        "left:40px;top:440px", "left:40px;top:500px")
    try:
        await ok(s, "goto about:blank")
        replayer = Replayer(s, rec)
        reports = [await replayer.step(step) for step in rec.steps]
        assert reports[4].ran is not None and reports[4].ran.startswith("mouse click 20 10 --in @")
        assert reports[4].status == "same", reports[4].reasons
        # (the grid page is gone: the slider's drag followed; the grid said Verified)
        assert [r.status for r in reports] == ["same"] * 7, [r.line for r in reports]
        assert await status_of(s.active.page) == "Verified"
    finally:
        conftest.PAGES["live-grid"] = conftest.PAGES["live-grid"].replace(
            "left:40px;top:500px", "left:40px;top:440px")
    code = to_pytest(rec, "grid").replace("'", '"')
    compile(code, "test_grid.py", "exec")
    assert ('box = page.get_by_role("button", name="Verify", exact=True).bounding_box()'
            in code)
    assert 'page.mouse.click(box["x"] + 20, box["y"] + 10)' in code
    assert "page.mouse.move(60, 140)\n    page.mouse.down()\n    page.mouse.move(440, 140, " \
           "steps=10)\n    page.mouse.up()" in code


async def test_presses_and_releases_at_a_point_as_a_live_view_sends_them(s, base, tmp_path):
    """What a person's hand does on the live view, one command per press and release
    (nothing waits for a double-click): a double-click is a second press counted 2, and
    the page sees a real `dblclick`; a drag is a press, the way, and the release at the
    end (moved there in steps). Recorded with the element under each point, replayed on
    that element where it has moved to, exported as `page.mouse.*`."""
    path = tmp_path / "live.jsonl"
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"goto {grid_url(base)}")
        await s.active.page.evaluate(
            "window.doubles = []; addEventListener('dblclick', e => window.doubles.push("
            "e.target.dataset.n))")
        five = "{} {}".format(*tile_centre(5))
        await ok(s, f"mouse down {five}")
        await ok(s, "mouse up")
        await ok(s, f"mouse down {five} --count 2")
        second = await ok(s, "mouse up --count 2")
        assert second.output.startswith("released the mouse at 190,270 (the second click")
        for n in BUS_TILES:
            await ok(s, "mouse down {} {}".format(*tile_centre(n)))
            await ok(s, "mouse up")
        pressed = await ok(s, "mouse down {} {}".format(*VERIFY))
        assert pressed.output.startswith('pressed the mouse at 60,450 on button "Verify"')
        await ok(s, "mouse up")
        assert await status_of(s.active.page) == "Verified"
        assert await s.active.page.evaluate("window.doubles") == ["5"]
        await ok(s, f"goto {slider_url(base)}")
        await ok(s, "mouse down 60 140")
        await ok(s, "mouse move 200 140")
        await ok(s, "mouse up 440 140")
        assert await status_of(s.active.page) == "Verified"
    finally:
        recorder.close()
    rec = read(path)
    press = rec.steps[11]
    assert press["command"] == "mouse down 60 450" and press["under"][0]["name"] == "Verify"
    conftest.PAGES["live-grid"] = conftest.PAGES["live-grid"].replace(
        "left:40px;top:440px", "left:40px;top:500px")
    try:
        await ok(s, "goto about:blank")
        replayer = Replayer(s, rec)
        reports = [await replayer.step(step) for step in rec.steps]
        assert [r.status for r in reports] == ["same"] * len(rec.steps), \
            [(r.line, r.reasons) for r in reports if r.status != "same"]
        assert reports[11].ran is not None and \
            reports[11].ran.startswith("mouse down 20 10 --in @"), reports[11].ran
        assert await status_of(s.active.page) == "Verified"
    finally:
        conftest.PAGES["live-grid"] = conftest.PAGES["live-grid"].replace(
            "left:40px;top:500px", "left:40px;top:440px")
    code = to_pytest(rec, "live").replace("'", '"')
    compile(code, "test_live.py", "exec")
    assert "page.mouse.move(190, 270)\n    page.mouse.down(click_count=2)" in code
    assert "page.mouse.up(click_count=2)" in code
    assert 'page.mouse.move(box["x"] + 20, box["y"] + 10)\n    page.mouse.down()' in code
    assert "page.mouse.move(440, 140, steps=10)\n    page.mouse.up()" in code
