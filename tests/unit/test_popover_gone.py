"""A popover that closes is gone, not a page hidden: its removal is told as such, without
asking the page (core/page/hidden.py), while a part of the page that went out of the
snapshot is still asked about."""

from __future__ import annotations

import asyncio

from cockpit.core.model.snapshot import Snapshot
from cockpit.core.page.diff import diff
from cockpit.core.page.hidden import settle_behind

EDITOR = """- generic [ref=e1]:
  - main [ref=e2]:
    - textbox "Code" [ref=e3]: total
    - button "Run" [ref=e4]
"""
# a code editor's completion tooltip: the list, and an empty box for the details
COMPLETIONS = """  - generic [ref=e5]:
    - listbox "Completions" [ref=e6]:
      - option "total" [ref=e7]
      - option "totals" [ref=e8]
    - generic [ref=e9]
"""


class Page:
    """A page that answers that nothing asked about is still there, and counts the asks."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def locator(self, selector: str) -> Locator:
        self.asked.append(selector)
        return Locator()


class Locator:
    async def count(self) -> int:
        return 0


def gone(before_text: str, after_text: str) -> tuple[list[str], Page]:
    before = Snapshot.from_text(before_text, doc="d", url="http://x/")
    after = Snapshot.from_text(after_text, doc="d", url="http://x/")
    d = diff(before, after)
    page = Page()
    asyncio.run(settle_behind(page, before, after, d))  # type: ignore[arg-type]
    return [line for line in d.text().splitlines()], page


def test_a_completion_list_that_closed_is_told_removed_without_a_look():
    lines, page = gone(EDITOR + COMPLETIONS, EDITOR)
    assert page.asked == []
    assert '- @e6 listbox "Completions"' in lines and not any("hidden" in x for x in lines)


def test_a_part_of_the_page_that_left_the_snapshot_is_still_asked_about():
    page_only = """- generic [ref=e1]:
  - generic [ref=e10]: a heading
"""
    lines, page = gone(EDITOR + COMPLETIONS, page_only)
    assert len(page.asked) == 1 and "e2" in page.asked[0]  # main, not the closed list
    assert "- @e2 main" in lines and "- @e6 listbox \"Completions\"" in lines, lines
