"""The `cockpit` command line (see shared/CONTRACTS.md for the contract)."""

from __future__ import annotations

import sys

SUBCOMMANDS = ("run", "serve", "exec", "attach", "demo", "commands", "themes", "replay",
               "export")


def _session_options(parser) -> None:
    parser.add_argument("--session", default="default", metavar="NAME",
                        help="session name (default: default); its browser profile is kept "
                             "per workspace")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    parser.add_argument("--browser", default="chromium", choices=("chromium", "firefox",
                                                                  "webkit"),
                        help="browser engine (firefox/webkit need Playwright's own builds)")
    parser.add_argument("--browser-path", metavar="PATH",
                        help="a Chrome/Chromium executable to use instead of the one found")
    parser.add_argument("--secret", action="append", default=[], metavar="NAME=VALUE",
                        help="a secret commands use as $NAME, masked in recordings; "
                             "`--secret NAME` reads it from the environment variable NAME")
    parser.add_argument("--record", metavar="FILE",
                        help="record to FILE (default: recordings/SESSION-TIME.jsonl)")
    parser.add_argument("--no-record", action="store_true", help="do not record")
    parser.add_argument("--trace", metavar="FILE.zip",
                        help="record a Playwright trace (open it with `playwright "
                             "show-trace FILE.zip` or trace.playwright.dev)")
    parser.add_argument("--auto-handoff", action="store_true",
                        help="hand the browser to the human by itself when a page needs a "
                             "person (a CAPTCHA, a one-time code, a login wall)")
    parser.add_argument("--auto-resume", action="store_true",
                        help="after such a handoff, resume by itself once the challenge "
                             "is gone")


def session_from_args(args):
    """The Session the shared options (--session, --headed, --browser...) describe."""
    from ..core import Session
    session = Session(args.session, headed=args.headed, engine=args.browser,
                      browser_path=args.browser_path)
    session.handoff.auto_handoff = args.auto_handoff
    session.handoff.auto_resume = args.auto_resume
    for spec in args.secret:
        session.secrets.add(spec)  # ValueError names the bad one
    if args.trace:
        from pathlib import Path
        session.trace_path = Path(args.trace).resolve()
    if not args.no_record:
        from pathlib import Path

        from ..record.recorder import default_path
        session.recording_path = Path(args.record) if args.record else default_path(
            session.name)
    return session


