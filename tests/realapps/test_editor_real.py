"""A code editor of a real app (Datasette's SQL editor, a CodeMirror 5) filled as a person
would: its whole text replaced. CodeMirror takes input through a small textarea of its own
that holds none of the query, so selecting that textarea's value and inserting (as
Playwright's `fill` does) put the new query in front of the old one: `select 1` became
`select category … by categoryselect 1`, and the result said only "filled"."""

from __future__ import annotations

from conftest import ok, ref_of

QUERY = "select category, count(*) as n from products group by category order by category"


async def editor_text(s) -> str:
    return str(await s.active.page.evaluate(
        "document.querySelector('.CodeMirror').CodeMirror.getValue()"))


async def test_fill_replaces_the_whole_query_in_a_code_editor(s, explorer):
    await ok(s, f"goto {explorer}/shop?sql=select+1")
    await ok(s, "snapshot -i")
    await ok(s, f'fill {ref_of(s, "textbox", "")} "{QUERY}"')
    assert await editor_text(s) == QUERY
    ran = await ok(s, f'click {ref_of(s, "button", "Run SQL")}')
    assert "group by category order by category" in ran.output  # the new page's title
    assert "select 1" not in ran.output
    table = await ok(s, "text")
    for category, count in (("Garden", 10), ("Kitchen", 10), ("Tools", 10)):
        assert f"{category}\t{count}" in table.output, table.output


async def test_fill_by_selector_replaces_it_too(s, explorer):
    """A selector goes Playwright's checked way: the editor's select-all first there too."""
    await ok(s, f"goto {explorer}/shop?sql=select+1")
    await ok(s, "fill '.CodeMirror textarea' 'select 2'")
    assert await editor_text(s) == "select 2"
    await ok(s, "fill '.CodeMirror textarea' ''")
    assert await editor_text(s) == ""


async def test_a_recorded_editor_fill_replays_and_its_export_selects_with_the_keys(
        s, explorer, tmp_path):
    """The recording says the fill selected with the keys; the export does the same, so
    the exported test runs the query that was recorded (Playwright's `fill` alone put it in
    front of the old one, and the test failed on the URL)."""
    from cockpit.record import export
    from cockpit.record.reader import read
    from cockpit.record.recorder import Recorder

    path = tmp_path / "walk.jsonl"
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"goto {explorer}/shop?sql=select+1")
        await ok(s, "snapshot -i")
        await ok(s, f'fill {ref_of(s, "textbox", "")} "select 2"')
    finally:
        recorder.close()
    recording = read(path)
    fill = [step for step in recording.steps if step["command"].startswith("fill")]
    assert fill and fill[0].get("select_all") is True, recording.steps
    assert not recording.problems
    code = export.to_pytest(recording, "walk")
    assert code.index(".press('ControlOrMeta+a')") < code.index(".fill('select 2')")


async def test_a_query_the_server_refuses_says_its_error_first(s, explorer):
    """Datasette answers a query it cannot run with the page again, its error in a
    `<p class="message-error">` (no role): the result says it, not only the new page's
    title (the result said `new page …: "shop: select nope …"` and its controls)."""
    await ok(s, f"goto {explorer}/shop?sql=select+1")
    await ok(s, "snapshot -i")
    await ok(s, f'fill {ref_of(s, "textbox", "")} "select nope from products"')
    ran = await ok(s, f'click {ref_of(s, "button", "Run SQL")}')
    lines = ran.output.splitlines()
    assert lines[1].startswith("new page ") and "select nope from products" in lines[1]
    assert lines[2] == "alert: no such column: nope", ran.output
