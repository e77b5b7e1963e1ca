"""A walk a person does in iframes (one of another origin), in a popup that closes
itself and by dragging (HTML5 drag and drop, a list sorted by the pointer) is recorded as
human steps that `cockpit replay` runs green in a new browser, and that the exported
pytest-playwright test and @playwright/test spec run unedited."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import sys
import uuid

import pytest
from capture_walks import (BOARD, FRAMED, OPENER, walk_in_a_popup, walk_in_frames,
                           walk_on_the_board)
from test_expect_export import playwright_test_modules

from cockpit.core import Session
from cockpit.core import events as ev
from cockpit.record.reader import read
from cockpit.record.recorder import Recorder

COCKPIT = [sys.executable, "-m", "cockpit"]
PASSWORD = "s3cret pw"  # what the person types into the card's password field
HUMAN = ["fill @e1 4242", "fill @e1 $PASSWORD", "click @e1", "fill @e1 hello", "press Tab",
         "click @e1", "tab 2", "fill @e1 Ann", "click @e1", "click @e1",
         "drag @e1 @e2", "drag @e1 @e2"]


def exported(path, out, to: str = "pytest") -> str:
    """`cockpit export` of the recording to `out`; its code, quotes made double."""
    made = subprocess.run(COCKPIT + ["export", str(path), "--to", to, "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return out.read_text().replace("'", '"')


def passes(out, **env: str) -> None:
    """The exported pytest file runs and passes, unedited."""
    if importlib.util.find_spec("pytest_playwright") is None:
        pytest.skip("pip install pytest-playwright: the exported test is not run")
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          out.name], cwd=out.parent, capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=180)
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr


async def record(path, base: str) -> None:
    """The person walks the three pages; the agent's `goto` takes them from one to the
    next (the session's own commands: not captured)."""
    session = Session(f"capture-places-{uuid.uuid4().hex[:6]}")
    captured: list[str] = []
    session.bus.subscribe(lambda e: captured.append(e.data["command"])
                          if e.kind == ev.COMMAND_FINISHED
                          and (e.data.get("data") or {}).get("captured") else None)
    await session.start()
    recorder = Recorder(session, path).start()
    try:
        await session.capture.capture_everything(True)  # as `cockpit record` does
        for url, walk, steps in ((FRAMED, walk_in_frames, 5), (OPENER, walk_in_a_popup, 10),
                                 (BOARD, walk_on_the_board, 12)):
            assert (await session.run(f"goto {base}{url}", source="agent")).ok
            await walk(session.active.page)
            for _ in range(100):  # its steps are posted before the next page
                if len(captured) >= steps:
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.5)
    finally:
        await session.capture.close()
        recorder.close()
        await session.close()
    assert captured == HUMAN, captured


async def test_frames_popups_and_drags_replay_and_export(tmp_path, base):
    path = tmp_path / "places.jsonl"
    await record(path, base)
    rec = read(path)
    human = [r for r in rec.steps if r["source"] == "human"]
    assert [r["command"] for r in human] == HUMAN
    assert PASSWORD not in path.read_text()  # typed in a frame: never left the page

    replayed = subprocess.run(COCKPIT + ["replay", str(path), "--no-record", "--session",
                                         f"places-{uuid.uuid4().hex[:6]}",
                                         "--secret", f"PASSWORD={PASSWORD}"],
                              capture_output=True, text=True, timeout=240)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "0 diverged" in replayed.stdout, replayed.stdout

    out = tmp_path / "test_places.py"
    code = exported(path, out)
    for line in (
            'page.frame_locator("iframe[name="pay"]").get_by_role("textbox", '
            'name="Card number", exact=True).fill("4242")',
            'page.frame_locator("iframe[title="Notes"]").get_by_role("textbox", '
            'name="Note", exact=True).fill("hello")',
            'page = tab(page, 2)', 'page = after_close(page, 1)',
            'page.get_by_role("listitem").filter(has_text="Gamma").drag_to('
            'page.get_by_role("listitem").filter(has_text="Alpha"))'):
        assert line in code, code
    assert 'os.environ["PASSWORD"]' in code and PASSWORD not in code
    passes(out, PASSWORD=PASSWORD)

    modules = playwright_test_modules()
    spec = tmp_path / "places.spec.ts"
    made = subprocess.run(COCKPIT + ["export", str(path), "--to", "playwright-test", "-o",
                                     str(spec)], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    assert "page.frameLocator('iframe[name=\"pay\"]')" in spec.read_text()
    (tmp_path / "node_modules").symlink_to(modules)
    ran = subprocess.run(["npx", "playwright", "test", spec.name, "--reporter=line"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "CI": "1", "PASSWORD": PASSWORD})
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr


async def test_an_agents_typed_steps_in_iframes_export_into_their_frames(tmp_path, base):
    """An agent's own steps on refs inside iframes (one of another origin) are recorded
    with the iframes around their elements, as a person's are: the exported test enters
    them by `frame_locator` and runs unedited (it looked for them on the page)."""
    from conftest import ref_of
    path = tmp_path / "typed.jsonl"
    session = Session(f"typed-frames-{uuid.uuid4().hex[:6]}")
    await session.start()
    recorder = Recorder(session, path).start()
    try:
        assert (await session.run(f"goto {base}{FRAMED}", source="agent")).ok
        await session.active.page.frame_locator("iframe[name=pay]").locator(
            "input[name=card]").wait_for()
        assert (await session.run("snapshot -i", source="agent")).ok
        for line in (f"fill {ref_of(session, 'textbox', 'Card number')} 4242",
                     f"click {ref_of(session, 'button', 'Pay')}",
                     f"fill {ref_of(session, 'textbox', 'Note')} typed"):
            result = await session.run(line, source="agent")
            assert result.ok, result.error
    finally:
        recorder.close()
        await session.close()
    rec = read(path)
    frames = [s["targets"][next(iter(s["targets"]))].get("frame") for s in rec.steps
              if s["targets"]]
    assert frames == [['iframe[name="pay"]'], ['iframe[name="pay"]'],
                      ['iframe[title="Notes"]']], frames
    out = tmp_path / "test_typed.py"
    code = exported(path, out)
    assert 'page.frame_locator("iframe[name="pay"]").get_by_role("button", name="Pay", ' \
        'exact=True).click()' in code, code
    passes(out)
