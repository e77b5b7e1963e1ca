"""Settling on what an action sets going: the click's own result shows the outcome of
timers, fetches, routes and transitions it started; a long timer is not waited for."""

from __future__ import annotations

import time

import pytest

from conftest import ok, page, ref_of


async def _settle_page(s, site):
    await ok(s, f"goto {site.url}/settle")
    await ok(s, "snapshot -i")


@pytest.mark.parametrize("ms", [150, 400, 900])
async def test_a_timer_navigation_lands_in_the_clicks_own_result(s, site, ms):
    await _settle_page(s, site)
    r = await ok(s, f"click {ref_of(s, 'button', f'Go in {ms} ms')}")
    assert r.data["diff"]["new_page"], r.output
    assert f"/settle/done?ms={ms}" in r.output, r.output
    assert s.active.url.endswith(f"/settle/done?ms={ms}")


async def test_a_five_second_timer_is_not_waited_for(s, site):
    await _settle_page(s, site)
    started = time.perf_counter()
    r = await ok(s, f"click {ref_of(s, 'button', 'Go in 5 s')}")
    assert time.perf_counter() - started < 4.0, "the click waited for a 5 s timer"
    assert "/settle/done" not in r.output and s.active.url.endswith("/settle")


async def test_fetch_then_render_is_in_the_diff(s, site):
    await _settle_page(s, site)
    r = await ok(s, f"click {ref_of(s, 'button', 'Load data')}")
    added = [c for c in r.data["diff"]["changes"] if c["kind"] == "added"]
    assert any(c["name"] == "Fetched row" for c in added), r.output


async def test_a_pushstate_route_with_a_delayed_render(s, site):
    await _settle_page(s, site)
    r = await ok(s, f"click {ref_of(s, 'button', 'Open the route')}")
    assert r.data["diff"]["url"][1].endswith("/settle/route"), r.output
    assert "Route action" in r.output, r.output


async def test_a_css_transition_is_waited_for(s, site):
    await _settle_page(s, site)
    r = await ok(s, f"click {ref_of(s, 'button', 'Open the panel')}")
    # the button appears on transitionend, 300 ms after the click
    assert "Close the panel" in r.output, r.output


async def test_sign_in_through_a_timer_navigation_reports_the_mfa_page(s, site):
    await ok(s, f"goto {site.url}/settle/login")
    await ok(s, "snapshot -i")
    await ok(s, f"fill {ref_of(s, 'textbox', 'Email')} jane@example.com")
    await ok(s, f"fill {ref_of(s, 'textbox', 'Password')} secret")
    r = await ok(s, f"click {ref_of(s, 'button', 'Sign in')}")
    assert "new page" in r.output and r.output.count("/settle/mfa") >= 1, r.output
    assert (await ok(s, "url")).output.strip().endswith("/settle/mfa")


async def test_a_click_that_sets_nothing_going_is_quick(s, site):
    await _settle_page(s, site)
    ref = ref_of(s, "button", "Do nothing")
    best = min([await _timed(s, f"click {ref}") for _ in range(3)])
    assert best < 1.0  # generous: the machine is shared; the benchmark has the real figure


async def _timed(s, line: str) -> float:
    started = time.perf_counter()
    await ok(s, line)
    return time.perf_counter() - started


async def test_what_a_new_page_fetches_at_load_is_in_the_navigations_result(s, site, base):
    # the quiet after a navigation's load is short (50 ms): what the new page fetches on
    # its own is followed by its init script, and a slow answer is still waited for
    await ok(s, f"goto {base}" + page("settle-fetch-at-load", (
        f"<script>fetch('{site.url}/api/slow?ms=400').catch(() => 0).then(() =>"
        " document.querySelector('main').insertAdjacentHTML('beforeend',"
        " '<p>Loaded late</p>'))</script>")))
    assert "Loaded late" in (await ok(s, "text")).output


async def test_what_a_new_page_adds_after_its_load_is_in_the_tabs_refs(s, site, base):
    # the new document is snapshotted as soon as it has loaded, while settling waits for
    # what it does next; what it added meanwhile must be in the refs all the same
    late = page("settle-late-b", (
        f"<script>fetch('{site.url}/api/slow?ms=150').catch(() => 0).then(() =>"
        " document.querySelector('main').insertAdjacentHTML('beforeend',"
        " '<button onclick=\"this.textContent = `Pressed`\">Late button</button>'))</script>"))
    await ok(s, f"goto {base}" + page("settle-late-a", f"<a href='{late}'>Onward</a>"))
    await ok(s, "snapshot -i")
    result = await ok(s, f"click {ref_of(s, 'link', 'Onward')}")
    assert result.output.splitlines()[1].startswith("new page /settle-late-b"), result.output
    await ok(s, f"click {ref_of(s, 'button', 'Late button')}")  # no snapshot in between
    assert "Pressed" in (await ok(s, "text")).output


# What the page does a moment after its DOM changed, where no timer or fetch of its own
# shows it: layout observers' answers (each comes with a frame's rendering: here the
# first one's answer resizes what the second watches) and a framework's render deferred
# to MessageChannel tasks, 6 ms of work each (React's scheduler renders so, in slices).
LATER = page("settle-after-the-frame", (
    "<div id=box></div><div id=box2></div><p id=measured>not measured</p>"
    "<p id=deferred>not rendered</p>"
    "<button onclick=\"box.style.width = '120px'; box.style.height = '10px'\">Resize</button>"
    "<button onclick=\"deferred.textContent = 'rendering'; const c = new MessageChannel();"
    " let slices = 15; c.port1.onmessage = () => { const end = performance.now() + 6;"
    " while (performance.now() < end) {} if (--slices) c.port2.postMessage(0);"
    " else deferred.textContent = 'rendered later' }; c.port2.postMessage(0)\">Defer</button>"
    "<script>new ResizeObserver(([e]) => { if (e.contentRect.width) box2.style.width ="
    " e.contentRect.width + 'px' }).observe(box); new ResizeObserver(([e]) => {"
    " if (e.contentRect.width) measured.textContent = 'measured ' + e.contentRect.width"
    " + 'px' }).observe(box2)</script>"))


@pytest.mark.parametrize("button, words", [("Resize", "measured 120px"),
                                           ("Defer", "rendered later")])
async def test_what_the_page_does_after_the_next_frame_is_in_the_result(s, base, button,
                                                                         words):
    await ok(s, f"goto {base}{LATER}")
    await ok(s, "snapshot -i")
    result = await ok(s, f"click {ref_of(s, 'button', button)}")
    assert words in result.output, result.output
