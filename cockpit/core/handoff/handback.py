"""The resume report: what the human changed while they had the browser, said compactly
for the agent (tabs and URLs with titles, new cookies by name, what the page needs now,
what could not be carried back, the front tab's changes) and then the front tab's
interactive snapshot, once."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

from ..browser.carry import same_document
from ..page.diff import diff
from .needs import Need
from ..page.render import View, render
from ..model.snapshot import Snapshot

if TYPE_CHECKING:
    from playwright.async_api import Cookie
    from ..browser.relaunch import BrowserState
    from ..page.tab import Tab
    from .host import HandoffHost

DIFF_LINES = 12
ACTIONS_SAID = 12  # of what the person did in the page, the last ones


class HandedBack(Protocol):
    """What the report reads of the handoff that ends (handoff.py's Handoff)."""

    @property
    def session(self) -> HandoffHost: ...
    @property
    def reason(self) -> str: ...
    @property
    def since(self) -> float: ...
    @property
    def before(self) -> dict[Tab, Snapshot | None]: ...
    @property
    def before_urls(self) -> dict[Tab, str]: ...
    @property
    def renewed(self) -> set[Tab]: ...
    @property
    def before_state(self) -> BrowserState | None: ...
    @property
    def human_commands(self) -> list[str]: ...
    @property
    def human_actions(self) -> list[str]: ...


def report(handoff: HandedBack, tab: Tab, after: Snapshot | None, state: BrowserState,
           need: Need | None, lost: list[str]) -> dict[str, Any]:
    """The note the agent gets on resume: its "text" and the facts as data."""
    before_state = handoff.before_state
    old_urls = [t.url for t in before_state.tabs] if before_state else []
    new_urls = [t.url for t in state.tabs]
    new_cookies, changed_cookies, gone_cookies = _cookie_changes(
        before_state.cookies if before_state else [], state.cookies)
    seconds = round(time.time() - handoff.since, 1)
    lines = [f"The human had control for {seconds:g} s ({handoff.reason}) and handed the "
             "browser back."]
    lines += _tab_lines(handoff, tab)
    cookies = [f"{what} {', '.join(names)}" for what, names in (
        ("new", new_cookies), ("changed", changed_cookies), ("removed", gone_cookies))
        if names]  # names only: a cookie's value is a secret
    if cookies:
        lines.append(f"Cookies: {'; '.join(cookies)}")
    if handoff.human_commands:
        lines.append(f"Commands they typed: {len(handoff.human_commands)}")
    if handoff.human_actions:  # captured: each said by role and name, no value typed
        shown = handoff.human_actions[-ACTIONS_SAID:]
        more = len(handoff.human_actions) - len(shown)
        lines.append("What they did in the page: " + (f"({more} more before) " if more
                                                      else "") + "; ".join(shown))
    if need is not None:  # raised while the human had it, or still there: said in text
        lines.append(f"Needs a person now: {need.kind} on tab {tab.index} ({need.detail}): "
                     "`handoff` gives it back to them")
    if lost:
        lines.append(f"Not carried back from the window: {'; '.join(lost)}")
    note: dict[str, Any] = {"reason": handoff.reason, "seconds": seconds,
                            "tabs_before": old_urls, "tabs_after": new_urls,
                            "new_cookies": new_cookies, "changed_cookies": changed_cookies,
                            "removed_cookies": gone_cookies,
                            "human_commands": len(handoff.human_commands),
                            "human_actions": list(handoff.human_actions)}
    if need is not None:
        note["needs"] = need.to_json()
    if lost:
        note["not_carried"] = lost
    if after is not None:
        before = handoff.before.get(tab)
        note["snapshot"] = render(after, View(interactive=True))
        if before is not None and tab not in handoff.renewed \
                and same_document(before.url, after.url):
            d = diff(_rekeyed(before, after), after)
            note["diff"] = d.to_json()
            lines.append(f"On tab {tab.index}: " + (
                "nothing changed" if d.empty else d.text(limit=DIFF_LINES)))
        elif before is not None:  # another page: the snapshot below says it, not a diff
            note["diff"] = {"summary": f"new page {after.url}", "new_page": True,
                            "url": [before.url, after.url]}
        lines += [f"Tab {tab.index} now (refs from before the handoff are void):",
                  note["snapshot"]]
    note["text"] = "\n".join(lines)
    return note


def _cookie_changes(before: list[Cookie], after: list[Cookie]
                    ) -> tuple[list[str], list[str], list[str]]:
    """The names of the cookies that came, changed value (a sign-in renews its session
    cookie) and went; each cookie is known by name, domain and path."""
    def keyed(cookies: list[Cookie]) -> dict[tuple[str, str, str], str]:
        return {(c["name"], c.get("domain", ""), c.get("path", "")): c.get("value", "")
                for c in cookies}
    old, new = keyed(before), keyed(after)
    came = sorted({k[0] for k in new.keys() - old.keys()})
    changed = sorted({k[0] for k in new.keys() & old.keys() if new[k] != old[k]})
    went = sorted({k[0] for k in old.keys() - new.keys()})
    return came, changed, went


def _tab_lines(handoff: HandedBack, front: Tab) -> list[str]:
    """A line per tab (each compared with itself), and one for those closed."""
    session = handoff.session
    lines = []
    for t in session.tabs:
        old = handoff.before_urls.get(t)
        title = f' "{t.title}"' if t.title else ""
        mark = " (in front)" if t is front and len(session.tabs) > 1 else ""
        if old is None:
            lines.append(f"Tab {t.index}{mark}: new, {t.url}{title}")
        elif not same_document(old, t.url):
            lines.append(f"Tab {t.index}{mark}: {old} -> {t.url}{title}")
        elif t in handoff.renewed:  # a form posted to its own URL, a reload
            lines.append(f"Tab {t.index}{mark}: new page at the same URL, {t.url}{title}")
        elif t is front:
            lines.append(f"Tab {t.index}{mark}: same page, {t.url}{title}")
        else:
            lines.append(f"Tab {t.index}: {t.url} (unchanged)")
    closed = [u for t, u in handoff.before_urls.items() if t not in session.tabs]
    if closed:
        lines.append(f"Closed: {', '.join(closed)}")
    return lines


def _rekeyed(old: Snapshot, new: Snapshot) -> Snapshot:
    """The handoff snapshot with its refs renamed to the new page's, matched by role, name
    and order: a relaunched page numbers its refs afresh, so a ref-keyed diff would call
    every element new."""
    free: dict[tuple[str, str], list[str]] = {}
    for ref, node in new.refs.items():
        free.setdefault((node.role, node.name), []).append(ref)
    refs = {}
    for ref, node in old.refs.items():
        matches = free.get((node.role, node.name))
        key = matches.pop(0) if matches else ref if ref not in new.refs else f"{ref}-gone"
        refs[key] = node
    return Snapshot(old.roots, url=old.url, title=old.title, doc=new.doc, refs=refs)
