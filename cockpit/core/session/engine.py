"""What running one command needs of its session, as protocols.

The modules that run a command (execute.py, context.py, deadline.py) and views.py type
their session against these instead of naming `Session`: session.py imports them, and
they never import it back, not even for types, so the part has no import circle. The
`Session` has all of it; mypy checks that where session.py builds its collaborators.
Command handlers (the commands part, above this one) see the whole Session through
`Context[Session]`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext

    from ..browser.recovery import Recovery
    from ..handoff.handoff import Handoff
    from ..language.parser import Invocation
    from ..language.registry import Registry
    from ..live.screencast import LiveView
    from ..page.tab import Tab
    from ..secrets.redact import Redactor
    from ..secrets.secrets import Secrets
    from .holds import AgentHolds


class StretchesDeadline(Protocol):
    def allow_for(self, inv: Invocation) -> None:
        """A command told to wait N ms may take that long beyond its deadline."""


class Engine(Protocol):
    """A session as one command's run sees it (execute.py, a handler's Context)."""

    @property
    def action_timeout(self) -> float: ...

    @property
    def active(self) -> Tab | None: ...

    @property
    def tabs(self) -> list[Tab]: ...

    @property
    def context(self) -> BrowserContext | None: ...

    @property
    def incremental_diffs(self) -> bool: ...

    @property
    def registry(self) -> Registry: ...

    @property
    def secrets(self) -> Secrets: ...

    @property
    def redactor(self) -> Redactor: ...

    @property
    def handoff(self) -> Handoff: ...

    @property
    def deadlines(self) -> StretchesDeadline: ...

    @property
    def live_view(self) -> LiveView: ...

    async def ensure_tab(self) -> Tab: ...


class Runner(Engine, Protocol):
    """A session as its deadlines see it (deadline.py): the turn, the time, recovery."""

    @property
    def command_timeout(self) -> float: ...

    @property
    def holds(self) -> AgentHolds: ...

    @property
    def recovery(self) -> Recovery: ...
