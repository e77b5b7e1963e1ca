"""Diffs that cost what changed (issue 17): after an action Cockpit snapshots only the parts
of the page that changed, or nothing when nothing did. Each test makes a change, takes the
incremental diff, then a full snapshot, and checks that the two agree: the same diff, and a
patched snapshot that reads like the full one."""

from __future__ import annotations

import re

import pytest
from conftest import ok, page, ref_of

from cockpit.core.diff import diff
from cockpit.core.render import View, render

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
HOVER = page("hover", "<h2 id=h>Section <a class=hl href='#h'>¶</a></h2><p>body</p>",
             "<style>a.hl{visibility:hidden} h2:hover > a.hl{visibility:visible}</style>")
CHECKED = page("checked", "<div><input type=checkbox id=c aria-label=Menu><div class=menu>"
                          "<a href='#m'>Menu link</a></div></div>",
               "<style>.menu{display:none} #c:checked ~ .menu{display:block}</style>")
SHADOW = page("shadow", "<x-box id=xb></x-box><script>const r = xb.attachShadow({mode:'open'});"
                        "r.innerHTML = '<p>shadow old</p><button>In shadow</button>';"
                        "r.querySelector('button').onclick = () => "
                        "r.querySelector('p').textContent = 'shadow new';</script>")
PUSH = page("push", "<button onclick=\"history.pushState({}, '', '/push?step=2')\">Push</button>")


async def test_nothing_changed_answers_without_a_snapshot(s, base, fulls):
    await start(s, base, NOOP)
    d = await check(s, f"click {ref_of(s, 'button', 'Nothing')}", incremental=True, fulls=fulls)
    assert d["summary"] == "No change"


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
