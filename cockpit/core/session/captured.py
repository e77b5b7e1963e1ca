"""Steps a person already did in the browser (core/capture), posted to the session as a
command that ran is: its events, so the log shows it and the recorder records it, and its
result through the after-steps (masking, what the person did in a handoff, the picture).
Nothing runs: the person did it.

`CapturePort` is what the capture part is given of the session (its `CaptureHost`)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..base import events as ev
from ..base.result import Result
from ..language.command import Command
from .after import AfterStep, Ran, after

if TYPE_CHECKING:
    from playwright.async_api import Page

    from ..base.events import EventBus
    from ..handoff.handoff import Handoff
    from ..language.registry import Registry
    from ..page.tab import Tab

log = logging.getLogger(__name__)


class CapturePort:
    """The session as capture sees it: the bus, whether a person has the browser, the
    tab of a page and the active one, and where a captured step goes."""

    def __init__(self, bus: EventBus, ids: Iterator[int], registry: Registry,
                 after_steps: list[AfterStep], handoff: Handoff,
                 tabs: Callable[[], list[Tab]], active: Callable[[], Tab | None],
                 switch: Callable[[Tab], Awaitable[None]]) -> None:
        self._bus = bus
        self._ids = ids  # the session's command ids: a captured step is numbered as any
        self._registry = registry
        self._after_steps = after_steps
        self._handoff = handoff
        self._tabs = tabs
        self._active = active
        self._switch = switch

    @property
    def bus(self) -> EventBus:
        return self._bus

    @property
    def human_has_control(self) -> bool:
        return self._handoff.active

    def tab_of_page(self, page: Page) -> dict[str, Any] | None:
        """The tab showing `page` (index, id, title, URL), if one does."""
        tab = next((t for t in self._tabs() if t.page is page), None)
        return tab.info() if tab is not None else None

    def active_page(self) -> Page | None:
        """The page of the session's active tab (None: no tab)."""
        tab = self._active()
        return tab.page if tab is not None else None

    async def follow(self, page: Page) -> dict[str, Any] | None:
        """The tab showing `page` becomes the active one, as a person went to it."""
        tab = next((t for t in self._tabs() if t.page is page), None)
        if tab is None:
            return None
        try:
            await self._switch(tab)
            return tab.info()
        except ValueError:  # it closed meanwhile (a popup's last click): not a tab now
            log.debug("capture: tab %s closed before the session could follow", tab.id)
            return None

    async def post_step(self, line: str, *, source: str,
                        targets: dict[str, dict[str, Any]], at: dict[str, Any] | None,
                        tab: dict[str, Any] | None, output: str) -> None:
        """A step someone already did in the browser: its events and its result."""
        command_id = next(self._ids)
        command = Command.of(line, self._registry)
        self._bus.emit(ev.COMMAND_QUEUED, id=command_id, command=line, source=source)
        self._bus.emit(ev.COMMAND_STARTED, id=command_id, command=line, source=source,
                       targets=targets, at=at, captured=True)
        data: dict[str, Any] = {"captured": True, **({"tab": tab} if tab else {})}
        result = Result(line, True, output=output, source=source, data=data)
        try:
            result = await after(result, Ran(command, source, None), self._after_steps)
        except Exception:  # the step is still said and recorded, as it was done
            log.exception("the after-steps of a captured step (%s) failed", command.name)
        self._bus.emit(ev.COMMAND_FINISHED, id=command_id, source=source, exit_code=0,
                       **result.to_json())
