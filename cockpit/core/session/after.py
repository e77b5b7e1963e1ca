"""What happens to a Result once its command ran, in order.

Each step is given the Result the one before it handed on, and what ran (`Ran`), and
hands on the Result the next step gets; the last one is what the caller, the events and
the recorder see. The order is the session's (`Session.after_steps`): masking first, so a
step after it adds only text that holds no secret (what recovery did, what a person
changed), never text that would need masking again.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..base.result import Result
    from ..language.command import Command
    from ..model.snapshot import Snapshot


@dataclass(frozen=True)
class Ran:
    """The command a Result is of: its parsed line, who sent it, and the snapshot its
    refs came from (the one before it ran)."""

    command: Command
    source: str
    snap: Snapshot | None
    confirm: dict[str, Any] | None = None  # how a person answered it (--confirm)


# a step may be a coroutine (a picture of the page, the policy closing a refused popup):
# it runs while the command still has its turn, so the page is the one it left
AfterStep = Callable[["Result", Ran], "Result | Awaitable[Result]"]


async def after(result: Result, ran: Ran, steps: Sequence[AfterStep]) -> Result:
    """The Result once every step had it, in order."""
    for step in list(steps):  # a recorder may come or go meanwhile
        handed = step(result, ran)
        result = await handed if inspect.isawaitable(handed) else handed
    return result
