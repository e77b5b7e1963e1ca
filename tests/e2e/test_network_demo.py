"""Issue 29's "Done when" on the demo site, for what needs a session of its own: a HAR
recorded once replays the signed-in inbox with the demo server stopped, and a phone
(`device "iPhone 13"`), `geo`, `offline on` and a dark colour scheme are what the demo's
pages read."""

from __future__ import annotations

import time

from cockpit.core import Session
from cockpit.core.network.options import configure_network
from cockpit.demo.server import DemoSite

from conftest import ok, to_the_mfa_code

SUBJECT = "Notes on the Analytical Engine"  # one of the demo inbox's messages


async def test_a_har_of_the_demo_replays_its_inbox_with_the_server_stopped(tmp_path):
    har = tmp_path / "demo.har"
    site = DemoSite(captcha_text="K7RWM")
    site.start()
    recording = await Session(f"w3n-demo-har-{time.monotonic_ns()}").start()
    try:
        await ok(recording, f"har start {har}")
        await to_the_mfa_code(recording, site)
        page = recording.active.page
        await page.click("button[type=submit]")
        await page.wait_for_url("**/challenge")
        await page.fill("#answer", site.captcha_answer)
        await page.click("button[type=submit]")
        await page.wait_for_url("**/inbox")
        await ok(recording, "js await fetch('/api/messages').then(r => r.json())"
                            ".then(d => d.count)")
        assert (await ok(recording, "har stop")).data["entries"] >= 5
    finally:
        await recording.close()
        url = site.url
        site.stop()

    replay = Session(f"w3n-demo-replay-{time.monotonic_ns()}")
    configure_network(replay.network, replay.owns_browser, har=har, har_missing="abort")
    await replay.start()
    try:
        opened = await ok(replay, f"goto {url}/inbox")  # nobody listens there any more
        assert SUBJECT in opened.output or SUBJECT in await replay.active.page.inner_text(
            "#messages"), opened.output
        count = await ok(replay, "js await fetch('/api/messages').then(r => r.json())"
                                 ".then(d => d.count)")
        assert int(count.output) >= 1, count.output  # the API answered from the HAR too
        assert not (await replay.run(f"goto {url}/report")).ok  # never recorded: aborted
    finally:
        await replay.close()


READ = """async () => ({
  ua: navigator.userAgent, touch: navigator.maxTouchPoints > 0, width: innerWidth,
  dark: matchMedia('(prefers-color-scheme: dark)').matches,
  geo: await new Promise(r => navigator.geolocation.getCurrentPosition(
    p => r([p.coords.latitude, p.coords.longitude]), e => r(e.message))),
  fetch: await fetch(location.href).then(r => 'ok ' + r.status, e => 'failed ' + e.name),
})"""


async def test_the_demo_pages_read_the_phone_geo_offline_and_dark_scheme(site):
    s = await Session(f"w3n-demo-emulated-{time.monotonic_ns()}").start()
    try:
        await ok(s, f"goto {site.url}/login")
        plain = await s.active.page.evaluate(READ)
        assert not plain["touch"] and not plain["dark"] and plain["fetch"] == "ok 200"
        for line in ('device "iPhone 13"', "geo 51.5 -0.12", "media --color-scheme dark"):
            await ok(s, line)
        found = await s.active.page.evaluate(READ)
        assert "iPhone" in found["ua"] and found["touch"] and found["width"] < 500, found
        assert found["dark"] and found["geo"] == [51.5, -0.12], found
        await ok(s, "offline on")
        assert (await s.active.page.evaluate(READ))["fetch"] == "failed TypeError"
    finally:
        await s.close()
