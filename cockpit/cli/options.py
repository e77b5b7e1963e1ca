"""The options shared by the faces that open a session, and the logging they configure.

Each face offers only the options it honours (`add_session_options` plus its own), so an
option it cannot honour is a usage error from argparse, never silently dropped."""

from __future__ import annotations

import argparse
import io
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .live import LiveSession, SessionOptions

ENV_LOG = "COCKPIT_LOG"
SPAWN_TURNS = 4  # turns of the loop Playwright takes from its start to spawning its driver


def add_session_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", default="default", metavar="NAME",
                        help="session name (default: default); its browser profile is kept "
                             "per workspace")
    parser.add_argument("--headed", action="store_true", help="show the browser window")
    parser.add_argument("--browser", default="chromium", choices=("chromium", "firefox",
                                                                  "webkit"),
                        help="browser engine (firefox/webkit need Playwright's own builds)")
    parser.add_argument("--browser-path", metavar="PATH",
                        help="a Chrome/Chromium executable to use instead of the one found")
    parser.add_argument("--cdp", metavar="PORT|URL|auto",
                        help="attach to a running Chrome/Chromium/Edge started with "
                             "--remote-debugging-port (auto: find a local one); its tabs "
                             "become the session's, and it is never closed by Cockpit")
    parser.add_argument("--ws-endpoint", metavar="URL",
                        help="attach to a Playwright browser server (`playwright "
                             "launch-server`, `run-server`): ws://HOST:PORT/...")
    parser.add_argument("--secret", action="append", default=[], metavar="NAME=VALUE",
                        help="a secret commands use as $NAME, masked in recordings; "
                             "`--secret NAME` reads it from the environment variable NAME")
    parser.add_argument("--record", metavar="FILE",
                        help="record to FILE (default: recordings/SESSION-TIME.jsonl)")
    parser.add_argument("--no-record", action="store_true", help="do not record")
    parser.add_argument("--no-shots", action="store_true",
                        help="record no picture of the page after each step (they go in "
                             "RECORDING.shots/, for `cockpit report`)")
    parser.add_argument("--trace", metavar="FILE.zip",
                        help="record a Playwright trace (open it with `playwright "
                             "show-trace FILE.zip` or trace.playwright.dev)")
    parser.add_argument("--video", metavar="DIR",
                        help="record a video of the session into DIR (SESSION-TIME.webm, "
                             "step titles as chapters and in a .vtt beside it; needs ffmpeg)")
    parser.add_argument("--auto-handoff", action="store_true",
                        help="hand the browser to the human by itself when a page needs a "
                             "person (a CAPTCHA, a one-time code, a login wall)")
    parser.add_argument("--auto-resume", action="store_true",
                        help="after such a handoff, resume by itself once the challenge "
                             "is gone")
    parser.add_argument("--allow-domain", action="append", default=[], metavar="DOMAIN",
                        help="the browser may reach DOMAIN and its subdomains only "
                             "(repeatable): navigation and requests elsewhere are refused, "
                             "and the result says so")
    parser.add_argument("--confirm", action="append", default=[], metavar="PATTERN",
                        help="an agent's command that matches waits for a person to approve "
                             "or deny it (repeatable): a command and a glob over its line or "
                             "its target's name, like click:*Delete* or goto:*checkout*")
    parser.add_argument("--remote-header", action="append", default=[],
                        metavar='"NAME: VALUE"',
                        help="a header sent when attaching with --cdp or --ws-endpoint (a "
                             "hosted browser's API key, say); repeatable; its value is masked "
                             "like a secret")
    parser.add_argument("--notify", metavar="CMD",
                        help="run CMD (through the shell) whenever the session newly needs a "
                             "human, with COCKPIT_SESSION, COCKPIT_REASON and COCKPIT_URL in "
                             "its environment")
    add_emulation_options(parser)
    add_log_option(parser)


def add_emulation_options(parser: argparse.ArgumentParser) -> None:
    """--device, --proxy, --locale, --timezone, --har: the session starts with them (and
    keeps them across relaunches), as the commands of the same names set them later."""
    parser.add_argument("--device", metavar="NAME",
                        help='emulate a device from the start ("iPhone 13"; `device list` '
                             "names them)")
    parser.add_argument("--proxy", metavar="URL",
                        help="send the browser's traffic through this proxy "
                             "(http://[USER:PASS@]HOST:PORT, socks5://HOST:PORT)")
    parser.add_argument("--locale", metavar="TAG", help="emulate a locale (de-DE)")
    parser.add_argument("--timezone", metavar="ID", help="emulate a timezone (Asia/Tokyo)")
    parser.add_argument("--har", metavar="FILE",
                        help="answer requests from a HAR file (one `har start` wrote)")
    parser.add_argument("--har-missing", choices=("fallback", "abort"), default="fallback",
                        help="a request the HAR lacks: to the network (fallback, the "
                             "default) or failed (abort)")