def build_parser(command: str | None):
    import argparse
    if command == "run":
        p = argparse.ArgumentParser(
            prog="cockpit run", description="Run command lines from FILE, or from stdin as "
            "they arrive, in a new session, without the TUI.")
        p.add_argument("file", nargs="?", help="a file of commands, one a line (default: stdin)")
        p.add_argument("--json", action="store_true",
                       help="one JSON result per line, flushed at once")
        p.add_argument("--echo", action="store_true", help="print each command before its result")
        _session_options(p)
        return p
    if command == "serve":
        p = argparse.ArgumentParser(
            prog="cockpit serve", description="Keep a session alive without the TUI and "
            "serve its control socket until Ctrl+C or SIGTERM (for servers and CI). Drive "
            "it with `cockpit exec`, watch it with `cockpit attach`.")
        p.add_argument("url", nargs="?", help="a URL to open first")
        _session_options(p)
        return p
    if command == "attach":
        p = argparse.ArgumentParser(
            prog="cockpit attach", description="Open the TUI on a live session started "
            "elsewhere (by `cockpit`, `serve` or `demo`); closing it leaves the session "
            "running.")
        p.add_argument("--session", default=None, metavar="NAME",
                       help="the session's name (default: $COCKPIT_SESSION, else default)")
        p.add_argument("--socket", metavar="PATH", help="a session's socket path")
        p.add_argument("--theme", metavar="NAME", help="a theme from themes/")
        return p
    if command == "demo":
        p = argparse.ArgumentParser(
            prog="cockpit demo", description="Serve the embedded demo site on 127.0.0.1 and "
            "open the cockpit on it, with the demo agent walking it.")
        _session_options(p)
        p.add_argument("--serve-only", action="store_true",
                       help="only serve the demo site and print its URL, until Ctrl+C")
        p.add_argument("--no-agent", action="store_true",
                       help="open the TUI without the demo agent: you drive alone")
        p.add_argument("--changed", action="store_true",
                       help="serve the site with its inbox buttons renamed (Archive -> File "
                            "away): replay a recording against it to see a step diverge")
        p.add_argument("--walk", action="store_true",
                       help="no TUI: walk the demo site in the terminal, as an agent would")
        return p
    if command == "replay":
        p = argparse.ArgumentParser(
            prog="cockpit replay", description="Run a recording again in a new session and "
            "report every step whose outcome (ok or error, URL, what changed) differs; "
            "exit 1 on any divergence.")
        p.add_argument("file", help="a recording (recordings/*.jsonl)")
        p.add_argument("--step", action="store_true",
                       help="walk through it: Enter runs each step, s skips, q stops")
        p.add_argument("--origin", metavar="URL",
                       help="where the recorded site runs now, e.g. http://127.0.0.1:8001")
        p.add_argument("--json", action="store_true", help="one JSON line per step")
        _session_options(p)
        return p
    if command == "commands":
        p = argparse.ArgumentParser(prog="cockpit commands",
                                    description="Print the command reference.")
        p.add_argument("--json", action="store_true", help="the JSON description instead")
        p.add_argument("--markdown", action="store_true", help="the README's Markdown table")
        return p
    p = argparse.ArgumentParser(
        prog="cockpit", description="A terminal cockpit for browsers driven by AI agents. "
        f"Subcommands: {', '.join(SUBCOMMANDS)} (`cockpit SUBCOMMAND --help`).")
    p.add_argument("url", nargs="?", help="a URL to open first")
    _session_options(p)
    p.add_argument("--theme", metavar="NAME", help="a theme from themes/ (cockpit-dark, "
                   "cockpit-light, or your own)")
    p.add_argument("--plain", action="store_true",
                   help="no TUI: a plain line prompt on the same engine")
    p.add_argument("--agent", metavar="CMD",
                   help="start CMD (a shell command) as the agent: it finds the session "
                        "through $COCKPIT_SOCKET and drives it with `cockpit exec`")
    return p


def _quiet_on_closed_pipe(func):
    """`cockpit exec text | head -1`: a reader that stops early is no failure (exit 0, no
    traceback). Later writes (the interpreter's final flush) go to /dev/null."""
    import functools
    import os

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    return wrapper


@_quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv and argv[0] in SUBCOMMANDS else None
    if command == "exec":  # the agents' hot path: no argparse, no asyncio, no browser
        from .exec import main as exec_main
        return exec_main(argv[1:])
    if command == "themes":
        from ..tui.themes import themes_main
        return themes_main(argv[1:])
    if command == "export":
        from ..record.export import export_main
        return export_main(argv[1:])
    import asyncio
    args = build_parser(command).parse_args(argv[1:] if command else argv)
    try:
        if command == "commands":
            return _commands(args)
        if command == "serve":
            from .serve import serve_main
            return asyncio.run(serve_main(args))
        if command == "attach":
            from .tui import run_attach
            return run_attach(args)
        if command == "replay":
            from .replay import replay_main
            return asyncio.run(replay_main(args))
        if command == "demo":
            from ..demo.walk import demo_main
            return asyncio.run(demo_main(args))
        if command is None and not args.plain:
            from .tui import run_tui
            return run_tui(args, url=args.url)
        from .run import run_main
        if command is None:  # --plain: a line prompt on the same engine
            args.file, args.json, args.echo = None, False, False
        return asyncio.run(run_main(args, first_url=getattr(args, "url", None)))
    except KeyboardInterrupt:
        return 130


def _commands(args) -> int:
    import json

    from ..core import REGISTRY
    if args.json:
        print(json.dumps(REGISTRY.describe(), indent=2))
    elif args.markdown:
        print(REGISTRY.markdown(), end="")
    else:
        print(REGISTRY.overview())
    return 0
