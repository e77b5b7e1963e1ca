"""What the page report says about fields, popovers and lists, on small pages in a real
browser: a field's live value whatever its attributes (never a password's), a popover
that aria-hides the page as one line with every ref kept, a custom-styled checkbox checked
through its label, and removed rows and chosen options named by what the user sees."""

from __future__ import annotations

import pytest
from conftest import fails, ok, page, ref_of, spy_on

from cockpit.core.secrets.mask import MASK


def line_of(output: str, ref: str) -> str:
    """The `snapshot -i` line of one ref."""
    return next(line for line in output.splitlines() if line.startswith(ref + " "))


FIELDS = page("report-fields", """
  <label>Search <input id=q placeholder="Search" value="shoes"></label>
  <label>Note <input id=note placeholder="" value="kept"></label>
  <label>City <input id=city placeholder="Where?"></label>
  <label>Story <textarea id=story placeholder="Tell us">once upon</textarea></label>
  <label>Pin <input id=pin type=password placeholder="Your PIN" value="s3cr3t-pin"></label>
  <label>Kind <select id=kind><option value=1>Garden</option><option value=2>Kitchen</option>
  </select></label>""")


async def test_field_values_show_whatever_their_placeholder(s, base):
    """A placeholder (even an empty one) made Playwright give the value on a line of its
    own, which flat views dropped: the value is there, typed or set by the page, and a
    password field's never is (nor in the full snapshot)."""
    await ok(s, f"goto {base}{FIELDS}")
    await ok(s, f"fill {ref_of(s, 'textbox', 'City')} Lyon")
    await ok(s, "js document.getElementById('story').value = 'the end'")
    await ok(s, f"select {ref_of(s, 'combobox', 'Kind')} Kitchen")
    flat = (await ok(s, "snapshot -i")).output
    assert line_of(flat, ref_of(s, "textbox", "Search")).endswith('textbox "Search": shoes')
    assert line_of(flat, ref_of(s, "textbox", "Note")).endswith(": kept")
    assert line_of(flat, ref_of(s, "textbox", "City")).endswith(": Lyon")
    assert line_of(flat, ref_of(s, "textbox", "Story")).endswith(": the end")
    assert line_of(flat, ref_of(s, "combobox", "Kind")).endswith(": Kitchen")
    assert line_of(flat, ref_of(s, "textbox", "Pin")).endswith(f": {MASK}")
    pane = {(role, name): value for _, role, name, value in s.refs_info()}  # the refs pane
    assert pane[("textbox", "City")] == "Lyon" and pane[("textbox", "Pin")] == MASK
    full = (await ok(s, "snapshot")).output
    assert "- text: Lyon" in full and "/placeholder: Where?" in full  # Playwright's form
    for shown in (flat, full, s.active.snapshot.raw):
        assert "s3cr3t-pin" not in shown


# A BaseWeb/Radix-style select: opening it aria-hides everything but the trigger and the
# popover (each sibling on the way up to the body), choosing closes it and shows all again.
POPOVER = page("report-popover", """
  <p>Pick one <button id=trigger role=combobox aria-label=Category aria-expanded=false>Garden
  </button></p>
  <label>Name <input id=name></label> <label><input type=checkbox> Agree</label>
  <a href="#more">More</a>
  <script>
  let hidden = [];
  function hideOthers(keep) {
    for (const k of keep) for (let el = k; el.parentElement; el = el.parentElement)
      for (const sib of el.parentElement.children)
        if (!keep.some(x => sib.contains(x)) && sib.tagName !== 'SCRIPT'
            && sib.getAttribute('aria-hidden') !== 'true') {
          sib.setAttribute('aria-hidden', 'true'); hidden.push(sib); }
  }
  trigger.onclick = () => {
    const pop = document.createElement('div');
    pop.id = 'pop';
    pop.innerHTML = '<ul role=listbox aria-label=Category>' + ['Garden', 'Kitchen', 'Tools']
      .map(o => `<li role=option onclick="choose('${o}')">${o}</li>`).join('') + '</ul>';
    document.body.append(pop);
    trigger.setAttribute('aria-expanded', 'true');
    hideOthers([trigger, pop]);
  };
  window.choose = (o) => {
    document.getElementById('pop').remove();
    for (const el of hidden) el.removeAttribute('aria-hidden');
    hidden = [];
    trigger.setAttribute('aria-expanded', 'false');
    trigger.textContent = o;
  };
  </script>""")


