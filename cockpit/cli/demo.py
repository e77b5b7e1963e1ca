"""Serve the embedded demo site on 127.0.0.1 and open the cockpit on it, with the demo
agent walking it (`--walk`: the same walk in the plain terminal, in-process).

Both open one live session, like every face: recorded unless --no-record, reachable with
`cockpit exec`."""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
from typing import TYPE_CHECKING

from ..core import EXIT_FAILED
from .exits import failed
from .options import (
    SESSION_DESTS,
    add_session_options,
    configure_logging,
    refuse_unless_default,
)

if TYPE_CHECKING:
    from ..demo.server import DemoSite

# One port when free, so a walk recorded on one `cockpit demo` replays on the next.
DEMO_PORT = 8421


def configure(parser: argparse.ArgumentParser) -> None:
    add_session_options(parser)
    parser.add_argument("--theme", metavar="NAME", help="a theme from themes/ (the TUI)")
    parser.add_argument("--serve-only", action="store_true",
                        help="only serve the demo site and print its URL, until Ctrl+C")
    parser.add_argument("--no-agent", action="store_true",
                        help="open the TUI without the demo agent: you drive alone")
    parser.add_argument("--changed", action="store_true",
                        help="serve the site with its inbox buttons renamed (Archive -> "
                             "File away): replay a recording against it to see a step "
                             "diverge")
    parser.add_argument("--walk", action="store_true",
                        help="no TUI: walk the demo site in the terminal, as an agent would")


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.serve_only:
        refuse_unless_default(parser, args, SESSION_DESTS + ("theme", "no_agent", "walk",
                                                             "log"),
                              "cannot be used with --serve-only: it opens no session")
    elif args.walk:
        refuse_unless_default(parser, args, ("theme", "no_agent"),
                              "is for the TUI demo; --walk has no TUI and is its own agent")
    configure_logging(args.log, tui=not (args.walk or args.serve_only))
    return asyncio.run(demo(args))


async def demo(args: argparse.Namespace) -> int:
    from ..demo.server import DemoSite
    # COCKPIT_DEMO_CAPTCHA fixes the challenge's text, so a test can play the human.
    captcha_text = os.environ.get("COCKPIT_DEMO_CAPTCHA") or None
    variant = "changed" if args.changed else "normal"
    site = DemoSite(captcha_text=captcha_text, variant=variant, port=DEMO_PORT)
    try:
        site.start()
    except OSError:  # the usual port is taken (another demo): any free one
        site = DemoSite(captcha_text=captcha_text, variant=variant)
        site.start()
    try:
        if args.serve_only:
            print(f"demo site: {site.url}  (Ctrl+C to stop)", flush=True)
            while True:
                await asyncio.sleep(3600)
        if args.walk:
            return await _walk(args, site)
        from .tui import new_live, run_app
        agent = None if args.no_agent else \
            f"{shlex.quote(sys.executable)} -m cockpit.demo.agent {shlex.quote(site.url)}"
        live = new_live(args, agent=agent, face="cockpit demo")
        if isinstance(live, int):
            return live
        return await run_app(live, url=f"{site.url}/login" if agent is None else None,
                             theme=args.theme)
    finally:
        site.stop()


async def _walk(args: argparse.Namespace, site: DemoSite) -> int:
    from ..demo.walk import walk
    from .live import OPEN_ERRORS
    from .options import live_from_args
    print(f"demo site: {site.url}")
    try:
        async with live_from_args(args) as live:
            try:
                return await walk(site, live.session)
            except RuntimeError as exc:
                print(f"\nthe demo walk stopped: {exc}", file=sys.stderr)
                return EXIT_FAILED
    except OPEN_ERRORS as exc:
        return failed("cockpit demo", exc)
