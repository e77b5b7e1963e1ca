"""YAML themes: validation, the theme dirs, `cockpit themes`, and hot reload in a running
app (Pilot over a browserless session)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from textual.color import Color

from cockpit.tui.app import CockpitApp
from cockpit.tui.theme_watch import ThemeReloader
from cockpit.tui.themes import (APP_VARIABLES, THEME_FIELDS, Problem, ThemeRefused,
                                load_theme, load_themes, theme_dirs)
from tui_fake import FakeSession


def themes_main(argv: list[str]) -> int:
    """`cockpit themes` as the command line runs it (the face lives in cockpit.cli)."""
    from cockpit.cli import main
    return main(["themes", *argv])

SHIPPED = Path(__file__).resolve().parents[2] / "themes"
GOOD = """\
name: {name}
dark: true
primary: "#5AA9E6"
background: "{background}"
variables:
  ref: "#7DCFFF"
"""


@pytest.fixture
def user_dir(monkeypatch, tmp_path) -> Path:
    """An empty user theme dir in a temporary XDG_CONFIG_HOME."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    folder = tmp_path / "config" / "cockpit" / "themes"
    folder.mkdir(parents=True)
    return folder


def refusal(tmp_path: Path, text: str) -> list[Problem]:
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ThemeRefused) as caught:
        load_theme(path)
    assert all(p.file == path for p in caught.value.problems)
    assert str(path) in str(caught.value)
    return caught.value.problems


# --- loading and validation --------------------------------------------------------------
def luminance(colour: str) -> float:
    def channel(v: int) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    c = Color.parse(colour)
    return 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b)


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_shipped_theme_loads_sets_the_app_variables_and_is_readable():
    files = sorted(SHIPPED.glob("*.yaml"))
    assert len(files) >= 3
    loaded = load_themes([SHIPPED])
    assert loaded.errors == []
    assert {"cockpit-dark", "cockpit-light", "cockpit-high-contrast"} <= set(loaded.themes)
    assert sorted(loaded.files.values()) == files
    for theme in loaded.themes.values():
        assert set(APP_VARIABLES) <= set(theme.variables), theme.name
        texts = [theme.foreground] + [theme.variables[v] for v in APP_VARIABLES]
        for ground in (theme.background, theme.surface):
            worst = min(contrast(text, ground) for text in texts)
            assert worst >= 4.5, (theme.name, ground, worst)  # WCAG AA for text


