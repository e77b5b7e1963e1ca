"""A form posted and answered with a redirect (Django's admin after Save or Delete: a
POST, 302, then the list's GET): the POST's request can end before the GET begins, and
before any document commits. Settling gave the navigation up at once then ("the page was
still loading after 10 s", after 1.2 s), and the new page's message went unread; it
happened in about one run in twelve of the admin's CRUD round (tests/realapps). The
browser's side is played here with the order of its events that caused it."""

from __future__ import annotations

import asyncio
import time

from cockpit.core.settle.settle import _follow_navigation
from cockpit.core.settle.watch import Watch


class Page:
    """A page whose `load` has fired once asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def wait_for_load_state(self, state: str, timeout: float) -> None:
        self.asked.append(state)

    def is_closed(self) -> bool:
        return False


class Request:
    pass


async def test_a_redirect_after_a_post_is_followed_to_its_page() -> None:
    watch = Watch()
    post = Request()
    watch.request_started(post, "document", is_navigation=True)

    async def browser() -> None:
        await asyncio.sleep(0.03)
        watch.request_ended(post, final=True)  # the 302 ends it
        await asyncio.sleep(0.02)  # the redirect's GET, within the commit's grace
        watch.request_started(Request(), "document", is_navigation=True)
        await asyncio.sleep(0.1)
        watch.committed = True  # the list page's document
    page = Page()
    playing = asyncio.ensure_future(browser())
    note = await _follow_navigation(page, watch, time.monotonic() + 5)
    await playing
    assert note == "" and watch.committed
    assert page.asked == ["load"]
