"""Holding agents back: while the agent is paused or a human has the browser, agents'
commands wait, queued in order, and everyone else's still run. One per session."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..base import events as ev
from ..base.events import EventBus
from ..language.command import Command
from ..language.registry import Registry


class AgentHolds:
    def __init__(self, bus: EventBus, registry: Callable[[], Registry]) -> None:
        self.bus = bus
        self.registry = registry  # the session's, as it is now (it may be replaced)
        # one command at a time: taken by take_turn, given back by end_turn; background
        # work on the browser (recovery, a picture) holds it too, as `session.command_lock`
        self.lock = asyncio.Lock()
        self._holds: dict[str, str] = {}  # holder -> reason
        self._go = asyncio.Event()
        self._go.set()

    @property
    def reason(self) -> str | None:
        """Why agents' commands wait, or None while they run."""
        return "; ".join(self._holds.values()) or None

    def waits(self, command: Command, source: str) -> bool:
        """Whether this command would wait for agents to be released. Commands declared
        `never_held` (resume, status) never do, whoever asks (`cockpit exec RESUME` comes
        as an agent's); a line that names no command waits like any other."""
        if source != "agent" or not self._holds:
            return False
        return command.spec is None or not command.spec.never_held

    async def take_turn(self, source: str, command: Command) -> None:
        """Return holding the session's lock, once agents may run (if it is an agent's)."""
        while True:
            while self.waits(command, source):
                await self._go.wait()
            await self.lock.acquire()
            if not self.waits(command, source):
                return
            self.lock.release()  # held while it queued behind others: wait again

    def end_turn(self) -> None:
        """The command that took its turn has ended: the next one may run."""
        self.lock.release()

    def why_waiting(self, source: str) -> str:
        if source == "agent" and self._holds:
            return f"agents are held: {self.reason}"
        return "the commands before it were still running"

    def hold(self, reason: str, holder: str = "pause") -> None:
        """Agents' commands wait until every holder has released them. Holders: "pause"
        (the agent paused), "handoff"."""
        self._holds[holder] = reason
        self._go.clear()
        self.bus.emit(ev.AGENTS_HELD, reason=self.reason)

    def release(self, holder: str = "pause") -> None:
        if self._holds.pop(holder, None) is None:
            return
        if self._holds:
            self.bus.emit(ev.AGENTS_HELD, reason=self.reason)
            return
        self._go.set()
        self.bus.emit(ev.AGENTS_RELEASED)
