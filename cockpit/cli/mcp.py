"""An MCP server (Model Context Protocol) on stdio, or on streamable HTTP at
127.0.0.1:PORT/mcp behind a bearer token with --port, that is also a live session:
`cockpit attach` shows every tool call, `cockpit exec` reaches it, and a person can take
the browser over while the agent waits. With --port and no --session, each client has a
session of its own, on one shared browser (mcp_fleet.py); /mcp/NAME is a shared one.

On stdio, stdout carries MCP messages only: everything Cockpit says goes to stderr (or
--log FILE)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import EXIT_FAILED, EXIT_OK
from .exits import failed
from .options import add_session_options, configure_logging, live_ahead

if TYPE_CHECKING:
    import socket

    from ..control.mcp_server import CockpitMcp
    from .live import LiveSession

log = logging.getLogger("cockpit.mcp")

ENV_TOKEN = "COCKPIT_MCP_TOKEN"
TOKEN_FILE = "mcp-token"  # in the session's state directory (0700), mode 0600


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, metavar="P",
                        help="serve streamable HTTP on 127.0.0.1:P/mcp (0: a free port) "
                             "instead of stdio, to any number of clients: each in a session "
                             "of its own named after it (with --session NAME: all in NAME; "
                             "at /mcp/NAME: session NAME, which they share); clients send "
                             f"the bearer token printed on stderr (also ${ENV_TOKEN}, and a "
                             f"0600 file)")
    add_session_options(parser)
    # given or not tells, with --port: every client in session NAME, or each its own
    parser.set_defaults(session=None)


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.port is not None and not 0 <= args.port <= 65535:
        parser.error(f"--port takes 0 to 65535, got {args.port}")
    args.each_own = args.port is not None and args.session is None
    if args.each_own and (args.cdp or args.ws_endpoint):
        parser.error(f"{'--cdp' if args.cdp else '--ws-endpoint'} names one browser to "
                     "attach to, and with --port each client gets a session of its own on "
                     "Cockpit's shared browser: give --session NAME too, so every client "
                     "shares that session")
    args.session = args.session or "default"
    configure_logging(args.log, tui=False)  # stderr: stdout is the protocol's
    code = asyncio.run(serve(args))
    # Everything is closed and written. Leave now: tearing down the interpreter (the SDK's
    # modules) takes seconds of CPU on a busy machine, and an MCP client kills a server
    # (with its browser) that is not gone 2 s after it closed its input.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


FACE = "cockpit mcp"


def say(text: str) -> None:
    print(f"{FACE}: {text}", file=sys.stderr, flush=True)


async def serve(args: argparse.Namespace) -> int:
    from .live import OPEN_ERRORS, stop_signals, tell
    live: LiveSession | None = None
    mcp: CockpitMcp | None = None
    if not getattr(args, "each_own", False):
        try:
            live = await live_ahead(args)  # the driver starts meanwhile
        except OPEN_ERRORS as exc:
            return failed(FACE, exc)
        from ..control.mcp_server import CockpitMcp
        live.session.bus.subscribe(tell)  # a handoff, a page that needs a person: on stderr
        mcp = CockpitMcp(live.session, live.server.started)
    with stop_signals() as stop:
        if args.port is None:
            assert live is not None and mcp is not None
            return await _stdio(live, mcp, stop)
        from ..control.mcp_http import listen
        try:  # before the browser: a port in use is said at once
            sock = listen(args.port)
        except OSError as exc:
            return failed(FACE, f"cannot listen on 127.0.0.1:{args.port}: "
                                f"{exc.strerror or exc}: pick another --port (0 takes a "
                                f"free one)", EXIT_FAILED)
        try:
            return await _http(args, live, mcp, sock, stop)
        finally:
            sock.close()


async def _start(live: LiveSession, mcp: CockpitMcp) -> int | None:
    """Start the live session; None when it runs, else the exit code (said on stderr)."""
    from .live import OPEN_ERRORS
    try:
        await live.start()
    except OPEN_ERRORS as exc:
        return failed(FACE, exc)
    mcp.ready.set()
    flag = "" if live.session.name == "default" else f" --session {live.session.name}"
    say(f"session {live.session.name!r} is live on {live.description}: watch "
        f"it with `cockpit attach{flag}`")
    return None


async def _stdio(live: LiveSession, mcp: CockpitMcp, stop: asyncio.Event) -> int:
    from mcp.server.stdio import stdio_server

    # stdio_server points fd 1 at stderr while it serves: the browser and anything else
    # started inside it can never write into the protocol
    async with stdio_server() as (read, write):
        # the client's handshake is answered while the browser starts; its first tool
        # call waits for the browser
        mcp.ready.clear()
        serving = asyncio.ensure_future(
            mcp.server.run(read, write, mcp.server.create_initialization_options()))
        code = EXIT_FAILED  # until it has served
        try:
            failed = await _start(live, mcp)
            if failed is not None:
                code = failed
            else:
                stopping = asyncio.ensure_future(stop.wait())
                await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
                stopping.cancel()
                code = EXIT_OK
        except Exception:  # said here: the exit below would leave it unsaid
            log.exception("cockpit mcp failed")
            raise
        finally:
            if not serving.done():  # a signal or a failed start, with stdin still open
                serving.cancel()
                await asyncio.gather(serving, return_exceptions=True)
                await live.close()
                if stop.is_set():
                    say("stopped: the browser and the socket are closed")
                # the thread blocked reading stdin would hold the exit until the client
                # closed it: everything is closed and said, so leave now
                os._exit(code)
            await live.close()
        serving.result()  # the end of input (the client left), or an error to show
    return code


async def _http(args: argparse.Namespace, live: LiveSession | None, mcp: CockpitMcp | None,
                sock: socket.socket, stop: asyncio.Event) -> int:
    """Serve every client: in `live` (--session NAME), or each in a session of its own on
    a browser they share, started now so a client's first call does not wait for it."""
    from ..control.mcp_http import serve_http
    from ..control.mcp_server import McpServer
    from ..core import SharedBrowser, workspace_dir
    from .mcp_fleet import Fleet
    from .options import session_options
    token = os.environ.get(ENV_TOKEN) or secrets.token_urlsafe(32)
    options = session_options(args)
    shared = None if live is not None else SharedBrowser(
        headed=options.headed, engine=options.browser, browser_path=options.browser_path)
    fleet = Fleet(options, shared, live.session.name if live is not None else None)
    host, port = sock.getsockname()[:2]
    if live is not None:
        path = Path(live.session.dir) / TOKEN_FILE
    else:  # no session yet: the workspace's state directory (0700), one file per port
        path = workspace_dir() / f"{TOKEN_FILE}-{port}"
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        if live is not None and mcp is not None:
            code = await _start(live, mcp)
            if code is not None:
                return code
            fleet.add_named(live, mcp)
            how = f"every client in session {live.session.name!r}"
        else:
            from .live import OPEN_ERRORS
            assert shared is not None
            try:
                await shared.start()
            except OPEN_ERRORS as exc:
                return failed(FACE, exc)
            how = (f"each client a session of its own, named after it, on one "
                   f"{shared.plan.description if shared.plan else 'browser'}")
        _write_private(path, token)
        say(f"MCP over streamable HTTP at http://{host}:{port}/mcp ({how}; "
            f"/mcp/NAME: session NAME, which clients share)\n"
            f"  header: Authorization: Bearer {token}\n"
            f"  token file: {path}\n"
            f"Ctrl+C (or SIGTERM) stops it.")
        server = McpServer(fleet.route)
        await serve_http(server.server, sock, token, stop, fleet.wrap)
        return EXIT_OK
    finally:
        path.unlink(missing_ok=True)
        await fleet.close()
        if live is not None:
            await live.close()  # closed by the fleet already: closing twice does nothing


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text + "\n")
    os.chmod(path, 0o600)  # a file left by an older run keeps its mode otherwise
