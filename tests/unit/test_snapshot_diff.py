"""Parsing and rendering snapshots, and ref-keyed diffs (no browser needed)."""

from cockpit.core.page.diff import diff
from cockpit.core.page.render import View, render
from cockpit.core.model.snapshot import Snapshot

PAGE = """- generic [active] [ref=e1]:
  - heading "Inbox" [level=1] [ref=e2]
  - navigation [ref=e3]:
    - link "Home" [ref=e4] [cursor=pointer]:
      - /url: /
  - generic [ref=e5]:
    - generic [ref=e6]:
      - text: Email
      - textbox "Email" [ref=e7]: jane@example.com
    - 'button "Save: now" [ref=e9]'
    - combobox "Color" [ref=e10]:
      - option "Red" [selected]
      - option "Green"
    - checkbox "Remember" [ref=e11]
  - list [ref=e14]:
    - listitem [ref=e15]: one
    - listitem [ref=e16]: two
"""


def snap(text: str, doc: str = "d1", url: str = "http://x/") -> Snapshot:
    return Snapshot.from_text(text, doc=doc, url=url)


def test_parse_keeps_roles_names_values_props_and_refs():
    s = snap(PAGE)
    assert s.refs["e7"].role == "textbox" and s.refs["e7"].name == "Email"
    assert s.refs["e7"].value == "jane@example.com"
    assert s.refs["e9"].name == "Save: now"  # a quoted key with ': ' inside the name
    assert s.refs["e4"].props["/url"] == "/"
    assert s.refs["e2"].attr("level") == "1"


def test_full_render_reads_like_playwright():
    out = render(snap(PAGE), View())
    assert '- heading "Inbox" [level=1] [ref=e2]' in out
    assert '  - textbox "Email" [ref=e7]: jane@example.com' in out.replace("    - textbox",
                                                                           "  - textbox")
    assert "/url: /" in out


def test_interactive_keeps_controls_and_named_headings_only():
    out = render(snap(PAGE), View(interactive=True)).splitlines()
    assert out[0] == '@e2 heading "Inbox"'  # a flat list has no outline: no level
    assert '@e4 link "Home"' in out  # targets only with -u
    assert '@e4 link "Home" -> /' in render(snap(PAGE), View(interactive=True,
                                                             urls=True)).splitlines()
    assert '@e10 combobox "Color": Red' in out
    assert '@e7 textbox "Email": jane@example.com' in out
    assert '@e11 checkbox "Remember"' in out
    # the ref leads the line and is not repeated as a mark
    assert all(line.startswith("@e") and "[ref=" not in line for line in out)
    assert not any("listitem" in line or "generic" in line for line in out)


def test_compact_drops_unnamed_wrappers():
    out = render(snap(PAGE), View(compact=True))
    assert "generic [ref=e6]" not in out and "generic [ref=e5]" not in out
    assert 'textbox "Email"' in out and "listitem [ref=e15]: one" in out


def test_depth_and_scope():
    shallow = render(snap(PAGE), View(depth=1))
    assert shallow.splitlines() == ["- generic [active] [ref=e1]"]
    scoped = render(snap(PAGE), View(scope="e14"))
    assert scoped.splitlines()[0] == "- list [ref=e14]:" and "heading" not in scoped


def test_one_inserted_row_is_one_added_line():
    after = PAGE.replace("    - listitem [ref=e15]: one",
                         "    - listitem [ref=e20]: zero\n    - listitem [ref=e15]: one")
    d = diff(snap(PAGE), snap(after))
    assert [c.line for c in d.changes] == ["+ @e20 listitem: zero"]
    assert d.summary == "+1 -0 ~0"


