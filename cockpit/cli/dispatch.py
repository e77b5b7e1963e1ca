"""From the command line to a face: `cockpit SUBCOMMAND ...` through argparse
subparsers, `cockpit [URL] ...` to the TUI (or `--plain`). A first word that is neither a
subcommand nor URL-like is a usage error naming the nearest subcommand: it must never
start a browser."""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys

# name: what it does (the module of the same name in this package is the face)
FACES = {
    "run": "run command lines from a file or stdin in a new session, without the TUI",
    "serve": "keep a session alive without the TUI, reachable through its control socket",
    "exec": "run one command in a live session and print its result",
    "attach": "open the TUI on a live session started elsewhere",
    "sessions": "list every live session of yours: workspace, browser, control, agent",
    "web": "the cockpit in a web browser, attached to a live session (with a token)",
    "mcp": "an MCP server (stdio, or HTTP with --port) that is also a live session",
    "demo": "the embedded demo site, with the TUI and the demo agent",
    "replay": "run a recording again and report every step that diverges",
    "export": "write a pytest-playwright test from a recording",
    "themes": "list the themes found, and why any theme file was refused",
    "commands": "print the command reference",
}
SUBCOMMANDS = tuple(FACES)


def url_like(word: str) -> bool:
    """A scheme, a dot or a colon (example.com, localhost:8000, about:blank), a path
    with a slash, or localhost."""
    return any(c in word for c in ".:/") or word == "localhost"


def not_a_subcommand(word: str) -> str:
    near = difflib.get_close_matches(word, SUBCOMMANDS, n=1, cutoff=0.0) or ["--help"]
    return (f"cockpit: {word!r} is not a subcommand or a URL: did you mean `cockpit "
            f"{near[0]}`? (subcommands: {', '.join(SUBCOMMANDS)}; a URL has a dot, a colon "
            f"or a scheme, e.g. localhost:8000)")


def subcommand_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cockpit")
    faces = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)
    for name, summary in FACES.items():
        if name == "exec":  # dispatched before argparse (cli/__init__.py): listed only
            faces.add_parser(name, help=summary, add_help=False)
            continue
        face = importlib.import_module(f".{name}", __package__)
        sub = faces.add_parser(name, help=summary, description=face.__doc__.split("\n\n")[0])
        face.configure(sub)
        sub.set_defaults(parser=sub)
    return parser


def dispatch(argv: list[str]) -> int:
    try:
        if argv and argv[0] in SUBCOMMANDS:
            args, extra = subcommand_parser().parse_known_args(argv)
            if extra:  # said by the face's own parser, with its own usage
                args.parser.error(f"unrecognized arguments: {' '.join(extra)} (`cockpit "
                                  f"{args.command} --help` lists what it takes)")
            face = importlib.import_module(f".{args.command}", __package__)
            return face.main(args, args.parser)
        if argv and not argv[0].startswith("-") and not url_like(argv[0]):
            print(not_a_subcommand(argv[0]), file=sys.stderr)
            return 2
        from . import tui
        parser = tui.parser()
        args = parser.parse_args(argv)
        if args.url is not None and not url_like(args.url):  # after options: the same rule
            print(not_a_subcommand(args.url), file=sys.stderr)
            return 2
        return tui.main(args, parser)
    except KeyboardInterrupt:
        return 130
