"""Running one parsed command: modal checks, the action, settling, and the ref-keyed diff."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from ..page import changes, page_news
from .context import Context
from .engine import Engine
from ..page.changeset import NEW_PAGE_LISTED, SHOWN_IN_TEXT, Diff
from ..page.diff import diff
from ..base.errors import CommandError, ModalStateError
from ..page.hidden import settle_behind
from ..language.parser import Invocation, excerpt, parse
from ..page.render import controls
from ..base.result import Outcome, Result
from ..settle.settle import Watch, settle
from ..language.parser import as_ref
from ..page.translate import first_line

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from ..language.command import Command
    from ..model.snapshot import Snapshot
    from ..page.tab import Tab

# Playwright records the caller's stack with every call it makes, so each frame between
# `Session.run` and the page costs time: the common path below is kept flat on purpose.

MAX_ERROR = 600  # characters of an error message, at most


async def execute_line(session: Engine, command: Command, source: str) -> Result:
    """Run one parsed line, turning whatever happens into a Result (never raises)."""
    line = command.line
    try:
        # with secrets, `$NAME` in the line becomes the value: that line is parsed (the
        # one the events show and the parsed command keep the name)
        expanded = session.secrets.expand(line) if session.secrets else line
        inv = command.parsed() if expanded == line else parse(expanded, session.registry)
        session.deadlines.allow_for(inv)  # `wait --timeout 60000` may take that long
        outcome = await _run(session, inv, source)
        # the line as given: `$NAME` stays a name, the secret's value never shows
        return Result(line.strip(), True, output=outcome.output, data=outcome.data,
                      source=source)
    except Exception as exc:  # noqa: BLE001  it becomes the Result; _failure logs our bugs
        return _failure(line, exc, source)


async def execute(session: Engine, inv: Invocation, source: str) -> Result:
    """Run an already parsed invocation (as `chain` does for each of its lines)."""
    try:
        outcome = await _run(session, inv, source)
        return Result(inv.line, True, output=outcome.output, data=outcome.data, source=source)
    except Exception as exc:  # noqa: BLE001  it becomes the Result; _failure logs our bugs
        return _failure(inv.line, exc, source)


def _failure(line: str, exc: Exception, source: str) -> Result:
    if isinstance(exc, PlaywrightError):
        exc = CommandError(f"{excerpt(line.split(None, 1)[0]) if line.strip() else line}: "
                           f"{first_line(exc)}")
    elif not isinstance(exc, CommandError):  # a bug of ours must not end the session
        log.error("internal error in %r", excerpt(line, 200), exc_info=exc)
        exc = CommandError(f"internal error in `{excerpt(line)}`: {type(exc).__name__}: "
                           f"{excerpt(str(exc), 200)} (the session goes on; please report "
                           "this)")
    # an error that quotes a huge or hostile input is cut whatever the command: a result
    # stays a line a person or a model reads (the excerpt keeps its start and length)
    error = exc.message if len(exc.message) <= MAX_ERROR else excerpt(exc.message, MAX_ERROR)
    return Result(line, False, error=error, data=exc.data, exit_code=exc.exit_code,
                  source=source)


async def _run(session: Engine, inv: Invocation, source: str) -> Outcome:
    spec = inv.spec
    if session.context is None and spec.needs_tab:
        raise CommandError("the browser is not running (it did not start, or it was closed):"
                           " start Cockpit again; `status` says which browser it wanted")
    tab = session.active
    if session.context is None or not spec.needs_tab:
        tab = None  # these do not touch a tab (resume may find the browser closed)
    elif tab is None or tab.page.is_closed():
        tab = await session.ensure_tab()
    if tab is None:
        return await spec.handler(Context(session, tab, source), inv)
    d = tab.dialog_entry  # set while tab.dialog is
    if tab.dialog is not None and d is not None and not spec.modal_safe:
        raise ModalStateError(
            f"{'an' if d.type[0] in 'aeiou' else 'a'} {d.type} dialog is open on tab "
            f"{tab.index} (\"{d.message}\"): answer it with `dialog accept [TEXT]` or "
            "`dialog dismiss` first", data={"dialog": d.to_json()})
    ctx = Context(session, tab, source)
    # A dialog blocks the page, so an action awaiting it could never finish: the tab then
    # cancels this task (Playwright aborts the pending call) and the dialog is reported.
    task = asyncio.current_task()
    assert task is not None  # a command always runs in a task (the tab may cancel it)
    tab.acting = task
    try:
        if spec.mutates:
            outcome = await _mutate(session, ctx, inv)
        else:
            outcome = await spec.handler(ctx, inv)
            if spec.checks_needs:
                outcome = await _with_needs(session, await session.ensure_tab(), outcome)
    except asyncio.CancelledError:
        if not tab.cancelled_for_dialog:
            raise
        task.uncancel()
        return _dialog_opened(tab)
    finally:
        tab.acting = None
        tab.cancelled_for_dialog = False
    return outcome if isinstance(outcome, Outcome) else Outcome(
        "" if outcome is None else str(outcome))


def _closed_its_window(ctx: Context[Engine], inv: Invocation) -> Outcome:
    """An action whose tab closed as it ran (a popup's Save that calls window.close()
    in its click handler): it was done, and the tab is gone by it; what Playwright says of
    the call it was still waiting on is no failure. The result says which tab closed."""
    target = inv.params.get("target")
    said = f" {target}" if isinstance(target, str) else ""  # (its page is gone: as given)
    return Outcome(f"{inv.spec.name}{said}: done, and its tab closed as it ran")


async def _mutate(session: Engine, ctx: Context[Engine], inv: Invocation) -> Outcome:
    """Run a command that changes the page: settle afterwards and diff the active tab."""
    tab = ctx.needs_tab()
    if tab.snapshot is None and tab.dialog is None and not (
            inv.spec.leaves_page and tab.blank_snapshot() is not None):
        await _snapshot_quietly(tab)
    tabs_before = list(session.tabs)
    before = tab.snapshot
    watch = ctx.watch = tab.watch()
    watch.wants_changes = session.incremental_diffs
    # A new document's snapshot is taken as soon as it has loaded, while settling waits for
    # what it does next (its fetches, the network's quiet); what changed meanwhile is then
    # asked of it as of any snapshot (_update). A navigation's step is shorter by it.
    early: list[asyncio.Task[Snapshot | None]] = []

    def loaded() -> None:
        if session.incremental_diffs and not early and tab.dialog is None:
            early.append(asyncio.ensure_future(_snapshot_quietly(tab)))
    # Likewise, when only a socket's quiet is left to wait out (a websocket app's answer
    # has rendered), what changed so far is snapshotted meanwhile, kept if the last look
    # finds nothing changed since (changes.update), else taken again.
    prepared: list[asyncio.Task[changes.Prepared | None]] = []
    covered: list[int] = []  # how many answers each was started from

    def quiet() -> None:
        if before is None or tab.dialog is not None:
            return
        last = watch.changes[-1] if watch.changes else None
        if prepared and isinstance(last, dict) and not last.get("regions") \
                and "failed" not in last:
            return  # nothing changed since those regions were asked for: still the page's
        if prepared:
            prepared.pop().cancel()
        covered.append(len(watch.changes))
        prepared.append(asyncio.ensure_future(changes.prepare(tab, before,
                                                              list(watch.changes))))
    try:
        try:
            outcome = await inv.spec.handler(ctx, inv)
        except (CommandError, PlaywrightError):
            # a person's kind of action (input given to the page) that closed its tab was
            # done; a wait or a check on it was not
            if not (inv.spec.captured and tab.page.is_closed()):
                raise
            outcome = _closed_its_window(ctx, inv)  # Playwright gave up on the closed tab
        if not isinstance(outcome, Outcome):
            outcome = Outcome("" if outcome is None else str(outcome))
        note = await settle(tab.page, watch, on_load=loaded,
                            on_quiet=quiet if watch.wants_changes else None)
    except BaseException:
        for task in [*early, *prepared]:
            task.cancel()
        raise
    finally:
        tab.unwatch(watch)
    if note:
        ctx.notes.append(f"note: {note}")
    saved = [t.result() for t in watch.downloads if t.done() and not t.cancelled()]
    for item in saved:
        ctx.notes.append(f"downloaded {item['path']} ({item['bytes'] // 1024} KB)" if item["ok"]
                         else f"a download from {item['url']} failed: {item['error']}")
    if saved:
        outcome.data["downloads"] = saved
    incremental = session.incremental_diffs and not watch.navigated
    if prepared and any(isinstance(a, dict) and a.get("regions")
                        for a in watch.changes[covered[-1]:]):
        prepared.pop().cancel()  # the page changed after they were asked for: taken again
    try:
        return await _with_diff(session, ctx, outcome, tabs_before, inv,
                                watch if incremental else None,
                                (early[0], before) if early else None, watch,
                                prepared[0] if prepared and incremental else None)
    finally:
        for task in prepared:
            task.cancel()  # (done: a no-op) not wanted, or given up on


def _dialog_opened(tab: Tab) -> Outcome:
    d = tab.dialog_entry
    assert d is not None  # the tab set it before it cancelled the command
    article = "an" if d.type[0] in "aeiou" else "a"
    return Outcome(f"{article} {d.type} dialog opened: \"{d.message}\"; answer it with "
                   f"`dialog accept{' TEXT' if d.type == 'prompt' else ''}` or `dialog dismiss`",
                   {"dialog": d.to_json()})


async def _snapshot_quietly(tab: Tab) -> Snapshot | None:
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


async def _with_diff(session: Engine, ctx: Context[Engine], outcome: Outcome,
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
    after, d = await (_update_after_early(active, *early) if early is not None else
                      _update(active, incremental if active is ctx.tab else None,
                              prepared if active is ctx.tab else None))
    data = dict(outcome.data)
    data["tab"] = active.info()
    if refused:
        lines.append(_refusal(refused, after or active.snapshot))
    if after is not None and d is not None:
        await settle_behind(active.page, before, after, d)  # a popover hid the page
        _drop_expected(d, inv, outcome, after)
        data["diff"] = d.to_json()
        # a new page the command did not name (a submit's, a link's): where it is, what
        # it is called, and what it says to the person, before its count or controls
        told = d.new_page and "title" not in outcome.data
        if told:
            method = watch.nav_request.method if watch is not None and \
                watch.nav_request is not None else None
            lines.append(page_news.page_line(after.url, after.title,
                                             before.url if before else None, method))
            news = await page_news.read(active.page)
            lines += page_news.lines(news, after)
            if news:
                data["messages"] = news
        if not (d.empty and (inv.spec.typed_text or refused)):  # `filled @e5` alone
            # the URL a navigation went to is said, in the text or as the one asked for
            said = "\n".join([*lines, str(outcome.data.get("url") or "")])
            lines.append(d.text(limit=SHOWN_IN_TEXT, said=said, controls=(
                controls(after, NEW_PAGE_LISTED) if d.new_page else None), page_said=told))
        active.last_diff = (after, d)  # `snapshot -D` right after shows all of it
    # nothing the agent is told changed in the document (a URL-only step, or a fill whose
    # only change was its own value): the need stands, as the last look at `before` saw it
    same = (after is not None and before is not None and d is not None and not d.changes
            and after.doc == before.doc)
    return await _with_needs(session, active, Outcome("\n".join(lines), data),
                             before if same else None)


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
    after = await _snapshot_quietly(tab)
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


async def _with_needs(session: Engine, tab: Tab, outcome: Outcome,
                      unchanged_since: Snapshot | None = None) -> Outcome:
    """Say so in the result when the page now needs a person (`needs: captcha`)."""
    if tab.dialog is not None or not isinstance(outcome, Outcome):
        return outcome
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
