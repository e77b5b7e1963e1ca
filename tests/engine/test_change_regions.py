"""The parts of a page an action's diff snapshots: as narrow as what changed (a toast that
came and went is no change at all; a class on one row is that row, not its list), and
still right where CSS makes one element's attribute show another."""

from __future__ import annotations

from conftest import ok, page, ref_of

from cockpit.core.page import changes
async def test_a_toast_that_came_and_went_keeps_the_diff_incremental(s, base, fulls):
    # the page shows "Saving..." in a toast on <body> and takes it away again: the body is
    # as it was, so the diff comes from what changed, not from a full snapshot
    await ok(s, f"goto {base}" + page("regions-toast", (
        "<button onclick=\"const t = document.createElement('div'); t.textContent ="
        " 'Saving...'; document.body.append(t); setTimeout(() => { t.remove();"
        " document.getElementById('out').textContent = 'saved'; }, 50)\">Save</button>"
        "<p id=out>idle</p>")))
    await ok(s, "snapshot -i")
    before = fulls["n"]
    r = await ok(s, f"click {ref_of(s, 'button', 'Save')}")
    assert '"idle" -> "saved"' in r.output and "Saving" not in r.output, r.output
    assert fulls["n"] == before, "a toast that came and went made the diff a full snapshot"


ROWS = "".join(f"<div class=row><span>Row {i}</span><button onclick=\"this.parentElement"
               f".classList.add('done'); this.previousElementSibling.textContent = 'Row {i} "
               f"done'\">Finish {i}</button></div>" for i in range(1, 31))


async def test_a_class_on_one_row_snapshots_that_row_not_its_list(s, base, monkeypatch):
    regions: list[str] = []
    original = changes._main_regions

    async def spying(frame, before, asked, names):
        regions.extend(path for path, _depth in asked)
        return await original(frame, before, asked, names)

    monkeypatch.setattr(changes, "_main_regions", spying)
    await ok(s, f"goto {base}" + page("regions-rows", f"<div id=rows>{ROWS}</div>"))
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'button', 'Finish 5')}")
    assert '"Row 5" -> "Row 5 done"' in r.output, r.output
    assert regions and all(path.startswith("#rows > div:nth-child(5)") for path in regions), \
        regions


async def test_a_class_that_shows_a_sibling_through_css_shows_it_in_the_diff(s, base):
    # `.open + .panel` shows the panel when its button gets the class: the button's own
    # region does not hold the panel, the sibling rule's match does
    await ok(s, f"goto {base}" + page("regions-sibling", (
        "<div><button class=toggle onclick=\"this.classList.add('open')\">Open</button>"
        "<div class=panel><a href='#in'>Panel link</a></div></div>"),
        head="<style>.panel { display: none } .toggle.open + .panel { display: block }"
             "</style>"))
    await ok(s, "snapshot -i")
    r = await ok(s, f"click {ref_of(s, 'button', 'Open')}")
    assert 'link "Panel link"' in r.output, r.output


PARTS = "<p id=out>one</p><p id=other>still</p>"


async def _changed(s, js: str) -> dict:
    """Change the page, then ask its change tracker (as a settling probe does)."""
    page = s.active.page
    await page.evaluate(js)
    return await page.evaluate(changes.QUERY_JS, False)


async def test_regions_snapshotted_while_settling_are_kept_when_nothing_changed_since(
        s, base, monkeypatch):
    await ok(s, f"goto {base}" + page("regions-prepared", PARTS))
    await ok(s, "snapshot -i")
    tab, before = s.active, s.active.snapshot
    answered = [await _changed(s, "document.getElementById('out').textContent = 'two'")]
    prepared = await changes.prepare(tab, before, answered)
    assert prepared is not None and prepared.upto == 1
    taken: list[object] = []
    original = changes._main_regions

    async def spying(*args):
        taken.append(args)
        return await original(*args)

    monkeypatch.setattr(changes, "_main_regions", spying)
    got = await changes.update(tab, before, lambda value: None, answered, prepared=prepared)
    assert got is not None
    assert '"one" -> "two"' in got[1].text(), got[1].text()
    assert not taken, "the regions were snapshotted again though nothing changed since"


async def test_a_change_after_the_regions_were_snapshotted_is_in_the_diff(s, base):
    # the app renders again after settling's look (a socket's last message): the regions
    # snapshotted at that look are stale, and the diff says what the page shows now
    await ok(s, f"goto {base}" + page("regions-prepared-stale", PARTS))
    await ok(s, "snapshot -i")
    tab, before = s.active, s.active.snapshot
    answered = [await _changed(s, "document.getElementById('out').textContent = 'two'")]
    prepared = await changes.prepare(tab, before, answered)
    assert prepared is not None
    answered.append(await _changed(s, "document.getElementById('out').textContent = 'three';"
                                      "document.getElementById('other').textContent = 'now'"))
    got = await changes.update(tab, before, lambda value: None, answered, final=True,
                               prepared=prepared)
    assert got is not None
    text = got[1].text()
    assert '"one" -> "three"' in text and '"still" -> "now"' in text, text
    assert "two" not in text, text
