"""The session surface: what views (the TUI, its recordings screen), the recorder and replay
use of a session, and nothing more.

The local `Session`, the remote one of `cockpit attach` (`control.remote_session`) and the
TUI tests' fake all have it, and mypy checks that they do (`surface_check.py`): a face
written against this surface works on every one of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..base.events import EventBus
    from ..language.registry import Registry
    from ..base.result import Result

# (ref, role, name, value) of one element of the active tab's last snapshot, in document
# order: the refs pane shows them, replay finds a recorded element again among them.
RefInfo = tuple[str, str, str, str]


class SessionSurface(Protocol):
    """A live session as faces see it. Read-only properties: each implementation may
    keep a subtype there (a remote session's bus holds events until someone listens)."""

    @property
    def name(self) -> str: ...

    @property
    def registry(self) -> Registry: ...

    @property
    def bus(self) -> EventBus: ...  # every step, tab change and agent state, as Events

    @property
    def secret_names(self) -> list[str]: ...  # --secret NAMEs (their values stay home)

    async def run(self, line: str, source: str = "human", *,
                  timeout: float | None = None, relayed: bool = False) -> Result:
        """Run one command line after those before it; never raises for a bad command.
        `relayed`: a person's own input from a view of the page (the zoom's mouse and
        keys): while capture is on, what it does becomes their steps by role and name."""
        ...

    async def picture(self, labels: bool = False, timeout: float = 3.0,
                      target: str | None = None) -> bytes | None:
        """A PNG of the active tab (or of one element of it: `target`, a ref or a
        selector) for views (not a command), or None."""
        ...

    def status(self) -> dict[str, Any]: ...  # as the `status` command reports it

    def tabs_info(self) -> list[dict[str, Any]]: ...

    def refs_info(self) -> list[RefInfo]: ...

    def refs(self) -> list[tuple[str, str, str]]: ...  # (ref, role, name): completion

    async def current_refs(self) -> list[RefInfo]:
        """refs_info() for the page the active tab shows now: a snapshot is taken first
        when there is none or the last one is of another page (replay finds refs so)."""
        ...

    async def agent_control(self, action: str) -> str:
        """pause, resume, stop, start or restart the session's agent; one line saying
        what it is now, or why not ("no agent: ...")."""
        ...
