"""A Streamlit app (a websocket data app with BaseWeb widgets) driven through Cockpit:
its selectbox, slider, text input with a placeholder, checkbox and button.

Each browser tab is a Streamlit session of its own, so every test starts from the app's
defaults (Garden, 2, no note, not urgent)."""

from __future__ import annotations

import json
import re

from steps import look, ok, ref

from cockpit.core import Session


async def open_app(s: Session, url: str) -> str:
    """The app, rendered (its widgets arrive over the websocket after the page loads)."""
    await ok(s, f"goto {url}")
    await ok(s, "wait --text 'Place order'")
    return await look(s)


async def choose(s: Session, page: str, option: str) -> str:
    """Pick a selectbox option the way a person does: open it, click the option."""
    await ok(s, f"click {ref(page, 'combobox', 'Category')}")
    chose = await ok(s, f"click {ref(await look(s), 'option', option, exact=True)}")
    return chose


async def test_the_widgets_place_an_order_and_the_results_follow_the_app(s, data_app):
    page = await open_app(s, data_app)
    assert 'combobox "Category": Garden' in page and 'button "Place order"' in page
    chose = await choose(s, page, "Kitchen")
    assert "Kitchen" in json.dumps(chose.data["diff"])
    page = await look(s)
    assert re.search(r'combobox "Category"[^\n]*: Kitchen', page), page
    moved = await ok(s, f"press ArrowRight {ref(page, 'slider', 'Quantity')}")
    assert re.search(r'~ @e\d+ slider "Quantity[^"]*" \(text: "2" -> "3"\)', moved.output), \
        moved.output
    # (the app's "Current: …" line re-renders a moment later, sometimes after the result:
    # issue 25 item 3b; not asserted here while it is flaky)
    await ok(s, "wait --text 'Current: 3 x Kitchen'")
    await ok(s, f"fill {ref(page, 'textbox', 'Note')} 'ring the bell'")
    placed = await ok(s, f"click {ref(page, 'button', 'Place order')}")
    assert re.search(r"^\+ @e\d+ paragraph: Ordered 3 x Kitchen$", placed.output, re.MULTILINE), \
        placed.output


async def test_check_ticks_a_checkbox_under_its_label_and_the_order_says_urgent(s, data_app):
    page = await open_app(s, data_app)
    await choose(s, page, "Tools")
    page = await look(s)
    await ok(s, f"press ArrowRight {ref(page, 'slider', 'Quantity')}")
    await ok(s, f"fill {ref(page, 'textbox', 'Note')} 'leave it at the door'")
    checked = await s.run(f"check {ref(page, 'checkbox', 'Urgent')}")
    assert checked.ok, checked.error
    assert re.search(r'checkbox "Urgent"[^\n]*checked', checked.output), checked.output
    placed = await ok(s, f"click {ref(page, 'button', 'Place order')}")
    assert "Ordered 3 x Tools (urgent)" in placed.output, placed.output


async def test_a_typed_note_shows_in_the_snapshot_despite_its_placeholder(s, data_app):
    page = await open_app(s, data_app)
    await ok(s, f"fill {ref(page, 'textbox', 'Note')} 'ring the bell'")
    assert re.search(r'^@e\d+ textbox "Note"[^\n]*: ring the bell$', await look(s),
                     re.MULTILINE)


async def test_the_selectbox_popover_is_one_line_and_keeps_the_refs(s, data_app):
    page = await open_app(s, data_app)
    slider = ref(page, "slider", "Quantity")
    opened = await ok(s, f"click {ref(page, 'combobox', 'Category')}")
    # the page behind the menu is hidden, not renamed element by element
    assert '-> ""' not in opened.output, opened.output
    assert re.search(r'listbox[^\n]*"Category', opened.output), opened.output
    chose = await ok(s, f"click {ref(await look(s), 'option', 'Tools', exact=True)}")
    assert '-> ""' not in chose.output and 'combobox "Category"' in chose.output, chose.output
    # the refs read before the menu opened still work once it closed
    moved = await ok(s, f"press ArrowRight {slider}")
    assert "Current: 3 x Tools" in moved.output, moved.output
