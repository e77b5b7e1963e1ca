"""A walk of the steps both exports now write (upload, drag, a prompt answered, scroll,
viewport, cookies, storage, js, a chain, a mouse click on an element, a route, media,
timezone, user agent)
is recorded for real, exported to pytest and to a @playwright/test spec, and both run
unedited and pass: each step did in the test what it did in the session."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_expect_export import playwright_test_modules

from cockpit.record.export import to_pytest
from cockpit.record.export_ts import to_playwright_test
from cockpit.record.reader import read
from cockpit.record.recorder import Recorder
from conftest import ok, page, ref_of

PAGE = page("parity-walk", """
<label>Attach <input type=file id=up></label><p id=files></p>
<div id=src draggable=true style="width:80px;height:30px;background:#ccc">Drag me</div>
<div id=dst style="width:120px;height:40px;border:1px solid">Drop here</div><p id=dropped></p>
<button onclick="document.getElementById('out').textContent = prompt('Name?')">Ask</button>
<p id=out></p>
<button style="position:absolute;left:400px;top:60px;width:120px;height:40px"
        onclick="this.textContent = 'Pressed'">Press</button>
<button onclick="fetch('/api/parity').then(r => r.json()).then(d =>
  document.getElementById('api').textContent = d.name)">Load</button><p id=api></p>
<div style="height:2500px"></div><p id=far>far below</p>
<script>
up.onchange = () => files.textContent = [...up.files].map(f => f.name).join(',');
src.ondragstart = (e) => e.dataTransfer.setData('text/plain', 'dragged');
dst.ondragover = (e) => e.preventDefault();
dst.ondrop = (e) => { e.preventDefault();
  dropped.textContent = e.dataTransfer.getData('text/plain'); };
</script>""")

# What the walk left, checked at the end of each exported test (its own words)
CHECKS_PY = """\
    expect(page.locator("#files")).to_have_text("parity.txt")
    expect(page.locator("#dropped")).to_have_text("dragged")
    expect(page.locator("#out")).to_have_text("Ada")
    expect(page.get_by_role("button", name="Pressed")).to_be_visible()
    expect(page.locator("#api")).to_have_text("Mocked")
    assert page.evaluate("scrollY") > 0
    assert page.viewport_size == {"width": 900, "height": 700}
    assert page.evaluate("document.cookie") == "theme=dark"
    assert page.evaluate("localStorage.getItem('k')") == "v1"
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    expect(page).to_have_title("Changed")
    assert page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone") == "Asia/Tokyo"
    assert page.evaluate("navigator.userAgent") == "Parity/1.0"
"""
CHECKS_TS = """\
  await expect(page.locator('#files')).toHaveText('parity.txt');
  await expect(page.locator('#dropped')).toHaveText('dragged');
  await expect(page.locator('#out')).toHaveText('Ada');
  await expect(page.getByRole('button', { name: 'Pressed' })).toBeVisible();
  await expect(page.locator('#api')).toHaveText('Mocked');
  expect(await page.evaluate('scrollY')).toBeGreaterThan(0);
  expect(page.viewportSize()).toEqual({ width: 900, height: 700 });
  expect(await page.evaluate('document.cookie')).toBe('theme=dark');
  expect(await page.evaluate("localStorage.getItem('k')")).toBe('v1');
  expect(await page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")).toBe(true);
  await expect(page).toHaveTitle('Changed');
  expect(await page.evaluate('Intl.DateTimeFormat().resolvedOptions().timeZone'))
    .toBe('Asia/Tokyo');
  expect(await page.evaluate('navigator.userAgent')).toBe('Parity/1.0');
"""


async def record(s, base, tmp_path):
    upload = tmp_path / "parity.txt"
    upload.write_text("hello")
    path = tmp_path / "parity.jsonl"
    recorder = Recorder(s, path).start()
    try:
        await ok(s, 'route **/api/parity --body \'{"name": "Mocked"}\'')
        await ok(s, "media --color-scheme dark")
        await ok(s, "timezone Asia/Tokyo")
        await ok(s, "useragent 'Parity/1.0'")
        await ok(s, f"goto {base}{PAGE}")
        await ok(s, "snapshot -i")
        await ok(s, f"upload '#up' {upload}")
        await ok(s, "drag '#src' '#dst'")
        await ok(s, f"click {ref_of(s, 'button', 'Ask')}")
        await ok(s, "dialog accept Ada")
        await ok(s, "mouse click 460 80")  # on Press, found again by its box
        await ok(s, f"chain 'click {ref_of(s, 'button', 'Load')}' 'wait --text Mocked'")
        await ok(s, "viewport 900 700")
        await ok(s, "cookies set theme dark")
        await ok(s, "storage set k v1")
        await ok(s, "js document.title = 'Changed'")
        await ok(s, "scroll down")
    finally:
        recorder.close()
        await s.run("unroute")
        await s.run("media")
        await s.run("timezone off")
        await s.run("useragent")
        await s.run("viewport 1280 800")
    # the session did it: the same checks, in the session
    assert (await ok(s, "text '#dropped'")).output == "dragged"
    assert (await ok(s, "text '#out'")).output == "Ada"
    return read(path)


async def test_both_exports_of_the_new_steps_run_and_pass(s, base, tmp_path):
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    modules = playwright_test_modules()
    rec = await record(s, base, tmp_path)
    python = to_pytest(rec, "parity_walk")
    typescript = to_playwright_test(rec, "parity walk")
    for code, mark in ((python, "#"), (typescript, "//")):
        assert f"{mark} not exported" not in code, code
    # cookie and storage values are masked in recordings: the tests read them from here
    assert "os.environ['COOKIE_THEME']" in python and "env('STORAGE_K')" in typescript
    env = {**os.environ, "COOKIE_THEME": "dark", "STORAGE_K": "v1"}
    (tmp_path / "test_parity_walk.py").write_text(python + CHECKS_PY)
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "test_parity_walk.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300, env=env)
    assert "1 passed" in ran.stdout, python + CHECKS_PY + ran.stdout + ran.stderr

    spec = tmp_path / "parity.spec.ts"
    spec.write_text(typescript.rstrip().removesuffix("});") + CHECKS_TS + "});\n")
    (tmp_path / "node_modules").symlink_to(modules)
    ran = subprocess.run(["npx", "playwright", "test", spec.name, "--reporter=line"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**env, "CI": "1"})
    assert ran.returncode == 0 and "1 passed" in ran.stdout, \
        spec.read_text() + ran.stdout + ran.stderr
