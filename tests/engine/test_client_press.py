"""`press` from the Python client, against a real session: its words in the registry's
order (`press KEY [TARGET]`), on a target and on the focused element."""

from __future__ import annotations

import asyncio

import pytest
from conftest import page, ref_of

from cockpit.client import Cockpit, CommandFailed


async def test_press_from_the_client_reaches_the_target(live, s, base):
    url = base + page("client-press", "<label>Query <input id=q></label>"
                      "<script>q.addEventListener('keydown', e => "
                      "document.title = 'pressed ' + e.key)</script>")

    def drive() -> tuple[str, str]:
        with Cockpit(socket_path=str(live.socket)) as browser:
            browser.goto(url)
            browser.snapshot("-i")
            query = ref_of(s, "textbox", "Query")
            browser.press("Enter", query)
            on_target = browser.title().output
            browser.press("Escape")  # no target: the focused element (the input)
            focused = browser.title().output
            with pytest.raises(CommandFailed):
                browser.press("NoSuchKey", query)
            return on_target, focused
    on_target, focused = await asyncio.to_thread(drive)
    assert on_target == "pressed Enter"
    assert focused == "pressed Escape"
