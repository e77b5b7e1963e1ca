"""The engine: a browser session that runs the command language.

No Textual here, ever: the TUI, agents and the recorder are views of this package.

Names are loaded on first use, so a thin client (`cockpit exec`, `cockpit.client`) can
import `cockpit.core.result` or `cockpit.core.errors` without paying for Playwright.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's import: thin clients come through here
if TYPE_CHECKING:
    from .events import Event, EventBus
    from .registry import REGISTRY
    from .result import Result
    from .session import Session

_HOMES = {"Event": "events", "EventBus": "events", "REGISTRY": "registry",
          "Result": "result", "Session": "session"}

__all__ = list(_HOMES)


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module  # here: importlib (and warnings) cost exec ~0.5 ms

    if name in ("REGISTRY", "Session"):
        import_module(".commands", __name__)  # registers every command
    return getattr(import_module(f".{home}", __name__), name)
