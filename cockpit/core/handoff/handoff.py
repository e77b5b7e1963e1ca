"""Who has control of the browser: handing it to a human and back, and noticing when an
agent needs one (a CAPTCHA, a one-time code, a login wall, or a run of failures).

While the human has control, agents' commands wait in the session's queue; on resume the
browser goes back to headless with whatever the human left, and the agent's next result
carries what changed: a diff against the snapshot taken at handoff, and a fresh one.
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import time
from typing import TYPE_CHECKING, Any

from ..base import events as ev
from ..base.errors import CommandError
from .handback import report
from ..base.logs import tolerated
from .needs import Need, detect_need
from ..browser.relaunch import BrowserState, capture, display_problem, not_ours, relaunch
from ..base.result import Outcome, Result
from ..model.snapshot import Snapshot

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from ..language.command import Command
    from ..model.snapshot import Node
    from .host import HandoffHost
    from ..page.tab import Tab

log = logging.getLogger(__name__)

FAILURES_BEFORE_HINT = 3
POLL_S = 1.0  # how often the window's state is saved (closing it resumes from that)
HINT = ("if a person must step in (a CAPTCHA, a code, a login), ask for one: "
        "`handoff \"what they should do\"`")


class Handoff:
    """The session's control state; `session.handoff`."""

    def __init__(self, session: HandoffHost) -> None:
        self.session = session
        self.active = False  # the human has control
        self.reason = ""
        self.mode = ""  # "window" (relaunched headed), "headed" (was already), "terminal"
        self.since = 0.0
        self.need: Need | None = None  # what the last checked page needs, if anything
        self._looked: tuple[Tab, list[Node]] | None = None  # (tab, snapshot roots) `need` is of
        self.need_at_handoff: Need | None = None
        self.auto_handoff = False
        self.auto_resume = False
        self.note: dict[str, Any] | None = None  # what changed, for the agent's next result
        # what the resume report (handback.py) compares against: each tab at handoff
        self.before: dict[Tab, Snapshot | None] = {}  # each tab's snapshot
        self.before_urls: dict[Tab, str] = {}
        # each tab's document response once the human has it: another one at resume means
        # they loaded a new document there (a same-URL POST too), not just edited the page
        self._documents: dict[Tab, Any] = {}
        self.renewed: set[Tab] = set()  # the tabs whose document the human replaced
        self.before_state: BrowserState | None = None
        self._last_state: BrowserState | None = None  # the window's, saved every POLL_S
        self._window_closed = False
        self._not_ours = False  # handed off in the terminal: the browser is not ours
        self.human_commands: list[str] = []
        self.human_actions: list[str] = []  # what they did in the page (core/capture)
        self._not_carried: list[str] = []  # what the window's tabs lack, said at handoff
        self._streak: dict[str, int] = {}
        self._poller: asyncio.Task[Any] | None = None
        self._background: set[asyncio.Task[Any]] = set()

    def status(self) -> dict[str, Any]:
        return {"human_has_control": self.active, "reason": self.reason or None,
                "mode": self.mode or None, "needs": self.need.to_json() if self.need else None}

    # --- handing over ---------------------------------------------------------------------
    async def start(self, reason: str, terminal: bool = False) -> Outcome:
        session = self.session
        if self.active:
            raise CommandError(f"the human already has control ({self.reason}): `resume` "
                               "gives it back")
        reason = reason or (f"needs: {self.need.kind}" if self.need else "asked for")
        await session.ensure_tab()
        self.before, self.before_urls = {}, {t: t.url for t in session.tabs}
        for each in session.tabs:  # each tab is later compared with itself
            with tolerated("a snapshot before the handoff", log):  # a dialog, a closing page
                await each.take_snapshot()
            self.before[each] = each.snapshot
        self.before_state = before_state = await capture(session)
        problem = None if session.headed else display_problem()
        self._not_carried = []
        # a browser we attached to is never relaunched: headless, it stays so
        # nor is a browser shared with other sessions (browser/shared.py): it keeps its mode
        fixed = not session.owns_browser or (session.plan is not None
                                             and not session.plan.can_open_window)
        self._not_ours = fixed and not session.headed and not terminal
        if terminal or problem == "none" or self._not_ours:
            self.mode = "terminal"
        elif problem:
            raise CommandError(f"cannot show a window: {problem}. The browser stays headless "
                               "and untouched; or drive it from here with `handoff --terminal`"
                               f" ({self._live_offer()})")
        elif session.headed:
            self.mode = "headed"
            if session.active is not None:  # the user's own window: bring it forward
                with tolerated("bringing the window to the front", log):
                    await session.active.page.bring_to_front()
        else:
            self._not_carried = await self._switch(headless=False, state=before_state)
            self.mode = "window"
            with tolerated("the snapshot in the window", log):  # refs for typed commands
                await (await session.ensure_tab()).take_snapshot()
        self._documents = {t: t.document_response for t in session.tabs}
        self.active, self.reason, self.since = True, reason, time.time()
        self.need_at_handoff = self.need
        self._window_closed = False
        self.human_commands = []
        self.human_actions = []
        self._last_state = self.before_state
        session.hold_agents(f"the human has control: {reason}", "handoff")
        await session.ready_for_person()  # their first click is a step too
        self._poller = asyncio.ensure_future(self._poll())
        session.bus.emit(ev.HANDOFF, reason=reason, mode=self.mode,
                         tabs=len(session.tabs), active=_front_index(session))
        return Outcome(self._handed_text(), {"handoff": self.status()})

    def _handed_text(self) -> str:
        session = self.session
        where = f"{len(session.tabs)} tab(s), tab {_front_index(session)} in front"
        after = "agents' commands wait until `resume`"
        if self.mode == "terminal":
            fixed = not_ours(session) if not session.owns_browser else \
                "it is shared with other sessions"
            why = (f"It runs headless, and {fixed}: it cannot become a window, "
                   f"so it stays headless ({where})" if self._not_ours else
                   f"There is no display here (over SSH?), so the browser stays headless "
                   f"({where})")
            return (f"the human has control ({self.reason}). {why}: {self._live_offer()}, "
                    f"or drive it with typed commands; then `resume`; {after}")
        shown = "is a visible window" if self.mode == "window" else "is already visible"
        close = " or close the window" if session.owns_browser else ""  # not their Chrome
        carried = ""
        if self.mode == "window":  # relaunched: said before the human starts
            carried = (" Each tab was loaded again with its fields (typed text, choices), "
                       "scroll and session storage put back; a page a form's POST reached "
                       "is shown from its copy, not sent again. Back/forward history starts "
                       "anew, and what a page kept only in its scripts' memory is gone.")
            if self._not_carried:
                carried += f" NOT carried: {'; '.join(self._not_carried)}."
        return (f"the human has control ({self.reason}); the browser {shown} ({where})."
                f"{carried} Act in the window, then `resume`{close}; {after}")

    def _live_offer(self) -> str:
        """Where a person takes the page over live, with no window: the cockpit's zoom,
        and the web view when `cockpit web` serves one (else how to serve one)."""
        web = self.session.live_view.web_url
        there = (f"in the web view at {web}" if web else
                 "in a browser: `cockpit web` serves the page live")
        return ("take it over live with the mouse and keys in the cockpit's zoom (`zoom`, "
                f"also in `cockpit attach`) or {there}")

    async def _switch(self, headless: bool, state: BrowserState) -> list[str]:
        """Relaunch; if that fails, relaunch the way it was so the session keeps a browser.
        Returns what of the tabs' state could not be carried (relaunch())."""
        if not self.session.owns_browser:
            raise CommandError(f"cannot relaunch the browser: {not_ours(self.session)}")
        try:
            return await relaunch(self.session, headless, state)
        except Exception as exc:  # shown in the CommandError below; the traceback is logged
            log.warning("relaunching the browser (headless=%s) failed", headless, exc_info=True)
            try:
                await relaunch(self.session, not headless, state)
            except Exception as again:
                log.error("relaunching it as it was failed too", exc_info=True)
                raise CommandError(f"the browser could not be started again ({exc}; then "
                                   f"{again}): commands will fail until Cockpit is "
                                   "restarted") from None
            then = ("the human keeps control in the window; try `resume` again" if headless
                    else "`handoff --terminal` lets the human drive it from here")
            raise CommandError(f"could not open the browser "
                               f"{'headless' if headless else 'in a window'}: {exc}. The "
                               f"browser runs as before, with its tabs; {then}") from None

    async def _poll(self) -> None:
        """Keep the window's state (closing the window resumes from it), follow the tab the
        human brings to front, and with --auto-resume resume once the challenge is gone."""
        session, clear_polls = self.session, 0
        while self.active and not self._window_closed:
            await asyncio.sleep(POLL_S)
            if session.switching or session.context is None or self._window_closed:
                continue
            if self.mode in ("window", "headed"):
                await self._follow_window()
            if self.auto_resume and self.need_at_handoff and session.active is not None:
                need = await detect_need(session.active.page)
                clear_polls = 0 if need else clear_polls + 1
                if clear_polls >= 2:  # gone for two polls, not just mid-navigation
                    self._later(session.run("resume", source="cockpit"))
                    return

    async def _follow_window(self) -> None:
        session = self.session
        with tolerated("saving the window's state", log):  # mid-close: keep the last one
            state = await capture(session, front_from_window=True)
            if state.tabs and not self._window_closed:
                self._last_state = state
                front = state.tabs[state.active].tab
                if front is not None and front is not session.active:
                    await session.switch_to(front)

    def browser_gone(self) -> bool:
        """The browser's window was closed: during a handoff, that is the human's resume
        (True); otherwise it died, and the session relaunches it (False)."""
        if not (self.active and self.mode in ("window", "headed")):
            return False
        if not self._window_closed:
            self._window_closed = True
            self._later(self.session.run("resume", source="human"))
        return True

    # --- handing back ---------------------------------------------------------------------
    async def end(self) -> Outcome:
        session = self.session
        if not self.active:
            raise CommandError("nobody has handed the browser over: `handoff [REASON]` gives "
                               "it to the human")
        if self._poller is not None:
            self._poller.cancel()
            self._poller = None
        state = self._last_state
        assert state is not None  # start() set it before it gave control away
        if self._window_closed and not session.owns_browser:
            self._finish()  # nothing to hand back: the browser we attached to has gone
            raise CommandError(f"the browser Cockpit was attached to has closed, and "
                               f"{not_ours(session)}: start it again and attach a new "
                               "session to it")
        self.renewed = {t for t in session.tabs if t not in self._documents
                        or t.document_response is not self._documents[t]}
        if self.mode in ("window", "headed") and not self._window_closed:
            with tolerated("the window's state at resume", log):  # else the last saved
                state = await capture(session, front_from_window=True)
        elif self.mode == "terminal":
            state = await capture(session)
        lost: list[str] = []
        if self.mode == "window" or self._window_closed:
            # back to headless; or, for a session that was headed from the start and whose
            # window was closed, a window again
            try:
                lost = await self._switch(headless=self.mode == "window", state=state)
            except CommandError:
                if session.context is None:  # no browser at all: nothing left to hand back
                    self._finish()
                    raise
                self._window_closed = False
                self._poller = asyncio.ensure_future(self._poll())  # still the human's
                raise
        tab = await session.ensure_tab()
        after = None
        with tolerated("the snapshot after the handoff", log):  # the note goes without
            after = await tab.take_snapshot()
        need = None
        if after is not None:  # a new CAPTCHA or code page the human left: said in text
            need = await self.check_page(tab)
        note = report(self, tab, after, state, need, lost)
        self._finish()
        session.person_gone()
        self.note = note
        session.bus.emit(ev.RESUMED, **{k: v for k, v in note.items() if k != "snapshot"})
        return Outcome(note["text"], {"handoff": note})

    def _finish(self) -> None:
        self.active, self.mode = False, ""
        self.session.release_agents("handoff")

    # --- every command passes here ----------------------------------------------------------
    def refuse_stale(self, command: Command, source: str) -> Result | None:
        """The agent's first command after a resume may still use refs of the page it saw
        before: those now name other elements, so it gets what changed instead."""
        if source != "agent" or self.note is None:
            return None
        if not command.refs():
            return None
        note, self.note = self.note, None
        return Result(command.line, False, output=note["text"],
                      error="the browser was handed to a human and back while this command "
                      "waited, so its refs are void: read what changed (in the output) and "
                      "use the new refs", data={"handoff": note}, exit_code=1, source=source)

    def after_command(self, result: Result, source: str, command: Command) -> Result:
        """The result as the handoff tells it: what a person changed since the agent's last
        look goes to the agent first; a streak of failures asks for a person."""
        if self.active and source == "human":
            spec = command.spec
            if result.data.get("captured"):  # done in the page, not typed: said as done
                self.human_actions.append(result.output)
            elif spec is None or not spec.needs_person:  # what they did, not the handing
                self.human_commands.append(result.command)
        if source == "agent" and result.ok and command.name == "resume":
            self.note = None  # the agent resumed: its own result already says what changed
        if source == "agent" and self.note is not None and result.exit_code != 4:
            note, self.note = self.note, None
            result = result.but(data={**result.data, "handoff": note}, output=note["text"] + (
                "\n\n" + result.output if result.output else ""))
        if source in ("human", "cockpit") or result.exit_code == 4:
            return result
        if not result.ok and result.exit_code != 1:
            return result  # a typo or a usage error says nothing about the page: no streak
        streak = 0 if result.ok else self._streak.get(source, 0) + 1
        self._streak[source] = streak
        if streak >= FAILURES_BEFORE_HINT:
            result = result.but(error=f"{result.error} ({streak} commands in a row have "
                                f"failed: {HINT})")
            if streak == FAILURES_BEFORE_HINT:
                self.session.bus.emit(ev.NEEDS_HUMAN, need="stuck", url=self.session.active.url
                                      if self.session.active else "",
                                      detail=f"{streak} failed commands in a row ({source})")
        return result

    def look(self, tab: Tab) -> asyncio.Future[Need | None]:
        """The page's need, asked now (its round trip alongside the step's diff), for
        `check_page` to take (`looking`)."""
        return asyncio.ensure_future(detect_need(tab.page))

    async def check_page(self, tab: Tab, unchanged_since: Snapshot | None = None,
                         looking: asyncio.Future[Need | None] | None = None
                         ) -> Need | None:
        """After a step that may have changed the page: does it need a person now?
        `unchanged_since`: the snapshot before a step that changed nothing the agent is
        told (no mutation, the URL's fragment moved, a field took the text typed): when
        the last look was at this tab and that very tree, the answer stands without
        looking again (3-8 ms), and stands for the tab's tree now. `looking`: a look
        begun once the step had settled (`look`), taken instead of a new one."""
        snapshot = tab.snapshot
        if (unchanged_since is not None and snapshot is not None
                and self._looked_at(tab, unchanged_since)):
            if looking is not None:
                looking.cancel()  # not needed: the last look stands
            self._looked = (tab, snapshot.roots)
            return self.need
        need = await (looking if looking is not None else detect_need(tab.page))
        self._looked = (tab, snapshot.roots) if snapshot is not None else None
        old = self.need
        self.need = need
        if need is None:
            if old is not None:
                self.session.bus.emit(ev.NEEDS_CLEARED, need=old.kind, url=tab.url)
            return None
        if old is None or (old.kind, old.url) != (need.kind, need.url):
            self.session.bus.emit(ev.NEEDS_HUMAN, tab=tab.id, need=need.kind,
                                  detail=need.detail, url=need.url)
            if self.auto_handoff and not self.active:
                self._later(self.session.run(
                    f"handoff {shlex.quote(f'needs: {need.kind} ({need.detail})')}",
                    source="cockpit"))
        return need

    def _looked_at(self, tab: Tab, snapshot: Snapshot) -> bool:
        """Was the last look at this very tab and tree (the same objects, not equal ones:
        comparing snapshots would walk them)? A URL-only step keeps the tree's roots."""
        return (self._looked is not None and self._looked[0] is tab
                and self._looked[1] is snapshot.roots)

    def _later(self, coro: Coroutine[Any, Any, object]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def close(self) -> None:
        for task in [self._poller, *self._background]:
            if task is not None:
                task.cancel()


def _front_index(session: HandoffHost) -> int | None:
    return session.active.index if session.active is not None else None
