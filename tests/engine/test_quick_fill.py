"""The quick fill (issue 17): a plainly fillable field is filled at once, with the trusted
`insertText` Playwright's own fill ends with; anything doubtful goes through Playwright's
fill, which waits and explains. Each page logs the input events its fields receive, so a
fill that skipped what a page listens to fails the test whichever way it was made."""

from __future__ import annotations


import pytest
from conftest import enabled_once_waited, fails, ok, page, ref_of, spy_on
from playwright.async_api import Locator

LOG = ("<script>window.seen = []; document.addEventListener('input', (e) => "
       "seen.push([e.target.id || e.target.closest('[id]').id, e.isTrusted]));</script>")


@pytest.fixture
def playwright_fills(monkeypatch):
    """The fills that went Playwright's way (its actionability checks and waits)."""
    return spy_on(monkeypatch, Locator, "fill")


async def open_page(s, base, name: str, body: str) -> None:
    await ok(s, f"goto {base}{page('fill-' + name, body + LOG)}")
    await ok(s, "snapshot -i")


async def values(s) -> dict:
    return await s.active.page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('[id]')].map((e) => "
        "[e.id, e.isContentEditable ? e.textContent : e.value]))")


async def test_plain_fields_are_filled_at_once_with_trusted_input(s, base, playwright_fills):
    await open_page(s, base, "plain", (
        "<input id=name aria-label=Name value='old name'>"
        "<textarea id=notes aria-label=Notes>old notes</textarea>"
        "<div id=bio contenteditable role=textbox aria-label=Bio>old <b>bio</b></div>"))
    for label, text in (("Name", "Ada"), ("Notes", "two\nlines"), ("Bio", "new bio")):
        result = await ok(s, f"fill {ref_of(s, 'textbox', label)} '{text}'")
        assert result.output == f"filled {ref_of(s, 'textbox', label)}", result.output
    assert await values(s) == {"name": "Ada", "notes": "two\nlines", "bio": "new bio"}
    seen = await s.active.page.evaluate("window.seen")
    assert {field for field, _ in seen} == {"name", "notes", "bio"}
    assert all(trusted for _, trusted in seen), seen
    assert playwright_fills == []
    await ok(s, f"fill {ref_of(s, 'textbox', 'Name')} ''")  # emptied, as Playwright's fill
    assert (await values(s))["name"] == ""


async def test_a_password_field_filled_at_once_is_secret(s, base, playwright_fills):
    await open_page(s, base, "secret", "<input id=pw type=password aria-label=Password>")
    result = await ok(s, f"fill {ref_of(s, 'textbox', 'Password')} hunter2")
    assert result.data.get("secret") is True and playwright_fills == []
    assert "hunter2" not in (await ok(s, "snapshot")).output


async def test_doubtful_fields_go_through_playwrights_fill(s, base, playwright_fills):
    await open_page(s, base, "doubtful", (
        "<input id=day type=date aria-label=Day>"
        "<input id=later disabled aria-label=Later>"
        "<iframe srcdoc=\"<input aria-label=Framed oninput='parent.framed = this.value'>\">"
        "</iframe>"))
    later = f"fill {ref_of(s, 'textbox', 'Later')} waited"
    assert (await enabled_once_waited(s, later, playwright_fills, "later")).ok
    await ok(s, f"fill {ref_of(s, 'textbox', 'Framed')} inside")
    await ok(s, f"fill {ref_of(s, 'textbox', 'Day')} 2026-11-25")
    got = await values(s)
    assert (got["later"], got["day"]) == ("waited", "2026-11-25")
    assert await s.active.page.evaluate("window.framed") == "inside"
    assert len(playwright_fills) == 3


async def test_fields_that_would_not_take_the_text_are_not_filled_at_once(
        s, base, playwright_fills):
    # read-only: Playwright's fill waits for it to be editable, and says it timed out;
    # a field whose focus goes elsewhere: the text must not land in the other field
    await open_page(s, base, "refusing", (
        "<input id=ro readonly aria-label=Fixed value=x>"
        "<input id=other aria-label=Other>"
        "<input id=away aria-label=Away onfocus=\"document.getElementById('other')"
        ".focus()\">"))
    saved, s.action_timeout = s.action_timeout, 1
    try:
        await fails(s, f"fill {ref_of(s, 'textbox', 'Fixed')} y")
    finally:
        s.action_timeout = saved
    await s.run(f"fill {ref_of(s, 'textbox', 'Away')} moved")  # whatever Playwright makes of it
    assert len(playwright_fills) == 2
    assert (await values(s))["ro"] == "x"
