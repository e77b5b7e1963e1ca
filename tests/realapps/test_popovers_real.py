"""What Cockpit reports on real apps' popovers and fields (apps.py starts them): a
Streamlit selectbox (BaseWeb) aria-hides the page, marimo's command palette (Radix)
takes it out of the snapshot; both are one line, and every ref lives through them."""

from __future__ import annotations

from conftest import ok, ref_of


def refs(output: str) -> list[str]:
    """The `snapshot -i` lines, without the values and focus a step changed."""
    return [line.split(":")[0].replace(" [active]", "") for line in output.splitlines()]


def every(result) -> list[str]:
    """Each line of the step's diff, also those its short text cut (the data has all)."""
    from cockpit.core.page.changeset import diff_line
    return [diff_line(change)[1] for change in result.data["diff"]["changes"]]


async def streamlit(s, url: str) -> str:
    await ok(s, f"goto {url}")
    await ok(s, 'wait --text "Current:" --timeout 30000')
    await ok(s, "wait 'input[type=checkbox]'")  # the last widget drawn
    return (await ok(s, "snapshot -i")).output


async def test_streamlit_selectbox_hides_the_page_in_one_line(s, data_app):
    before = await streamlit(s, data_app)
    box = ref_of(s, "combobox", "Category")
    opened = await ok(s, f"click {box}")
    listbox = ref_of(s, "listbox", "Category")
    lines = opened.output.splitlines()
    assert f'~ page hidden behind {listbox} listbox "Category Open"' in lines[1:3], lines
    assert not [line for line in every(opened) if '-> ""' in line or "ref:" in line], lines
    assert f'~ {box} combobox "Category" (expanded: - -> true)' in every(opened)
    chosen = await ok(s, f"click {ref_of(s, 'option', 'Kitchen')}")
    lines = chosen.output.splitlines()
    assert "~ page shown again" in lines[1:3], lines
    assert f'~ {box} combobox "Category" (text: "Garden" -> "Kitchen"; expanded: true -> -)' \
        in every(chosen)
    assert not [line for line in every(chosen) if '-> ""' in line or "ref:" in line], lines
    after = (await ok(s, "snapshot -i")).output
    # every element hidden and shown again kept its ref ("Place order" Streamlit itself
    # re-renders: its old ref still finds it)
    lost = [r for r in refs(before) if r not in refs(after) and "Place order" not in r]
    assert not lost and len(refs(before)) > 5, (before, after)
    await ok(s, f"fill {ref_of(s, 'textbox', 'Note')} soon")


async def test_streamlit_text_input_with_a_placeholder_shows_its_value(s, data_app):
    await streamlit(s, data_app)
    note = ref_of(s, "textbox", "Note")
    await ok(s, f"fill {note} 'leave at the door'")
    await ok(s, "press Enter")
    flat = (await ok(s, "snapshot -i")).output
    assert f'{note} textbox "Note"' in flat
    assert next(line for line in flat.splitlines() if line.startswith(note + " ")).endswith(
        ": leave at the door")


async def test_marimo_command_palette_hides_the_page_in_one_line(s, notebook):
    await ok(s, f"goto {notebook}")
    await ok(s, 'wait --text "Size" --timeout 60000')  # the kernel starts
    before = (await ok(s, "snapshot -i")).output
    await ok(s, f"click {ref_of(s, 'button', 'Config')}")
    palette = await ok(s, f"click {ref_of(s, 'menuitem', 'Command palette')}")
    lines = palette.output.splitlines()
    [hid] = [line for line in lines[1:3] if line.startswith("~ page hidden behind @")]
    assert "dialog" in hid, lines
    # the Config menu, which closed, is what the diff says went; not the page behind
    assert [line for line in lines if line.startswith("- ")] == \
        [line for line in lines if line.startswith("- ") and "menu" in line], lines
    closed = await ok(s, "press Escape")
    lines = closed.output.splitlines()
    assert "~ page shown again" in lines[1:3], lines
    assert len(lines) < 12, lines
    after = (await ok(s, "snapshot -i")).output
    kept = set(refs(before)) & set(refs(after))
    assert len(kept) > 0.8 * len(refs(before)), (before, after)
    await ok(s, f"click {ref_of(s, 'button', 'Config')}")
