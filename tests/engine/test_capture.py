"""Capture: what a person does in the page (Playwright's mouse and keyboard play the
person: their events are trusted, as a real one's are) becomes human steps with role and
name targets, recorded, replayed green and exported; the cockpit's own commands, and
what the person does while they do not have control, are not captured."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import sys

import pytest

from conftest import ok, page

from cockpit.core import events as ev
from cockpit.record.reader import read
from cockpit.record.recorder import Recorder

COCKPIT = [sys.executable, "-m", "cockpit"]

FORM = page("capture_form", """
<form action="/capture_done" method="get">
  <label>Email <input name="email"></label>
  <label>Password <input type="password"></label>
  <label><input type="checkbox" name="remember"> Remember me</label>
  <label>Plan <select name="plan"><option>Free</option><option>Pro</option></select></label>
  <button type="submit">Sign in</button>
</form>
<button type="button" id="open" ondblclick="this.textContent = 'Opened'">Open</button>
<p id="said"></p>
<script>addEventListener('keydown', e => { if (e.key === 'Escape') said.textContent = 'Esc'; })
</script>""")
DONE = page("capture_done", "<p>Signed in</p>")


async def until(check, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.05)


async def click_at(p, selector: str, *, double: bool = False) -> None:
    """Click an element as a person does: the mouse at its middle."""
    box = await p.locator(selector).bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    if double:
        await p.mouse.dblclick(x, y)
    else:
        await p.mouse.click(x, y)


def steps_of(events: list) -> list[tuple[str, dict]]:
    """(command, targets) of each captured step, from the bus."""
    started = {e.data["id"]: e.data for e in events if e.kind == ev.COMMAND_STARTED}
    return [(e.data["command"], started[e.data["id"]]["targets"]) for e in events
            if e.kind == ev.COMMAND_FINISHED and (e.data.get("data") or {}).get("captured")]


async def walk(p, base: str) -> None:
    """The person signs in: a field, a password, a checkbox, a select, a double-click,
    a key, and the submit button."""
    await click_at(p, "input[name=email]")
    await p.keyboard.type("jane@example.com")
    await click_at(p, "input[type=password]")
    await p.keyboard.type("s3cret pw")
    await click_at(p, "input[name=remember]")
    await p.keyboard.press("Tab")  # to the select; the arrow picks the next option
    await p.keyboard.press("ArrowDown")
    await click_at(p, "#open", double=True)
    await p.keyboard.press("Escape")
    await click_at(p, "button[type=submit]")
    await p.wait_for_url("**/capture_done**")


async def test_what_a_person_does_becomes_steps_that_replay_and_export(s, base, tmp_path):
    events: list = []
    unsubscribe = s.bus.subscribe(events.append)
    path = tmp_path / "walk.jsonl"
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"goto {base}{FORM}")
        await s.capture.capture_everything(True)  # as `cockpit record` does
        p = s.active.page
        await walk(p, base)
        # the person goes somewhere themselves (nothing they did in the page led there)
        await asyncio.sleep(3)
        await p.goto(f"{base}{FORM}")
        await until(lambda: any(c.startswith("goto ") for c, _ in steps_of(events)))
        # the cockpit's own command makes trusted events too: never a captured step
        before = len(steps_of(events))
        await ok(s, "snapshot -i")
        await ok(s, "click 'button[type=submit]'")
        await asyncio.sleep(1)
        assert len(steps_of(events)) == before
    finally:
        await s.capture.capture_everything(False)
        await s.capture.close()
        unsubscribe()
        recorder.close()
    captured = steps_of(events)
    commands = [c for c, _ in captured]
    assert commands == ["fill @e1 jane@example.com", "fill @e1 $PASSWORD", "check @e1",
                        "press Tab", "select @e1 Pro", "dblclick @e1", "press Escape", "click @e1",
                        f"goto {base}{FORM}"], commands
    names = [(t["e1"]["role"], t["e1"]["name"]) for _, t in captured if t]
    assert names == [("textbox", "Email"), ("textbox", "Password"),
                     ("checkbox", "Remember me"), ("combobox", "Plan"), ("button", "Open"),
                     ("button", "Sign in")]
    rec = read(path)
    recorded = [r["command"] for r in rec.steps]  # the captured steps, between commands
    assert recorded == [f"goto {base}{FORM}", *commands, "snapshot -i",
                        "click 'button[type=submit]'"], recorded
    human = [r for r in rec.steps if r["source"] == "human"]
    assert "s3cret" not in path.read_text()  # the password never left the page
    signed_in = next(r for r in human if r["command"] == "click @e1")
    assert signed_in["at"]["url"].startswith(f"{base}{FORM}")  # where it was done
    assert "/capture_done" in signed_in["url"]  # and where it led

    # replayed in a new session: green, the steps found by role and name
    replayed = subprocess.run(COCKPIT + ["replay", str(path), "--no-record", "--session",
                                         "capture-replay", "--secret", "PASSWORD=s3cret pw"],
                              capture_output=True, text=True, timeout=180)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "0 diverged" in replayed.stdout, replayed.stdout
    out = tmp_path / "test_walk.py"
    made = subprocess.run(COCKPIT + ["export", str(path), "--to", "pytest", "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    code = out.read_text().replace("'", '"')
    assert 'get_by_role("textbox", name="Email", exact=True).fill("jane@example.com")' \
        in code, code
    assert 'get_by_role("checkbox", name="Remember me", exact=True).check()' in code
    assert 'get_by_role("button", name="Open", exact=True).dblclick()' in code
    assert 'os.environ["PASSWORD"]' in code and "s3cret" not in code
    if importlib.util.find_spec("pytest_playwright") is None:
        return  # runs where pytest-playwright is installed, as the export tests do
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          out.name], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PASSWORD": "s3cret pw"}, timeout=180)
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr


@pytest.fixture
async def person_events(s, monkeypatch):
    """The session's events from now on, its handoffs in the terminal (no window here);
    the shared session given back to the agents after the test, whatever happened."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    events: list = []
    unsubscribe = s.bus.subscribe(events.append)
    yield events
    unsubscribe()
    if s.handoff.active:
        await s.run("resume")


