"""What a command handler gets: the session, the active tab, and helpers to act safely."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Awaitable, Callable, Generic, TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from ..base.errors import CommandError
from ..language.parser import as_ref
from ..page.targets import resolve
from ..page.translate import action_error
from .engine import Engine

if TYPE_CHECKING:
    from ..settle.watch import Watch
    from ..page.tab import Tab

T = TypeVar("T")
# the session a handler sees: the whole Session for the commands (`Context[Session]`),
# what running a command needs for execute.py (engine.py)
S = TypeVar("S", bound=Engine)


@dataclass
class Context(Generic[S]):
    session: S
    tab: Tab | None  # None only for the commands that need no tab (help, status, resume)
    source: str = "human"
    notes: list[str] = field(default_factory=list)  # extra lines for the result's text
    # what the running action causes (settle.Watch), while a command that changes the
    # page runs: a quick click hands it its first look at the page (quick_click.py)
    watch: Watch | None = None
    # called by a handler once the new document it navigated to has loaded, before its
    # own last round trips (goto's title): the step's snapshot of it starts then
    # (execute._mutate), as settling would start it when the handler returns; it returns
    # that snapshot's task (the same on a second call)
    loaded: Callable[[], object] | None = None

    @property
    def page(self) -> Page:
        return self.needs_tab().page

    def needs_tab(self) -> Tab:
        if self.tab is None:
            raise CommandError("the browser has no tab for this command")
        return self.tab

    @property
    def timeout(self) -> float:
        """Action timeout in milliseconds."""
        return self.session.action_timeout * 1000

    def describe(self, target: str) -> str:
        ref = as_ref(target)
        snapshot = self.needs_tab().snapshot
        if ref and snapshot:
            return snapshot.describe(ref)
        return f"@{ref}" if ref else f"`{target}`"

    def named(self, target: str) -> str:
        """How an action's result names its target: the ref the agent gave, which it
        knows (`clicked @e6`); described in full when it now names a re-rendered element
        under another ref, or when the target is a selector (which element it found)."""
        ref = as_ref(target)
        snapshot = self.needs_tab().snapshot
        if ref and snapshot and snapshot.live(ref) == ref and ref in snapshot.refs:
            return f"@{ref}"
        return self.describe(target)

    async def locate(self, target: str) -> Locator:
        return await resolve(self.needs_tab(), target)

    async def on(self, target: str, action: Callable[[Locator], Awaitable[T]],
                 locator: Locator | None = None) -> T:
        """Run `action(locator)` on the target (`locator`: as `locate` found it already),
        translating Playwright's errors."""
        locator = locator if locator is not None else await self.locate(target)
        try:
            return await action(locator)
        except PlaywrightError as exc:
            raise await action_error(exc, self.describe(target), locator) from None

    async def one(self, target: str) -> Locator:
        """The target's locator, refusing selectors that match several elements."""
        locator = await self.locate(target)
        count = await locator.count()
        if count == 0:
            raise CommandError(f"{self.describe(target)}: nothing matches on the page: check "
                               "the selector, or take a new snapshot")
        if count > 1:
            raise CommandError(f"{self.describe(target)} matched {count} elements: use a ref "
                               "from `snapshot -i` or a more specific selector")
        return locator