@pytest.mark.parametrize("incremental", [True, False], ids=["regions", "full"])
async def test_a_popover_hiding_the_page_is_one_line_and_keeps_every_ref(s, base, incremental):
    s.incremental_diffs = incremental
    try:
        await ok(s, f"goto {base}{POPOVER}")
        before = (await ok(s, "snapshot -i")).output
        trigger = ref_of(s, "combobox", "Category")
        opened = await ok(s, f"click {trigger}")
        listbox = ref_of(s, "listbox", "Category")
        lines = opened.output.splitlines()
        assert lines[1] == f'~ page hidden behind {listbox} listbox "Category"', lines
        assert f"~ {trigger} combobox" in opened.output  # its own change stays
        assert 'option "Kitchen"' in opened.output
        assert '-> ""' not in opened.output and "ref:" not in opened.output, lines
        chosen = await ok(s, f"click {ref_of(s, 'option', 'Kitchen')}")
        lines = chosen.output.splitlines()
        assert lines[1] == "~ page shown again", lines
        assert f'~ {trigger} combobox "Category" (text: "Garden" -> "Kitchen"' in chosen.output
        assert f"- {listbox} listbox" in chosen.output
        assert '-> ""' not in chosen.output and "ref:" not in chosen.output, lines
        after = (await ok(s, "snapshot -i")).output
        # the elements hidden and shown again kept their refs, and they work
        assert after.replace("Kitchen", "Garden") == before
        await ok(s, f"fill {ref_of(s, 'textbox', 'Name')} Ada")
        await ok(s, f"click {ref_of(s, 'button', 'Untouched')}")
    finally:
        s.incremental_diffs = True


# A Radix-style modal: the page is aria-hidden and unclickable (`pointer-events: none` on
# the body), so Playwright leaves it out of the snapshot while the dialog is open.
MODAL = page("report-modal", """
  <button id=opener>Open palette</button> <a href="#b">Back</a>
  <ul id=menu><li><button>Share</button></li></ul>
  <script>
  document.getElementById('opener').onclick = () => {
    document.getElementById('menu').remove();  // really gone: that one is news
    for (const el of document.body.children) el.setAttribute('aria-hidden', 'true');
    document.body.style.pointerEvents = 'none';
    const d = document.createElement('div');
    d.setAttribute('role', 'dialog'); d.setAttribute('aria-label', 'Commands');
    d.style.pointerEvents = 'auto';
    d.innerHTML = '<input aria-label=Command><button onclick="closeIt()">Close</button>';
    document.body.append(d);
  };
  window.closeIt = () => {
    document.querySelector('[role=dialog]').remove();
    for (const el of document.body.children) el.removeAttribute('aria-hidden');
    document.body.style.pointerEvents = '';
  };
  </script>""")


async def test_a_modal_that_takes_the_page_out_of_the_snapshot_is_one_line(s, base):
    await ok(s, f"goto {base}{MODAL}")
    before = (await ok(s, "snapshot -i")).output
    share = ref_of(s, "button", "Share")
    opened = await ok(s, f"click {ref_of(s, 'button', 'Open palette')}")
    dialog = ref_of(s, "dialog", "Commands")
    lines = opened.output.splitlines()
    assert lines[1] == f'~ page hidden behind {dialog} dialog "Commands"', lines
    # what really went is still said, and only that
    [gone] = [line for line in lines if line.startswith("- ")]
    assert f'{share} button "Share"' in gone, lines
    untouched = s.active.snapshot.behind  # out of the snapshot, kept to tell about it
    [back] = [ref for ref, node in untouched.items() if node.name == "Back"]
    refused = await fails(s, f"click @{back}")
    assert f'@{back} (link "Back") is hidden behind a popover' in refused.error
    closed = await ok(s, f"click {ref_of(s, 'button', 'Close')}")
    lines = closed.output.splitlines()
    assert lines[1:] == ["~ page shown again", f'- {dialog} dialog "Commands" (and 2 inside)'], \
        lines
    after = (await ok(s, "snapshot -i")).output
    assert after == "\n".join(line for line in before.splitlines() if "Share" not in line)
    await ok(s, f"click {ref_of(s, 'button', 'Untouched')}")  # its ref lived through it


# Custom-styled boxes, as Streamlit (BaseWeb) draws them: the native input clipped out of
# sight, a styled square inside its label where the box is.
STYLED = page("report-styled", """
  <style>.sr {position: absolute; width: 1px; height: 1px; overflow: hidden;
              clip: rect(0 0 0 0); clip-path: inset(50%); margin: -1px}
    label {display: flex; gap: 4px; align-items: center}
    .box {width: 13px; height: 13px; border: 2px solid #333; position: relative; left: -14px}
    input:checked + .box {background: #333}</style>
  <label><span class=sr><input id=urgent type=checkbox aria-label=Urgent></span>
    <span class=box></span>Urgent</label>
  <label><input id=plain type=checkbox> Plain</label>
  <label><span class=sr><input type=radio name=size value=s aria-label=Small></span>
    <span class=box></span>Small</label>
  <label><span class=sr><input type=radio name=size value=l aria-label=Large></span>
    <span class=box></span>Large</label>
  <div id=wall style="position: fixed; inset: 0; display: none; background: #eee">Please
    accept our extraordinarily comprehensive cookie configuration preferences now</div>""")


