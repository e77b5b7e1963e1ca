"""Issue 26's "Done when", in the web view, end to end: on a machine with no display, an
agent meets a slider CAPTCHA and then an image-grid CAPTCHA. Its result names the web
view `cockpit web` serves (never its token); it hands the browser over, and the handoff
offers the live view; a person in a real browser solves each on the web view's picture
(Playwright's mouse on /live), gives control back with one button, and the agent's next
command opens with the report of what the person changed."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys

import pytest

from cockpit.core import Session
from conftest import page

from live_pages import BUS_TILES, GRID, SLIDER, UNTIL_SOLVED, status_of, tile_centre

pytest.importorskip("textual_serve", reason="pip install textual-serve")

async def until(check, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_an_agent_hands_both_captchas_to_a_person_in_the_web_view(
        live, s, base, tmp_path, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)  # no window can open: over SSH
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    web = subprocess.Popen([sys.executable, "-m", "cockpit", "web", "--socket",
                            str(live.socket), "--port", "0"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "COCKPIT_STATE_DIR": str(tmp_path)})
    viewer = Session("takeover-viewer", headed=False)
    viewer.recording_path = None
    try:
        line = await asyncio.to_thread(web.stdout.readline)  # (the session answers)
        found = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=(\S+)", line)
        assert found, line + web.stderr.read() if web.poll() is not None else line
        here, token = found.groups()
        served = f"{here}/live"
        await until(lambda: s.live_view.web_url == served)  # cockpit web told the session
        assert s.live_view.web_link == f"{served}?token={token}"
        status = await s.run("status", source="agent")
        assert s.status()["web_view"] == served and token not in status.output + str(
            status.data)
        await viewer.start()
        view = viewer.active.page
        await view.goto(f"{served}?token={token}")
        await view.wait_for_function("window.cockpitLive.frames > 0")
        picture = view.locator("#view")
        width, height = s.active.page.viewport_size.values()

        async def at(x: float, y: float) -> tuple[float, float]:
            box = await picture.bounding_box()
            return box["x"] + x * box["width"] / width, box["y"] + y * box["height"] / height

        async def slide() -> None:
            await view.mouse.move(*await at(60, 140))
            await view.mouse.down()
            for x in range(100, 460, 40):  # a hand's way to the end of the track
                await view.mouse.move(*await at(x, 140))
                await view.wait_for_timeout(30)
            await view.mouse.up()

        async def pick_tiles() -> None:
            for n in BUS_TILES:
                await view.mouse.click(*await at(*tile_centre(n)))
            await view.mouse.click(*await at(60, 450))  # Verify

        for name, html, solve in (("takeover-slider", SLIDER, slide),
                                  ("takeover-grid", GRID, pick_tiles)):
            went = await s.run(f"goto {base + page(name, html + UNTIL_SOLVED)}",
                               source="agent")
            assert f"needs: captcha: ask a person with `handoff`; they can take it over " \
                   f"live in the web view at {served}" in went.output, went.output
            handed = await s.run('handoff "a CAPTCHA only a person can solve"',
                                 source="agent")
            assert handed.ok, handed.error
            assert "no display here" in handed.output and "zoom" in handed.output and \
                f"in the web view at {served}" in handed.output, handed.output
            assert token not in went.output + handed.output
            await view.wait_for_function("window.cockpitLive.human === true")
            await solve()
            for _ in range(200):  # (each press and release runs as it comes)
                if await status_of(s.active.page) == "Verified":
                    break
                await asyncio.sleep(0.1)
            assert await status_of(s.active.page) == "Verified", await view.evaluate(
                "window.cockpitLive.results.map(r => r.text)")
            await view.click("#give")
            await until(lambda: not s.handoff.active)
            await view.wait_for_function("window.cockpitLive.human === false")
            # the agent's next command opens with what the person changed
            after = await s.run("snapshot -i", source="agent")
            assert after.output.startswith("The human had control"), after.output
            assert '"Verified"' in after.output and "Needs a person now" not in after.output
            assert after.data["handoff"]["human_commands"] >= 2
            await view.evaluate("window.cockpitLive.results = []")
    finally:
        if s.handoff.active:
            await s.run("resume")
        await viewer.close()
        web.terminate()
        web.wait(20)
    await until(lambda: s.live_view.web_url is None)  # no longer served: no longer said
    assert web.returncode == 0
