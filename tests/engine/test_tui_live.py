"""The live zoom in the TUI (tui/live.py, tui/live_zoom.py): watch-only until the human
takes control with F10; then the picture follows the page and the mouse on it acts on
the page through its scale (a drag solves the slider, clicks on the tiles solve the
grid), the wheel scrolls, keys typed go to the page, and it all runs as the human's
`mouse` and `press` commands."""

from __future__ import annotations

from textual import events

from conftest import ok, page
from live_pages import (BUS_TILES, GRID, SLIDER, UNTIL_SOLVED, grid_url, slider_url,
                        status_of, tile_centre)
from test_tui import app_for, log_rows, type_command, until

from cockpit.tui import live
from cockpit.tui.app import CockpitApp
from cockpit.tui.picture import PicturePane
from cockpit.tui.live import LivePicture
from cockpit.tui.live_zoom import LiveZoomScreen


def cell_of(picture: LivePicture, x: float, y: float) -> tuple[int, int]:
    """The cell of the zoomed picture over the page's CSS pixel (x, y)."""
    left, top, width, _ = picture.cells
    ax, ay, aw, ah = picture.area
    return (left + int((x - ax) * width / aw),
            top + int((y - ay) * picture.pixel_rows / ah / 2))


async def zoomed(pilot, app) -> tuple[LiveZoomScreen, LivePicture]:
    await type_command(pilot, "zoom")
    await until(pilot, lambda: isinstance(app.screen, LiveZoomScreen) and app.screen.loaded)
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, LiveZoomScreen)
    picture = screen.picture
    await until(pilot, lambda: picture.cells[2] > 0)
    return screen, picture


async def zoomed_with_control(pilot, app) -> tuple[LiveZoomScreen, LivePicture]:
    """F10 (the person takes control), then the zoom."""
    await pilot.press("f10")
    await until(pilot, lambda: app.human_has_control)
    return await zoomed(pilot, app)


def title(screen) -> str:
    return str(screen.query_one("#zoom-title").render())


async def test_the_slider_is_dragged_to_the_end_on_the_live_zoom(s, base, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)  # the terminal handoff: over SSH
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    await ok(s, f"goto {slider_url(base)}")
    app = app_for(s)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            screen, picture = await zoomed(pilot, app)
            assert "watch-only" in title(screen) and not screen.feed.running
            handle, end = cell_of(picture, 60, 140), cell_of(picture, 440, 140)
            await pilot.mouse_down(picture, offset=handle)
            await pilot.hover(picture, offset=end)
            await pilot.mouse_up(picture, offset=end)
            await pilot.pause(0.2)
            assert screen.sent == [] and await status_of(s.active.page) == "Slide to verify"
            await pilot.press("f10")  # takes control from the view
            await until(pilot, lambda: app.human_has_control and screen.feed.running)
            assert "you have control" in title(screen) and "LIVE" in title(screen)
            frames = s.live_view.frames
            await pilot.mouse_down(picture, offset=handle)
            await pilot.hover(picture, offset=end)
            await pilot.mouse_up(picture, offset=end)
            await until(pilot, lambda: any(r[2].startswith("mouse up") and r[3] == "ok"
                                           for r in log_rows(app)))
            assert await status_of(s.active.page) == "Verified", screen.sent
            # the press went at once, the way while held, then the release at the end
            assert [line.split()[1] for line in screen.sent] == ["down", "move", "up"], \
                screen.sent
            rows = [r for r in app.query_one("CommandLog").rows
                    if r.command.startswith("mouse")]
            assert [r.source for r in rows] == ["human"] * 3
            await until(pilot, lambda: s.live_view.frames > frames)  # it painted: a frame
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, LiveZoomScreen))
            assert s.live_view.watchers == 0  # (pictures are off in the pane: none watch)
            # F10 gives it back: the agent is told what the human changed
            await pilot.press("f10")
            await until(pilot, lambda: log_rows(app)[-1][2] == "resume"
                        and log_rows(app)[-1][3] == "ok")
            said = app.query_one("CommandLog").rows[-1].output
            assert "Commands they typed: 3" in said and '"Verified"' in said, said
    finally:
        if s.handoff.active:
            await s.run("resume")