async def test_only_while_the_person_has_control(s, base, person_events):
    """A handoff captures what the person does until resume; nothing before or after."""
    events = person_events
    await ok(s, f"goto {base}{FORM}")
    p = s.active.page
    await click_at(p, "input[name=remember]")  # nobody handed it over: not a step
    await asyncio.sleep(0.5)
    assert steps_of(events) == []
    await ok(s, "handoff 'tick the plan'")
    await click_at(p, "input[name=remember]")
    await until(lambda: len(steps_of(events)) == 1)
    await ok(s, "resume")
    await click_at(p, "input[name=remember]")
    await asyncio.sleep(0.8)
    assert [c for c, _ in steps_of(events)] == ["uncheck @e1"]
    source = next(e.data["source"] for e in events if e.kind == ev.COMMAND_FINISHED
                  and (e.data.get("data") or {}).get("captured"))
    assert source == "human"


async def test_the_persons_last_action_is_a_step_before_the_resume(s, base, person_events):
    """What the person did just before giving the browser back is their step, posted
    before `resume` answers: in the log and the recording it comes before the resume
    and the agent's next command (it was posted a moment later, after them, and so
    leaked into whatever the session did next)."""
    events = person_events
    await ok(s, f"goto {base}{FORM}")
    await ok(s, "handoff 'tick the box'")
    await click_at(s.active.page, "input[name=remember]")
    await ok(s, "resume")  # at once: the click's step was not posted yet
    steps = steps_of(events)
    assert (await s.run("url", source="agent")).ok
    assert [c for c, _ in steps] == ["check @e1"], steps
    order = [e.data["command"] for e in events if e.kind == ev.COMMAND_FINISHED]
    assert order[-3:] == ["check @e1", "resume", "url"], order


async def test_a_captured_step_shows_in_the_cockpits_log_as_it_happens(s, base):
    from test_tui import app_for, log_rows
    from test_tui import until as until_shown
    app = app_for(s)
    async with app.run_test(size=(180, 50)) as pilot:
        await ok(s, f"goto {base}{FORM}")
        await s.capture.capture_everything(True)
        try:
            await click_at(s.active.page, "#open", double=True)
            await until_shown(pilot, lambda: any("dblclick @e1" in " ".join(row)
                                                 for row in log_rows(app)))
        finally:
            await s.capture.capture_everything(False)
        row = next(r for r in log_rows(app) if "dblclick @e1" in " ".join(r))
        assert "human" in " ".join(row) and 'double-clicked button "Open"' in " ".join(row), row


NAMED = page("capture_names", """
<button aria-label="Close dialog">X</button>
<span id="lbl">Search the mail</span><input aria-labelledby="lbl">
<input placeholder="Your city">
<input type="submit" value="Send it">
<a href="#x"><img alt="Home page"></a>
<div role="button" tabindex="0"><span>Custom</span> action</div>
<label for="n">Nick name</label><input id="n">
<button>Twin</button><button>Twin</button>
""")
NAMED_TARGETS = ["button[aria-label]", "input[aria-labelledby]", "input[placeholder]",
                 "input[type=submit]", "a img", "div[role=button]", "#n",
                 "button:text-is('Twin') >> nth=1"]


async def test_the_page_names_each_element_as_the_snapshot_does(s, base):
    """Replay and export find a captured element by the role and name the page gave it:
    they must be the ones `snapshot -i` gives (and its place among equals)."""
    events: list = []
    unsubscribe = s.bus.subscribe(events.append)
    await ok(s, f"goto {base}{NAMED}")
    await ok(s, "snapshot -i")
    refs = [(role, name) for _, role, name, _ in await s.current_refs()]
    await s.capture.capture_everything(True)
    try:
        for selector in NAMED_TARGETS:
            await click_at(s.active.page, selector)
            if (selector.startswith("input") and "submit" not in selector) \
                    or selector == "#n":
                await s.active.page.keyboard.type("x")  # a field's step is its fill
        await s.active.page.keyboard.press("Escape")  # the last field's fill, then a key
        await until(lambda: len(steps_of(events)) == len(NAMED_TARGETS) + 1)
    finally:
        await s.capture.capture_everything(False)
        unsubscribe()
    got = [(t["e1"]["role"], t["e1"]["name"], t["e1"]["nth"]) for _, t in steps_of(events)
           if t]
    assert got == [("button", "Close dialog", 0), ("textbox", "Search the mail", 0),
                   ("textbox", "Your city", 0), ("button", "Send it", 0),
                   ("link", "Home page", 0), ("button", "Custom action", 0),
                   ("textbox", "Nick name", 0), ("button", "Twin", 1)], got
    for role, name, _ in got:  # as the snapshot names them
        assert (role, name) in refs, (role, name, refs)
