"""Routes and emulation are recorded, replayed and exported: the walk's mocked API and
emulated page come back in `cockpit replay` and in the exported pytest-playwright test;
a password given to `credentials` never reaches the recording."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_network_relaunch import Server
from test_recording import records, send, start
from test_run_cli import ref

from conftest import PAGES, page

COCKPIT = [sys.executable, "-m", "cockpit"]

ENV_PAGE = page("w3n-env", "<button onclick='load()'>Load users</button><ul id='list'></ul>"
                "<button onclick='show()'>Show env</button><p id='env'></p>",
                head="<script>async function load() {"
                     "  const users = await (await fetch('/api/w3n-env-users')).json();"
                     "  document.getElementById('list').innerHTML ="
                     "    users.map(u => '<li>' + u.name + '</li>').join('');"
                     "}"
                     "function show() {"
                     "  const dark = matchMedia('(prefers-color-scheme: dark)').matches;"
                     "  document.getElementById('env').textContent ="
                     "    Intl.DateTimeFormat().resolvedOptions().timeZone + ' ' +"
                     "    (dark ? 'dark' : 'light') + ' ' + (1234.5).toLocaleString();"
                     "}</script>")
PAGES["api/w3n-env-users"] = '[{"name": "From the server"}]'


def record_walk(path, url: str) -> None:
    proc = start(["--record", str(path)])
    try:
        for line in ('route **/api/w3n-env-users --body \'[{"name": "Mocked Ada"}]\'',
                     "media --color-scheme dark", "timezone Asia/Tokyo", "locale de-DE",
                     "geo 10 20", "headers set X-Run nightly",
                     "permissions grant notifications", "credentials ada pw-never-seen-7",
                     f"goto {url}{ENV_PAGE}"):
            answer = send(proc, line)
            assert answer["ok"], answer
        snap = send(proc, "snapshot -i")["output"]
        loaded = send(proc, f"click {ref(snap, 'button', 'Load users')}")
        assert "Mocked Ada" in loaded["output"], loaded
        shown = send(proc, f"click {ref(snap, 'button', 'Show env')}")
        assert "Asia/Tokyo dark 1.234,5" in shown["output"], shown
        assert send(proc, 'wait --text "Mocked Ada"')["ok"]
        assert send(proc, 'wait --text "Asia/Tokyo dark 1.234,5"')["ok"]
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0


def test_routes_and_emulation_are_recorded_replayed_and_exported(tmp_path):
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    served = Server()
    try:
        path = tmp_path / "walk.jsonl"
        record_walk(path, served.url)
        text = path.read_text(encoding="utf-8")
        assert "pw-never-seen-7" not in text and "nightly" not in text  # masked
        commands = [r.get("command", "") for r in records(path)]
        assert any(c.startswith("route **/api/w3n-env-users") for c in commands)

        replayed = subprocess.run(COCKPIT + ["replay", str(path), "--no-record", "--session",
                                             "w3n-replay"], capture_output=True, text=True,
                                  timeout=180)
        out = replayed.stdout + replayed.stderr
        # the masked steps (headers, credentials) are skipped and said; the rest, the
        # mocked API and the emulated page included, replay as recorded
        assert replayed.returncode == 0, out
        assert "12 as recorded, 0 diverged, 2 skipped" in out, out

        test_file = tmp_path / "test_env_walk.py"
        made = subprocess.run(COCKPIT + ["export", str(path), "--to", "pytest", "-o",
                                         str(test_file)], capture_output=True, text=True,
                              timeout=60)
        assert made.returncode == 0, made.stderr
        code = test_file.read_text()
        for wanted in ("page.context.route('**/api/w3n-env-users', answer)",
                       "route.fulfill(status=200, body='[{\"name\": \"Mocked Ada\"}]', "
                       "content_type='application/json')",
                       "page.emulate_media(color_scheme='dark')",
                       "cdp(page).send('Emulation.setTimezoneOverride', "
                       "{'timezoneId': 'Asia/Tokyo'})",
                       "page.context.set_geolocation({'latitude': 10.0, 'longitude': 20.0, "
                       "'accuracy': 10.0})",
                       "page.context.set_extra_http_headers({'X-Run': "
                       "os.environ['HEADER_X_RUN']})",
                       "page.context.grant_permissions(['notifications'])",
                       "# credentials: give them"):
            assert wanted in code, f"{wanted}\n---\n{code}"
        ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              test_file.name], cwd=tmp_path, capture_output=True, text=True,
                             env={**os.environ, "HEADER_X_RUN": "nightly",
                                  "COCKPIT_ORIGIN": served.url}, timeout=180)
        assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr
    finally:
        served.stop()


PHONE_PAGE = page("w3n-phone-export", "<button onclick='show()'>Show device</button>"
                  "<p id='device'></p>",
                  head="<meta name='viewport' content='width=device-width'>"
                       "<script>function show() {"
                       "  document.getElementById('device').textContent ="
                       "    (navigator.maxTouchPoints > 0 ? 'touch' : 'mouse') + ' ' +"
                       "    innerWidth;"
                       "}</script>")


def test_a_device_set_mid_walk_is_exported_for_the_whole_test_and_it_passes(tmp_path):
    """Playwright makes a device with its context: the export says so, runs the test on
    it from the start, and the walk's check of the phone still holds."""
    pytest.importorskip("pytest_playwright", reason="pip install pytest-playwright")
    served = Server()
    try:
        path = tmp_path / "phone.jsonl"
        proc = start(["--record", str(path)])
        try:
            assert send(proc, f"goto {served.url}{PHONE_PAGE}")["ok"]
            assert send(proc, 'device "iPhone 13"')["ok"]
            snap = send(proc, "snapshot -i")["output"]
            shown = send(proc, f"click {ref(snap, 'button', 'Show device')}")
            assert "touch 390" in shown["output"], shown
            assert send(proc, 'wait --text "touch 390"')["ok"]
        finally:
            proc.stdin.close()
            assert proc.wait(60) == 0
        test_file = tmp_path / "test_phone_walk.py"
        made = subprocess.run(COCKPIT + ["export", str(path), "--to", "pytest", "-o",
                                         str(test_file)], capture_output=True, text=True,
                              timeout=60)
        assert made.returncode == 0, made.stderr
        code = test_file.read_text()
        assert "Playwright cannot change the device of a running context" in code, code
        assert "playwright.devices['iPhone 13']" in code, code
        ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              test_file.name], cwd=tmp_path, capture_output=True, text=True,
                             env={**os.environ, "COCKPIT_ORIGIN": served.url}, timeout=180)
        assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr
    finally:
        served.stop()


