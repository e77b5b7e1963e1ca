"""Where a step runs, and whether a replay is on the same page: the tab, and what is stable
in the page's URL and title.

The rule (`page_key`, `title_key`): two URLs are the same page when their host, their path
and the names of their query parameters are the same; what legitimately differs from one
run to the next is ignored: query values (tokens, timestamps, a `next=`), path segments
that are ids (numbers, UUIDs, long random tokens: `/product/3/change/` is
`/product/4/change/`), a trailing slash, and the fragment (unless it is a route, `#/inbox`).
Titles are the same with their numbers ignored ("Inbox (3)"). Other URLs (about:blank,
data:, file:) are compared whole, without their fragment. A recorded step's place is where
it began (`at`, after any redirect the step before it followed), else where the step
before it ended. Replay checks it from the second step on: the first runs wherever the new
session starts (a recording may begin on a page its session had open).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit

UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.I)
# a segment that names one record, not a kind of page: a number, or a long token that
# mixes letters and digits (a slug of words, `teapot-large`, is part of the page)
ID_SEGMENT = re.compile(r"\d+|(?=[\w-]*\d)(?=[\w-]*[a-zA-Z])[\w-]{16,}")
DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Place:
    """A tab (its number, from 1) showing a page (its URL and title)."""

    tab: int | None
    url: str
    title: str = ""

    def __str__(self) -> str:
        tab = f"tab {self.tab} " if self.tab is not None else ""
        title = f'"{self.title}" ' if self.title else ""
        return f"{tab}{title}{self.url or '(no page)'}"


def place_of(info: Any) -> Place | None:
    """A Place from a tab's info or a recorded `at` ({tab|index, url, title})."""
    if not isinstance(info, dict) or not isinstance(info.get("url"), str):
        return None
    tab = info.get("tab", info.get("index"))
    title = info.get("title")
    return Place(tab if isinstance(tab, int) else None, info["url"],
                 title if isinstance(title, str) else "")


def recorded_place(step: dict[str, Any], before: dict[str, Any] | None) -> Place | None:
    """Where the recorded step ran: its `at`, else where the step before it ended (a
    recording made before steps said where they began), else unknown."""
    at = place_of(step.get("at"))
    if at is not None:
        return at
    if before is None or not isinstance(before.get("url"), str):
        return None
    return place_of({"tab": before.get("tab"), "url": before["url"],
                     "title": before.get("title")})


def page_key(url: str) -> tuple[str, ...]:
    """What is stable in a URL (the module's rule)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return (url.split("#", 1)[0],)
    route = parts.fragment if parts.fragment.startswith(("/", "!/")) else ""
    path = "/".join("*" if UUID.fullmatch(s) or ID_SEGMENT.fullmatch(s) else s
                    for s in (parts.path + route).rstrip("/").split("/"))
    names = ",".join(sorted({name for name, _ in parse_qsl(parts.query,
                                                             keep_blank_values=True)}))
    return (parts.netloc.lower(), path or "/", names)


def title_key(title: str) -> str:
    return " ".join(DIGITS.sub("#", title).split())


def same_url(a: str, b: str) -> bool:
    return page_key(a) == page_key(b)


def differs(expected: Place, found: Place) -> str | None:
    """Why `found` is not the page the step ran on (None: it is)."""
    what = []
    if expected.tab is not None and found.tab is not None and expected.tab != found.tab:
        what.append("tab")
    if not same_url(expected.url, found.url):
        what.append("page")
    elif expected.title and title_key(expected.title) != title_key(found.title):
        what.append("title")
    if not what:
        return None
    return (f"wrong {' and '.join(what)}: recorded on {expected}, this is {found}")
