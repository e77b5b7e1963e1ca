"""`cockpit web`: the cockpit in a real browser through textual-serve, attached to a live
session; a command typed in the web terminal runs in the session as `human`; without the
token nothing but the static files is served."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from cockpit.core import Session
from cockpit.core.base import events as ev
pytest.importorskip("textual_serve", reason="pip install textual-serve")



def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status
    except urllib.error.HTTPError as exc:
        return exc.code


async def test_a_visitor_with_the_token_drives_the_session_as_human(live, s, site, tmp_path):
    web = subprocess.Popen([sys.executable, "-m", "cockpit", "web", "--socket",
                            str(live.socket), "--port", "0"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "COCKPIT_STATE_DIR": str(tmp_path)})
    seen: list = []
    unsubscribe = s.bus.subscribe(lambda e: e.kind == ev.COMMAND_FINISHED and seen.append(e))
    viewer = Session("web-viewer", headed=False)
    viewer.recording_path = None
    try:
        line = web.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:(\d+))/\?token=(\S+)", line)
        assert found, line + web.stderr.read() if web.poll() is not None else line
        base, token = found.group(1), found.group(3)
        # without the token, or with another: refused, the page and the websocket alike
        assert status_of(f"{base}/") == 403
        assert status_of(f"{base}/?token=not-{token}") == 403
        assert status_of(f"{base}/ws/not-{token}") == 403
        assert status_of(f"{base}/ws") == 403
        assert status_of(f"{base}/?token={token}") == 200
        await viewer.start()
        page = viewer.active.page
        await page.goto(f"{base}/?token={token}")
        # the attached cockpit's first output has reached the web terminal (xterm.js)
        await page.wait_for_selector("body.-first-byte", timeout=60_000)
        await page.wait_for_timeout(2000)  # its prompt takes the keys once mounted
        await page.focus(".xterm-helper-textarea")  # keys to the terminal; no click
        await page.keyboard.type(f"goto {site.url}/login")
        await page.keyboard.press("Enter")
        for _ in range(300):
            if any(e.data["command"] == f"goto {site.url}/login" for e in seen):
                break
            await page.wait_for_timeout(100)
        ran = [e for e in seen if e.data["command"] == f"goto {site.url}/login"]
        assert ran and ran[0].data["source"] == "human" and ran[0].data["ok"], \
            [e.data for e in seen]
        assert s.active.url == f"{site.url}/login"
    finally:
        unsubscribe()
        await viewer.close()
        web.terminate()
        web.wait(20)
    assert web.returncode == 0
