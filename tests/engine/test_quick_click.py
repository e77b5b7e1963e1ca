"""The quick click (issue 17): an element that is plainly clickable is clicked at once, at
the point Playwright would choose; anything doubtful goes through Playwright's own click,
which waits and explains. Each page counts the clicks each element received, so a click
that lands on the wrong element fails the test whichever way it was made."""

from __future__ import annotations

import pytest
from conftest import enabled_once_waited, fails, ok, page, ref_of, spy_on
from playwright.async_api import Locator

COUNT = ("<script>window.hits = {}; document.addEventListener('click', (e) => {"
         " const id = e.target.closest('[id]'); if (id) hits[id.id] = (hits[id.id] || 0) + 1;"
         " });</script>")


@pytest.fixture
def playwright_clicks(monkeypatch):
    """The clicks that went Playwright's way (its actionability checks and waits)."""
    return spy_on(monkeypatch, Locator, "click")


async def hits(s) -> dict:
    return await s.active.page.evaluate("window.hits")


async def open_page(s, base, name: str, body: str) -> None:
    await ok(s, f"goto {base}{page('click-' + name, body + COUNT)}")
    await ok(s, "snapshot -i")


@pytest.mark.parametrize("name, body, role, label", [
    # wrapped over two lines: the centre of its whole box is between the lines' boxes
    ("wrapped", "<p style='width:9em'>a few words before <a id='go' href='#x'>the link "
     "that wraps around</a> after</p>", "link", "the link that wraps around"),
    ("below", "<div style='height:3000px'></div><button id='go'>Far down</button>", "button",
     "Far down"),
    ("shadow", "<div id='go'></div><script>document.getElementById('go').attachShadow("
     "{mode: 'open'}).innerHTML = '<button>In a shadow root</button>'</script>", "button",
     "In a shadow root"),
])
async def test_plainly_clickable_elements_are_clicked_at_once(s, base, playwright_clicks,
                                                              name, body, role, label):
    await open_page(s, base, name, body)
    await ok(s, f"click {ref_of(s, role, label)}")
    assert await hits(s) == {"go": 1}
    assert playwright_clicks == []


async def test_a_button_that_moves_as_the_pointer_arrives_is_still_the_one_clicked(
        s, base, playwright_clicks):
    # the page moves the button away and puts another in its place when the pointer comes:
    # the click at the old point must not reach the newcomer
    await open_page(s, base, "jumpy", (
        "<div id='decoy' style='position:absolute;top:200px;left:8px;width:300px;"
        "height:60px;display:none'>decoy</div>"
        "<button id='go' style='position:absolute;top:200px;left:8px'>Jumpy</button>"
        "<script>document.addEventListener('pointermove', () => {"
        " document.getElementById('decoy').style.display = 'block';"
        " document.getElementById('go').style.top = '400px'; }, {once: true});</script>"))
    await ok(s, f"click {ref_of(s, 'button', 'Jumpy')}")
    assert await hits(s) == {"go": 1}
    assert len(playwright_clicks) == 1  # the miss was noticed and the click made again


async def test_doubtful_elements_go_through_playwrights_click(s, base, playwright_clicks):
    await open_page(s, base, "doubtful", (
        "<button id='later' disabled>Enabled soon</button>"
        "<button id='sliding' style='transition: margin-left 1s linear'>Sliding</button>"
        "<iframe srcdoc=\"<button onclick='parent.hits.framed = 1'>Framed</button>\">"
        "</iframe>"))
    later = f"click {ref_of(s, 'button', 'Enabled soon')}"
    assert (await enabled_once_waited(s, later, playwright_clicks, "later")).ok
    await ok(s, f"click {ref_of(s, 'button', 'Framed')}")
    await ok(s, "snapshot -i")
    await s.active.page.evaluate("document.getElementById('sliding').style.marginLeft = '200px'")
    await ok(s, f"click {ref_of(s, 'button', 'Sliding')}")  # once it stops
    assert await hits(s) == {"later": 1, "framed": 1, "sliding": 1}
    assert len(playwright_clicks) == 3


async def test_modifiers_and_the_right_button(s, base):
    await open_page(s, base, "buttons", (
        "<button id='go' onmousedown=\"this.textContent = 'pressed ' + event.button +"
        " (event.shiftKey ? ' shift' : '')\" oncontextmenu='event.preventDefault()'>"
        "Press me</button>"))
    await ok(s, f"click --right {ref_of(s, 'button', 'Press me')}")
    assert await s.active.page.text_content("#go") == "pressed 2"
    await ok(s, "snapshot -i")
    await ok(s, f"click --modifiers Shift {ref_of(s, 'button', 'pressed 2')}")
    assert await s.active.page.text_content("#go") == "pressed 0 shift"


async def test_a_missing_selector_still_waits_and_says_so(s, base):
    await open_page(s, base, "empty", "<p>nothing to click</p>")
    saved, s.action_timeout = s.action_timeout, 1
    try:
        result = await fails(s, "click '#nothing'")
    finally:
        s.action_timeout = saved
    assert "#nothing" in result.error and result.ms < 2500, result


async def test_a_click_that_sets_nothing_going_asks_the_page_once_before_it(s, base,
                                                                            monkeypatch):
    # one question: did the click land, is anything still going, and (the page being
    # quiet) what changed; asked before the mouse's events, it waits in the page for the
    # click to be over, so its answer comes with the click's (not a round trip later, and
    # not after the browser has painted what the click did); each further question is a
    # round trip
    from playwright.async_api import Frame, Mouse, Page

    from cockpit.core.page import quick_click
    asked: list[str] = []
    for cls in (Page, Frame):
        original = cls.evaluate

        async def counting(self, expression, *args, original=original, **kwargs):
            # (not the release a page may not have seen, told only when the answer is
            # late: on a loaded machine it may be, and the page is still asked once)
            if expression != quick_click.RELEASE_JS:
                asked.append("question")
            return await original(self, expression, *args, **kwargs)
        monkeypatch.setattr(cls, "evaluate", counting)
    mouse_click = Mouse.click

    async def clicking(self, *args, **kwargs):
        asked.append("mouse")
        return await mouse_click(self, *args, **kwargs)
    monkeypatch.setattr(Mouse, "click", clicking)
    await open_page(s, base, "quiet", "<button id='go'>Quiet</button>")
    asked.clear()
    result = await ok(s, f"click {ref_of(s, 'button', 'Quiet')}")
    during_the_click = list(asked)
    assert await hits(s) == {"go": 1}
    assert "No change" in result.output, result
    assert during_the_click == ["question", "mouse"], during_the_click


async def test_a_confirm_the_click_opens_leaves_what_follows_to_the_answers_diff(s, base):
    # the click's question, waiting in the page, is answered only after the dialog, when
    # the command has already ended on it: it must not take the changes the confirmed
    # handler makes from `dialog accept`'s diff
    await open_page(s, base, "confirm", (
        "<ul id='list'><li>Write the report</li><li>Call the bank</li></ul>"
        "<p id='status' role='status'></p>"
        "<button id='go' onclick=\"if (confirm('Delete all?')) {"
        " document.getElementById('list').remove();"
        " document.getElementById('status').textContent = 'All deleted'; }\">"
        "Delete all</button>"))
    result = await ok(s, f"click {ref_of(s, 'button', 'Delete all')}")
    assert "confirm dialog opened" in result.output, result
    result = await ok(s, "dialog accept")
    assert "All deleted" in result.output, result
    assert any(line.startswith("- @") and " list" in line
               for line in result.output.splitlines()), result
