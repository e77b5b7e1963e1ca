"""What happens to a Result once its command ran, in order.

Each step is given the Result the one before it handed on, and what ran (`Ran`), and
hands on the Result the next step gets; the last one is what the caller, the events and
the recorder see. The order is the session's (`Session.after_steps`): masking first, so a
step after it adds only text that holds no secret (what recovery did, what a person
changed), never text that would need masking again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

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


AfterStep = Callable[["Result", Ran], "Result"]


def after(result: Result, ran: Ran, steps: Sequence[AfterStep]) -> Result:
    """The Result once every step had it, in order."""
    for step in steps:
        result = step(result, ran)
    return result
