"""The emulated viewport is what a person sees and points at: under `device "iPhone 13"`
the live picture (the TUI's and the web view's zoom, core/live/screencast.py) is the
phone's screen, `zoom` names its size, and a point of the picture, mapped as the views
map it (`css_width / width`), is where a `mouse click` lands on the page."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Error as PlaywrightError

from cockpit.core import Session
from cockpit.core.live import streams

from conftest import ok, page

PHONE = page("w3n-phone", "<button id=target onclick=\"this.textContent = 'pressed'\" "
             "style='position:fixed; left:250px; top:400px; width:100px; height:60px; "
             "background:rgb(255,0,0); border:0'>press</button>",
             head="<meta name='viewport' content='width=device-width, initial-scale=1'>"
                  "<style>body{background:rgb(255,255,255)}</style>")


@pytest.fixture
async def phone():
    session = Session("w3n-viewport")
    await session.start()
    await ok(session, 'device "iPhone 13"')  # a relaunch: a session of its own
    yield session
    await session.close()


async def a_frame(s: Session):
    frames: list = []
    stop = s.live_view.subscribe(frames.append)
    try:
        for _ in range(200):
            if frames:
                return frames[-1]
            await asyncio.sleep(0.05)
    finally:
        stop()
    raise AssertionError("no live frame came")


def red_centre(frame) -> tuple[float, float]:
    """The centre of the red button in the frame's pixels."""
    image = frame.image().convert("RGB")
    red = [(x, y) for x in range(0, image.width, 2) for y in range(0, image.height, 2)
           if (lambda p: p[0] > 200 and p[1] < 60 and p[2] < 60)(image.getpixel((x, y)))]
    assert red, "the button is not in the picture"
    return (sum(x for x, _ in red) / len(red), sum(y for _, y in red) / len(red))


async def test_the_live_picture_and_zoom_show_the_emulated_phone_screen(phone, base):
    s = phone
    await ok(s, f"goto {base}{PHONE}")
    zoom = (await ok(s, "zoom")).data["zoom"]["area"]
    assert (zoom["w"], zoom["h"]) == (390, 664), zoom  # the phone's viewport, not 1280x720
    frame = await a_frame(s)
    assert (frame.css_width, frame.css_height) == (390, 664)
    assert abs(frame.width / frame.height - 390 / 664) < 0.02, (frame.width, frame.height)
    x, y = red_centre(frame)
    scale = frame.css_width / frame.width  # what the TUI's zoom and the web view do
    cx, cy = x * scale, y * scale
    assert abs(cx - 300) < 8 and abs(cy - 430) < 8, (cx, cy)
    await ok(s, f"mouse click {round(cx)} {round(cy)}")
    assert await s.active.page.inner_text("#target") == "pressed"


WIDE = page("w3n-wide", "<button id=target onclick=\"this.textContent = 'pressed'\" "
            "style='position:absolute; left:700px; top:300px; width:200px; height:150px; "
            "background:rgb(255,0,0); border:0'>press</button>",
            head="<style>body{background:rgb(255,255,255)}</style>")


@pytest.mark.parametrize("stream", ["screencast", "screenshots"])
async def test_a_page_without_a_mobile_viewport_is_pictured_zoomed_out_and_points_hold(
        phone, base, stream, monkeypatch):
    """No `<meta name=viewport>`: the phone lays it out 980 px wide and shows it zoomed
    out; the picture's points still land where they show (from Chromium's screencast,
    and from the screenshots that replace it where there is none)."""
    s = phone
    if stream == "screenshots":
        async def no_cdp(self) -> None:
            raise PlaywrightError("CDP session is only available in Chromium")
        monkeypatch.setattr(streams.Screencast, "start", no_cdp)
    await ok(s, f"goto {base}{WIDE}")
    frame = await a_frame(s)
    assert frame.source == stream.rstrip("s")
    x, y = red_centre(frame)
    scale = frame.css_width / frame.width
    zoom = (await ok(s, "zoom")).data["zoom"]["area"]
    assert (round(frame.css_width), round(frame.css_height)) == (zoom["w"], zoom["h"]), zoom
    await ok(s, f"mouse click {round(x * scale)} {round(y * scale)}")
    assert await s.active.page.inner_text("#target") == "pressed"
