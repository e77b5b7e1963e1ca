"""The prompt submits what was entered: keys typed right after Enter start the next line."""

from __future__ import annotations

from textual import events

from cockpit.tui.app import CockpitApp
from cockpit.tui.prompt import Prompt
from tui_fake import FakeSession


NAMES = {"\r": "enter", " ": "space", "*": "asterisk", "\x7f": "backspace"}


def type_at_once(app, text: str) -> None:
    """Every key into the app's queue before any is handled, as a fast typist's or a
    paste's keys arrive from the terminal (Pilot's press() waits after each key)."""
    for char in text:
        key = events.Key(NAMES.get(char, char), char)
        key.set_sender(app)
        app._driver.send_message(key)


async def test_keys_typed_right_after_enter_start_the_next_line():
    fake = FakeSession()
    app = CockpitApp(fake, pictures=False)
    async with app.run_test(headless=True, size=(160, 48)) as pilot:
        prompt = app.query_one(Prompt)
        prompt.focus()
        await pilot.pause()
        # all in the prompt's queue at once, as a fast typist's (or a paste's) keys are:
        # nothing runs between Enter and the next key
        type_at_once(app, "js 6*7\rabc")
        for _ in range(100):
            await pilot.pause(0.02)
            if fake.lines and prompt.value == "abc":
                break
        assert fake.lines == [("js 6*7", "human")]
        assert prompt.value == "abc"
        type_at_once(app, "\r")
        for _ in range(100):
            await pilot.pause(0.02)
            if len(fake.lines) == 2:
                break
        assert [line for line, _ in fake.lines] == ["js 6*7", "abc"]
        assert prompt.value == ""


async def test_a_backspace_typed_fast_takes_the_character_before_it():
    fake = FakeSession()
    app = CockpitApp(fake, pictures=False)
    async with app.run_test(headless=True, size=(160, 48)) as pilot:
        prompt = app.query_one(Prompt)
        prompt.focus()
        await pilot.pause()
        type_at_once(app, "helq\x7fp\r")
        for _ in range(100):
            await pilot.pause(0.02)
            if fake.lines:
                break
        assert [line for line, _ in fake.lines] == ["help"]
