"""Interact commands on the demo playground, in a real browser: what each does to the page,
the ref-keyed diff it reports, and its one-line errors (covered, hidden, disabled, stale)."""

from __future__ import annotations

import asyncio
import time

import pytest
from conftest import fails, ok, ref_of


async def playground(s, site):
    await ok(s, f"goto {site.url}/playground")
    await ok(s, "snapshot -i")


def changes(result, kind: str | None = None, role: str | None = None) -> list[dict]:
    """The diff entries of a mutating command's result (which must carry one)."""
    assert "diff" in result.data, f"{result.command!r} carries no diff"
    return [c for c in result.data["diff"]["changes"]
            if (kind is None or c["kind"] == kind) and (role is None or c["role"] == role)]


async def js(s, code: str):
    return (await ok(s, f"js {code}")).data["value"]


async def text(s, selector: str) -> str:
    return (await ok(s, f"text '{selector}'")).output


async def poll_url(s, part: str) -> None:
    for _ in range(100):
        if part in (await ok(s, "url")).output:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the tab never reached a URL with {part!r}")


async def test_pointer_actions_show_their_result_in_the_diff(s, site):
    await playground(s, site)
    assert await text(s, "#div-result") == ""
    result = await ok(s, 'click "text=Clickable div"')
    assert result.output.startswith("clicked `text=Clickable div`")
    assert changes(result, "added", "paragraph"), result.output
    assert await text(s, "#div-result") == "Div clicked"
    button = ref_of(s, "button", "Double-click me")
    assert (await ok(s, f"click {button}")).data["diff"]["summary"] == "No change"
    result = await ok(s, f"dblclick {button}")
    assert result.output.startswith(f'double-clicked {button}\n')
    assert changes(result, "added", "paragraph")
    assert await text(s, "#dblclick-result") == "Double-clicked"
    assert (await ok(s, "is visible '#hover-tip'")).output == "false"
    result = await ok(s, "hover '#hover-target'")
    assert result.output.startswith("hovering `#hover-target`")
    assert [c["name"] for c in changes(result, "added", "tooltip")] == ["Hovered!"]
    result = await ok(s, "drag '#drag-source' '#drop-zone'")
    assert result.output.startswith("dragged `#drag-source` onto `#drop-zone`")
    assert changes(result, "added", "paragraph")
    assert await text(s, "#drop-result") == "Dropped!"


async def test_fill_replaces_and_type_appends(s, site):
    await playground(s, site)
    notes = ref_of(s, "textbox", "Notes")
    for line, new in [(f'fill {notes} "hello world"', "hello world"),
                      (f"fill {notes} bye", "bye"), (f'type {notes} " now" --delay 5', "bye now")]:
        result = await ok(s, line)
        # the typed value is the command's expected effect: the diff does not repeat it
        assert not [c for c in changes(result, "changed") if "@" + c["ref"] == notes], line
        assert s.active.snapshot.refs[notes[1:]].value == new, line  # but the snapshot has it
    # it names the ref it was given, no more: the agent knows what it typed into
    assert result.output.splitlines()[0] == f"typed 4 characters into {notes}"
    assert f"~ {notes} " not in result.output  # what the page did with it stays
    assert await js(s, "document.getElementById('notes').value") == "bye now"
    assert (await text(s, "#form-state")).endswith("Notes: bye now")  # input events fired


async def test_focus_then_press_on_the_focused_field(s, site):
    await playground(s, site)
    notes = ref_of(s, "textbox", "Notes")
    result = await ok(s, f"focus {notes}")
    assert result.output == f'focused {notes}\nNo change'  # focus is no change
    assert await js(s, "document.activeElement.id") == "notes"
    await ok(s, "press h")
    result = await ok(s, "press i")
    assert result.output.startswith("pressed i\n")
    assert f'~ {notes} textbox "Notes" (text: "h" -> "hi")' in result.output
    await ok(s, f"press Control+a {notes}")
    assert '(text: "hi" -> "")' in (await ok(s, "press Backspace")).output
    assert await js(s, "document.getElementById('notes').value") == ""


