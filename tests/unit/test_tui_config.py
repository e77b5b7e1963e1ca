"""Keys remapped from the config file, driven with Pilot on a browserless session."""

from __future__ import annotations

from cockpit.tui.app import CockpitApp
from cockpit.tui.config import apply_config, load_config
from cockpit.tui.prompt import Prompt
from cockpit.tui.screens import HelpScreen
from tui_fake import FakeSession


def app() -> CockpitApp:
    return CockpitApp(FakeSession(), pictures=False)


async def test_help_remapped_to_f11(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("keys:\n  help: f11\n", encoding="utf-8")
    cockpit = app()
    async with cockpit.run_test(headless=True, size=(160, 48)) as pilot:
        assert apply_config(cockpit, config) == []
        assert isinstance(cockpit.focused, Prompt)
        await pilot.press("f1")
        assert not isinstance(cockpit.screen, HelpScreen)  # F1 is free now
        await pilot.press("f11")
        assert isinstance(cockpit.screen, HelpScreen)
        help_text = str(cockpit.screen.query_one("#help-body").render())
        assert "f11 this help" in help_text and "f1 this help" not in help_text
        await pilot.press("escape")
        assert not isinstance(cockpit.screen, HelpScreen)
        await pilot.press("f6")  # the bindings not in the file keep their keys
        assert isinstance(cockpit.focused, Prompt)
        cockpit.focused.show_hint()  # the hint under the empty prompt names the new key
        assert "f11 help" in str(cockpit.query_one("#hint").render())


async def test_unknown_id_and_bad_value_are_reported_with_file_and_key(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("keys:\n"
                      "  hlep: f10\n"                # unknown id
                      "  quit: 7\n"                  # not a string
                      "  focus.prompt: ctrl+o\n",    # fine: still applied
                      encoding="utf-8")
    cockpit = app()
    async with cockpit.run_test(headless=True, size=(160, 48)) as pilot:
        errors = apply_config(cockpit, config)
        assert len(errors) == 2, errors
        unknown, bad = errors
        assert str(config) in unknown and "keys.hlep" in unknown
        assert "unknown binding id" in unknown and "'help'" in unknown  # a suggestion
        assert str(config) in bad and "keys.quit" in bad and "not a key string" in bad
        cockpit.query_one("#log").focus()
        await pilot.press("ctrl+o")
        assert isinstance(cockpit.focused, Prompt)
        await pilot.press("f1")  # `hlep` changed nothing
        assert isinstance(cockpit.screen, HelpScreen)


def test_every_problem_is_reported(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("keys:\n  help: F10\n  focus.log: ctlr+l\n  diff.older: f2\n"
                      "  picture.refresh:\n  help: f9\ncolours: {}\n", encoding="utf-8")
    keymap, errors = load_config(config)
    assert keymap == {"help": "f9", "diff.older": "f2"}
    text = "\n".join(errors)
    assert all(line.startswith(f"{config}: ") for line in errors)
    for needle in ("'help' is given twice", "colours: unknown section",
                   "keys.focus.log: 'ctlr+l': unknown modifier 'ctlr'",
                   "keys.picture.refresh: None is empty, not a key string",
                   "keys.diff.older: 'f2' is also the key of focus.tabs"):
        assert needle in text, text
    missing = tmp_path / "missing.yaml"
    assert load_config(missing) == ({}, [f"{missing}: no such file"])
    (tmp_path / "bad.yaml").write_text("keys: [", encoding="utf-8")
    assert "cannot be read" in load_config(tmp_path / "bad.yaml")[1][0]


def test_keys_textual_keeps_are_refused(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("keys:\n  help: ctrl+p\n  quit: ctrl+q,ctrl+c\n  focus.log: ctrl+l\n",
                      encoding="utf-8")
    keymap, errors = load_config(config)
    assert keymap == {"focus.log": "ctrl+l"}  # the rest still applies
    assert len(errors) == 2, errors
    assert "keys.help: 'ctrl+p' opens the command palette" in errors[0]
    assert "keys.quit: 'ctrl+c' copies the selected text" in errors[1]
    assert all("pick another key" in e for e in errors)


def test_default_place_is_xdg_config_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert load_config() == ({}, [])  # no file there: no error
    (tmp_path / "cockpit").mkdir()
    (tmp_path / "cockpit" / "config.yaml").write_text("keys:\n  quit: ctrl+x\n")
    assert load_config() == ({"quit": "ctrl+x"}, [])
