"""The policy a person sets for the agent: where the browser may go (`--allow-domain`,
domains.py) and which agent commands wait for a person (`--confirm`, confirm.py).

`session.policy` holds both. The session asks it twice per command: `gate` before the
command takes its turn (an agent's matching command waits there, holding nothing), and
`after` once it ran (a request refused meanwhile becomes the result's news).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

from ..base.errors import EXIT_FAILED
from ..base.logs import tolerated
from .confirm import Approvals, ConfirmPattern, Waiting, waiting_text
from .domains import DomainPolicy, Refusal, refusal_text

if TYPE_CHECKING:
    from ..base.events import EventBus
    from ..language.registry import Registry
    from ..base.result import Result
    from ..language.command import Command
    from ..page.tab import Tab

__all__ = ["Approvals", "ConfirmPattern", "DomainPolicy", "Policy", "Refusal", "Waiting",
           "waiting_text"]

log = logging.getLogger(__name__)

class PolicyHost(Protocol):
    """The session, as its policy sees it (the policy part sits below the session)."""

    @property
    def registry(self) -> Registry: ...
    @property
    def tabs(self) -> list[Tab]: ...
    @property
    def active(self) -> Tab | None: ...


Mark = tuple[int, frozenset[int]]  # the last refusal's number and the tabs, as a step began


class Policy:
    """One per session: set from the session options before it starts."""

    def __init__(self, bus: EventBus) -> None:
        self.domains = DomainPolicy()
        self.approvals = Approvals(bus)
        self.told = 0  # the last refusal a result has said

    def configure(self, allow_domains: list[str], confirm: list[str],
                  registry: Registry) -> None:
        """`--allow-domain` and `--confirm` values; ValueError names a bad one."""
        self.domains.allow(allow_domains)
        self.approvals.require(confirm, registry)

    def describe(self) -> dict[str, Any]:
        """For `status`: what is allowed, what waits, what waits now."""
        return {"allowed_domains": list(self.domains.patterns),
                "allowed_domains_gap": self.domains.gap,
                "confirm": [p.text for p in self.approvals.patterns],
                "waiting": [w.to_json() for w in self.approvals.waiting]}

    async def gate(self, session: PolicyHost, command: Command, shown: str, source: str,
                   timeout: float | None
                   ) -> tuple[Result | None, dict[str, Any] | None, float | None]:
        """Before a command takes its turn: (a Result when it must not run, how a person
        answered it, what is left of `timeout` for its turn)."""
        if not self.approvals.patterns:
            return None, None, timeout
        asked = time.perf_counter()
        refused, answer = await self.approvals.gate(
            command, shown, source, session.registry,
            session.active.snapshot if session.active else None, timeout)
        if timeout is not None and answer is not None:  # the person's time counts
            timeout = max(0.001, timeout - (time.perf_counter() - asked))
        return refused, answer, timeout

    @staticmethod
    def _popup(session: PolicyHost, refusal: Refusal, mark: Mark) -> Tab | None:
        """The tab a refused page was to open in, when this command opened it."""
        for tab in session.tabs:
            if tab.id in mark[1]:
                continue
            if tab.page is refusal.page or (refusal.page is None and (
                    tab.page.url in (refusal.url, "about:blank")
                    or tab.page.url.startswith("chrome-error:"))):
                return tab
        return None

    def would_wait(self, session: PolicyHost, command: Command, source: str) -> str | None:
        """Why this command will wait for a person (--confirm), or None."""
        if not self.approvals.patterns:
            return None
        snap = session.active.snapshot if session.active else None
        found = self.approvals.match(command, source, session.registry, snap)
        return waiting_text(found[0].text) if found else None

    def begin(self, session: PolicyHost) -> None:
        """A command is about to run: what `after` compares with (refusals, tabs)."""
        self._mark = self.domains.last, frozenset(t.id for t in session.tabs)

    async def after(self, session: PolicyHost, result: Result) -> Result:
        """The result with what the policy refused while the command ran: a page of a
        tab (the tab's own, a redirect's, a popup's) fails it; a frame's or a resource's
        is said in its output. A popup that was refused is closed."""
        mark = self._mark
        if not self.domains.active:
            return result
        # refused between commands (a page's timer, a `js` that navigated as it returned,
        # the person's window): said with this result, as notes
        earlier = [r for r in self.domains.since(self.told) if r.n <= mark[0]]
        refusals = self.domains.since(mark[0])
        self.told = self.domains.last
        if not refusals and not earlier:
            return result
        pages = [r for r in refusals if r.navigation and r.main_frame]
        rest = [r for r in refusals if r not in pages]
        said: list[str] = []
        for refusal in pages:
            text = refusal_text(refusal.host)
            popup = self._popup(session, refusal, mark)
            if popup is not None:  # a popup this command opened: nothing to show in it
                text += f" (a popup: its tab {popup.index} was closed)"
                with tolerated("closing a refused popup", log):
                    await popup.page.close()
            elif refusal.page is None:  # a new window's first page: it never opened
                text += " (a popup)"
            elif refusal.redirect:
                text += " (a redirect)"
            if text not in said:
                said.append(text)
        notes = [f"{refusal_text(host)} (before this command)"
                 for host in dict.fromkeys(r.host for r in earlier)]
        for host in dict.fromkeys(r.host for r in rest):
            kinds = sorted({("frame" if r.navigation else r.kind) for r in rest
                            if r.host == host})
            count = sum(r.host == host for r in rest)
            notes.append(f"{refusal_text(host)} ({count} request{'s' * (count > 1)}: "
                         f"{', '.join(kinds)})")
        result = result.but(data={**result.data, "refused_domains": [
            {"host": r.host, "url": r.url, "kind": r.kind, "page": r in pages}
            for r in refusals]})
        if notes:
            result = result.but(output="\n".join([result.output, *notes]) if result.output
                                else "\n".join(notes))
        if said:
            result = result.but(ok=False, exit_code=EXIT_FAILED, error="; ".join(said) + (
                f" (allowed: {', '.join(self.domains.patterns)})"))
        return result