def add_log_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--log", metavar="FILE",
                        help=f"write Cockpit's log to FILE (mode 0600; also ${ENV_LOG})")


# The destinations of the session options, for faces that refuse them in some mode.
SESSION_DESTS = ("session", "headed", "browser", "browser_path", "cdp", "ws_endpoint",
                 "secret", "record", "no_record", "no_shots", "trace", "video", "auto_handoff",
                 "auto_resume", "allow_domain", "confirm", "remote_header", "notify",
                 "device", "proxy", "locale", "timezone", "har", "har_missing")


def refuse_unless_default(parser: argparse.ArgumentParser, args: argparse.Namespace,
                          dests: tuple[str, ...], why: str) -> None:
    """A usage error (exit 2) naming the first of these options that was given."""
    for dest in dests:
        if getattr(args, dest, None) != parser.get_default(dest):
            parser.error(f"--{dest.replace('_', '-')} {why}")


def session_options(args: argparse.Namespace) -> SessionOptions:
    from .live import SessionOptions
    return SessionOptions(
        name=args.session, headed=args.headed, browser=args.browser,
        browser_path=args.browser_path, cdp=args.cdp, ws_endpoint=args.ws_endpoint,
        secrets=list(args.secret),
        record=Path(args.record) if args.record else None, no_record=args.no_record,
        no_shots=args.no_shots,
        trace=Path(args.trace) if args.trace else None,
        video=Path(args.video) if args.video else None, auto_handoff=args.auto_handoff,
        auto_resume=args.auto_resume, allow_domains=list(args.allow_domain),
        confirm=list(args.confirm), remote_headers=list(args.remote_header),
        notify=args.notify, device=args.device, proxy=args.proxy,
        locale=args.locale, timezone=args.timezone,
        har=Path(args.har) if args.har else None, har_missing=args.har_missing)


def live_from_args(args: argparse.Namespace, agent: str | None = None) -> LiveSession:
    """The LiveSession of a face; ValueError or discovery.Unreachable before it opens."""
    from .live import LiveSession
    return LiveSession(session_options(args), agent=agent)


async def live_ahead(args: argparse.Namespace, agent: str | None = None) -> LiveSession:
    """live_from_args, for a face in its running loop, with Playwright's driver started
    ahead (core.warm_driver): its Node process is spawned first and boots (on another
    core, when there is one) while this process imports the engine and builds the
    session. The session's start takes that driver; LiveSession.close() stops it if no
    session did."""
    import asyncio

    from .. import core
    core.warm_driver()
    try:
        # the driver's task runs to its spawn in the loop's next few turns; the imports
        # stay in this thread (a thread of their own contended for the GIL with the loop,
        # and on a busy machine that cost more than it saved)
        for _ in range(SPAWN_TURNS):
            await asyncio.sleep(0)
        return live_from_args(args, agent)
    except BaseException:
        await core.drop_warm_driver()
        raise


# --- logging ---------------------------------------------------------------------------
class PrivateFileHandler(logging.FileHandler):
    """A log file only its owner reads (it may name pages and paths), made on first use."""

    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        return open(fd, "a", encoding=self.encoding or "utf-8", errors=self.errors)


def configure_logging(path: str | None, *, tui: bool) -> None:
    """`logging.getLogger("cockpit")`: to FILE (`--log`, else $COCKPIT_LOG) from INFO up.
    Faces without a screen also say warnings on stderr; the TUI shows errors itself and
    must keep the terminal clean, so without a log file its warnings go to `cockpit.log`
    in the workspace's state directory."""
    logger = logging.getLogger("cockpit")
    logger.propagate = False  # never the root logger's handlers (nor the last resort)
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
    logger.setLevel(logging.INFO)
    path = path or os.environ.get(ENV_LOG) or None
    stamp = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    if path:
        to_file = PrivateFileHandler(path, delay=True)
        to_file.setFormatter(stamp)
        logger.addHandler(to_file)
    elif tui:
        from ..core import workspace_dir
        state = workspace_dir()
        state.mkdir(parents=True, exist_ok=True)
        warnings = PrivateFileHandler(state / "cockpit.log", delay=True)
        warnings.setLevel(logging.WARNING)
        warnings.setFormatter(stamp)
        logger.addHandler(warnings)
    if not tui:
        said = logging.StreamHandler(sys.stderr)
        said.setLevel(logging.WARNING)
        said.setFormatter(logging.Formatter("cockpit: %(message)s"))
        logger.addHandler(said)