async def test_press_on_a_target_and_unknown_keys(s, site):
    await playground(s, site)
    box = ref_of(s, "checkbox", "Subscribe")
    result = await ok(s, f"press Space {box}")
    assert result.output.startswith(f'pressed Space on {box}\n')
    [change] = changes(result, "changed", "checkbox")
    assert change["fields"]["checked"]["new"] is True
    assert await js(s, "document.getElementById('subscribe').checked") is True
    result = await fails(s, "press Bogus")
    assert result.exit_code == 2 and "unknown key 'Bogus'" in result.error
    assert (await fails(s, f"press Bogus {box}")).exit_code == 2


async def test_failed_chord_releases_its_modifier(s, site):  # it was left held down
    await playground(s, site)
    try:
        assert (await fails(s, "press Control+Bogus")).exit_code == 2
        await ok(s, "type '#notes' abc")
        assert await js(s, "document.getElementById('notes').value") == "abc"
    finally:
        await s.run("press Control")  # releases it for the tests that follow


async def test_check_and_uncheck_show_in_the_diff(s, site):
    await playground(s, site)
    box = ref_of(s, "checkbox", "Subscribe")
    result = await ok(s, f"check {box}")
    [change] = changes(result, "changed", "checkbox")
    assert change["fields"]["checked"]["new"] is True
    assert f'~ {box} checkbox "Subscribe" (checked: - -> true)' in result.output
    assert "Subscribe: yes" in await text(s, "#form-state")
    [change] = changes(await ok(s, f"uncheck {box}"), "changed", "checkbox")
    assert change["fields"]["checked"]["old"] is True and not change["fields"]["checked"]["new"]
    assert await js(s, "document.getElementById('subscribe').checked") is False
    result = await ok(s, f"check {ref_of(s, 'radio', 'L')}")  # L on and M off, in one diff
    flips = {c["name"]: c["fields"]["checked"]["new"] for c in changes(result, "changed", "radio")}
    assert flips["L"] is True and not flips["M"]


@pytest.mark.parametrize("word, value", [("green", "green"), ("Blue", "blue")],
                         ids=["by-value", "by-label"])
async def test_select(s, site, word, value):
    await playground(s, site)
    color = ref_of(s, "combobox", "Color")
    result = await ok(s, f"select {color} {word}")
    # what the user sees, the label (the value said the same)
    assert result.output.startswith(f'selected {value.title()} in {color}\n')
    assert result.data["selected"] == [value] and changes(result, "changed", "combobox")
    assert await js(s, "document.getElementById('color').value") == value
    assert f"Color: {value}" in await text(s, "#form-state")
    start = time.perf_counter()
    result = await fails(s, f"select {color} purple")
    assert time.perf_counter() - start < 1.0 and "no option purple" in result.error


async def test_upload_to_a_file_input_and_submit(s, site, tmp_path):
    file = tmp_path / "notes.txt"
    file.write_text("twelve bytes")
    await playground(s, site)
    result = await ok(s, f"upload {ref_of(s, 'button', 'Attachment')} {file}")
    assert result.output.startswith("attached notes.txt to") and result.data["files"] == [str(file)]
    assert changes(result, "added", "paragraph")
    assert await text(s, "#upload-result") == "Selected: notes.txt (12 bytes)"
    result = await ok(s, f"click {ref_of(s, 'button', 'Upload')}")
    assert result.data["diff"]["new_page"], result.output
    assert result.data["tab"]["url"] == f"{site.url}/upload"
    assert "notes.txt (12 bytes)" in (await ok(s, "text")).output  # the server got it


async def test_upload_to_a_file_chooser_and_a_missing_file(s, site, tmp_path):
    file = tmp_path / "a.txt"
    file.write_text("abc")
    await playground(s, site)
    attachment = ref_of(s, "button", "Attachment")
    missing = tmp_path / "nope.txt"
    result = await fails(s, f"upload {attachment} {missing}")
    assert result.exit_code == 2 and "no such file" in result.error and str(missing) in result.error
    assert await js(s, "document.getElementById('attachment').files.length") == 0
    assert "a file chooser is open" in (await ok(s, f"click {attachment}")).output
    result = await ok(s, f"upload {file}")
    assert result.output.startswith("attached a.txt to the open file chooser")
    assert await text(s, "#upload-result") == "Selected: a.txt (3 bytes)"


