"""`goto` says the page's title as it is when the step ends: an app that renders in the
browser sets it after `load` (tests/realapps/test_settle_real.py has a real one)."""

from __future__ import annotations

import pytest

from cockpit.core.session.told import _retitled


@pytest.mark.parametrize(("said", "old", "new", "told"), [
    ("opened", "", "Greeter", "opened: Greeter"),
    ("opened: Streamlit", "Streamlit", "Plant orders", "opened: Plant orders"),
    ("opened http://h/next (404)", "", "Not here", "opened http://h/next (404): Not here"),
    ("opened (401); the site asks for a password", "", "Sign in",
     "opened (401): Sign in; the site asks for a password"),
    ("opened: Inbox", "Inbox", "Inbox", "opened: Inbox"),  # unchanged
    ("opened: Inbox", "Inbox", "", "opened: Inbox"),  # a title emptied: the last one said
])
def test_the_line_says_the_title_the_page_has_now(said, old, new, told):
    data = {"title": old}
    assert _retitled(said, data, new) == told
    assert data["title"] == (new or old)


def test_a_line_that_named_no_title_is_left_as_it_is():
    data: dict[str, object] = {}
    assert _retitled("clicked @e3", data, "Other") == "clicked @e3" and data == {}
