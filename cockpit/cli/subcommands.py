"""The subcommands of `cockpit`, each with what it does: read by the dispatcher
(dispatch.py) and by the TUI face's help (tui.py), neither of which imports the other's
module for it."""

from __future__ import annotations

# name: what it does (the module of the same name in this package is the face)
FACES = {
    "run": "run command lines from a file or stdin in a new session, without the TUI",
    "serve": "keep a session alive without the TUI, reachable through its control socket",
    "exec": "run one command in a live session and print its result",
    "attach": "open the TUI on a live session started elsewhere",
    "sessions": "list every live session of yours: workspace, browser, control, agent",
    "watch": "every live session of yours in one view, those that need a human first",
    "web": "the cockpit in a web browser, attached to a live session (with a token)",
    "mcp": "an MCP server (stdio, or HTTP with --port) that is also a live session",
    "demo": "the embedded demo site, with the TUI and the demo agent",
    "record": "record a walkthrough by doing it in a browser window: each action a step",
    "replay": "run a recording again and report every step that diverges",
    "export": "write a pytest-playwright test or a @playwright/test spec from a recording",
    "report": "write a self-contained HTML report of a recording: steps, pictures, verdicts",
    "themes": "list the themes found, and why any theme file was refused",
    "commands": "print the command reference",
}
SUBCOMMANDS = tuple(FACES)
