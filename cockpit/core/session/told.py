"""What an action's result tells: its own line, the tabs it opened or closed, a refused
submission, the diff of the active tab (after a new page: where it is and what it says
first), and whether the page now needs a person (execute.py runs the action)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from ..base.result import Outcome
from ..language.parser import Invocation, as_ref
from ..page import changes, page_news
from ..page.changeset import NEW_PAGE_LISTED, SHOWN_IN_TEXT, Diff
from ..page.diff import diff
from ..page.hidden import settle_behind
from ..page.render import controls
from ..settle.watch import Watch
from .context import Context
from .engine import Engine

if TYPE_CHECKING:
    from ..handoff.needs import Need
    from ..model.snapshot import Snapshot
    from ..page.tab import Tab

log = logging.getLogger(__name__)


async def snapshot_quietly(tab: Tab) -> Snapshot | None:
    """A snapshot for diffing; a page mid-navigation may refuse, so retry once after load."""
    for attempt in range(2):
        try:
            return await tab.take_snapshot()
        except PlaywrightError:
            if attempt == 0:
                try:
                    await tab.page.wait_for_load_state("domcontentloaded", timeout=5000)
                except PlaywrightError:
                    pass
    return None


async def with_diff(session: Engine, ctx: Context[Engine], outcome: Outcome,
                     tabs_before: list[Tab], inv: Invocation, incremental: Watch | None,
                     early: tuple[asyncio.Task[Snapshot | None], Snapshot | None] | None = None,
                     watch: Watch | None = None,
                     prepared: asyncio.Task[changes.Prepared | None] | None = None) -> Outcome:
    """The result's text and data: the action's own line, notes, new and closed tabs,
    a refused submission, and the diff of the active tab (after a new page: where it is
    and what it says first). `incremental`: the action's watch when the diff may come from
    what changed (no navigation), else None: a full snapshot. `watch`: the action's.
    `prepared`: its changed regions, snapshotted while settling waited (_mutate)."""
    lines = [outcome.output] if outcome.output else []
    lines += ctx.notes
    for tab in session.tabs:
        if tab not in tabs_before:
            lines.append(f"opened tab {tab.index}: {tab.url or 'about:blank'} "
                         f"(`tab {tab.index}` switches to it)")
    closed = [(i + 1, tab) for i, tab in enumerate(tabs_before) if tab not in session.tabs]
    active = await session.ensure_tab()
    for index, tab in closed:
        itself = " (the page closed its window)" if tab is ctx.tab and watch is not None \
            and watch.closed else ""
        back = f"; now on tab {active.index}: {active.title or active.url}" \
            if tab is ctx.tab else ""
        lines.append(f"tab {index} closed{itself}{back}")
    if closed:
        outcome.data["closed_tabs"] = [index for index, _ in closed]
    refused = watch.refused if watch is not None and active is ctx.tab else None
    if refused:
        outcome.data["refused"] = refused
    if active.file_chooser is not None:
        lines.append("a file chooser is open: `upload FILE...` answers it")
    if early is not None and active is not ctx.tab:  # another tab is the one to diff
        early[0].cancel()
        early = None
    before = early[1] if early is not None else active.snapshot
    # The page's need is looked for now, its round trip alongside the diff's, when the
    # step went to a new page or changed the document; not when it changed nothing, or
    # typed into a field in place (its own value mostly all that changed): the last look
    # then stands without one (handoff.check_page).
    looking = None
    if active.dialog is None and watch is not None and (watch.navigated or (
            not inv.spec.typed_text and _changed(watch))):
        looking = session.handoff.look(active)
    # Likewise the messages of a new document the command did not name (a submit's, a
    # link's: `_said`), when it went to one.
    reading = None
    if active.dialog is None and active is ctx.tab and watch is not None and \
            watch.navigated and "title" not in outcome.data:
        reading = asyncio.ensure_future(page_news.read(active.page))
    try:
        after, d = await (_update_after_early(active, *early) if early is not None else
                          _update(active, incremental if active is ctx.tab else None,
                                  prepared if active is ctx.tab else None))
    except BaseException:
        for task in (looking, reading):
            if task is not None:
                task.cancel()
        raise
    data = dict(outcome.data)
    if lines and lines[0] == outcome.output and after is not None and active is ctx.tab:
        lines[0] = _retitled(outcome.output, data, after.title)
    data["tab"] = active.info()
    if refused:
        lines.append(_refusal(refused, after or active.snapshot))
    if after is not None and d is not None:
        _drop_expected(d, inv, outcome, after)
    # nothing the agent is told changed in the document (a URL-only step, or a fill whose
    # only change was its own value): the need stands, as the last look at `before` saw
    # it. (A popover's lines, below, neither make nor empty a diff.) Asked now, unless
    # begun above: its round trip goes alongside the popover's and the news's.
    same = (after is not None and before is not None and d is not None and not d.changes
            and after.doc == before.doc)
    checking = None
    if active.dialog is None:
        checking = (session.handoff.need, asyncio.ensure_future(
            session.handoff.check_page(active, before if same else None, looking)))
    elif looking is not None:
        looking.cancel()  # a dialog opened meanwhile: the page cannot answer
    try:
        await _said(active, lines, outcome, inv, watch, before, after, d, data,
                    bool(refused), reading)
    except BaseException:
        if checking is not None:
            checking[1].cancel()
        raise
    finally:
        if reading is not None:
            reading.cancel()  # (read: a no-op) not needed, the step went to no new page
    return await with_needs(session, active, Outcome("\n".join(lines), data),
                             checking=checking)


def _retitled(said: str, data: dict[str, Any], title: str) -> str:
    """The step's own line with the page's title as it is now, where it named the title
    it had at `load` (`goto`'s `opened: Title`): an app that renders in the browser sets
    its title as it renders (Gradio's, a router's), after `load`, and `goto` said
    `opened` with no title, or the one its HTML starts with."""
    old = data.get("title")
    if not isinstance(old, str) or not title or title == old:
        return said
    data["title"] = title
    if not old:  # `opened` or `opened URL (404)`, and maybe `; a hint`
        head, sep, rest = said.partition("; ")
        return f"{head}: {title}{sep}{rest}"
    head, sep, rest = said.partition(f": {old}")
    return f"{head}: {title}{rest}" if sep else said


def _changed(watch: Watch) -> bool:
    """Whether the change tracker's answers while settling name a change of the document
    (a region, a change it could not place, a failed look); none given: not known."""
    return any(isinstance(a, dict) and (a.get("regions") or a.get("global") or "failed" in a)
               for a in watch.changes)


async def _said(active: Tab, lines: list[str], outcome: Outcome, inv: Invocation,
                watch: Watch | None, before: Snapshot | None, after: Snapshot | None,
                d: Diff | None, data: dict[str, Any], refused: bool,
                reading: asyncio.Future[list[dict[str, Any]]] | None = None) -> None:
    """The diff's lines (after a new page: where it is and what it says first), added
    to `lines` and `data`. `reading`: the new page's messages, asked for already."""
    if after is not None and d is not None:
        await settle_behind(active.page, before, after, d)  # a popover hid the page
        data["diff"] = d.to_json()
        # a new page the command did not name (a submit's, a link's): where it is, what
        # it is called, and what it says to the person, before its count or controls
        told = d.new_page and "title" not in outcome.data
        if told:
            method = watch.nav_request.method if watch is not None and \
                watch.nav_request is not None else None
            lines.append(page_news.page_line(after.url, after.title,
                                             before.url if before else None, method))
            news = await (reading if reading is not None else page_news.read(active.page))
            lines += page_news.lines(news, after)
            if news:
                data["messages"] = news
        if not (d.empty and (inv.spec.typed_text or refused)):  # `filled @e5` alone
            # the URL a navigation went to is said, in the text or as the one asked for
            said = "\n".join([*lines, str(outcome.data.get("url") or "")])
            lines.append(d.text(limit=SHOWN_IN_TEXT, said=said, controls=(
                controls(after, NEW_PAGE_LISTED) if d.new_page else None), page_said=told))
        active.last_diff = (after, d)  # `snapshot -D` right after shows all of it


async def _update(tab: Tab, watch: Watch | None,
                  prepared: asyncio.Task[changes.Prepared | None] | None = None
                  ) -> tuple[Snapshot | None, Diff | None]:
    """The tab's snapshot after an action and its diff: from what changed (changes.py)
    when it can tell (`watch`: what settling learnt of it; `prepared`: the regions it
    snapshotted meanwhile), else from a full snapshot. None, None while a dialog is open."""
    before = tab.snapshot
    if tab.dialog is not None:
        return None, None
    if watch is not None and before is not None:
        regions = await prepared if prepared is not None else None
        got = await _brought_up_to_date(tab, before, watch, regions)
        if got is not None:
            got[0].follow(before, got[1].moved)
            return got
    return await _full_diff(tab, before)


async def _update_after_early(tab: Tab, early: asyncio.Task[Snapshot | None],
                              before: Snapshot | None) -> tuple[Snapshot | None, Diff | None]:
    """As `_update`, from the new document's snapshot taken when it loaded: brought up to
    date with what changed since (nothing, mostly: one round trip), else a full one."""
    if tab.dialog is not None:
        early.cancel()
        return None, None
    loaded = await early
    got = await _brought_up_to_date(tab, loaded) if loaded is not None else None
    if got is None:
        return await _full_diff(tab, before)
    d = diff(before, got[0])  # from the page before the action, not from `loaded`
    got[0].follow(before, d.moved)
    return got[0], d


async def _brought_up_to_date(tab: Tab, base: Snapshot, watch: Watch | None = None,
                              prepared: changes.Prepared | None = None
                              ) -> tuple[Snapshot, Diff] | None:
    """`base` patched with what changed since it was taken (changes.py), made the tab's,
    and the diff from it; None when only a full snapshot will do."""
    try:
        got = await changes.update(tab, base, tab.session.redactor.learn_value,
                                   watch.changes if watch else None,
                                   watch is not None and watch.changes_final, prepared)
    except PlaywrightError as exc:  # the page went away mid-way: a full look decides
        log.debug("incremental diff gave up: %s", exc)
        return None
    if got is not None and got[0] is not base:
        tab.adopt(got[0])
    return got


async def _full_diff(tab: Tab, before: Snapshot | None
                     ) -> tuple[Snapshot | None, Diff | None]:
    after = await snapshot_quietly(tab)
    if after is None:
        return None, None
    d = diff(before, after)
    after.follow(before, d.moved)
    return after, d


def _refusal(fields: list[dict[str, Any]], snap: Snapshot | None) -> str:
    """The browser's own validation stopped a submit: which fields, and what it said."""
    said = "; ".join(f"{page_news.field_name(f['label'] or f['type'] or f['tag'], snap)}: "
                     f"{f['message']}" for f in fields)
    return f"not submitted: the browser refused the form ({said})"


def _drop_expected(d: Diff, inv: Invocation, outcome: Outcome, after: Snapshot) -> None:
    """A typing command's own effect is not news: `fill @e5 x` says `filled @e5`, and its
    diff leaves out the field's new value (anything else the field or page did stays)."""
    spec = inv.spec
    ref = as_ref(str(inv.params.get("target") or "")) if spec.typed_text else None
    if ref is None:
        return
    ref = after.live(ref)
    # a snapshot shows a field's lines as one (`two\nlines` reads `two lines`)
    typed = " ".join(str(inv.params.get(spec.typed_text or "") or "").split())
    for change in list(d.changes):
        if (change.ref == ref and change.kind == "changed" and set(change.fields) == {"text"}
                and (typed in " ".join(str(change.fields["text"][1] or "").split())
                     or outcome.data.get("secret"))):
            d.changes.remove(change)


async def with_needs(session: Engine, tab: Tab, outcome: Outcome,
                      unchanged_since: Snapshot | None = None, *,
                      checking: tuple[Need | None, asyncio.Future[Need | None]] | None = None
                      ) -> Outcome:
    """Say so in the result when the page now needs a person (`needs: captcha`).
    `checking`: the need before that look, and the look, started already (its round trip
    alongside others)."""
    if tab.dialog is not None or not isinstance(outcome, Outcome):
        if checking is not None:
            checking[1].cancel()
        return outcome
    if checking is not None:
        old, need = checking[0], await checking[1]
    else:
        old = session.handoff.need
        need = await session.handoff.check_page(tab, unchanged_since)
    if need is None:
        return outcome
    outcome.data["needs"] = need.kind
    outcome.data["need"] = need.to_json()
    if old is not None and (old.kind, old.url) == (need.kind, need.url):
        return outcome  # said once, on the step that reached the page (`status` keeps it)
    # what gave it away (`need.detail`) is in the data and `status`: the kind is enough here
    human = "" if session.handoff.active else ": ask a person with `handoff`"
    if not session.handoff.active and (web := session.live_view.web_url):
        human += f"; they can take it over live in the web view at {web}"
    outcome.output = (f"{outcome.output}\n" if outcome.output else "") + \
        f"needs: {need.kind}{human}"
    return outcome
