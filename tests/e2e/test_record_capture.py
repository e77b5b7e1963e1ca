"""`cockpit record`: a person signs in and archives a message in the real window (xdotool
under Xvfb is the person: X input, as a real mouse and keyboard give it), and every
action is a human step of the recording, which `cockpit replay` runs green."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest
from conftest import page

from cockpit.core import Session
from cockpit.demo.server import DemoSite

COCKPIT = [sys.executable, "-m", "cockpit"]

# the walk's first page: it says where the page is on the screen (its title, from the
# pointer's screen and page coordinates), and links to the site's sign-in
def start_page(site_url: str) -> str:
    return page("capture_start", f"""<p><a id="go" href="{site_url}/login"
  style="position:absolute; left:40px; top:200px">Sign in to the mail</a></p>
<script>
addEventListener('mousemove', e => {{
  // a window's only (a headless replay has no screen, and the headless shell gives the
  // first page of a tab a mousemove at (0, 0): the walk's title must stay as recorded)
  if (window.outerHeight === window.innerHeight) return;
  document.title = `offset ${{e.screenX - e.clientX}} ${{e.screenY - e.clientY}}`;
}});
// the walk's own title again, once the person acts (replay checks where it is)
addEventListener('mousedown', () => {{ document.title = 'capture_start'; }}, true);
</script>""")


needs_xdotool = pytest.mark.skipif(shutil.which("xdotool") is None,
                                   reason="xdotool is not installed (apt-get install xdotool)")


def xdotool(*args: str) -> str:
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, timeout=20,
                          check=True).stdout.strip()


def steps(path) -> list[dict]:
    if not path.exists():
        return []
    return [r for r in map(json.loads, path.read_text().splitlines())
            if r.get("type") == "step"]


def until(check, what: str, timeout: float = 20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def window_offset() -> tuple[int, int]:
    """Where the page's (0, 0) is on the screen: the pointer moved over the start page
    makes it say so in its title."""
    def said() -> tuple[int, int] | None:
        xdotool("mousemove", "600", "500")
        xdotool("mousemove", "610", "505")
        found = subprocess.run(["xdotool", "search", "--name", "^offset "],
                               capture_output=True, text=True, timeout=20).stdout.split()
        if not found:
            return None
        words = xdotool("getwindowname", found[0]).split()
        return int(words[1]), int(words[2])
    return until(said, "the start page's title to say where it is")


class Person:
    """Clicks and types at the window, where a headless twin of the page lays it out
    (the same browser and viewport lay a page out the same)."""

    def __init__(self, offset: tuple[int, int], layout) -> None:
        self.dx, self.dy = offset
        self.layout = layout

    async def click(self, selector: str) -> None:
        box = await self.layout.locator(selector).first.bounding_box()
        assert box is not None, selector
        x = int(self.dx + box["x"] + box["width"] / 2)
        y = int(self.dy + box["y"] + box["height"] / 2)
        xdotool("mousemove", str(x), str(y))
        xdotool("click", "1")

    @staticmethod
    def type(text: str) -> None:
        xdotool("type", "--delay", "20", text)

    @staticmethod
    def key(name: str) -> None:
        xdotool("key", name)


@needs_xdotool
async def test_a_walkthrough_done_in_the_window_is_recorded_and_replays(display, base,
                                                                       tmp_path):
    site = DemoSite(human_check=False)
    site.start()
    path = tmp_path / "walk.jsonl"
    env = {**os.environ, "DISPLAY": display}
    name = f"record-{uuid.uuid4().hex[:6]}"
    start_url = f"{base}{start_page(site.url)}"
    recording = subprocess.Popen(COCKPIT + ["record", start_url, "-o", str(path),
                                            "--session", name],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=env)
    layout = Session(f"{name}-layout")
    try:
        await layout.start()
        twin = layout.active.page
        await twin.goto(start_url)
        until(lambda: steps(path), "the start page to be open")
        person = Person(window_offset(), twin)
        await person.click("#go")  # the link to the sign-in
        until(lambda: any("/login" in (s.get("url") or "") for s in steps(path)),
              "the click on the link")
        await twin.goto(f"{site.url}/login")
        await person.click("#email")
        person.type(site.email)
        await person.click("#password")
        person.type(site.password)
        await person.click("button[type=submit]")
        until(lambda: any((s.get("url") or "").endswith("/mfa") for s in steps(path)),
              "the sign-in")
        await twin.fill("#email", site.email)  # the twin signs in too, to see the next pages
        await twin.fill("#password", site.password)
        await twin.click("button[type=submit]")
        await twin.wait_for_url("**/mfa")
        await person.click("#code")
        person.type(site.mfa_code)
        person.key("Return")
        until(lambda: any((s.get("url") or "").endswith("/inbox") for s in steps(path)),
              "the one-time code")
        await twin.fill("#code", site.mfa_code)
        await twin.press("#code", "Enter")
        await twin.wait_for_url("**/inbox")
        await twin.locator("button.archive").first.wait_for()
        await person.click("button.archive")
        until(lambda: any(s["command"].startswith("click") and "Archive" in json.dumps(
            s.get("targets")) for s in steps(path)), "the archive click")
        # the person closes the window: the recording ends, and says where it is
        xdotool("windowkill", xdotool("search", "--name", "Chromium").split()[0])
        out, err = recording.communicate(timeout=60)
    finally:
        if recording.poll() is None:
            recording.terminate()
            recording.communicate(timeout=30)
        await layout.close()
    if recording.returncode != 0:
        site.stop()
    assert recording.returncode == 0, err
    assert out.strip() == str(path), out + err
    walk = steps(path)
    commands = [(s["source"], s["command"]) for s in walk]
    assert commands == [
        ("human", f"goto {start_url}"), ("human", "click @e1"),
        ("human", f"fill @e1 {site.email}"), ("human", "fill @e1 $PASSWORD"),
        ("human", "click @e1"), ("human", f"fill @e1 {site.mfa_code}"),
        ("human", "press Enter"), ("human", "click @e1")], commands
    names = [(t["e1"]["role"], t["e1"]["name"]) for t in (s["targets"] for s in walk) if t]
    assert names[:5] == [("link", "Sign in to the mail"), ("textbox", "Email"),
                         ("textbox", "Password"), ("button", "Sign in"),
                         ("textbox", "Verification code")], names
    assert names[5][0] == "button" and names[5][1].startswith("Archive"), names
    assert site.password not in path.read_text()
    # each captured step has its picture, for `cockpit report`
    assert all((path.parent / s["shot"]).is_file() for s in walk[1:] if s.get("shot"))
    assert sum(1 for s in walk[1:] if s.get("shot")) == len(walk) - 1, walk
    assert "human  click @e1" in err  # each step said as it happened

    # replayed on the same site, in a new session (signed out: a profile of its own), and
    # exported as a test that passes as it is
    out = tmp_path / "test_signin.py"
    try:
        replayed = subprocess.run(
            COCKPIT + ["replay", str(path), "--no-record", "--session", f"{name}-replay",
                       "--secret", f"PASSWORD={site.password}"],
            capture_output=True, text=True, timeout=180)
        made = subprocess.run(COCKPIT + ["export", str(path), "--to", "pytest", "-o",
                                         str(out)], capture_output=True, text=True,
                              timeout=60)
        ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-p", "playwright", out.name], cwd=tmp_path,
                             env={**os.environ, "PASSWORD": site.password},
                             capture_output=True, text=True, timeout=180) \
            if made.returncode == 0 and importlib.util.find_spec("pytest_playwright") \
            else None
    finally:
        site.stop()
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "8 steps: 8 as recorded, 0 diverged" in replayed.stdout, replayed.stdout
    assert made.returncode == 0, made.stderr
    code = out.read_text().replace("'", '"')
    assert 'get_by_role("textbox", name="Email", exact=True).fill(' in code, code
    assert 'get_by_role("link", name="Sign in to the mail", exact=True).click()' in code
    if ran is not None:  # where pytest-playwright is installed, as the export tests say
        assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr


async def test_the_handoff_window_captures_what_the_person_does_there(display, tmp_path):
    """A handoff relaunches the browser in a window: what the person does in it is
    captured (the new context gets the capture too), the window's reopening is not."""
    from cockpit.core import events as ev
    from cockpit.record.recorder import Recorder
    site = DemoSite(human_check=False)
    site.start()
    session = Session(f"capture-handoff-{uuid.uuid4().hex[:6]}")
    captured: list[str] = []
    session.bus.subscribe(lambda e: captured.append(e.data["command"])
                          if e.kind == ev.COMMAND_FINISHED
                          and (e.data.get("data") or {}).get("captured") else None)
    path = tmp_path / "handoff.jsonl"
    login = f"{site.url}/login"
    try:
        await session.start()
        recorder = Recorder(session, path).start()
        assert (await session.run(f"goto {site.url}/login")).ok
        handed = await session.run("handoff 'sign in'")
        assert handed.ok and session.handoff.mode == "window", handed.error
        await asyncio.sleep(1)  # the window's tabs reopened in the handoff: no step
        assert captured == []
        p = session.active.page  # the window's page: its mouse is input to the window
        box = await p.locator("#email").bounding_box()
        assert box is not None
        await p.mouse.click(box["x"] + 5, box["y"] + 5)
        await p.keyboard.type(site.email)
        await p.keyboard.press("Tab")
        end = time.monotonic() + 10
        while len(captured) < 2 and time.monotonic() < end:
            await asyncio.sleep(0.1)
        assert (await session.run("resume")).ok
        recorder.close()
    finally:
        await session.close()
        site.stop()
    assert captured == [f"fill @e1 {site.email}", "press Tab"], captured
    human = [s["command"] for s in steps(path) if s["source"] == "human"]
    assert human == [f"goto {login}", "handoff 'sign in'",
                     f"fill @e1 {site.email}", "press Tab", "resume"], human
