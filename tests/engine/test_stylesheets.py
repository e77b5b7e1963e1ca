"""Other origins' stylesheets read for the change tracker (core/stylesheets.py): only what
the browser takes as a stylesheet, only this machine's files, and rules it cannot place
leave the page on full snapshots."""

from __future__ import annotations

from conftest import page, stylesheet

from cockpit.core.browser.attach import Attach
from cockpit.core.page.stylesheets import StylesheetRules, reads_local_files


async def test_what_is_read_and_what_is_given(s, base, tmp_path):
    rules = StylesheetRules(local_files=True)
    context = s.active.page.context
    (tmp_path / "notes.txt").write_text("a:hover { display: none }")
    (tmp_path / "ok.css").write_text(
        "@media (min-width: 1px) { .m:focus-within > p { display: block; color: red } }"
        "@font-face { font-family: x } .plain { width: 1px }")
    (tmp_path / "nested.css").write_text(".n { color: red; &:hover { display: none } }")
    (tmp_path / "imports-missing.css").write_text('@import "gone.css"; .x { width: 1px }')
    html = base + page("sheets-html", "not a stylesheet")
    css = base + stylesheet("sheets-css", ".c:checked ~ div { display: none }")
    got = await rules.rules(context, [f"file://{tmp_path}/{name}" for name in (
        "notes.txt", "ok.css", "nested.css", "imports-missing.css")] + [html, css])
    assert got == {
        f"file://{tmp_path}/ok.css": [(".m:focus-within > p", ["display", "color"]),
                                      (".plain", ["width"])],
        css: [(".c:checked ~ div", ["display"])],
    }
    # another machine's browser: its file:// is not this disk
    remote = StylesheetRules(local_files=False)
    assert await remote.rules(context, [f"file://{tmp_path}/ok.css"]) == {}


def test_which_browsers_read_this_machines_files():
    assert reads_local_files(None)
    assert reads_local_files(Attach("cdp", "auto"))
    assert reads_local_files(Attach("cdp", "http://127.0.0.1:9222"))
    assert reads_local_files(Attach("ws", "ws://localhost:3000/abc"))
    assert not reads_local_files(Attach("cdp", "http://10.0.0.7:9222"))
    assert not reads_local_files(Attach("ws", "wss://browser.example.com/x"))
