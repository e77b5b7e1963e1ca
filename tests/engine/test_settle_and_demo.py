"""Settling after actions, downloads, and `cockpit demo` in a terminal."""

import os
import re
import sys
import time

import pexpect

from conftest import ok, ref_of


async def test_click_waits_for_the_request_it_started(s, site):
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'button', 'Delayed content')}")
    # the paragraph arrives 400 ms after the click; the diff already has it
    added = [c for c in r.data["diff"]["changes"] if c["kind"] in ("added", "changed")]
    assert added, r.output
    assert "Loaded later" in (await ok(s, "text")).output


async def test_click_on_a_slow_link_waits_for_the_load(s, site):
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "snapshot -i")
    started = time.perf_counter()
    r = await ok(s, f"click {ref_of(s, 'link', 'Slow load')}")
    assert time.perf_counter() - started >= 1.4  # the server holds the page 1.5 s
    assert r.data["diff"]["new_page"] and "Slow page loaded" in (await ok(s, "text")).output


async def test_a_click_that_starts_nothing_returns_quickly(s, site):
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "snapshot -i")
    started = time.perf_counter()
    await ok(s, f"click {ref_of(s, 'button', 'Double-click me')}")
    assert time.perf_counter() - started < 2.0  # no request: no quiet-network wait


async def test_download_is_saved_and_announced(s, site):
    seen = []
    unsubscribe = s.bus.subscribe(lambda e: e.kind == "download" and seen.append(e))
    try:
        await ok(s, f"goto {site.url}/playground")
        await ok(s, "snapshot -i")
        await ok(s, f"click {ref_of(s, 'link', 'Download file')}")
        for _ in range(100):
            if seen:
                break
            await ok(s, "wait --ms 50")
    finally:
        unsubscribe()
    assert seen and seen[0].data["ok"], seen
    assert os.path.getsize(seen[0].data["path"]) > 0


async def test_goto_a_download_saves_it_and_stays_on_the_page(s, site):
    """A URL the browser saves instead of showing (an attachment; a PDF on the headless
    shell, which has no viewer) is no failed navigation: the file is saved and said."""
    await ok(s, f"goto {site.url}/playground")
    result = await ok(s, f"goto {site.url}/download")
    assert "is a file to download, not a page: the tab stays on" in result.output
    saved = re.search(r"^downloaded (.+) \(\d+ KB\)$", result.output, re.M)
    assert saved and os.path.getsize(saved[1]) > 0, result.output
    assert s.active.page.url == f"{site.url}/playground"


def test_cockpit_demo_walks_the_site_with_a_human_at_the_challenge():
    env = {**os.environ, "COCKPIT_DEMO_CAPTCHA": "HX7KA"}
    child = pexpect.spawn(sys.executable,
                          ["-m", "cockpit", "demo", "--walk", "--session", "demo-test"],
                          env=env, encoding="utf-8", timeout=90)
    try:
        child.expect("Type the characters you see: ")
        assert "The site asks for a human" in child.before
        child.sendline("hx7ka")  # the site compares without case, as people type
        child.expect("Done: logged in")
        assert "opened tab 2" in child.before and "Weekly report" in child.before
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
