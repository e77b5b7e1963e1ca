"""--allow-domain on the shared session: every way a page can reach another domain is
refused, and the command's result says so (core/policy/domains.py). 127.0.0.1 is the
allowed domain and `localhost`, the same server, the other one."""

from __future__ import annotations

import asyncio
import time

import pytest
from conftest import page

HOST = "localhost"


@pytest.fixture
async def allowed(s):
    """The shared session allowing 127.0.0.1 only, for one test."""
    s.policy.domains.allow(["127.0.0.1"])
    await s.policy.domains.install(s.context)
    yield s
    await s.policy.domains.uninstall(s.context)
    s.policy.domains.allow([])


async def until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


def elsewhere(base: str, path: str) -> str:
    return base.replace("127.0.0.1", HOST) + path


async def test_goto_another_domain_is_refused_and_the_allowed_one_opens(allowed, base):
    s = allowed
    home = page("pol-home", "<p>home</p>")
    assert (await s.run(f"goto {base}{home}")).ok
    result = await s.run(f"goto {elsewhere(base, home)}")
    assert not result.ok and result.exit_code == 1
    assert result.error.startswith(f"refused: {HOST} is not an allowed domain"), result.error
    assert "127.0.0.1" in result.error  # what is allowed
    assert s.active.url.startswith(base)  # still where it was
    result = await s.run("goto file:///etc/hostname")  # no domain: refused too
    assert not result.ok and result.error.startswith(
        "refused: file:///etc/hostname is a local file, not an allowed domain")


async def test_a_link_click_and_js_location_are_refused(allowed, base):
    s = allowed
    target = page("pol-target", "<p>target</p>")
    start = page("pol-link", f"<a href='{elsewhere(base, target)}'>Away</a>")
    assert (await s.run(f"goto {base}{start}")).ok
    result = await s.run("click 'main a'")
    assert not result.ok and f"refused: {HOST} is not an allowed domain" in result.error
    assert HOST not in s.active.url
    assert (await s.run(f"goto {base}{start}")).ok
    seen = s.policy.domains.last
    result = await s.run(f"js 'location = \"{elsewhere(base, target)}\"'")
    # `js` returns as the browser starts going (it does not settle): a refusal that
    # comes after its result is said by the next command's
    text = result.error or ""
    if f"refused: {HOST}" not in text:
        await until(lambda: s.policy.domains.last > seen)
        text = (await s.run("url")).output
    assert f"refused: {HOST} is not an allowed domain" in text, text
    assert HOST not in s.active.url


async def test_a_popup_to_another_domain_is_refused_and_closed(allowed, base):
    s = allowed
    target = page("pol-popup-target", "<p>popup</p>")
    start = page("pol-popup", f"<button onclick=\"window.open('{elsewhere(base, target)}')\">"
                 f"Open</button><a target=_blank href='{elsewhere(base, target)}'>New</a>")
    assert (await s.run(f"goto {base}{start}")).ok
    for how in ("click 'main button'", "click 'a[target]'"):
        result = await s.run(how)
        assert not result.ok, result.output
        # the browser keeps no window whose first page was refused (else it is closed)
        assert f"refused: {HOST} is not an allowed domain (a popup" in result.error
        assert len(s.tabs) == 1 and s.active.url == f"{base}{start}"


async def test_a_frame_and_a_resource_elsewhere_are_refused_with_a_note(allowed, base):
    s = allowed
    inner = page("pol-inner", "<p>inner</p>")
    outer = page("pol-outer", f"<iframe src='{elsewhere(base, inner)}'></iframe>"
                 f"<img src='{elsewhere(base, '/pixel.png')}'>")
    result = await s.run(f"goto {base}{outer}")
    assert result.ok, result.error  # the page itself is allowed
    assert f"refused: {HOST} is not an allowed domain (2 requests: frame, image)" \
        in result.output, result.output
    assert {r["kind"] for r in result.data["refused_domains"]} == {"document", "image"}


async def test_without_allowed_domains_nothing_is_refused(s, base):
    home = page("pol-free", "<p>free</p>")
    result = await s.run(f"goto {elsewhere(base, home)}")
    assert result.ok, result.error


async def test_what_the_browser_cannot_refuse_is_a_warning_in_status(allowed):
    s = allowed
    assert "warning" not in (await s.run("status")).output  # a launched Chromium: none
    s.policy.domains.gap = ("webkit cannot stop a server redirect to another domain: "
                            "--allow-domain refuses every direct request only")
    try:
        status = await s.run("status")
        assert f"warning: {s.policy.domains.gap}" in status.output, status.output
        assert status.data["policy"]["allowed_domains_gap"] == s.policy.domains.gap
    finally:
        s.policy.domains.gap = None
