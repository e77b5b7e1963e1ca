"""Diffs that cost what changed (issue 17): after an action Cockpit snapshots only the parts
of the page that changed, or nothing when nothing did. Each test makes a change, takes the
incremental diff, then a full snapshot, and checks that the two agree: the same diff, and a
patched snapshot that reads like the full one."""

from __future__ import annotations

import re

import pytest
from conftest import ok, page, ref_of, stylesheet

from cockpit.core.page.diff import diff
from cockpit.core.page.render import View, render

def _plain(snap) -> str:
    """The snapshot's text without the marks that move with every click (focus, pointer)."""
    return re.sub(r" \[(active|cursor=pointer)\]", "", render(snap, View()))


def _same(inc: dict, full: dict) -> None:
    key = lambda c: (c["kind"], c["ref"])  # noqa: E731
    assert sorted(inc["changes"], key=key) == sorted(full["changes"], key=key), (inc, full)
    assert inc["summary"] == full["summary"]


async def check(s, line: str, *, incremental: bool, fulls) -> dict:
    """Run `line`; its diff must be the one a full snapshot gives. Returns the diff."""
    tab = s.active
    before = tab.snapshot
    assert before is not None
    fulls["n"] = 0
    result = await ok(s, line)
    took_full = fulls["action"] = fulls["n"]
    inc = result.data["diff"]
    patched = tab.snapshot
    full = await tab.take_snapshot()
    _same(inc, diff(before, full).to_json())
    assert _plain(patched) == _plain(full)
    assert diff(patched, full).empty, diff(patched, full).text()
    if incremental:
        assert took_full == 0, f"{line}: a full snapshot was taken"
    return inc


async def start(s, base, path: str) -> None:
    await ok(s, f"goto {base}{path}")
    await ok(s, "snapshot -i")


TEXT = page("text", "<p id=t>old words</p><button onclick=\"t.textContent='new words'\">Go"
                    "</button>")
LIST = page("list", "<ul id=l><li>one</li><li>two</li></ul><button onclick=\"l.insertAdjacentHTML("
                    "'beforeend', '<li>three <button>Edit three</button></li>')\">Add</button>")
MODAL = page("modal", "<button onclick=\"document.body.insertAdjacentHTML('beforeend', "
                      "'<div role=dialog aria-label=Confirm><p>Sure?</p><button>OK</button>"
                      "</div>')\">Open</button><dialog id=d><p>Native</p><button>Close"
                      "</button></dialog><button onclick='d.showModal()'>Native</button>")
HIDDEN = page("hidden", "<section><div id=panel hidden><button>Inside</button><p>More</p>"
                        "</div><p>text</p></section><button onclick='panel.hidden = "
                        "!panel.hidden'>Toggle</button>")
VALUE = page("value", "<label>Name <input id=i value=before></label><button "
                      "onclick=\"i.value='after'\">Set</button>")
FRAME = page("frame", "<iframe srcdoc=\"<p id=x>inside old</p><button onclick="
                      "&quot;x.textContent='inside new'&quot;>Frame go</button>\"></iframe>")
NOOP = page("noop", "<p>still</p><button onclick='1'>Nothing</button>")
LINK = page("link", "<p><a id=a href='#x'><span id=s>Old name</span></a> and more</p>"
                    "<button onclick=\"s.textContent='New name'\">Rename</button>")
PAIR = page("pair", "<div id=w><button>Stay</button><button id=b2>Go away</button></div>"
                    "<button onclick='b2.remove()'>Remove</button>")
LABEL = page("label", "<div><label for=f id=lab>First</label></div><div><input id=f></div>"
                      "<button onclick=\"lab.textContent='Second'\">Relabel</button>")
HOVER_BODY = "<h2 id=h>Section <a class=hl href='#h'>¶</a></h2><p>body</p>"
HOVER_CSS = "a.hl{visibility:hidden} h2:hover > a.hl{visibility:visible}"
HOVER = page("hover", HOVER_BODY, f"<style>{HOVER_CSS}</style>")
CHECKED_BODY = ("<div><input type=checkbox id=c aria-label=Menu><div class=menu>"
                "<a href='#m'>Menu link</a></div></div>")
CHECKED_CSS = ".menu{display:none} #c:checked ~ .menu{display:block}"
CHECKED = page("checked", CHECKED_BODY, f"<style>{CHECKED_CSS}</style>")
SHADOW = page("shadow", "<x-box id=xb></x-box><script>const r = xb.attachShadow({mode:'open'});"
                        "r.innerHTML = '<p>shadow old</p><button>In shadow</button>';"
                        "r.querySelector('button').onclick = () => "
                        "r.querySelector('p').textContent = 'shadow new';</script>")
PUSH = page("push", "<button onclick=\"history.pushState({}, '', '/push?step=2')\">Push</button>")


