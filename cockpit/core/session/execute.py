"""Running one parsed command: modal checks, the action, settling (what its result tells:
told.py)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from ..page import changes
from .context import Context
from .engine import Engine
from ..base.errors import CommandError, ModalStateError
from ..language.parser import Invocation, excerpt, parse
from ..base.result import Outcome, Result
from ..page.diff import diff
from ..settle.settle import settle
from .told import snapshot_quietly, with_diff, with_needs
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
                outcome = await with_needs(session, await session.ensure_tab(), outcome)
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
    if tab.partial_page and tab.dialog is None:
        await _caught_up(tab, ctx)
    if tab.snapshot is None and tab.dialog is None and not (
            inv.spec.leaves_page and tab.blank_snapshot() is not None):
        await snapshot_quietly(tab)
    tabs_before = list(session.tabs)
    before = tab.snapshot
    watch = ctx.watch = tab.watch()
    watch.wants_changes = session.incremental_diffs
    # A new document's snapshot is taken as soon as it has loaded, while settling waits for
    # what it does next (its fetches, the network's quiet); what changed meanwhile is then
    # asked of it as of any snapshot (_update). A navigation's step is shorter by it.
    early: list[asyncio.Task[Snapshot | None]] = []

    def loaded() -> asyncio.Task[Snapshot | None] | None:
        if session.incremental_diffs and not early and tab.dialog is None:
            early.append(asyncio.ensure_future(snapshot_quietly(tab)))
        return early[0] if early else None
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
    ctx.loaded = loaded
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
    if watch.still_loading:  # its diff may be of a half-parsed page (replay: not compared)
        outcome.data["still_loading"] = True
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
        told = await with_diff(session, ctx, outcome, tabs_before, inv,
                               watch if incremental else None,
                               (early[0], before) if early else None, watch,
                               prepared[0] if prepared and incremental else None)
        tab.partial_page = watch.still_loading and tab.snapshot is not None
        return told
    finally:
        for task in prepared:
            task.cancel()  # (done: a no-op) not wanted, or given up on


async def _caught_up(tab: Tab, ctx: Context[Engine]) -> None:
    """The tab's snapshot is of a page that was still loading when the last step ended:
    what came of it since is not this step's change. The page is snapshotted as it is now,
    before the action, and what came is said apart."""
    stale = tab.snapshot
    fresh = await snapshot_quietly(tab)
    if stale is None or fresh is None or fresh is stale:
        return
    came = diff(stale, fresh)
    if not came.empty:
        ctx.notes.append(f"note: the page went on loading after the last step ({came.summary}"
                         "), before this one: `snapshot -i` shows it")


def _dialog_opened(tab: Tab) -> Outcome:
    d = tab.dialog_entry
    assert d is not None  # the tab set it before it cancelled the command
    article = "an" if d.type[0] in "aeiou" else "a"
    return Outcome(f"{article} {d.type} dialog opened: \"{d.message}\"; answer it with "
                   f"`dialog accept{' TEXT' if d.type == 'prompt' else ''}` or `dialog dismiss`",
                   {"dialog": d.to_json()})
