"""A walk of `mouse` steps (the image grid's tiles and Verify, the slider's drag) exports
as `page.mouse.*` calls that pass under pytest-playwright, the Verify click taken at its
button's box where it is when the test runs (the site moved it since)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import conftest
from cockpit.record.export import to_pytest
from cockpit.record.reader import read
from cockpit.record.recorder import Recorder
from conftest import ok
from live_pages import BUS_TILES, grid_url, slider_url, tile_centre


async def test_mouse_steps_export_and_pass_where_the_button_moved(s, base, tmp_path):
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    path = tmp_path / "mouse.jsonl"
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"goto {grid_url(base)}")
        for n in BUS_TILES:
            await ok(s, "mouse click {} {}".format(*tile_centre(n)))
        await ok(s, "mouse click 60 450")  # Verify
        await ok(s, "mouse click 60 530")  # the note field, then typed into
        await ok(s, "press o")
        await ok(s, "press k")
    finally:
        recorder.close()
    test = tmp_path / "test_mouse_walk.py"
    code = to_pytest(read(path), "mouse_walk")
    # what the walk did, checked at its end: the grid said so, the note holds the keys
    code += ('    expect(page.locator("#status")).to_have_text("Verified")\n'
             '    expect(page.locator("#note")).to_have_value("ok")\n'
             f'    page.goto({base + slider_url("")!r})\n'
             '    page.mouse.move(60, 140)\n    page.mouse.down()\n'
             '    page.mouse.move(440, 140, steps=10)\n    page.mouse.up()\n'
             '    expect(page.locator("#status")).to_have_text("Verified")\n')
    test.write_text(code)
    conftest.PAGES["live-grid"] = conftest.PAGES["live-grid"].replace(
        "left:40px;top:440px", "left:40px;top:500px").replace(
        "left:40px;top:520px", "left:40px;top:580px")  # Verify and the field moved down
    try:
        ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              test.name], cwd=tmp_path, capture_output=True, text=True,
                             timeout=300, env=os.environ.copy())
    finally:
        conftest.PAGES["live-grid"] = conftest.PAGES["live-grid"].replace(
            "left:40px;top:500px", "left:40px;top:440px").replace(
            "left:40px;top:580px", "left:40px;top:520px")
    assert "1 passed" in ran.stdout, code + ran.stdout + ran.stderr
    assert 'box = page.get_by_role("button", name="Verify", exact=True).bounding_box()' in \
        code.replace("'", '"')
