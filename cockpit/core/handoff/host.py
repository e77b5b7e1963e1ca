"""What a handoff needs from the session: the `HandoffHost`.

A handoff holds the agents, relaunches the browser in a window (so it is a BrowserHost
too) and, when the person is done (a closed window, an idle timeout), queues `resume`
like any other command, so it runs in order with the commands around it. The handoff
part sits below the session part and never imports it (pyproject.toml's contracts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..browser.host import BrowserHost

if TYPE_CHECKING:
    from ..base.result import Result
    from ..language.registry import Registry
    from ..page.tab import Tab


class WebServed(Protocol):
    """Where the page is served live in a browser (the live part's LiveView): a handoff
    with no window offers it."""

    @property
    def web_url(self) -> str | None: ...


class HandoffHost(BrowserHost, Protocol):
    """The session, as a handoff sees it."""

    @property
    def registry(self) -> Registry: ...
    @property
    def live_view(self) -> WebServed: ...

    async def run(self, line: str, source: str = "human", *,
                  timeout: float | None = None, deadline: float | None = None,
                  client: str | None = None) -> Result: ...
    async def ensure_tab(self) -> Tab: ...
    async def switch_to(self, tab: Tab) -> None: ...
    def hold_agents(self, reason: str, holder: str = "pause") -> None: ...
    def release_agents(self, holder: str = "pause") -> None: ...
    async def ready_for_person(self) -> None:
        """What a person's own actions need before they begin (capture, installed only
        when a person may act; the browser at the normal priority) is ready."""
        ...
    def person_gone(self) -> None:
        """The person gave the browser back: it is the agents' background work again."""
        ...
