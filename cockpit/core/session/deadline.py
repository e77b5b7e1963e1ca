"""Every command has a deadline: no page, however hung, holds the session past it.

A command runs in its own task; the session stops waiting for it at its deadline (the
session's `command_timeout`, 30 s unless `COCKPIT_COMMAND_TIMEOUT` or the caller says
otherwise, longer for a command told to wait longer), or when a `handoff` or `resume`
cuts it short. Then Playwright's pending call is cancelled, and core/recovery.py finds
what hangs (the page, the browser) and brings it back, so the next command runs.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
from typing import TYPE_CHECKING, Any

from ..base.errors import EXIT_FAILED, EXIT_UNREACHABLE
from .execute import execute_line
from ..language.parser import Invocation, excerpt
from ..base.result import Result

if TYPE_CHECKING:
    from ..language.command import Command
    from .engine import Runner

log = logging.getLogger(__name__)

COMMAND_TIMEOUT_S = 30.0
UNWIND_S = 2.0  # a command stopped at its deadline gets this long to unwind, then is left
INTERRUPT_AFTER_S = 2.0  # `handoff`/`resume` wait this long for a running command


def timeout_from_env() -> float:
    """COCKPIT_COMMAND_TIMEOUT (seconds), else the default; a bad value is said, not used."""
    text = os.environ.get("COCKPIT_COMMAND_TIMEOUT", "")
    try:
        value = float(text) if text else COMMAND_TIMEOUT_S
    except ValueError:
        value = 0.0
    if not math.isfinite(value) or value <= 0:
        log.warning("COCKPIT_COMMAND_TIMEOUT=%r is not a number of seconds above 0: using "
                    "%g s", text, COMMAND_TIMEOUT_S)
        return COMMAND_TIMEOUT_S
    return value


class _Running:
    """The command that holds the browser: its task, and when it must end."""

    def __init__(self, task: asyncio.Task[Result], started: float, limit: float) -> None:
        self.task = task
        self.started = started
        self.ends_at = started + limit
        self.cut: asyncio.Future[str] = asyncio.get_running_loop().create_future()


class Deadlines:
    """`session.deadlines`: runs each command against its deadline."""

    def __init__(self, session: Runner) -> None:
        self.session = session
        self.running: _Running | None = None
        self._abandoned: set[asyncio.Task[Result]] = set()  # stopped, still unwinding

    async def run(self, command: Command, source: str, deadline: float | None, *,
                  queued: bool = True) -> Result:
        """Run the line in its own task and stop waiting for it at its deadline: a page
        that never answers cannot hold the session. Past the deadline the hung renderer
        or browser is recovered. `queued`: it holds the command lock (not `status`)."""
        session = self.session
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(execute_line(session, command, source))
        line = command.line
        limit = session.command_timeout if deadline is None else deadline
        running = _Running(task, loop.time(), limit)
        if queued:
            self.running = running
        try:
            while not task.done() and not running.cut.done():
                remaining = running.ends_at - loop.time()
                if remaining <= 0:
                    break
                waited: set[asyncio.Future[Any]] = {task, running.cut}
                await asyncio.wait(waited, timeout=remaining,
                                   return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            if queued:
                self.running = None
        if task.done():
            return task.result()
        why = running.cut.result() if running.cut.done() else (
            f"did not finish within {loop.time() - running.started:.0f} s")
        task.cancel()  # Playwright drops the pending call; a stuck `finally` is left behind
        await asyncio.wait({task}, timeout=UNWIND_S)
        if not task.done():
            self._abandoned.add(task)
            task.add_done_callback(self._abandoned.discard)
        recovery = session.recovery
        done = await recovery.after_deadline(session.active) if queued else ""
        result = Result(line.strip(), False, source=source, exit_code=EXIT_FAILED,
                        error=f"`{excerpt(line)}` {why}, so it was stopped; " + (
                            done if done else "the browser and the page still answer: try "
                            "again, or `wait` for what it waited for") + ". The session goes on")
        if recovery.dead:
            result.exit_code = EXIT_UNREACHABLE
        return recovery.tell(result, source, skip=done)  # `done` is said above, not twice

    def allow_for(self, inv: Invocation) -> None:
        """A command told to wait N ms (`wait --timeout 60000`, `wait 5000`) may take that
        long beyond the deadline: its spec names those arguments (`waits_for`)."""
        running = self.running
        if running is None or not inv.spec.waits_for:
            return
        extra = 0.0
        for name in inv.spec.waits_for:
            value = inv.params.get(name)
            if isinstance(value, str) and value.isdigit():
                value = int(value)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                extra += value / 1000
        running.ends_at = max(running.ends_at,
                              running.started + self.session.command_timeout + extra)

    async def take_turn(self, source: str, command: Command) -> None:
        """Wait for the turn; a command declared `interrupts` (handoff, resume) waits only
        INTERRUPT_AFTER_S for the command running, then cuts it short."""
        spec, line = command.spec, command.line
        if spec is None or not spec.interrupts:
            await self.session.holds.take_turn(source, command)
            return
        while True:
            try:
                async with asyncio.timeout(INTERRUPT_AFTER_S):
                    await self.session.holds.take_turn(source, command)
                return
            except TimeoutError:
                running = self.running
                if running is not None and not running.cut.done():
                    ran = asyncio.get_running_loop().time() - running.started
                    running.cut.set_result(f"was cut short by `{excerpt(line)}` after "
                                           f"{ran:.0f} s")