async def test_nothing_changed_answers_without_a_snapshot(s, base, fulls):
    await start(s, base, NOOP)
    d = await check(s, f"click {ref_of(s, 'button', 'Nothing')}", incremental=True, fulls=fulls)
    assert d["summary"] == "No change"


# The click changes one paragraph at once, and another when an image it asked for has
# come (a request the page's script does not follow: settling waits for the network)
LATE = page("late", "<p id=a>first words</p><p id=b>second words</p><button onclick=\"a."
                    "textContent = 'first changed'; const i = new Image(); i.onload = i.onerror"
                    " = () => { b.textContent = 'second changed' }; i.src = '/pixel?slow=300'"
                    "\">Both</button>")


async def test_what_changes_before_and_after_settling_waits_for_the_network(s, base, fulls):
    # the page is asked what changed when it first falls quiet, and again after the wait
    await start(s, base, LATE)
    d = await check(s, f"click {ref_of(s, 'button', 'Both')}", incremental=True, fulls=fulls)
    said = str(d["changes"])
    assert "first changed" in said and "second changed" in said, d


@pytest.mark.parametrize("path,role,name", [
    (TEXT, "button", "Go"), (LIST, "button", "Add"), (HIDDEN, "button", "Toggle"),
    (VALUE, "button", "Set"), (LINK, "button", "Rename"), (PAIR, "button", "Remove"),
    (LABEL, "button", "Relabel")])
async def test_a_changed_part_is_snapshotted_alone(s, base, fulls, path, role, name):
    await start(s, base, path)
    d = await check(s, f"click {ref_of(s, role, name)}", incremental=True, fulls=fulls)
    assert d["summary"] != "No change"


async def test_hidden_toggles_back_and_refs_outside_still_work(s, base, fulls):
    await start(s, base, HIDDEN)
    await check(s, f"click {ref_of(s, 'button', 'Toggle')}", incremental=True, fulls=fulls)
    await check(s, f"click {ref_of(s, 'button', 'Inside')}", incremental=True, fulls=fulls)
    # a ref outside the region just snapshotted (Playwright's own map holds the region only)
    await check(s, f"click {ref_of(s, 'button', 'Untouched')}", incremental=True, fulls=fulls)
    d = await check(s, f"click {ref_of(s, 'button', 'Toggle')}", incremental=True, fulls=fulls)
    assert d["removed"] >= 1


async def test_dialogs_at_body_level(s, base, fulls):
    await start(s, base, MODAL)
    d = await check(s, f"click {ref_of(s, 'button', 'Open')}", incremental=False, fulls=fulls)
    assert any(c["role"] == "dialog" for c in d["changes"])
    d = await check(s, f"click {ref_of(s, 'button', 'Native')}", incremental=False, fulls=fulls)
    assert d["added"] >= 1


async def test_a_change_inside_a_frame(s, base, fulls):
    await start(s, base, FRAME)
    d = await check(s, f"click {ref_of(s, 'button', 'Frame go')}", incremental=True,
                    fulls=fulls)
    assert d["summary"] != "No change"


async def test_css_state_hover_and_checked(s, base, fulls):
    await start(s, base, HOVER)
    d = await check(s, f"hover {ref_of(s, 'heading', 'Section')}", incremental=True,
                    fulls=fulls)
    assert d["added"] == 1, d
    await start(s, base, CHECKED)
    d = await check(s, f"click {ref_of(s, 'checkbox', 'Menu')}", incremental=True, fulls=fulls)
    assert any(c["role"] == "link" for c in d["changes"]), d


async def test_css_state_in_stylesheets_the_page_may_not_read(s, base, fulls, tmp_path):
    """A file:// page's stylesheets, and a CDN's, are another origin's: the page cannot read
    their rules, so Cockpit reads them for its tracker (@imports too), and gives the page
    selectors and property names only: never a value (the same-origin policy keeps the text
    from the page's scripts, and they can reach the tracker). Before, every action on such
    a page (Python's offline docs) cost a full snapshot."""
    secret = "a.hl::after { content: 'value-the-page-may-not-read' }"
    (tmp_path / "state.css").write_text(HOVER_CSS + secret)
    (tmp_path / "style.css").write_text('@import url("state.css");\nbody { margin: 0 }')
    (tmp_path / "doc.html").write_text(
        f"<!doctype html><html><head><title>doc</title><link rel=stylesheet "
        f"href='style.css?v=1'></head><body><main>{HOVER_BODY}<p><a href='#h'>Back up</a>"
        "</p></main></body></html>")
    await ok(s, f"goto file://{tmp_path}/doc.html")
    await ok(s, "snapshot -i")
    d = await check(s, f"hover {ref_of(s, 'heading', 'Section')}", incremental=True,
                    fulls=fulls)
    assert d["added"] == 1, d
    given = await s.active.page.evaluate("JSON.stringify([...__cockpitChanges.given])")
    assert "h2:hover > a.hl" in given and "visibility" in given
    assert "value-the-page-may-not-read" not in given and "hidden" not in given
    result = await ok(s, f"click {ref_of(s, 'link', 'Back up')}")
    # a file:// URL is one "site" (the pointer left the heading: its ¶ went, too)
    assert result.output.splitlines()[1] == "URL -> #h", result.output
    # another host's stylesheet, as a CDN's without `crossorigin`
    other = base.replace("127.0.0.1", "localhost") + stylesheet("incr-checked", CHECKED_CSS)
    await start(s, base, page("incr-cdn", CHECKED_BODY, f"<link rel=stylesheet href='{other}'>"))
    d = await check(s, f"click {ref_of(s, 'checkbox', 'Menu')}", incremental=True, fulls=fulls)
    assert any(c["role"] == "link" for c in d["changes"]), d


