"""Bounded ring buffers of what pages said and did: console, errors, network, dialogs.

Bounded in entries and in bytes (a page can log a megabyte a line), each text cut to a
length that says how much was cut, and a flood of console messages paused at its source
(FloodGuard): what a page does costs us a bounded amount whatever it does."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Generic, Iterator, TypeVar

T = TypeVar("T")

MAX_TEXT = 8_000  # characters of one console message or URL kept
BUFFER_BYTES = 2 * 1024 * 1024  # of text kept by the console and by the network buffer
CONSOLE_FLOOD_PER_S = 300  # console messages a second a tab may send before a pause
CONSOLE_PAUSE_S = 2.0  # how long a flooding tab's console is not listened to ...
CONSOLE_MAX_PAUSE_S = 30.0  # ... doubled while the flood goes on, up to this


def cut(text: str, limit: int = MAX_TEXT) -> str:
    """`text`, or its first `limit` characters and how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


class Ring(Generic[T]):
    """A bounded buffer that drops its oldest entries and counts what it dropped: at most
    `size` entries and, when `weigh` is given, `max_bytes` of what it weighs."""

    def __init__(self, size: int, max_bytes: int | None = None,
                 weigh: Callable[[T], int] | None = None) -> None:
        self._items: deque[T] = deque()
        self._size = size
        self._max_bytes = max_bytes
        self._weigh = weigh
        self._bytes = 0
        self.dropped = 0

    def add(self, item: T) -> None:
        self._items.append(item)
        if self._weigh is not None:
            self._bytes += self._weigh(item)
        while len(self._items) > 1 and (
                len(self._items) > self._size or
                (self._max_bytes is not None and self._bytes > self._max_bytes)):
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        old = self._items.popleft()
        if self._weigh is not None:
            self._bytes -= self._weigh(old)
        self.dropped += 1

    def clear(self) -> None:
        self._items.clear()
        self._bytes = 0

    @property
    def bytes(self) -> int:
        return self._bytes

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)


@dataclass
class ConsoleEntry:
    tab: int
    level: str  # log, info, warning, error, debug; "pageerror" for uncaught exceptions
    text: str
    url: str = ""
    time: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class NetworkEntry:
    tab: int
    method: str
    url: str
    resource: str
    status: int | None = None
    failure: str | None = None
    started: float = field(default_factory=time.time)
    ms: float | None = None
    id: int = 0  # its number in `network`, for `request N`
    # a weak reference to Playwright's Request: `request N` reads its headers and body
    # while its page lives, and holding it never keeps a recycled page's objects alive
    ref: Any = field(default=None, repr=False, compare=False)

    @property
    def done(self) -> bool:
        return self.status is not None or self.failure is not None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if k != "ref"}


@dataclass
class DialogEntry:
    tab: int
    type: str  # alert, confirm, prompt, beforeunload
    message: str
    default: str = ""
    answer: str | None = None  # "accepted", "dismissed"; None while open
    time: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _console_weight(entry: ConsoleEntry) -> int:
    return 100 + len(entry.text) + len(entry.url)


def _network_weight(entry: NetworkEntry) -> int:
    return 150 + len(entry.url)  # what never changes once added: the sums stay right


class FloodGuard:
    """Counts arrivals a second; `admit()` is False from the one past `per_second` in a
    second on, until the caller `reopen()`s (after a pause, when it listens again)."""

    def __init__(self, per_second: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_second = per_second
        self._clock = clock
        self._window = clock()
        self._count = 0
        self.tripped = False
        self.floods = 0  # how many times it tripped

    def admit(self) -> bool:
        if self.tripped:
            return False
        now = self._clock()
        if now - self._window >= 1.0:
            self._window, self._count = now, 0
        self._count += 1
        if self._count > self.per_second:
            self.tripped = True
            self.floods += 1
            return False
        return True

    def reopen(self) -> None:
        self.tripped = False
        self._window, self._count = self._clock(), 0


@dataclass
class Buffers:
    console: Ring[ConsoleEntry] = field(default_factory=lambda: Ring(
        1000, BUFFER_BYTES, _console_weight))
    network: Ring[NetworkEntry] = field(default_factory=lambda: Ring(
        1000, BUFFER_BYTES, _network_weight))
    dialogs: Ring[DialogEntry] = field(default_factory=lambda: Ring(200))
