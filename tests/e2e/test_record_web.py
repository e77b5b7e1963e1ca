"""`cockpit record` where there is no display: the browser runs headless and the page is
served live on the web (as `cockpit web` serves it, with a token); a person opens the
printed URL in their own browser, clicks and types on the picture, and what they do in
the page is captured as their steps (by role and name, a fill once), not as the mouse
and key commands that carried it. Ctrl+C ends it and prints the recording's path."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid

import pytest

from cockpit.core import Session
from cockpit.demo.server import DemoSite

pytest.importorskip("textual_serve", reason="pip install textual-serve")

COCKPIT = [sys.executable, "-m", "cockpit"]


def steps(path) -> list[dict]:
    if not path.exists():
        return []
    return [r for r in map(json.loads, path.read_text().splitlines())
            if r.get("type") == "step"]


def said_url(proc: subprocess.Popen, timeout: float = 60) -> str:
    """The live view's URL, from the line `cockpit record` says on stderr."""
    end = time.monotonic() + timeout
    seen = []
    while time.monotonic() < end:
        line = proc.stderr.readline()
        if not line and proc.poll() is not None:
            break
        seen.append(line)
        found = re.search(r"the page alone: (http://127\.0\.0\.1:\d+/live\?token=[\w-]+)",
                          line)
        if found:
            return found.group(1)
    raise AssertionError("no web view URL in: " + "".join(seen))


async def until_steps(path, check, what: str, timeout: float = 30) -> list[dict]:
    import asyncio
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        walk = steps(path)
        if check(walk):
            return walk
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}: {[s['command'] for s in steps(path)]}")


async def test_with_no_display_the_walkthrough_is_done_and_captured_in_the_web_view(
        tmp_path):
    site = DemoSite(human_check=False)
    login = f"{site.start()}/login"
    path = tmp_path / "web-walk.jsonl"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    name = f"record-web-{uuid.uuid4().hex[:6]}"
    recording = subprocess.Popen(COCKPIT + ["record", login, "-o", str(path),
                                            "--session", name],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=env)
    viewer = Session(f"{name}-viewer")  # the person's own browser
    viewer.recording_path = None
    try:
        live_url = said_url(recording)
        await viewer.start()
        page = viewer.active.page
        twin = await viewer.context.new_page()  # where things are on the recorded page
        await twin.goto(login)
        await page.bring_to_front()
        await page.goto(live_url)
        # the session is the person's from the start: no "Take control" to press
        await page.wait_for_function("window.cockpitLive.frames > 0 && "
                                     "window.cockpitLive.human", timeout=30_000)
        width, height = twin.viewport_size["width"], twin.viewport_size["height"]

        async def click(selector: str) -> None:
            box = await twin.locator(selector).bounding_box()
            view = await page.locator("#view").bounding_box()  # as the picture is shown now
            assert box is not None and view is not None, selector
            x = view["x"] + (box["x"] + box["width"] / 2) * view["width"] / width
            y = view["y"] + (box["y"] + box["height"] / 2) * view["height"] / height
            await page.mouse.click(x, y)

        async def typed(text: str) -> None:  # key by key, as a person types
            for key in text:
                await page.keyboard.press(key)
            await page.wait_for_function(  # each key ran in the session, in order
                f"window.cockpitLive.results.filter(r => r.ok && "
                f"r.command.startsWith('press')).length >= {typed.count + len(text)}",
                timeout=40_000)
            typed.count += len(text)
        typed.count = 0  # type: ignore[attr-defined]

        await until_steps(path, lambda w: w, "the first page")
        await click("#email")
        await typed(site.email)
        await click("#password")
        await typed(site.password)
        await page.keyboard.press("Enter")
        await until_steps(path, lambda w: any((s.get("url") or "").endswith("/mfa")
                                              for s in w), "the sign-in")
    finally:
        if recording.poll() is None:
            recording.send_signal(signal.SIGINT)  # Ctrl+C: done
        out, err = recording.communicate(timeout=60)
        await viewer.close()
        site.stop()
    assert recording.returncode == 0, err
    assert out.strip() == str(path), out + err
    walk = steps(path)
    assert [(s["source"], s["command"]) for s in walk] == [
        ("human", f"goto {login}"), ("human", f"fill @e1 {site.email}"),
        ("human", "fill @e1 $PASSWORD"), ("human", "press Enter")], walk
    assert [s["targets"]["e1"]["name"] for s in walk[1:3]] == ["Email", "Password"]
    # typed into the password field: never in a step (the login page itself shows the
    # demo's password as a hint, so the first step's diff has it: that is the page's)
    assert not any(site.password in json.dumps(s) for s in walk[1:]), walk


def test_record_refuses_the_options_its_place_cannot_honour(tmp_path):
    """--port is the web view's (no display); --headed needs a display: usage errors."""
    bare = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    for env, extra, said in ((bare, ["--headed"], "--headed needs a display"),
                             ({**bare, "DISPLAY": ":99"}, ["--port", "0"],
                              "--port is the web view's")):
        done = subprocess.run(COCKPIT + ["record", "-o", str(tmp_path / "x.jsonl"), *extra],
                              capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 2 and said in done.stderr, done.stderr
        assert not (tmp_path / "x.jsonl").exists()
