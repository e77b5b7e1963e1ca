"""Names for every `snapshot -i` line, lean `-i` output, and diffs that survive a list
rebuilt from scratch (issue 13)."""

from __future__ import annotations

import re

from conftest import ok, ref_of

from cockpit.core.page.diff import diff
from cockpit.core.page.render import View, render
from cockpit.core.model.snapshot import Snapshot

# A line of `snapshot -i`: the ref, the role, then the name in double quotes, before any
# mark.
REF = r"@(?:f\d+)?e\d+"  # as Playwright gives it; a later document's refs carry `f1`
NAMED = re.compile(REF + r' [\w-]+ "(?:[^"\\]|\\.)+"')

CHILD_TEXT = """- paragraph [ref=e1]:
  - text: Use the
  - link [ref=e2] [cursor=pointer]:
    - /url: functions.html#repr
    - code [ref=e3]: repr()
  - text: function.
  - link [ref=e4] [cursor=pointer]:
    - /url: "#str"
    - code [ref=e5]: a very long piece of code that goes on and on well past any sensible length
  - button [ref=e6]:
    - img "Close" [ref=e7]
"""


def test_nameless_elements_are_named_by_their_children():
    snap = Snapshot.from_text(CHILD_TEXT, doc="d")
    lines = render(snap, View(interactive=True)).splitlines()
    assert lines[0] == '@e2 link "repr()"'
    assert lines[1].startswith('@e4 link "a very long piece of code') and "…" in lines[1]
    assert len(lines[1]) < 90  # cut to a sensible length
    assert lines[2] == '@e6 button "Close"'
    # the refs stay exactly as Playwright gave them, and the full tree is untouched
    assert list(snap.refs) == ["e1", "e2", "e3", "e4", "e5", "e6", "e7"]
    assert "- link [ref=e2] [cursor=pointer]:" in render(snap, View())
    assert snap.describe("e2") == '@e2 (link "repr()")'
    # the diff names them too
    added = diff(Snapshot.from_text("- paragraph [ref=e1]", doc="d"), snap)
    assert '+ @e2 link "repr()"' in added.text()


async def test_refs_pane_and_completion_get_the_names(s, site):
    await ok(s, f"goto {site.url}/tasks")
    await ok(s, "js document.body.insertAdjacentHTML('beforeend', "
                "'<a href=\"/report\"><code>repr()</code></a>')")
    out = (await ok(s, "snapshot -i")).output
    assert all(NAMED.match(line) for line in out.splitlines() if "textbox" not in line), out
    assert any(role == "link" and name == "repr()" for _, role, name in s.refs())
    assert any(name == "repr()" for _, _, name, _ in s.refs_info())


# Interactive elements a person could use: visible ones, by the browser's own test.
COUNT_INTERACTIVE_JS = """() => [...document.querySelectorAll(
  'a[href], button, input:not([type=hidden]), select, textarea')]
  .filter(el => el.checkVisibility({visibilityProperty: true, opacityProperty: true}))
  .length"""


async def test_python_docs_every_link_is_named_and_none_lost(s, pydoc_url):
    await ok(s, f"goto {pydoc_url}/library/stdtypes.html")
    out = (await ok(s, "snapshot -i")).output
    lines = out.splitlines()
    nameless = [line for line in lines if not NAMED.match(line)]
    # the two search fields have no label on this page; every link and button has one
    assert all(re.match(REF + " (textbox|searchbox)", line) for line in nameless), nameless
    assert re.search("^" + REF + r' link "repr\(\)"$', out, re.MULTILINE)
    visible = await s.active.page.evaluate(COUNT_INTERACTIVE_JS)
    controls = [line for line in lines if not re.match(REF + " heading ", line)]
    assert len(controls) >= visible
    # links show their targets only on request
    assert " -> " not in out
    with_urls = (await ok(s, "snapshot -i -u")).output
    assert re.search("^" + REF + r' link "repr\(\)" -> functions\.html#repr$', with_urls,
                     re.MULTILINE)


