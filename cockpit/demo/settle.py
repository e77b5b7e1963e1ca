"""Pages for settling: what a click sets going (timers, fetches, routes, transitions) and a
sign-in whose form navigates from a timer."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .pages import page

if TYPE_CHECKING:
    from .server import DemoHandler

DATA_DELAY_S = 0.2  # the fetch's answer comes after this, and is then rendered


def settle_page(h: DemoHandler) -> None:
    h.send_html(page("settle.html", "Settling", scripts=("settle.js",)))


def settle_route(h: DemoHandler) -> None:
    """The pushState route, loaded directly: the same page (the script renders routes)."""
    settle_page(h)


def settle_done(h: DemoHandler) -> None:
    h.send_html(page("settle_done.html", "Arrived", ms=h.query_int("ms", 0, 0, 600_000)))


def settle_login(h: DemoHandler) -> None:
    h.send_html(page("settle_login.html", "Timer sign-in", scripts=("settle.js",)))


def settle_mfa(h: DemoHandler) -> None:
    h.send_html(page("settle_mfa.html", "Two-step check"))


def settle_data(h: DemoHandler) -> None:
    time.sleep(DATA_DELAY_S)
    h.send_json({"label": "Fetched row"})
