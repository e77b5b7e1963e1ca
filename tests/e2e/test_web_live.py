"""`cockpit web`'s live view (cli/web_live.py): the page as real pixels beside the
cockpit's terminal, watch-only until the person takes control; then clicks and drags on
the picture, made by a real browser (Playwright's mouse on the web page), solve the
slider and the image grid in the session's page, as the human's `mouse` commands; and
"Give back" resumes the agents."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from cockpit.core import Session
from conftest import ok

from live_pages import BUS_TILES, grid_url, slider_url, status_of, tile_centre

pytest.importorskip("textual_serve", reason="pip install textual-serve")


async def wait_for(page, script: str, timeout: int = 30_000) -> None:
    await page.wait_for_function(script, timeout=timeout)


DONE = "window.cockpitLive.results.filter(r => r.ok).map(r => r.command)"


def releases(n: int) -> str:
    """A script true once n of the person's releases ran on the page."""
    return ("window.cockpitLive.results.filter(r => r.ok && "
            f"r.command.startsWith('mouse up')).length === {n}")


async def test_a_person_solves_the_slider_and_the_grid_in_the_web_view(live, s, base,
                                                                        tmp_path):
    await ok(s, f"goto {slider_url(base)}")
    web = subprocess.Popen([sys.executable, "-m", "cockpit", "web", "--socket",
                            str(live.socket), "--port", "0"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "COCKPIT_STATE_DIR": str(tmp_path)})
    viewer = Session("web-live-viewer", headed=False)
    viewer.recording_path = None
    try:
        line = web.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:(\d+))/\?token=(\S+)", line)
        assert found, line + web.stderr.read() if web.poll() is not None else line
        base_url, token = found.group(1), found.group(3)
        await viewer.start()
        page = viewer.active.page
        await page.goto(f"{base_url}/?token={token}")  # the cockpit, the page beside it
        assert await page.locator("iframe#cockpit-live").get_attribute("src") == \
            f"/live?token={token}"
        terminal = await page.locator("#terminal").bounding_box()
        beside = await page.locator("iframe#cockpit-live").bounding_box()
        assert terminal and beside and beside["x"] >= terminal["x"] + terminal["width"] - 1
        # the first frame: a stalled screencast is restarted after 3 s (core/live), so
        # more than Playwright's 5 s default on a loaded machine
        await page.frame_locator("iframe#cockpit-live").locator("#view[src]").wait_for(
            timeout=15_000)
        assert (await page.request.get(f"{base_url}/live?token=not-{token}")).status == 403
        await page.goto(f"{base_url}/live?token={token}")
        await wait_for(page, "window.cockpitLive.frames > 0")
        assert (await page.text_content("#who")).startswith("Watch-only")
        view = page.locator("#view")
        box = await view.bounding_box()
        width, height = s.active.page.viewport_size.values()

        async def at(x: float, y: float) -> tuple[float, float]:
            return box["x"] + x * box["width"] / width, box["y"] + y * box["height"] / height

        # watch-only: a drag does nothing to the page
        await page.mouse.move(*await at(60, 140))
        await page.mouse.down()
        await page.mouse.move(*await at(440, 140), steps=5)
        await page.mouse.up()
        await wait_for(page, "window.cockpitLive.results.length > 0")
        assert "watch-only" in await page.text_content("#said")
        assert await status_of(s.active.page) == "Slide to verify"
        await page.click("#take")
        await wait_for(page, "window.cockpitLive.human === true")
        assert s.handoff.active and s.agents_held
        await page.mouse.move(*await at(60, 140))
        await page.mouse.down()
        await page.mouse.move(*await at(440, 140), steps=5)
        await page.mouse.up()
        await wait_for(page, releases(1))
        assert await status_of(s.active.page) == "Verified"
        # the press went at once, the way while held, the release at the end
        done = await page.evaluate(DONE)
        assert done[-1].startswith("mouse up ") and done[-2].startswith("mouse move ") \
            and any(c.startswith("mouse down ") for c in done), done
        # the grid: a double-click (a real one to the page: tile 5 on and off), each bus
        # tile clicked on the picture, then Verify
        await ok(s, f"goto {grid_url(base)}")
        await s.active.page.evaluate(
            "window.doubles = 0; addEventListener('dblclick', () => window.doubles++)")
        await page.mouse.dblclick(*await at(*tile_centre(5)))
        for n in BUS_TILES:
            await page.mouse.click(*await at(*tile_centre(n)))
        await page.mouse.click(*await at(60, 450))
        await wait_for(page, releases(7))
        assert await status_of(s.active.page) == "Verified"
        assert await s.active.page.evaluate("window.doubles") == 1
        assert "mouse up --count 2" in await page.evaluate(DONE)
        # keys typed on the picture go to the page
        await page.mouse.click(*await at(60, 530))
        await wait_for(page, releases(8))
        await page.keyboard.type("hi")
        await page.keyboard.press("Backspace")
        await wait_for(page, "window.cockpitLive.results.filter(r => r.ok && "
                             "r.command.startsWith('press')).length === 3")
        assert await s.active.page.input_value("#note") == "h"
        await page.click("#give")
        await wait_for(page, "window.cockpitLive.human === false")
        assert not s.handoff.active
    finally:
        if s.handoff.active:
            await s.run("resume")
        await viewer.close()
        web.terminate()
        web.wait(20)
    assert web.returncode == 0