# An `a` element with words in it, as the page has them (what Playwright names a link by).
LINK_TEXTS_JS = """() => [...document.querySelectorAll('a[href]')]
  .filter(el => el.checkVisibility({visibilityProperty: true, opacityProperty: true}))
  .map(el => el.innerText.trim().replace(/\\s+/g, ' ')).filter(t => t)"""
# One flat `-i` line: ref first, role, the name in double quotes, then states, value, target.
FLAT_LINE = re.compile(rf'^(?P<ref>{REF}) (?P<role>[a-z]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?'
                       r'(?: \[[^\]]+\])*(?:: .*)?$')


async def test_python_docs_lines_are_ref_role_name_and_every_linked_text_is_named(
        s, pydoc_url):
    await ok(s, f"goto {pydoc_url}/library/stdtypes.html")
    lines = (await ok(s, "snapshot -i")).output.splitlines()
    parsed = [FLAT_LINE.match(line) for line in lines]
    assert all(parsed), [line for line, m in zip(lines, parsed) if not m][:5]
    assert not any("[ref=" in line for line in lines)  # the ref is said once, first
    refs = [m["ref"][1:] for m in parsed if m]
    assert len(set(refs)) == len(refs) and set(refs) <= set(s.active.snapshot.refs)
    links = [m for m in parsed if m and m["role"] == "link"]
    assert all(m["name"] for m in links), [m.string for m in links if not m["name"]][:5]
    # every link with words on the page has its line
    assert len(links) >= len(await s.active.page.evaluate(LINK_TEXTS_JS))


async def test_rebuilt_list_diffs_as_one_row_removed(s, site):
    await ok(s, f"goto {site.url}/tasks")
    await ok(s, "fill #note 'buy milk'")
    await ok(s, "snapshot -i")
    rows_before = [r for r, role, _ in s.refs() if role == "listitem"]
    archive = ref_of(s, 'button', 'Archive Book the flight')
    result = await ok(s, f"click {archive}")
    d = result.data["diff"]
    assert (d["added"], d["removed"], d["changed"]) == (0, 2, 0), result.output
    gone = {(c["role"], c["kind"]) for c in d["changes"]}
    assert gone == {("listitem", "removed"), ("button", "removed")}, result.output
    # the text names the button by the ref the agent gave; the data says what it was
    assert f"(with {archive})" in result.output
    assert {"role": "button", "name": "Archive Book the flight"}.items() <= next(
        c for c in d["changes"] if c["role"] == "button").items()
    # the rows that came back are new elements, reported (if at all) under their new refs
    assert not set(rows_before) & {r for r, role, _ in s.refs() if role == "listitem"}
    await ok(s, f"click {ref_of(s, 'button', 'Archive Pay the rent')}")


async def test_rebuilt_row_with_a_new_value_is_a_change_under_its_new_ref(s, site):
    await ok(s, f"goto {site.url}/tasks")
    await ok(s, "snapshot -i")
    result = await ok(s, "js (() => { const li = document.querySelector('#tasks li');"
                         " const copy = li.cloneNode(true); copy.firstChild.textContent ="
                         " 'Write the report today '; li.replaceWith(copy); })()")
    result = await ok(s, "snapshot -D")
    d = result.data["diff"]
    assert (d["added"], d["removed"]) == (0, 0), result.output
    changed = [c for c in d["changes"] if c["kind"] == "changed"]
    assert any(c["role"] == "listitem" and "ref" in c["fields"] for c in changed), result.output


async def test_tasks_delete_all_asks_first_and_says_all_deleted(s, site):
    """The economy benchmark's last steps: a confirm dialog, then "All deleted"."""
    await ok(s, f"goto {site.url}/tasks")
    await ok(s, "snapshot -i")
    result = await ok(s, f"click {ref_of(s, 'button', 'Delete all')}")
    assert "Delete all tasks?" in result.output
    await ok(s, "dialog dismiss")  # dismissed: nothing deleted
    assert "Pay the rent" in (await ok(s, "text")).output
    await ok(s, f"click {ref_of(s, 'button', 'Delete all')}")
    await ok(s, "dialog accept")
    text = (await ok(s, "text")).output
    assert "All deleted" in text and "Pay the rent" not in text
