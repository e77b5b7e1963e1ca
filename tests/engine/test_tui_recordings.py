"""The recordings screen (F12): browse a recording's steps and diffs without a browser, and
walk through one in the live session, recorded and replayed diffs side by side."""

from __future__ import annotations

from conftest import ok
from test_tui import app_for, until
from textual.widgets import DataTable, Static

from cockpit.record.recorder import Recorder
from cockpit.tui.recordings import RecordingsScreen


async def record(s, site, path) -> None:
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"goto {site.url}/login")
        await ok(s, "snapshot -i")
        email = next(r for r, n in s.active.snapshot.refs.items() if n.name == "Email")
        await ok(s, f"fill @{email} {site.email}")
    finally:
        recorder.close()


def cell(app, row: int, column: int) -> str:
    return str(app.screen.query_one("#recording-steps", DataTable).get_cell_at((row, column)))


async def test_browse_a_recording_then_walk_through_it(s, site, tmp_path, monkeypatch):
    monkeypatch.setenv("COCKPIT_RECORDINGS_DIR", str(tmp_path))
    await record(s, site, tmp_path / "walk.jsonl")
    (tmp_path / "broken.jsonl").write_text("not a recording\n")
    await ok(s, "goto about:blank")
    app = app_for(s)
    async with app.run_test(size=(180, 50)) as pilot:
        await pilot.press("f12")
        await until(pilot, lambda: isinstance(app.screen, RecordingsScreen))
        files = app.screen.query_one("#recordings-list", DataTable)
        assert files.row_count == 2
        names = [str(files.get_cell_at((r, 0))) for r in range(2)]
        files.move_cursor(row=names.index("walk.jsonl"))
        # Enter goes to the focused widget: the list takes the focus as the screen mounts,
        # which a loaded machine may not have done yet when a test (not a person) types
        await until(pilot, lambda: files.has_focus)
        await pilot.press("enter")
        steps = app.screen.query_one("#recording-steps", DataTable)
        await until(pilot, lambda: steps.row_count == 3)
        assert cell(app, 2, 2).startswith("fill @") and cell(app, 2, 3) == "ok"
        recorded = str(app.screen.query_one("#recorded-side", Static).render())
        assert "recorded · step 1: goto" in recorded and "new page" in recorded
        await pilot.press("n")  # the walkthrough: one step
        await until(pilot, lambda: cell(app, 0, 6) == "as recorded")
        assert s.active.url == f"{site.url}/login" and cell(app, 1, 6) == ""
        steps.move_cursor(row=2)
        await pilot.press("g")  # run to the selected step
        await until(pilot, lambda: cell(app, 2, 6) == "as recorded")
        replayed = str(app.screen.query_one("#replayed-side", Static).render())
        assert replayed.startswith("now · same: fill @")
        await pilot.press("escape")
        assert not isinstance(app.screen, RecordingsScreen)


async def record_a_sign_in(s, site, path) -> None:
    """A walk that types the password: recorded as `$PASSWORD`, its value masked."""
    recorder = Recorder(s, path).start()
    try:
        await ok(s, f"goto {site.url}/login")
        await ok(s, "snapshot -i")
        field = next(r for r, n in s.active.snapshot.refs.items() if n.name == "Password")
        await ok(s, f"fill @{field} {site.password}")
    finally:
        recorder.close()


async def open_walk(app, pilot) -> None:
    await pilot.press("f12")
    await until(pilot, lambda: isinstance(app.screen, RecordingsScreen))
    await until(pilot, lambda: app.screen.query_one("#recordings-list", DataTable).has_focus)
    await pilot.press("enter")  # the only recording


