"""From the command line to a face: `cockpit SUBCOMMAND ...` through argparse
subparsers, `cockpit [URL] ...` to the TUI (or `--plain`). A first word that is neither a
subcommand nor URL-like is a usage error naming the nearest subcommand: it must never
start a browser."""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys

from ..core import EXIT_USAGE
from .exits import EXIT_INTERRUPTED
from .subcommands import FACES, SUBCOMMANDS


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
        sub = faces.add_parser(name, help=summary,
                               description=(face.__doc__ or summary).split("\n\n")[0])
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
            code: int = face.main(args, args.parser)
            return code
        if argv and not argv[0].startswith("-") and not url_like(argv[0]):
            print(not_a_subcommand(argv[0]), file=sys.stderr)
            return EXIT_USAGE
        from . import tui
        parser = tui.parser()
        args = parser.parse_args(argv)
        if args.url is not None and not url_like(args.url):  # after options: the same rule
            print(not_a_subcommand(args.url), file=sys.stderr)
            return EXIT_USAGE
        return tui.main(args, parser)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