async def test_scroll_directions(s, site):
    await playground(s, site)
    result = await ok(s, "scroll down")
    assert result.data["diff"]["summary"] == "No change"  # scrolling changes no element
    assert 0 < result.data["scroll_y"] == await js(s, "Math.round(scrollY)")
    assert (await ok(s, "scroll up")).data["scroll_y"] == 0
    assert (await ok(s, "scroll down --by 300")).data["scroll_y"] == 300
    assert (await ok(s, "scroll up --by 100")).data["scroll_y"] == 200
    bottom = (await ok(s, "scroll bottom")).data["scroll_y"]
    assert bottom + await js(s, "innerHeight") >= await js(s, "document.body.scrollHeight") - 1
    result = await ok(s, "scroll top")
    assert result.output.startswith("scrolled top, now at y=0") and await js(s, "scrollY") == 0
    top = "Math.round(document.getElementById('bottom').getBoundingClientRect().top)"
    assert await js(s, top) > await js(s, "innerHeight")  # below the fold
    result = await ok(s, "scroll '#bottom'")
    assert result.output.startswith("scrolled `#bottom` into view") and "diff" in result.data
    assert 0 <= await js(s, top) < await js(s, "innerHeight")
    await ok(s, f"scroll {ref_of(s, 'heading', 'Playground')}")
    assert await js(s, "scrollY") == 0


async def test_wait_for_text_an_element_and_text_gone(s, site):
    await playground(s, site)
    await ok(s, "js document.getElementById('delayed').click()")  # answers after 400 ms
    assert (await ok(s, "count '#delayed-target p'")).output == "0"
    result = await ok(s, 'wait --text "Loaded later"')
    assert result.output.startswith('waited for text "Loaded later"') and "diff" in result.data
    assert await text(s, "#delayed-target") == "Loaded later"
    for line in ("wait --selector '#hover-tip'", "wait '#hover-tip'"):  # flag, or target
        await ok(s, "js setTimeout(() => document.getElementById('hover-target')"
                    ".dispatchEvent(new MouseEvent('mouseenter')), 200)")
        result = await ok(s, line)
        assert result.output.startswith("waited for `#hover-tip` visible")
        assert (await ok(s, "is visible '#hover-tip'")).output == "true"
        await ok(s, "js document.getElementById('hover-tip').hidden = true")
    await ok(s, "js setTimeout(() => document.getElementById('accept-cookies').click(), 200)")
    result = await ok(s, 'wait --gone "Cookie consent overlay"')
    assert result.output.startswith('waited for text "Cookie consent overlay" gone')
    assert (await ok(s, "count '#consent'")).output == "0"


async def test_wait_for_url_load_and_ms(s, site):
    await playground(s, site)
    await ok(s, "js setTimeout(() => location.href = '/slow?ms=300', 0)")
    result = await ok(s, "wait --url '**/slow?ms=300'")
    assert result.output.startswith(f"waited for URL {site.url}/slow?ms=300")
    await ok(s, "wait --url '/slow\\?ms=\\d+$/'")  # a /regex/
    await ok(s, "goto about:blank")
    await ok(s, f"js setTimeout(() => location.href = '{site.url}/slow?ms=300', 0)")
    await poll_url(s, "/slow")  # committed: the new document is loading
    assert (await ok(s, "wait --load")).output.startswith("waited for load")
    assert await js(s, "document.readyState") == "complete"
    assert await text(s, "h1") == "Slow page loaded"
    start = time.perf_counter()
    result = await ok(s, "wait --ms 200")
    assert time.perf_counter() - start >= 0.2 and result.output.startswith("waited for 200 ms")
    assert (await fails(s, "wait")).exit_code == 2  # no condition


@pytest.mark.parametrize("flags, named", [
    ('--text "Nowhere to be seen"', '--text "Nowhere to be seen"'),
    ('--gone "Playground"', '--gone "Playground"'),
    ("--selector '#nothing-here'", "`#nothing-here` to be visible"),
    ("'#nothing-here'", "`#nothing-here` to be visible"),
    ("--url '**/elsewhere'", "--url **/elsewhere"),
    ("--load", "--load (the load event)"),
])
async def test_wait_timeout_names_what_it_waited_for(s, site, flags, named):
    await playground(s, site)
    if flags == "--load":
        await ok(s, f"js location.href = '{site.url}/never'")  # its load event never fires
        await poll_url(s, "/never")
    start = time.perf_counter()
    result = await fails(s, f"wait {flags} --timeout 300")
    assert time.perf_counter() - start < 1.5
    assert result.error.startswith(f"timed out after 300 ms waiting for {named}")


