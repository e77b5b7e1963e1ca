"""Emulation on the live browser: what the page reads of geolocation, being offline, its
media features, timezone, locale, the headers it sends and its permissions."""

import pytest
from conftest import fails, ok, page

PLAIN = page("w3n-emulated", "<p>emulated</p>")

GEO_JS = ("await new Promise(r => navigator.geolocation.getCurrentPosition("
          "p => r([p.coords.latitude, p.coords.longitude, p.coords.accuracy]), "
          "e => r('refused ' + e.message)))")


@pytest.fixture
async def emulated(s):
    """The shared session; every emulation back to the browser's own afterwards."""
    yield s
    for line in ("geo off", "offline off", "media", "timezone off", "locale off",
                 "headers clear", "permissions clear"):
        await ok(s, line)
    assert s.network.emulation_lines() == []


async def js(s, code: str) -> str:
    return (await ok(s, f"js {code}")).output


async def test_geo_is_what_the_page_reads_and_off_takes_it_back(emulated, base):
    s = emulated
    await ok(s, f"goto {base}{PLAIN}")
    result = await ok(s, "geo 48.8584 2.2945 --accuracy 25")
    assert "permission granted" in result.output
    assert await js(s, GEO_JS) == "[48.8584, 2.2945, 25]"
    assert "emulating: geo 48.8584 2.2945" in (await ok(s, "status")).output
    await ok(s, "newtab")  # every tab, and new ones
    await ok(s, f"goto {base}{PLAIN}")
    assert await js(s, GEO_JS) == "[48.8584, 2.2945, 25]"
    await ok(s, "geo off")
    assert (await js(s, "(await navigator.permissions.query({name: 'geolocation'})).state")) \
        == "prompt"
    assert "between -90 and 90" in (await fails(s, "geo 91 0")).error
    assert "needs LAT LON" in (await fails(s, "geo 12")).error


async def test_offline_makes_a_fetch_fail(emulated, base):
    s = emulated
    await ok(s, f"goto {base}{PLAIN}")
    fetch = "await fetch(location.href).then(r => 'ok ' + r.status, e => 'failed ' + e.name)"
    assert await js(s, fetch) == "ok 200"
    await ok(s, "offline on")
    assert await js(s, fetch) == "failed TypeError"
    assert await js(s, "navigator.onLine") == "false"
    await ok(s, "offline off")
    assert await js(s, fetch) == "ok 200"


async def test_media_features_match_in_every_tab(emulated, base):
    s = emulated
    await ok(s, f"goto {base}{PLAIN}")
    dark = "matchMedia('(prefers-color-scheme: dark)').matches"
    reduce = "matchMedia('(prefers-reduced-motion: reduce)').matches"
    await ok(s, "media --color-scheme dark --reduced-motion reduce")
    assert await js(s, f"[{dark}, {reduce}]") == "[true, true]"
    await ok(s, f"newtab {base}{PLAIN}")
    assert await js(s, f"[{dark}, {reduce}]") == "[true, true]"
    await ok(s, "media --color-scheme light")  # the other feature stays
    assert await js(s, f"[{dark}, {reduce}]") == "[false, true]"
    await ok(s, "media")
    assert await js(s, "matchMedia('(prefers-color-scheme: light)').matches") == "true"
    assert "takes light, dark" in (await fails(s, "media --color-scheme purple")).error


async def test_timezone_and_locale_reach_date_and_intl(emulated, base):
    s = emulated
    await ok(s, f"goto {base}{PLAIN}")
    await ok(s, "timezone Asia/Tokyo")
    await ok(s, "locale de-DE")
    zone = "Intl.DateTimeFormat().resolvedOptions().timeZone"
    assert await js(s, zone) == "Asia/Tokyo"
    assert await js(s, "new Date(0).getTimezoneOffset()") == "-540"
    assert await js(s, "(1234.5).toLocaleString()") == "1.234,5"
    await ok(s, f"goto {base}{PLAIN}?again")  # a navigation keeps them
    assert await js(s, zone) == "Asia/Tokyo"
    assert "not an IANA timezone" in (await fails(s, "timezone Mars/Olympus")).error
    assert await js(s, zone) == "Asia/Tokyo"  # a refused one changes nothing
    assert "language tag" in (await fails(s, "locale 'no such'")).error
    await ok(s, "timezone off")
    await ok(s, "locale off")
    assert await js(s, "(1234.5).toLocaleString('en-US')") == "1,234.5"


async def test_extra_headers_are_sent_and_secret_ones_masked(emulated, base):
    s = emulated
    await ok(s, f"goto {base}{PLAIN}")
    await ok(s, "headers set X-Test-Run nightly")
    result = await ok(s, "headers set Authorization 'Bearer sekrit-token-123456'")
    assert "sekrit" not in result.output
    await ok(s, "js await fetch('/w3n-emulated?probe').then(r => r.status)")
    listing = (await ok(s, "network --filter probe")).output
    shown = (await ok(s, f"request {listing.split('#')[-1]}")).output
    assert "x-test-run: nightly" in shown and "authorization: ***" in shown
    assert "sekrit" not in shown
    assert "emulating: headers Authorization, X-Test-Run" in (await ok(s, "status")).output
    await ok(s, "headers clear")
    await ok(s, "js await fetch('/w3n-emulated?cleared').then(r => r.status)")
    listing = (await ok(s, "network --filter cleared")).output
    assert "x-test-run" not in (await ok(s, f"request {listing.split('#')[-1]}")).output


async def test_permissions_grant_and_clear(emulated, base):
    s = emulated
    await ok(s, f"goto {base}{PLAIN}")
    query = "(await navigator.permissions.query({name: 'notifications'})).state"
    assert await js(s, query) == "prompt"
    assert "granted notifications" in (await ok(s, "permissions grant notifications")).output
    assert await js(s, query) == "granted"
    assert "Unknown permission" in (await fails(s, "permissions grant teleport")).error
    assert await js(s, query) == "granted"  # the refused name took nothing away
    await ok(s, "permissions clear")
    assert await js(s, query) == "prompt"
