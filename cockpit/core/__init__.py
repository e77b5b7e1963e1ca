"""The engine: a browser session that runs the command language.

This module is the engine's surface: the other layers (cli, tui, control, record, demo)
import from `cockpit.core` only, never from its parts (an import contract in
pyproject.toml says so). Inside, the engine is parts with one job each, importing
only downwards (another contract checks the order):

    commands  the command handlers, registered with the registry on import
    expect    what `expect` checks: one model the engine, replay and exports share
    session   the Session, its queue and deadlines, the context handlers get
    policy    --allow-domain and --confirm: what an agent may do on its own
    live      the page's picture as it paints, and input at viewport coordinates
    network   routes, HAR, requests in full, emulation: what every context gets
    handoff   giving the browser to a person and back, and what they changed
    browser   launching, attaching, relaunching, recovering and recycling browsers
    page      a tab, its snapshots, refs, targets and diffs
    settle    waiting for a page to finish what an action started (in-page tracker)
    secrets   masking: secret values, password fields, lines, results and traces
    language  the registry of commands, the parser, the parsed Command
    model     the parsed accessibility snapshot (no browser)
    base      errors, events, results, sources, logs, names, paths: what every part uses

No Textual here, ever: the TUI, agents and the recorder are views of this package.

Names are loaded on first use, so a thin client (`cockpit exec`, `cockpit.client`) can
import `Result` or `EXIT_OK` without paying for Playwright.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's import: thin clients come through here
if TYPE_CHECKING:
    from .base import events
    from .commands.mouse import DRAG_STEPS
    from .expect import STATES, Expectation, ExpectationFailed, Pattern, expectation_of
    from .base.errors import (
        EXIT_FAILED, EXIT_OK, EXIT_UNREACHABLE, EXIT_USAGE, EXIT_WAIT_TIMEOUT,
        BrowserNotFoundError, CommandError,
    )
    from .base.events import Event, EventBus
    from .base.names import check_session_name
    from .base.paths import caller_dir
    from .base.result import Result
    from .base.sources import REPLAYED, SENT_BY_CLIENTS
    from .base.terminal import show_controls, visible
    from .base.workspace import workspace_dir
    from .browser.attach import attach_request, shown
    from .browser.driver import drop_warm_driver, warm_driver
    from .browser.shared import SharedBrowser
    from .language.command import Command
    from .language.completion import Candidate, complete
    from .language.parser import (
        Invocation, as_ref, command_of, parse, split_chain, split_words,
    )
    from .live.input import WHEEL_WAITED_JS, WHEEL_WATCH_JS
    from .live.streams import Frame
    from .live.video import video_file
    from .language.registry import (
        CATEGORIES, INT, REGISTRY, URL, Arg, CommandSpec, Flag, Registry,
    )
    from .language.shell_words import join, positional
    from .model.snapshot import INTERACTIVE_ROLES
    from .network.options import configure_network
    from .network.routes import header_pairs, matcher
    from .network.state import network_words
    from .page.changeset import diff_line
    from .page.tab import Tab
    from .secrets.mask import MASK, Masker
    from .secrets.redact import PASSWORDISH
    from .secrets.secrets import USE
    from .session.agent import describe
    from .session.after import Ran
    from .session.session import Session
    from .session.surface import RefInfo, SessionSurface

# name -> the module of the part that defines it ("=": the name is that module itself)
_HOMES = {
    "events": "=base.events", "DRAG_STEPS": "commands.mouse",
    **dict.fromkeys(["STATES", "Expectation", "ExpectationFailed", "Pattern",
                     "expectation_of"], "expect"),
    **dict.fromkeys(["EXIT_FAILED", "EXIT_OK", "EXIT_UNREACHABLE", "EXIT_USAGE",
                     "EXIT_WAIT_TIMEOUT", "BrowserNotFoundError", "CommandError"],
                    "base.errors"),
    "Event": "base.events", "EventBus": "base.events",
    "check_session_name": "base.names", "caller_dir": "base.paths",
    "Result": "base.result", "REPLAYED": "base.sources", "SENT_BY_CLIENTS": "base.sources",
    "show_controls": "base.terminal", "visible": "base.terminal",
    "workspace_dir": "base.workspace",
    "attach_request": "browser.attach", "shown": "browser.attach",
    "SharedBrowser": "browser.shared",
    "drop_warm_driver": "browser.driver", "warm_driver": "browser.driver",
    "Command": "language.command",
    "Candidate": "language.completion", "complete": "language.completion",
    **dict.fromkeys(["Invocation", "as_ref", "command_of", "parse", "split_chain",
                     "split_words"],
                    "language.parser"),
    "Frame": "live.screencast", "video_file": "live.video",
    "WHEEL_WATCH_JS": "live.input", "WHEEL_WAITED_JS": "live.input",
    **dict.fromkeys(["CATEGORIES", "INT", "REGISTRY", "URL", "Arg", "CommandSpec", "Flag",
                     "Registry"], "language.registry"),
    "join": "language.shell_words", "positional": "language.shell_words",
    "INTERACTIVE_ROLES": "model.snapshot",
    "configure_network": "network.options", "header_pairs": "network.routes",
    "matcher": "network.routes", "network_words": "network.state",
    "diff_line": "page.changeset", "Tab": "page.tab",
    "MASK": "secrets.mask", "Masker": "secrets.mask", "PASSWORDISH": "secrets.redact",
    "USE": "secrets.secrets",
    "describe": "session.agent", "Session": "session.session", "Ran": "session.after",
    "RefInfo": "session.surface", "SessionSurface": "session.surface",
}
# these read the registry: every command is registered before they are handed out
_READ_THE_REGISTRY = {"REGISTRY", "Session", "Command", "parse", "command_of", "complete",
                      "Masker"}

# literal, so a type checker sees the re-exports (a unit test keeps it equal to _HOMES)
__all__ = [
    "CATEGORIES",
    "DRAG_STEPS",
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
    "REPLAYED",
    "SENT_BY_CLIENTS",
    "STATES",
    "URL",
    "USE",
    "WHEEL_WAITED_JS",
    "WHEEL_WATCH_JS",
    "Arg",
    "BrowserNotFoundError",
    "Candidate",
    "Command",
    "CommandError",
    "CommandSpec",
    "Event",
    "EventBus",
    "Expectation",
    "ExpectationFailed",
    "Flag",
    "Frame",
    "Invocation",
    "Masker",
    "Pattern",
    "Ran",
    "RefInfo",
    "Registry",
    "Result",
    "Session",
    "SessionSurface",
    "SharedBrowser",
    "Tab",
    "as_ref",
    "attach_request",
    "caller_dir",
    "check_session_name",
    "command_of",
    "complete",
    "configure_network",
    "describe",
    "diff_line",
    "drop_warm_driver",
    "events",
    "expectation_of",
    "header_pairs",
    "join",
    "matcher",
    "network_words",
    "parse",
    "positional",
    "show_controls",
    "shown",
    "split_chain",
    "split_words",
    "video_file",
    "visible",
    "warm_driver",
    "workspace_dir",
]


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # __import__, not importlib.import_module: importing importlib (and warnings) would
    # cost `cockpit exec`, which comes through here, more than the rest of its imports
    if name in _READ_THE_REGISTRY:
        __import__(f"{__name__}.commands")  # registers every command
    module = __import__(f"{__name__}.{home.lstrip('=')}", fromlist=["_"])
    return module if home.startswith("=") else getattr(module, name)