async def test_the_grid_is_solved_by_clicks_and_keys_reach_the_page(s, base, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    # a loaded machine may take longer than a hand between a double-click's two clicks
    monkeypatch.setattr(live, "DOUBLE_S", 1.0)
    await ok(s, f"goto {grid_url(base)}")
    app = app_for(s)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            screen, picture = await zoomed_with_control(pilot, app)
            assert screen.feed.running  # live while the human has control
            await s.active.page.evaluate(
                "window.doubles = 0; addEventListener('dblclick', () => window.doubles++)")
            # a double-click on a tile picks it and takes it back: the second press goes
            # as click 2, and the page sees a double-click
            await pilot.double_click(picture, offset=cell_of(picture, *tile_centre(5)))
            for n in BUS_TILES:
                await pilot.click(picture, offset=cell_of(picture, *tile_centre(n)))
                await pilot.pause(1.2)  # not a double-click
            await pilot.click(picture, offset=cell_of(picture, 60, 450))  # Verify
            await until(pilot, lambda: len(screen.sent) == 12)  # a press and a release each
            assert [line.split()[1] for line in screen.sent] == ["down", "up"] * 6, \
                screen.sent
            assert screen.sent[2].endswith("--count 2") and \
                screen.sent[3] == "mouse up --count 2", screen.sent
            assert not any("--count" in line for line in screen.sent[4:]), screen.sent
            await until(pilot, lambda: sum(r[2].startswith("mouse up") and r[3] == "ok"
                                           for r in log_rows(app)) == 6)
            assert await status_of(s.active.page) == "Verified"
            assert await s.active.page.evaluate("window.doubles") == 1
            # keys typed on the picture go to the page: into the field clicked
            await pilot.click(picture, offset=cell_of(picture, 60, 530))
            await pilot.pause(1.2)
            await pilot.press("h", "i", "shift+left", "backspace", "o")
            await until(pilot, lambda: sum(r[2].startswith("press") and r[3] == "ok"
                                           for r in log_rows(app)) == 5)
            assert await s.active.page.input_value("#note") == "ho"
            assert isinstance(app.screen, LiveZoomScreen)  # the keys never left the zoom
            # and the wheel scrolls the page under the picture
            await s.active.page.evaluate("document.body.style.height = '3000px'")
            scroll_down(picture, cell_of(picture, 600, 300))  # (Pilot has no wheel)
            await until(pilot, lambda: any(r[2] == "mouse wheel 0 100" and r[3] == "ok"
                                           for r in log_rows(app)))
            assert await s.active.page.evaluate("scrollY") == 100
    finally:
        if s.handoff.active:
            await s.run("resume")


def scroll_down(picture, cell: tuple[int, int]) -> None:
    """One notch of the wheel over a cell of the picture, as the terminal reports it."""
    picture.post_message(events.MouseScrollDown(picture, cell[0], cell[1], 0, 0, 0, False,
                                                False, False))


async def test_live_makes_the_page_pane_and_the_zoom_follow_the_page(s, base):
    """`live` (and l) without control: the pane shows each paint without a command, the
    zoom follows too, and its picture stays watch-only."""
    await ok(s, f"goto {slider_url(base)}")
    app = CockpitApp(s, pictures=True)
    async with app.run_test(size=(200, 50)) as pilot:
        pane = app.query_one(PicturePane)
        await type_command(pilot, "live")
        await until(pilot, lambda: app.live_mode and s.live_view.watchers == 1)
        await until(pilot, lambda: pane.updates > 0)
        assert pane.border_title == "Page · live"
        shown = pane.updates
        await s.active.page.evaluate("document.body.style.background = 'rgb(250,200,0)'")
        await until(pilot, lambda: pane.updates > shown)  # no command ran: a frame came
        screen, picture = await zoomed(pilot, app)
        assert screen.feed.running and "LIVE" in title(screen) and "watch-only" in title(screen)
        await pilot.click(picture, offset=cell_of(picture, 60, 140))
        await pilot.pause(0.6)
        assert screen.sent == []  # watch-only
        await pilot.press("l")  # live off, from the zoom
        await until(pilot, lambda: not app.live_mode and not screen.feed.running)
        await pilot.press("escape")
        await until(pilot, lambda: s.live_view.watchers == 0)


async def test_an_attached_cockpit_follows_the_page_through_the_socket(live, s, base):
    """`cockpit attach`: the zoom gets the session's screencast frames over the control
    socket (the `frames` op), as they paint; its stream ends when the zoom closes."""
    from cockpit.control.remote_session import RemoteSession
    await ok(s, f"goto {slider_url(base)}")
    remote = await RemoteSession(socket_path=str(live.socket)).start()
    app = CockpitApp(remote, pictures=False)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            await type_command(pilot, "live")
            await until(pilot, lambda: app.live_mode)
            _, picture = await zoomed(pilot, app)
            await until(pilot, lambda: remote.live_view.frames > 0 and s.live_view.watchers)
            seen = remote.live_view.frames
            await s.active.page.evaluate("document.body.style.background = 'rgb(0,90,250)'")
            await until(pilot, lambda: remote.live_view.frames > seen)
            await until(pilot, lambda: picture.image is not None
                        and _close(picture.image, (0, 90, 250)))
            await pilot.press("escape")
            await until(pilot, lambda: s.live_view.watchers == 0)
    finally:
        await remote.close()


def _close(image, rgb) -> bool:
    got = image.getpixel((image.width - 3, image.height - 3))
    return all(abs(a - b) <= 12 for a, b in zip(got, rgb))


async def test_an_agent_hands_both_captchas_to_a_person_in_the_live_zoom(s, base,
                                                                         monkeypatch):
    """Issue 26's "Done when" over SSH: an agent meets a slider CAPTCHA, then an image
    grid, on a machine with no display; it hands the browser over (the handoff offers the
    live zoom), the person solves each with the mouse on the zoomed picture, gives
    control back with F10, and the agent's next command opens with what they changed."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)

    async def slide(pilot, picture) -> None:
        await pilot.mouse_down(picture, offset=cell_of(picture, 60, 140))
        for x in range(100, 460, 60):  # the hand's way along the track
            await pilot.hover(picture, offset=cell_of(picture, x, 140))
            await pilot.pause(0.05)
        await pilot.mouse_up(picture, offset=cell_of(picture, 440, 140))

    async def pick_tiles(pilot, picture) -> None:
        for n in BUS_TILES:
            await pilot.click(picture, offset=cell_of(picture, *tile_centre(n)))
        await pilot.click(picture, offset=cell_of(picture, 60, 450))  # Verify

    app = app_for(s)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            for name, html, solve in (("zoom-slider", SLIDER, slide),
                                      ("zoom-grid", GRID, pick_tiles)):
                went = await s.run(f"goto {base + page(name, html + UNTIL_SOLVED)}",
                                   source="agent")
                assert "needs: captcha: ask a person with `handoff`" in went.output
                handed = await s.run('handoff "a CAPTCHA only a person can solve"',
                                     source="agent")
                assert "no display here" in handed.output and \
                    "in the cockpit's zoom" in handed.output, handed.output
                await until(pilot, lambda: app.human_has_control)
                screen, picture = await zoomed(pilot, app)
                assert screen.feed.running and "you have control" in title(screen)
                await solve(pilot, picture)
                for _ in range(200):
                    if await status_of(s.active.page) == "Verified":
                        break
                    await pilot.pause(0.05)
                assert await status_of(s.active.page) == "Verified", screen.sent
                await pilot.press("escape")
                await until(pilot, lambda: not isinstance(app.screen, LiveZoomScreen))
                await pilot.press("f10")  # gives it back
                await until(pilot, lambda: not s.handoff.active)
                after = await s.run("snapshot -i", source="agent")
                assert after.output.startswith("The human had control"), after.output
                assert '"Verified"' in after.output and \
                    "Needs a person now" not in after.output, after.output
    finally:
        if s.handoff.active:
            await s.run("resume")


async def test_what_the_person_clicks_on_the_zoom_is_captured_by_role_and_name(
        s, base, monkeypatch):
    """With control, the person's clicks on the live zoom are their own input relayed to
    the page, as in a window: capture makes the step (`click` on the button, by its role
    and name), and the zoom's `mouse` commands are not steps of their own (they were, so
    a handoff's walk recorded pixels)."""
    from cockpit.core import events as ev
    from test_capture import steps_of
    monkeypatch.delenv("DISPLAY", raising=False)  # the terminal handoff: over SSH
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    url = page("zoom_capture", "<button onclick=\"this.textContent = 'Saved'\">Save</button>")
    await ok(s, f"goto {base}{url}")
    box = await s.active.page.locator("main button").bounding_box()
    assert box is not None
    events: list = []
    unsubscribe = s.bus.subscribe(events.append)
    app = app_for(s)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            _, picture = await zoomed_with_control(pilot, app)
            await pilot.click(picture, offset=cell_of(picture, box["x"] + box["width"] / 2,
                                                      box["y"] + box["height"] / 2))
            await until(pilot, lambda: len(steps_of(events)) == 1)
            assert await s.active.page.locator("main button").inner_text() == "Saved"
    finally:
        unsubscribe()
        if s.handoff.active:
            await s.run("resume")
    (command, targets), = steps_of(events)
    assert command.startswith("click @e"), command
    assert targets[command.split("@")[1]]["name"] == "Save"
    relayed = [e.data for e in events if e.kind == ev.COMMAND_STARTED
               and e.data["command"].startswith("mouse")]
    assert relayed and all(d.get("relayed") for d in relayed), relayed