def test_every_textual_theme_field_is_accepted(tmp_path):
    path = tmp_path / "full.yaml"
    path.write_text((SHIPPED / "cockpit-high-contrast.yaml").read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    for key in THEME_FIELDS:  # the shipped example really shows them all
        assert f"\n{key}:" in text or text.startswith(f"{key}:"), key
    theme = load_theme(path)
    assert theme.text_alpha == 1.0 and theme.ansi is False and theme.boost is not None


def test_unknown_key_is_refused_with_file_line_key_and_reason(tmp_path):
    [problem] = refusal(tmp_path, 'name: x\nprimary: "#5AA9E6"\nprimray: "#000000"\n')
    assert (problem.key, problem.line) == ("primray", 3)
    assert "unknown key" in problem.reason and "primary" in problem.reason
    assert str(problem).startswith(f"{problem.file}: line 3: primray: unknown key")


@pytest.mark.parametrize("colour", ["#12345G", "not-a-colour", 12])
def test_bad_colour_is_refused(tmp_path, colour):
    value = f'"{colour}"' if isinstance(colour, str) else colour
    problems = refusal(tmp_path, f'primary: "#5AA9E6"\nbackground: {value}\n')
    [problem] = problems
    assert (problem.key, problem.line) == ("background", 2)
    assert repr(colour) in problem.reason and "colour" in problem.reason


def test_bad_app_variable_is_refused_and_other_variables_are_free(tmp_path):
    problems = refusal(tmp_path, 'primary: "#5AA9E6"\nvariables:\n  diff-added: "grene"\n'
                                 '  my-own-thing: "bold"\n  ref: 7\n')
    assert [(p.key, p.line) for p in problems] == [("variables.diff-added", 3),
                                                   ("variables.ref", 5)]
    assert "'grene' is not a colour" in problems[0].reason
    assert "not a string" in problems[1].reason


def test_an_unquoted_hex_colour_is_refused_not_silently_dropped(tmp_path):
    problems = refusal(tmp_path, 'primary: "#5AA9E6"\nbackground: #101010\n'
                                 'variables:\n  ref: #7DCFFF\n')
    assert [(p.key, p.line) for p in problems] == [("background", 2), ("variables.ref", 4)]
    assert all("quote colours" in p.reason for p in problems)


def test_numbers_booleans_and_required_primary(tmp_path):
    problems = refusal(tmp_path, 'dark: "yes"\ntext_alpha: "0.9"\nluminosity_spread: 3\n'
                                 'ansi: 1\n')
    reasons = {p.key: p.reason for p in problems}
    assert "not true or false" in reasons["dark"] and "not true or false" in reasons["ansi"]
    assert "not a number" in reasons["text_alpha"]
    assert "outside 0..1" in reasons["luminosity_spread"]
    assert "is required" in reasons["primary"]


def test_yaml_syntax_error_is_reported_with_its_line(tmp_path):
    [problem] = refusal(tmp_path, 'name: x\nprimary: "#5AA9E6"\nvariables: [\n  ref: 1\n')
    assert problem.line is not None and problem.line >= 3
    assert "YAML syntax error" in problem.reason
    [problem] = refusal(tmp_path, "- just\n- a list\n")
    assert "must be a mapping" in problem.reason
    [problem] = refusal(tmp_path, 'primary: "#5AA9E6"\nprimary: "#000000"\n')
    assert (problem.key, problem.line) == ("primary", 2) and "twice" in problem.reason


def test_user_dir_comes_last_and_overrides_by_name(user_dir):
    assert theme_dirs()[-1] == user_dir
    (user_dir / "dark.yaml").write_text(GOOD.format(name="cockpit-dark",
                                                    background="#010203"))
    loaded = load_themes()
    assert loaded.themes["cockpit-dark"].background == "#010203"
    assert loaded.files["cockpit-dark"] == user_dir / "dark.yaml"
    assert "cockpit-light" in loaded.themes  # the shipped ones are still there


def test_themes_main_lists_themes_and_refusals(user_dir, capsys):
    assert themes_main([]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^cockpit-light +light +\S*cockpit-light.yaml$", out, re.M), out
    assert str(SHIPPED / "cockpit-light.yaml") in out
    (user_dir / "bad.yaml").write_text('primary: "not-a-colour"\nsecundary: "#000"\n')
    (user_dir / "mine.yaml").write_text(GOOD.format(name="mine", background="#101010"))
    assert themes_main([]) == 1
    captured = capsys.readouterr()
    assert f"{user_dir / 'mine.yaml'}" in captured.out and "mine" in captured.out
    refused = captured.err.splitlines()
    assert refused == [f"refused: {user_dir / 'bad.yaml'}: line 1: primary: 'not-a-colour' "
                       "is not a colour (write #RRGGBB, rgb(r,g,b), hsl(...) or a name)",
                       f"refused: {user_dir / 'bad.yaml'}: line 2: secundary: unknown key; "
                       f"known: {', '.join(sorted(THEME_FIELDS))}"]


# --- hot reload in a running app ---------------------------------------------------------
def record_notifications(app: CockpitApp) -> list[tuple[str, dict]]:
    """Every app.notify call as (message, keywords); the toasts are still shown."""
    notes: list[tuple[str, dict]] = []
    notify = app.notify
    app.notify = lambda message, **kw: (notes.append((message, kw)), notify(message, **kw))
    return notes


async def until(pilot, condition, timeout: float = 10.0, nudge=None) -> None:
    """Wait for `condition`; `nudge` (if given) is retried every second meanwhile, because
    a file written before the watcher is up is an event nobody sees."""
    deadline = last = time.monotonic()
    deadline += timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        if nudge and time.monotonic() - last > 1.0:
            nudge()
            last = time.monotonic()
        await pilot.pause(0.05)


async def test_hot_reload_recolours_refuses_bad_edits_and_finds_new_files(user_dir):
    path = user_dir / "mine.yaml"
    path.write_text(GOOD.format(name="mine", background="#101010"), encoding="utf-8")
    cockpit = CockpitApp(FakeSession(), pictures=False, theme="mine")
    notes = record_notifications(cockpit)
    old, new = Color.parse("#101010"), Color.parse("#204060")
    async with cockpit.run_test(headless=True, size=(120, 40)) as pilot:
        assert cockpit.theme == "mine" and cockpit.screen.styles.background == old

        # a good edit of the active theme: the screen and the CSS variables follow
        edited = GOOD.format(name="mine", background="#204060")
        await until(pilot, lambda: cockpit.screen.styles.background == new,
                    nudge=lambda: path.write_text(edited, encoding="utf-8"))
        assert cockpit.theme == "mine" and cockpit.current_theme.background == "#204060"
        assert Color.parse(cockpit.theme_variables["background"]) == new

        # a bad edit: refused, said in an error notification, the last good one stays
        path.write_text(edited.replace("#204060", "#20406G"), encoding="utf-8")
        await until(pilot, lambda: any(kw.get("severity") == "error" for _, kw in notes))
        message, kw = next((m, kw) for m, kw in notes if kw.get("severity") == "error")
        assert kw["markup"] is False and kw["title"] == "Theme refused"
        assert f"{path}: line 4: background: '#20406G' is not a colour" in message
        await pilot.pause()
        assert cockpit.screen.styles.background == new
        assert cockpit.current_theme.background == "#204060"

        # a Textual variable the app's CSS cannot take: refused too, and the app lives on
        notes.clear()
        path.write_text(edited + "  block-cursor-foreground: not-a-colour\n",
                        encoding="utf-8")
        await until(pilot, lambda: any(kw.get("severity") == "error" for _, kw in notes))
        message = next(m for m, kw in notes if kw.get("severity") == "error")
        assert f"{path}: variables.block-cursor-foreground:" in message
        await pilot.pause()
        assert cockpit.is_running and cockpit.screen.styles.background == new
        assert cockpit.current_theme.variables.get("block-cursor-foreground") is None

        # a new file: its theme becomes available, and can be switched to
        fresh = user_dir / "fresh.yaml"
        fresh.write_text(GOOD.format(name="fresh", background="#303030"), encoding="utf-8")
        await until(pilot, lambda: "fresh" in cockpit.available_themes)
        cockpit.theme = "fresh"
        grey = Color.parse("#303030")
        await until(pilot, lambda: cockpit.screen.styles.background == grey)


async def test_a_theme_the_css_cannot_take_falls_back_at_start(user_dir):
    path = user_dir / "odd.yaml"
    path.write_text(GOOD.format(name="odd", background="#101010")
                    + "  link-style: not-a-style\n", encoding="utf-8")
    cockpit = CockpitApp(FakeSession(), pictures=False, theme="odd")
    notes = record_notifications(cockpit)
    async with cockpit.run_test(headless=True, size=(120, 40)) as pilot:
        await pilot.pause()
        assert cockpit.theme == "cockpit-dark"
        assert cockpit.screen.styles.background == Color.parse("#14171C")
        assert any(f"{path}: variables.link-style:" in message and kw["severity"] == "error"
                   for message, kw in notes)


class StubApp:
    """What ThemeReloader uses of the app, recorded."""
    theme = "textual-dark"

    def __init__(self) -> None:
        self.registered: dict = {}
        self.notes: list[tuple[str, str]] = []

    def register_theme(self, theme) -> None:
        self.registered[theme.name] = theme

    def get_theme(self, name):
        return self.registered.get(name)

    def notify(self, message: str, **kw) -> None:
        self.notes.append((kw.get("severity", "information"), message))


def test_a_reloaded_file_does_not_beat_a_later_dir(tmp_path):
    shipped, user = tmp_path / "shipped", tmp_path / "user"
    shipped.mkdir(), user.mkdir()
    (shipped / "x.yaml").write_text(GOOD.format(name="x", background="#111111"))
    (user / "x.yaml").write_text(GOOD.format(name="x", background="#222222"))
    app = StubApp()
    reloader = ThemeReloader(app, load_themes([shipped, user]).files, [shipped, user])
    assert reloader.reload(shipped / "x.yaml") is None  # the user's x wins
    assert app.registered == {} and "overrides it" in app.notes[0][1]
    assert reloader.reload(user / "x.yaml") == "x"
    assert app.registered["x"].background == "#222222"


async def test_an_unknown_theme_name_is_said_and_the_default_is_used(user_dir):
    cockpit = CockpitApp(FakeSession(), pictures=False, theme="nope")
    notes = record_notifications(cockpit)
    async with cockpit.run_test(headless=True, size=(120, 40)) as pilot:
        await pilot.pause()
        assert cockpit.theme == "cockpit-dark"
        assert any("no theme named 'nope'" in message and kw["severity"] == "error"
                   for message, kw in notes)
