"""A session's first step is short: a goto from a new tab's blank page asks the browser
for no snapshot of that page (it has none to give), and says the same as before."""

from __future__ import annotations

from conftest import ok, page

FIRST = page("first-step", "<button>Go on</button><input aria-label='Where'>")


async def fresh_tab(s) -> None:
    """A tab as a new session has it: blank, never snapshotted, in front."""
    await s.switch_to(await s.new_tab())


async def test_a_goto_from_a_blank_tab_snapshots_only_the_page_it_opens(s, base, fulls):
    await fresh_tab(s)
    assert s.active.snapshot is None and s.active.url == "about:blank"
    fulls["n"] = 0
    result = await ok(s, f"goto {base}{FIRST}")
    assert fulls["n"] == 1  # the page's own, after it loaded
    assert 'button "Go on"' in result.output  # a new page: its controls, as always
    assert result.data["diff"]["new_page"] and result.data["diff"]["added"] >= 2


async def test_a_blank_tab_changed_in_place_is_diffed_from_its_real_snapshot(s, fulls):
    await fresh_tab(s)
    fulls["n"] = 0
    await s.active.page.evaluate("document.body.innerHTML = '<button>Made here</button>'")
    result = await ok(s, "press Tab")  # an action in place, not a goto
    assert fulls["n"] >= 1  # the page as it was before, asked of the browser
    assert not result.data["diff"]["new_page"]
