"""One live session a profile: a second session of the same name in the same workspace
is refused before its browser starts, whatever browser build runs (the headless shell
makes no `SingletonLock` of Chromium's own), and may start once the first has closed."""

from __future__ import annotations

import os

import pytest

from cockpit.core import BrowserNotFoundError, Session


async def test_a_second_session_on_one_profile_is_refused_until_the_first_closes(site):
    name = f"lock-{os.getpid()}"
    first = Session(name)
    await first.start()
    try:
        second = Session(name)
        with pytest.raises(BrowserNotFoundError, match="is in use by another Cockpit session"):
            await second.start()
        result = await first.run(f"goto {site.url}/")  # the first goes on, untouched
        assert result.ok, result.error
    finally:
        await first.close()
    again = Session(name)
    await again.start()
    try:
        assert (await again.run(f"goto {site.url}/")).ok
    finally:
        await again.close()
