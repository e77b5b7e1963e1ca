"""Whether a popover left the rest of the page inert is asked of the page only when it can
have changed: a popover came, or one went while the page was inert. A completion list
closing on a page nobody made inert (at every notebook cell run) asks nothing."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from cockpit.core.page import hidden

pytestmark = pytest.mark.unit


class Page:
    def __init__(self, inert_elements: int) -> None:
        self.asked = 0
        self.inert_elements = inert_elements

    async def evaluate(self, script: str) -> int:
        self.asked += 1
        return self.inert_elements


def diff(*changes: tuple[str, str]) -> SimpleNamespace:
    return SimpleNamespace(changes=[SimpleNamespace(role=role, kind=kind)
                                    for role, kind in changes])


@pytest.mark.parametrize("was_inert, changes, asked, inert", [
    (False, [("listbox", "removed")], 0, False),  # a completion list closed
    (False, [("button", "added")], 0, False),  # no popover
    (False, [("alertdialog", "added")], 1, True),  # a modal came: is the page inert now?
    (True, [("alertdialog", "removed")], 1, False),  # it went: is the page shown again?
])
async def test_the_page_is_asked_only_when_its_inert_parts_can_have_changed(
        was_inert, changes, asked, inert):
    page = Page(inert_elements=0 if was_inert else 40)
    before = SimpleNamespace(inert=was_inert)
    assert await hidden._inert(page, before, diff(*changes)) is inert
    assert page.asked == asked