async def test_the_walkthrough_asks_for_a_missing_secret_or_skips_its_steps(
        s, site, tmp_path, monkeypatch):
    from cockpit.tui.recordings import SecretScreen
    monkeypatch.setenv("COCKPIT_RECORDINGS_DIR", str(tmp_path))
    await record_a_sign_in(s, site, tmp_path / "signin.jsonl")
    assert "PASSWORD" not in s.secret_names
    password = "#password"
    try:
        app = app_for(s)
        async with app.run_test(size=(180, 50)) as pilot:
            await open_walk(app, pilot)
            await until(pilot, lambda: isinstance(app.screen, SecretScreen))
            await pilot.press(*site.password, "enter")  # typed in the masked dialog
            await until(pilot, lambda: isinstance(app.screen, RecordingsScreen))
            assert "PASSWORD" in s.secret_names
            app.screen.query_one("#recording-steps", DataTable).move_cursor(row=2)
            await pilot.press("g")
            await until(pilot, lambda: cell(app, 2, 6) == "as recorded")
            assert await s.active.page.input_value(password) == site.password
        s.secrets.values.pop("PASSWORD")
        await ok(s, "goto about:blank")
        app = app_for(s)
        async with app.run_test(size=(180, 50)) as pilot:
            await open_walk(app, pilot)
            await until(pilot, lambda: isinstance(app.screen, SecretScreen))
            await pilot.press("escape")  # not given: its step is skipped, never typed
            await until(pilot, lambda: isinstance(app.screen, RecordingsScreen))
            app.screen.query_one("#recording-steps", DataTable).move_cursor(row=2)
            await pilot.press("g")
            await until(pilot, lambda: cell(app, 2, 6) == "skipped")
            assert cell(app, 1, 6) == "as recorded"
            assert "$PASSWORD, which this session was not given" in str(
                app.screen.query_one("#replayed-side", Static).render())
            assert await s.active.page.input_value(password) == ""
    finally:
        s.secrets.values.pop("PASSWORD", None)


async def test_the_walkthrough_stops_at_a_step_on_the_wrong_page(s, site, tmp_path,
                                                                  monkeypatch):
    """`g` to the last step stops at the first divergence, as `cockpit replay` does: the
    step recorded on the sign-in page is refused on another page and says where it is;
    `n` goes on (refused again: still the wrong page)."""
    monkeypatch.setenv("COCKPIT_RECORDINGS_DIR", str(tmp_path))
    recorder = Recorder(s, tmp_path / "walk.jsonl").start()
    try:
        await ok(s, f"goto {site.url}/login")
        await ok(s, "snapshot -i")
        email = next(r for r, n in s.active.snapshot.refs.items() if n.name == "Email")
        await ok(s, f"fill @{email} {site.email}")
        await ok(s, f"fill @{email} {site.email}")
    finally:
        recorder.close()
    await ok(s, "goto about:blank")
    app = app_for(s)
    async with app.run_test(size=(180, 50)) as pilot:
        await pilot.press("f12")
        await until(pilot, lambda: isinstance(app.screen, RecordingsScreen))
        await until(pilot, lambda: app.screen.query_one("#recordings-list",
                                                        DataTable).has_focus)
        await pilot.press("enter")
        steps = app.screen.query_one("#recording-steps", DataTable)
        await until(pilot, lambda: steps.row_count == 4)
        await pilot.press("n")
        await until(pilot, lambda: cell(app, 0, 6) == "as recorded")
        await ok(s, f"goto {site.url}/reference")  # meanwhile, the page was moved on
        steps.move_cursor(row=3)
        await pilot.press("g")
        await until(pilot, lambda: cell(app, 1, 6) == "DIVERGED", timeout=20)
        await until(pilot, lambda: not app.screen.walking, timeout=20)
        assert cell(app, 2, 6) == "" and cell(app, 3, 6) == ""  # stopped there
        replayed = str(app.screen.query_one("#replayed-side", Static).render())
        assert "wrong page: recorded on tab 1" in replayed and "/reference" in replayed
        await pilot.press("n")  # goes on
        await until(pilot, lambda: cell(app, 2, 6) == "DIVERGED", timeout=20)
