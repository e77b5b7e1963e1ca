"""What the page report says about fields, popovers and lists, on small pages in a real
browser: a field's live value whatever its attributes (never a password's), a popover
that aria-hides the page as one line with every ref kept, a custom-styled checkbox checked
through its label, and removed rows and chosen options named by what the user sees."""

from __future__ import annotations

from conftest import ok, page, ref_of

from cockpit.core.mask import MASK


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
    full = (await ok(s, "snapshot")).output
    assert "- text: Lyon" in full and "/placeholder: Where?" in full  # Playwright's form
    for shown in (flat, full, s.active.snapshot.raw):
        assert "s3cr3t-pin" not in shown