async def test_click_settles_when_its_fetch_has_answered(s, site):
    # the page never reads the body: `requestfinished` never comes, the response does
    await playground(s, site)
    start = time.perf_counter()
    result = await ok(s, f"click {ref_of(s, 'button', 'Delayed content')}")
    assert time.perf_counter() - start < 3.0
    assert changes(result, "added", "paragraph")  # the 400 ms answer came
    assert "still running" not in result.output, result.output


async def test_wait_url_and_load_waits_for_the_new_pages_load(s, site):
    await playground(s, site)  # --load was met by the old document before the URL changed
    await ok(s, "js location.href = '/never'")
    start = time.perf_counter()
    result = await s.run("wait --url '**/never' --load --timeout 500")
    state = await js(s, "document.readyState")
    assert not result.ok, f"claimed {result.output!r} though readyState is {state!r}"
    assert time.perf_counter() - start < 2.0 and "timed out after 500 ms" in result.error


async def test_wait_timeout_names_the_load_beside_other_conditions(s, site):
    await playground(s, site)
    await ok(s, "js location.href = '/never'")
    result = await fails(s, "wait --url '**/never' --load --timeout 300")
    waited_for = result.error.split(" (done:")[0]  # what it says it was still waiting for
    assert "--load" in waited_for or "the load" in waited_for, result.error


async def test_covered_button_names_the_overlay(s, site):
    await playground(s, site)
    covered = ref_of(s, "button", "Covered button")
    saved, s.action_timeout = s.action_timeout, 1
    try:
        result = await fails(s, f"click {covered}")
    finally:
        s.action_timeout = saved
    assert f'{covered} (button "Covered button") is covered by <div id="consent">' in result.error
    assert "Cookie consent overlay" in result.error
    assert await text(s, "#covered-result") == ""
    await ok(s, f"click {ref_of(s, 'button', 'Accept cookies')}")
    await ok(s, f"click {covered}")  # its ref lived through the diff
    assert await text(s, "#covered-result") == "Covered button clicked"


async def test_hidden_and_disabled_buttons(s, site):
    await playground(s, site)
    saved, s.action_timeout = s.action_timeout, 1
    try:
        hidden = await fails(s, "click 'text=Hidden button'")
        disabled = await fails(s, f"click {ref_of(s, 'button', 'Disabled button')}")
    finally:
        s.action_timeout = saved
    assert "`text=Hidden button` is not visible" in hidden.error
    assert 'button "Disabled button") is disabled' in disabled.error


@pytest.mark.parametrize("prefixed", [False, True])
async def test_ref_from_before_a_page_initiated_navigation(s, site, prefixed):
    if prefixed:  # a tab's later documents: Playwright's refs read like f3e18
        await playground(s, site)
        await playground(s, site)
    else:  # a tab's first document: Playwright's refs read like e18
        await ok(s, f"newtab {site.url}/playground")
        await ok(s, "snapshot -i")
    log = ref_of(s, "button", "Log to console")
    playwrights = s.active.snapshot.refs[log[1:]].pw
    assert log.startswith("@e") and playwrights.startswith("f" if prefixed else "e")
    await ok(s, "js location.href = '/playground?again=1'")  # no diff snapshot follows
    await poll_url(s, "again=1")
    start = time.perf_counter()
    result = await fails(s, f"click {log}")
    assert time.perf_counter() - start < 1.0
    assert "take a new snapshot" in result.error and "aria-ref" not in result.error
    if not prefixed:
        assert f"is from an earlier page: this tab has loaded {site.url}/playground?again=1" \
            in result.error


async def test_stale_and_unknown_refs_fail_at_once(s, site):
    await playground(s, site)
    log = ref_of(s, "button", "Log to console")
    await ok(s, f"goto {site.url}/playground")  # a new document: the old refs are void
    for ref in (log, "@e9999"):
        start = time.perf_counter()
        result = await fails(s, f"click {ref}")
        assert time.perf_counter() - start < 1.0
        assert ref in result.error and "take a new snapshot" in result.error


async def test_bad_and_ambiguous_selectors(s, site):
    await playground(s, site)
    result = await fails(s, 'click "div[["')
    assert result.exit_code == 2 and "does not parse" in result.error
    n = await js(s, "document.querySelectorAll('button').length")
    result = await fails(s, "click button")
    assert result.exit_code == 1 and f"matched {n} elements" in result.error
