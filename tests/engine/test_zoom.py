"""`zoom [TARGET]`: the page, or one element (the demo's CAPTCHA image), enlarged to fill
the cockpit in half-blocks, with ref labels drawn as text by the terminal; in a local
session and in `cockpit attach` (the picture op over the socket with a target)."""

from __future__ import annotations

import io

from PIL import Image

from cockpit.control.remote_session import RemoteSession
from cockpit.tui.app import CockpitApp
from cockpit.tui.refs_pane import RefsPane
from cockpit.tui.zoom import HalfBlocks, ZoomScreen

from conftest import fails, ok, ref_of, to_the_mfa_code
from test_attach import until


async def at_the_challenge(s, site) -> str:
    """The demo's "verify you are human" page; the ref of its CAPTCHA image."""
    await to_the_mfa_code(s, site)
    await s.active.page.click("button[type=submit]")
    await s.active.page.wait_for_url("**/challenge")
    await ok(s, "snapshot")
    return ref_of(s, "img", "Challenge")


async def test_zoom_names_the_area_and_the_refs_in_it(s, site):
    image = await at_the_challenge(s, site)
    result = await ok(s, f"zoom {image}")
    zoom = result.data["zoom"]
    width, height = await s.active.page.evaluate(
        "() => { const r = document.querySelector('img.captcha').getBoundingClientRect();"
        " return [r.width, r.height]; }")
    assert (zoom["area"]["w"], zoom["area"]["h"]) == (width, height)
    assert zoom["target"] == image and zoom["labels"] == []
    assert result.output.startswith("zoom: ") and f"{round(width)}x{round(height)} px" \
        in result.output
    page = (await ok(s, "zoom")).data["zoom"]
    textbox = ref_of(s, "textbox", "characters")
    assert textbox in [label["ref"] for label in page["labels"]]
    # the ref map is the same after the boxes snapshot: the refs still act
    await ok(s, f"fill {textbox} abc")
    png = await s.picture(target=image)
    assert png is not None and Image.open(io.BytesIO(png)).size == (round(width),
                                                                    round(height))
    await fails(s, "zoom @e999")



async def test_attached_cockpit_zooms_into_the_captcha_from_its_refs_row(live, s, site):
    image = await at_the_challenge(s, site)
    remote = await RemoteSession(socket_path=str(live.socket)).start()
    app = CockpitApp(remote, pictures=False)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            refs = app.query_one(RefsPane)
            await until(pilot, lambda: any(r[0] == image[1:] for r in refs.refs))
            table = app.query_one("#refs-table")
            table.focus()
            table.move_cursor(row=table.get_row_index(image[1:]))
            await pilot.press("z")
            await until(pilot, lambda: isinstance(app.screen, ZoomScreen)
                        and app.screen.loaded)
            picture = app.screen.query_one(HalfBlocks)
            await pilot.pause()
            _, _, width, rows = picture.cells
            # scaled to the terminal's cells: the whole width at 200x50 (the image is wide)
            assert width >= 190 and rows >= 30, picture.cells
            assert ("zoom " + image, "human") in [(e.command, e.source) for e in
                                                  app.query("CommandLog").first().rows]
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, ZoomScreen))
            # the page: the refs' labels are text over the picture, and a legend
            app.submit("zoom")
            await until(pilot, lambda: isinstance(app.screen, ZoomScreen)
                        and app.screen.loaded)
            await pilot.pause()
            textbox = ref_of(s, "textbox", "characters")
            screen_text = "\n".join(
                "".join(seg.text for seg in app.screen.query_one(HalfBlocks).render_line(y))
                for y in range(50))
            assert textbox in screen_text
            legend = str(app.screen.query_one("#zoom-legend").render())
            assert f"{textbox} textbox" in legend
    finally:
        await remote.close()
