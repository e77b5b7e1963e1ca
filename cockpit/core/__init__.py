"""The engine: a browser session that runs the command language.

No Textual here, ever: the TUI, agents and the recorder are views of this package.
"""

from __future__ import annotations

from . import commands  # noqa: F401  (registers every command)
from .events import Event, EventBus
from .registry import REGISTRY
from .result import Result
from .session import Session

__all__ = ["Event", "EventBus", "REGISTRY", "Result", "Session"]
