"""The engine: a browser session that runs the command language.

This module is the engine's surface: the other layers (cli, tui, control, record, demo)
import from `cockpit.core` only, never from its parts (an import contract in
pyproject.toml says so). Inside, the engine is parts with one job each, importing
only downwards (another contract checks the order):

    commands  the command handlers, registered with the registry on import
    session   the Session, its queue and deadlines, the context handlers get
    handoff   giving the browser to a person and back, and what they changed
    browser   launching, attaching, relaunching, recovering and recycling browsers
    page      a tab, its snapshots, refs, targets and diffs
    settle    waiting for a page to finish what an action started (in-page tracker)
    secrets   masking: secret values, password fields, lines, results and traces
    language  the registry of commands and the parser of command lines
    model     the parsed accessibility snapshot (no browser)
    base      errors, events, results, logs, names, paths: what every part uses

No Textual here, ever: the TUI, agents and the recorder are views of this package.

Names are loaded on first use, so a thin client (`cockpit exec`, `cockpit.client`) can
import `Result` or `EXIT_OK` without paying for Playwright.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's import: thin clients come through here
if TYPE_CHECKING:
    from .base import events
    from .base.errors import (
        EXIT_FAILED, EXIT_OK, EXIT_UNREACHABLE, EXIT_USAGE, EXIT_WAIT_TIMEOUT,
        BrowserNotFoundError, CommandError,
    )
    from .base.events import Event, EventBus
    from .base.names import check_session_name
    from .base.paths import caller_dir
    from .base.result import Result
    from .base.terminal import show_controls, visible
    from .base.workspace import workspace_dir
    from .browser.attach import attach_request, shown
    from .language.completion import Candidate, complete
    from .language.parser import as_ref, command_of, parse, split_words
    from .language.registry import (
        CATEGORIES, INT, REGISTRY, URL, Arg, CommandSpec, Flag, Registry,
    )
    from .language.shell_words import join
    from .model.snapshot import INTERACTIVE_ROLES
    from .page.diff import diff_line
    from .page.tab import Tab
    from .secrets.mask import MASK, Masker
    from .secrets.redact import PASSWORDISH
    from .secrets.secrets import USE
    from .session.agent import describe
    from .session.session import Session
    from .session.surface import RefInfo, SessionSurface

# name -> the module of the part that defines it ("=": the name is that module itself)
_HOMES = {
    "events": "=base.events",
    **dict.fromkeys(["EXIT_FAILED", "EXIT_OK", "EXIT_UNREACHABLE", "EXIT_USAGE",
                     "EXIT_WAIT_TIMEOUT", "BrowserNotFoundError", "CommandError"],
                    "base.errors"),
    "Event": "base.events", "EventBus": "base.events",
    "check_session_name": "base.names", "caller_dir": "base.paths",
    "Result": "base.result", "show_controls": "base.terminal", "visible": "base.terminal",
    "workspace_dir": "base.workspace",
    "attach_request": "browser.attach", "shown": "browser.attach",
    "Candidate": "language.completion", "complete": "language.completion",
    **dict.fromkeys(["as_ref", "command_of", "parse", "split_words"], "language.parser"),
    **dict.fromkeys(["CATEGORIES", "INT", "REGISTRY", "URL", "Arg", "CommandSpec", "Flag",
                     "Registry"], "language.registry"),
    "join": "language.shell_words",
    "INTERACTIVE_ROLES": "model.snapshot",
    "diff_line": "page.diff", "Tab": "page.tab",
    "MASK": "secrets.mask", "Masker": "secrets.mask", "PASSWORDISH": "secrets.redact",
    "USE": "secrets.secrets",
    "describe": "session.agent", "Session": "session.session",
    "RefInfo": "session.surface", "SessionSurface": "session.surface",
}
# these read the registry: every command is registered before they are handed out
_READ_THE_REGISTRY = {"REGISTRY", "Session", "parse", "command_of", "complete", "Masker"}

# literal, so a type checker sees the re-exports (a unit test keeps it equal to _HOMES)
__all__ = [
    "CATEGORIES",
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_UNREACHABLE",
    "EXIT_USAGE",
    "EXIT_WAIT_TIMEOUT",
    "INT",
    "INTERACTIVE_ROLES",
    "MASK",
    "PASSWORDISH",
    "REGISTRY",
    "URL",
    "USE",
    "Arg",
    "BrowserNotFoundError",
    "Candidate",
    "CommandError",
    "CommandSpec",
    "Event",
    "EventBus",
    "Flag",
    "Masker",
    "RefInfo",
    "Registry",
    "Result",
    "Session",
    "SessionSurface",
    "Tab",
    "as_ref",
    "attach_request",
    "caller_dir",
    "check_session_name",
    "command_of",
    "complete",
    "describe",
    "diff_line",
    "events",
    "join",
    "parse",
    "show_controls",
    "shown",
    "split_words",
    "visible",
    "workspace_dir",
]


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module  # here: importlib (and warnings) cost exec ~0.5 ms

    if name in _READ_THE_REGISTRY:
        import_module(".commands", __name__)  # registers every command
    if home.startswith("="):
        return import_module(f".{home[1:]}", __name__)
    return getattr(import_module(f".{home}", __name__), name)