async def test_a_checkbox_drawn_by_its_label_is_checked_through_it(s, base):
    """Playwright waits for the native box to take the click, which its own label covers:
    the label, what the user clicks, is clicked at once."""
    await ok(s, f"goto {base}{STYLED}")
    await ok(s, "snapshot -i")
    urgent = ref_of(s, "checkbox", "Urgent")
    saved, s.action_timeout = s.action_timeout, 2
    try:
        checked = await ok(s, f"check {urgent}")
        assert f'~ {urgent} checkbox "Urgent" (checked: - -> true)' in checked.output
        await ok(s, f"check {urgent}")  # checked already: nothing to click
        assert await s.active.page.evaluate("document.getElementById('urgent').checked")
        await ok(s, f"uncheck {urgent}")
        assert not await s.active.page.evaluate("document.getElementById('urgent').checked")
        await ok(s, f"check {ref_of(s, 'radio', 'Large')}")
        assert await s.active.page.evaluate("document.querySelector('[value=l]').checked")
        await ok(s, f"check {ref_of(s, 'checkbox', 'Plain')}")  # a plain box, as before
        assert await s.active.page.evaluate("document.getElementById('plain').checked")
    finally:
        s.action_timeout = saved


async def test_a_box_covered_by_something_else_says_so_without_cutting_a_word(s, base):
    await ok(s, f"goto {base}{STYLED}")
    await ok(s, "snapshot -i")
    await s.active.page.evaluate("document.getElementById('wall').style.display = 'block'")
    saved, s.action_timeout = s.action_timeout, 1
    try:
        refused = await fails(s, f"check {ref_of(s, 'checkbox', 'Plain')}")
    finally:
        s.action_timeout = saved
    assert 'is covered by <div id="wall"> "Please accept our extraordinarily…"' in \
        refused.error, refused.error


KINDS = page("report-kinds", """
  <label>Category <select id=cat><option value="">---------</option>
    <option value=1>Kitchen</option><option value=2>Garden</option></select></label>""")


async def test_select_answers_with_the_label_chosen(s, base):
    """A form's select of records (Django admin's foreign keys) has ids for values: the
    answer names the option the user sees, and its value only when the agent named it so."""
    await ok(s, f"goto {base}{KINDS}")
    await ok(s, "snapshot -i")
    category = ref_of(s, "combobox", "Category")
    by_label = await ok(s, f"select {category} Garden")
    assert by_label.output.splitlines()[0] == f"selected Garden in {category}"
    assert by_label.data["selected"] == ["2"] and by_label.data["labels"] == ["Garden"]
    by_value = await ok(s, f"select {category} 1")
    assert by_value.output.splitlines()[0] == f"selected Kitchen (value 1) in {category}"


INERT = page("report-inert", """
  <button id=ask>Delete</button> <a href="#x">Help</a>
  <ul>""" + "".join(f"<li>Row {i}</li>" for i in range(12)) + """</ul>
  <script>
  document.getElementById('ask').onclick = () => {
    document.querySelector('main').inert = true;
    document.querySelector('nav').inert = true;
    const d = document.createElement('div');
    d.setAttribute('role', 'alertdialog'); d.setAttribute('aria-label', 'Sure?');
    d.innerHTML = '<button onclick="this.parentElement.remove();'
      + 'document.querySelector(`main`).inert = false;'
      + 'document.querySelector(`nav`).inert = false">Cancel</button>';
    document.body.append(d);
  };
  </script>""")


async def test_a_popover_that_makes_the_page_inert_says_so(s, base):
    """`inert` leaves the page in the snapshot as it was (no flood), but the agent is told
    it cannot use it until the popover goes."""
    await ok(s, f"goto {base}{INERT}")
    await ok(s, "snapshot -i")
    opened = await ok(s, f"click {ref_of(s, 'button', 'Delete')}")
    dialog = ref_of(s, "alertdialog", "Sure?")
    assert opened.output.splitlines()[1:] == [
        f'~ page hidden behind {dialog} alertdialog "Sure?"',
        f'+ {dialog} alertdialog "Sure?"', f'+ {ref_of(s, "button", "Cancel")} button "Cancel"'
    ], opened.output
    closed = await ok(s, f"click {ref_of(s, 'button', 'Cancel')}")
    assert closed.output.splitlines()[1:3] == ["~ page shown again",
                                               f'- {dialog} alertdialog "Sure?" (and 1 inside)']


ROWS = "".join(f"<li>Item {i} <button>Drop {i}</button></li>" for i in range(6))
REBUILT = page("report-rebuilt", f"""
  <div id=box style="min-height: 2em"><ul>{ROWS}</ul></div>
  <button onclick="document.getElementById('box').innerHTML = ''">Clear</button>""")


async def test_rows_that_really_went_are_told_removed_without_waiting_for_them(
        s, base, monkeypatch):
    """Many elements lost at once are looked up in the page (are they behind a popover?):
    ones that went are counted, never waited for (an evaluate on them would wait its
    whole timeout), and are said removed."""
    from playwright.async_api import Locator
    await ok(s, f"goto {base}{REBUILT}")
    await ok(s, "snapshot -i")
    rows = [f"cockpit-ref={node.pw}'" for node in s.active.snapshot.refs.values()
            if node.role in ("list", "listitem")]
    waited = spy_on(monkeypatch, Locator, "evaluate")
    cleared = await ok(s, f"click {ref_of(s, 'button', 'Clear')}")
    assert cleared.data["diff"]["removed"] == 13 and "page hidden" not in cleared.output
    assert "- @" in cleared.output
    assert not [call for call in waited if any(row in call for row in rows)], waited
