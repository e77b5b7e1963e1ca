"""Cockpit's refs: short names for Playwright's, numbered once for the life of a tab.

Playwright names an element `e5` in the first document of a page and `f3e14` in later
ones (and in frames): the prefix tells its refs of one document from another's, so a ref
of an old page can never name an element of a new one. It costs two tokens on every line
an agent reads (`@f3e14` is five o200k tokens, `@e64` three): a sixth of a `snapshot -i`.

So each tab numbers the elements it is shown itself, `e1`, `e2`, ... in the order it first
sees them, and never gives a number twice: a new document's elements get numbers no
earlier document had, which keeps the promise the prefix kept (an old ref fails, it never
finds another element). Every node keeps Playwright's own ref (`Node.pw`) for the way
back: `aria-ref=` and `cockpit-ref=` selectors take that one (targets.py).
"""

from __future__ import annotations

import itertools
from typing import Iterable

# Past this many names more than the tab's snapshot holds, the names of elements gone
# with their documents are forgotten (a long session visits many pages).
SLACK = 5_000


class RefNames:
    """The tab's names for Playwright's refs (a callable: `names("f3e14") -> "e64"`)."""

    def __init__(self) -> None:
        self._numbers = itertools.count(1)
        self._of: dict[str, str] = {}  # Playwright's ref -> ours

    def __call__(self, playwright_ref: str) -> str:
        name = self._of.get(playwright_ref)
        if name is None:  # setdefault: a big page is parsed in a worker thread
            name = self._of.setdefault(playwright_ref, f"e{next(self._numbers)}")
        return name

    def alias(self, playwright_ref: str, name: str) -> None:
        """Name a Playwright ref as an earlier one was named: the same element, given a
        new ref by Playwright when its name changed (hidden.py: a popover hid it)."""
        self._of[playwright_ref] = name

    def new_page(self) -> None:
        """The tab took another page (handoff, recycling): Playwright starts its refs
        over there (`e1` again), and they are other elements. Our numbers go on."""
        self._of.clear()

    def keep_only(self, playwright_refs: Iterable[str], size: int) -> None:
        """Forget the names of refs no longer shown, once they far outnumber the `size`
        refs the tab's snapshot holds: those elements went with their documents (one
        that comes back gets a new name, as a hidden element that reappears may)."""
        if len(self._of) > size + SLACK:
            keep = set(playwright_refs)
            self._of = {pw: name for pw, name in self._of.items() if pw in keep}