def test_value_and_state_changes_are_changes_of_that_ref():
    after = PAGE.replace('checkbox "Remember" [ref=e11]', 'checkbox "Remember" [checked] [ref=e11]')
    after = after.replace(": jane@example.com", ": joe@example.com")
    d = diff(snap(PAGE), snap(after))
    lines = {c.ref: c for c in d.changes}
    assert set(lines) == {"e7", "e11"}
    assert lines["e11"].fields == {"checked": (None, True)}
    assert lines["e7"].fields["text"] == ("jane@example.com", "joe@example.com")


def test_renamed_element_is_one_change_not_remove_and_add():
    after = PAGE.replace("'button \"Save: now\" [ref=e9]'", 'button "Saved" [ref=e21]')
    d = diff(snap(PAGE), snap(after))
    assert len(d.changes) == 1
    change = d.changes[0]
    assert change.kind == "changed" and change.fields["name"] == ("Save: now", "Saved")
    assert change.fields["ref"] == ("e9", "e21")


def test_no_change_and_new_page():
    assert diff(snap(PAGE), snap(PAGE)).summary == "No change"
    other = diff(snap(PAGE), snap(PAGE, doc="d2", url="http://x/next"))
    assert other.new_page and other.summary.startswith("new page http://x/next")


def test_the_text_says_a_summary_in_the_words_it_needs():
    # the data's summary says it all; the result's text leaves out zero counts, the counts
    # when it shows every line (the lines say them), and what a URL kept (the agent knows
    # where it was)
    after = PAGE.replace("    - listitem [ref=e15]: one",
                         "    - listitem [ref=e20]: zero\n    - listitem [ref=e15]: one")
    one = diff(snap(PAGE), snap(after))
    assert one.text(limit=8) == "+ @e20 listitem: zero" and one.summary == "+1 -0 ~0"
    more = "\n".join(f"    - listitem [ref=e{30 + i}]: new {i}" for i in range(10))
    cut = diff(snap(PAGE), snap(after.replace("    - listitem [ref=e20]: zero", more)))
    assert cut.text(limit=8).splitlines()[0] == "+10"  # cut: how many there are in all
    moved = diff(snap(PAGE, url="http://x/a"), snap(after, doc="d2", url="http://x/b?n=1"))
    assert moved.summary.startswith("new page http://x/b?n=1, +")
    assert moved.text(limit=8) == f"new page /b?n=1, +{moved.count('added')}"
    away = diff(snap(PAGE, url="http://x/a"), snap(PAGE, doc="d2", url="https://y/a"))
    assert away.text(limit=8).startswith("new page https://y/a, +")


def test_focus_moving_is_not_a_change():
    after = PAGE.replace("- generic [active] [ref=e1]:", "- generic [ref=e1]:").replace(
        'checkbox "Remember" [ref=e11]', 'checkbox "Remember" [active] [ref=e11]')
    assert diff(snap(PAGE), snap(after)).empty


def test_render_round_trips_playwright_quoting():
    text = ('- paragraph [ref=e1]:\n  - text: "See also:"\n  - link "x" [ref=e2]:\n'
            '    - /url: "#section-4"\n  - text: ","\n  - code [ref=e3]: "[bold]: yes"')
    assert render(snap(text), View()) == text


def test_a_result_tells_a_removed_subtree_on_one_line():
    """A row removed with its button: one line naming what it held; a named list with its
    rows: one line with how many went inside. `snapshot -D` (no limit) lists every one."""
    from cockpit.core.page.changeset import Change, Diff
    d = Diff(changes=[Change("removed", "e13", "listitem", ""),
                      Change("removed", "e14", "button", "Archive Pay the rent", inside=True),
                      Change("removed", "e8", "list", "Tasks"),
                      Change("removed", "e9", "listitem", "", inside=True),
                      Change("removed", "e10", "button", "Archive X", inside=True)])
    lines = d.text(limit=8).splitlines()
    assert lines == ['- @e13 listitem (with @e14 button "Archive Pay the rent")',
                     '- @e8 list "Tasks" (and 2 inside)']
    said = d.text(limit=8, said='clicked @e14 (button "Archive Pay the rent")')
    assert "- @e13 listitem (with @e14)" in said
    assert len(d.text().splitlines()) == 6  # every removal, for snapshot -D