async def test_shadow_dom_and_history(s, base, fulls):
    await start(s, base, SHADOW)
    d = await check(s, f"click {ref_of(s, 'button', 'In shadow')}", incremental=True,
                    fulls=fulls)
    assert d["summary"] != "No change"
    await start(s, base, PUSH)
    d = await check(s, f"click {ref_of(s, 'button', 'Push')}", incremental=True, fulls=fulls)
    assert d["url"] and d["url"][1].endswith("/push?step=2")


async def test_a_rebuilt_list_pairs_as_before(s, site, fulls):
    await ok(s, f"goto {site.url}/tasks")
    await ok(s, "fill #note 'buy milk'")
    await ok(s, "snapshot -i")
    d = await check(s, f"click {ref_of(s, 'button', 'Archive Book the flight')}",
                    incremental=True, fulls=fulls)
    assert (d["added"], d["removed"], d["changed"]) == (0, 2, 0), d


async def test_fill_does_not_repeat_the_value(s, base, fulls):
    await start(s, base, VALUE)
    name = ref_of(s, 'textbox', 'Name')
    result = await ok(s, f"fill {name} 'typed here'")
    assert result.output == f"filled {name}", result.output  # not even "No change"
    assert (await ok(s, "snapshot -D")).output.startswith("No change")


async def test_the_full_path_stays_available(s, base, fulls):
    await start(s, base, TEXT)
    s.incremental_diffs = False
    try:
        await check(s, f"click {ref_of(s, 'button', 'Go')}", incremental=False, fulls=fulls)
        assert fulls["action"] == 1  # the action itself took a full snapshot
    finally:
        s.incremental_diffs = True


# A code editor's completion list: its container stays, empty, once the list closes
# (CodeMirror's, in a marimo notebook). Playwright unwraps the container while it holds
# the list and shows no line for it after, so its region is its parent: here all of <main>.
def _closing(name: str, tip: str, wrapper: str = "") -> str:
    return page(name, f"<main id=app><p>Editor</p><div id=w{wrapper}>{tip}</div><p>After</p>"
                      "<button onclick=\"tip.remove()\">Close</button></main>")


COMPLETIONS = _closing("completions", "<div id=tip><ul role=listbox aria-label=Completions>"
                                      "<li role=option>total</li><li role=option>tuple</li>"
                                      "</ul><div>variable</div></div>")
# ... the same, but neither it nor what closes has a line with a ref (they take no pointer)
UNREFFED = _closing("unreffed", "<div id=tip><div>hint one</div><div>hint two</div></div>",
                    " style='pointer-events: none'")


@pytest.fixture
def regions_snapshotted(monkeypatch) -> list[str]:
    """The selectors of the region snapshots taken (`Locator.aria_snapshot`)."""
    from playwright.async_api import Locator
    taken: list[str] = []
    original = Locator.aria_snapshot

    async def spying(self, **kwargs):
        taken.append(repr(self))
        return await original(self, **kwargs)

    monkeypatch.setattr(Locator, "aria_snapshot", spying)
    return taken


async def test_a_list_that_closed_is_dropped_without_its_surroundings(
        s, base, fulls, regions_snapshotted):
    await start(s, base, COMPLETIONS)
    d = await check(s, f"click {ref_of(s, 'button', 'Close')}", incremental=True, fulls=fulls)
    assert any(c["kind"] == "removed" and c["role"] == "listbox" for c in d["changes"]) or \
        "Completions" in str(d["changes"]), d
    assert not any("#app" in taken for taken in regions_snapshotted), regions_snapshotted


async def test_a_closed_part_whose_lines_cannot_be_told_has_its_region_snapshotted(
        s, base, fulls, regions_snapshotted):
    await start(s, base, UNREFFED)
    before = render(s.active.snapshot, View())
    assert "hint one" in before, before
    d = await check(s, f"click {ref_of(s, 'button', 'Close')}", incremental=True, fulls=fulls)
    assert "hint one" not in render(s.active.snapshot, View()), d
    assert any("#app" in taken for taken in regions_snapshotted), regions_snapshotted
