"""Bounded ring buffers of what pages said and did: console, errors, network, dialogs."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Any, Generic, Iterator, TypeVar

T = TypeVar("T")


class Ring(Generic[T]):
    """A bounded buffer that drops its oldest entries and counts what it dropped."""

    def __init__(self, size: int) -> None:
        self._items: deque[T] = deque(maxlen=size)
        self.dropped = 0

    def add(self, item: T) -> None:
        if len(self._items) == self._items.maxlen:
            self.dropped += 1
        self._items.append(item)

    def clear(self) -> None:
        self._items.clear()

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

    @property
    def done(self) -> bool:
        return self.status is not None or self.failure is not None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


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


@dataclass
class Buffers:
    console: Ring[ConsoleEntry] = field(default_factory=lambda: Ring(1000))
    network: Ring[NetworkEntry] = field(default_factory=lambda: Ring(1000))
    dialogs: Ring[DialogEntry] = field(default_factory=lambda: Ring(200))
