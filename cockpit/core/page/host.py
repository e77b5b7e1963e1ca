"""What a tab needs from the session it belongs to: the `TabHost` a Tab is given.

A tab reports through the session's bus and buffers, joins the watches of the command
running, masks its snapshots with the session's redactor and tells the session when it
closes or its renderer crashes. It never sees the Session class itself: the page part
sits below the session part and must not import it (pyproject.toml's import contracts).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from ..base.events import EventBus
    from ..secrets.redact import Redactor
    from ..settle.watch import Watch
    from .buffers import Buffers
    from .stylesheets import StylesheetRules

# the tab class (tab.py's Tab): named by a type variable, so this module needs no import
# of tab.py, which imports it
Tab = TypeVar("Tab")
CrashedTab = TypeVar("CrashedTab", contravariant=True)


class CrashHandler(Protocol[CrashedTab]):
    """Who brings a crashed renderer back (browser/recovery.py's Recovery)."""

    def renderer_crashed(self, tab: CrashedTab) -> None: ...


class TabHost(Protocol[Tab]):
    """The session, as a tab sees it (read-only: a tab changes none of these bindings)."""

    @property
    def tabs(self) -> list[Tab]: ...
    @property
    def active(self) -> Tab | None: ...
    @property
    def watches(self) -> list[Watch]: ...
    @property
    def buffers(self) -> Buffers: ...
    @property
    def request_ids(self) -> Iterator[int]: ...  # numbers requests for `request N`
    @property
    def bus(self) -> EventBus: ...
    @property
    def stylesheets(self) -> StylesheetRules: ...
    @property
    def redactor(self) -> Redactor: ...
    @property
    def recovery(self) -> CrashHandler[Tab]: ...
    @property
    def files_dir(self) -> Path: ...
    @property
    def closing(self) -> bool: ...
    @property
    def switching(self) -> bool: ...

    def tab_closed(self, tab: Tab) -> None: ...