def test_a_list_emptied_of_its_rows_is_one_removal():
    # Playwright gives the emptied list no ref (it has no box): its name is no text of its
    # parent's, so the diff is the list's removal alone
    before = ('- main [ref=e2]:\n  - heading "Tasks" [level=1] [ref=e3]\n'
              '  - list "Tasks" [ref=e8]:\n    - listitem [ref=e9]: Pay the rent\n'
              '  - status [ref=e20]')
    after = ('- main [ref=e2]:\n  - heading "Tasks" [level=1] [ref=e3]\n'
             '  - list "Tasks"\n  - status [ref=e20]: All deleted')
    d = diff(snap(before), snap(after))
    assert sorted((c.kind, c.ref) for c in d.changes) == [
        ("changed", "e20"), ("removed", "e8"), ("removed", "e9")], [c.line for c in d.changes]


def test_a_value_given_below_a_placeholder_is_the_fields_value():
    """Playwright writes a field's value on a `text:` line when the field also shows a
    `/placeholder`: it is the field's value for every view, and renders back as it was."""
    text = ('- textbox "Note" [ref=e3]:\n  - /placeholder: Anything\n  - text: hello there\n'
            '- textbox "Empty" [ref=e4]:\n  - /placeholder: ""')
    shot = snap(text)
    assert shot.refs["e3"].value == "hello there" and not shot.refs["e3"].children
    assert render(shot, View(interactive=True)).splitlines() == [
        '@e3 textbox "Note": hello there', '@e4 textbox "Empty"']
    assert render(shot, View()) == text


def test_a_removed_row_is_told_by_its_words():
    """`- @e8 listitem (with @e9)` said a row went, not which: a nameless element removed
    says its own words (its row's text, not its button's), cut at a word's end."""
    long = "Ask the landlord about the broken boiler before the cold weather arrives"
    rows = ('- list "Tasks" [ref=e7]:\n'
            '  - listitem [ref=e8]:\n    - text: Pay the rent\n'
            '    - button "Archive Pay the rent" [ref=e9]: Archive\n'
            f'  - listitem [ref=e10]:\n    - text: {long}\n'
            '  - listitem [ref=e11]:\n    - text: Water the plants\n')
    after = '- list "Tasks" [ref=e7]:\n  - listitem [ref=e11]:\n    - text: Water the plants\n'
    d = diff(snap(rows), snap(after))
    lines = d.text(limit=8, said='clicked @e9 (button "Archive Pay the rent")').splitlines()
    assert lines == ["- @e8 listitem: Pay the rent (with @e9)",
                     "- @e10 listitem: Ask the landlord about the broken boiler before the cold…"]


def test_a_cut_diff_keeps_what_appeared_with_words_over_bare_wrappers():
    """A popover's nameless wrappers (`+ @e46 generic`) say nothing: when the lines are
    cut, the listbox and every option are kept before them."""
    from cockpit.core.page.changeset import Change, Diff
    d = Diff(changes=[Change("added", "e1", "generic", ""), Change("added", "e2", "log", ""),
                      Change("added", "e3", "generic", ""),
                      Change("added", "e4", "listbox", "Category")] +
             [Change("added", f"e{5 + i}", "option", name)
              for i, name in enumerate(["Garden", "Kitchen", "Tools", "Pots", "Seeds"])] +
             [Change("added", "e10", "button", "Dismiss")])
    lines = d.text(limit=8).splitlines()
    assert lines[1:8] == ['+ @e4 listbox "Category"', '+ @e5 option "Garden"',
                          '+ @e6 option "Kitchen"', '+ @e7 option "Tools"',
                          '+ @e8 option "Pots"', '+ @e9 option "Seeds"',
                          '+ @e10 button "Dismiss"'], lines