def test_routes_emulation_and_a_device_export_to_a_typescript_spec_that_passes(tmp_path):
    from test_expect_export import playwright_test_modules
    modules = playwright_test_modules()
    served = Server()
    try:
        walk = tmp_path / "walk.jsonl"
        record_walk(walk, served.url)
        phone = tmp_path / "phone.jsonl"
        proc = start(["--record", str(phone)])
        try:
            assert send(proc, 'device "iPhone 13"')["ok"]
            assert send(proc, f"goto {served.url}{PHONE_PAGE}")["ok"]
            assert send(proc, "media --color-scheme dark")["ok"]
            snap = send(proc, "snapshot -i")["output"]
            assert "touch 390" in send(proc, f"click {ref(snap, 'button', 'Show device')}")[
                "output"]
            assert send(proc, 'wait --text "touch 390"')["ok"]
        finally:
            proc.stdin.close()
            assert proc.wait(60) == 0
        (tmp_path / "node_modules").symlink_to(modules)
        for recording, wanted in (
                (walk, ("await page.context().route('**/api/w3n-env-users', async (route) => {",
                        "await route.fulfill({ status: 200, body: '[{\"name\": \"Mocked Ada\"}]',"
                        " contentType: 'application/json' });",
                        "await page.emulateMedia({ colorScheme: 'dark' });",
                        "await (await cdp(page)).send('Emulation.setTimezoneOverride', "
                        "{ timezoneId: 'Asia/Tokyo' });",
                        "await page.context().setExtraHTTPHeaders({ 'X-Run': "
                        "env('HEADER_X_RUN') });",
                        "await page.context().grantPermissions(['notifications']);")),
                (phone, ("test.use({ ...devices['iPhone 13'], defaultBrowserType: 'chromium' "
                         "});", "Playwright cannot change the device of a running context"))):
            spec = tmp_path / f"{recording.stem}.spec.ts"
            made = subprocess.run(COCKPIT + ["export", str(recording), "--to",
                                             "playwright-test", "-o", str(spec)],
                                  capture_output=True, text=True, timeout=60)
            assert made.returncode == 0, made.stderr
            code = spec.read_text()
            for line in wanted:
                assert line in code, f"{line}\n---\n{code}"
            assert "not exported to this runner yet" not in code, code
            ran = subprocess.run(["npx", "playwright", "test", spec.name, "--reporter=line"],
                                 cwd=tmp_path, capture_output=True, text=True, timeout=300,
                                 env={**os.environ, "CI": "1", "HEADER_X_RUN": "nightly",
                                      "COCKPIT_ORIGIN": served.url})
            assert ran.returncode == 0 and "1 passed" in ran.stdout, \
                ran.stdout + ran.stderr + code
    finally:
        served.stop()
