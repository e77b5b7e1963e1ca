"""The cockpit in a web browser, attached to a live session: each visitor gets their own
`cockpit attach` (through textual-serve), so a teammate can watch an agent, and type
commands (as `human`), without a terminal on this machine.

Bound to 127.0.0.1 unless --host is given, and only with the token printed in its URL:
textual-serve itself has no authentication, so every page and the websocket are checked
here first (the websocket by a token in its path, which only the page holds)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import logging
import secrets
import shlex
import sys
from collections.abc import AsyncIterator
from typing import Any

from ..core import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from .exits import failed

FACE = "cockpit web"
log = logging.getLogger("cockpit")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", default=None, metavar="NAME",
                        help="the live session to attach to (default: $COCKPIT_SESSION, else "
                             "default)")
    parser.add_argument("--socket", metavar="PATH", help="a session's socket path")
    parser.add_argument("--port", type=int, default=8422, metavar="P",
                        help="the port to serve on (default: 8422; 0: any free one)")
    parser.add_argument("--host", default="127.0.0.1", metavar="H",
                        help="the address to listen on (default: 127.0.0.1, this machine "
                             "only; 0.0.0.0 lets others reach it, with the token)")
    parser.add_argument("--theme", metavar="NAME", help="a theme from themes/")


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port}: a port is 0 to 65535")
    try:
        from textual_serve.server import Server  # noqa: F401  (checked before anything)
    except ImportError:
        return failed(FACE, "textual-serve is not installed: pip install textual-serve",
                      EXIT_FAILED)
    from ..control import discovery
    try:
        info = discovery.find(args.session, args.socket)  # attaches: never opens one
    except (discovery.Unreachable, ValueError) as exc:  # no such session; a bad name
        return failed(FACE, exc)
    command = [sys.executable, "-m", "cockpit", "attach", "--socket", str(info.socket)]
    if args.theme:
        command += ["--theme", args.theme]
    try:
        return asyncio.run(serve(shlex.join(command), info.session, args.host, args.port,
                                 info))
    except OSError as exc:  # the port is taken, the address is not ours
        return failed(FACE, f"cannot listen on {args.host}:{args.port}: {exc}", EXIT_USAGE)


def guarded_server(command: str, token: str, title: str, info: Any = None) -> Any:
    """A textual-serve Server whose page wants `?token=` and whose websocket has the
    token in its path; everything else but its static files is refused. With the live
    session's `info`, the page shows it live beside the terminal (web_live.py)."""
    import aiohttp_jinja2
    from aiohttp import web
    from textual_serve.server import Server

    from .web_live import PAGE, PANEL, live_socket

    def matches(given: str) -> bool:
        return hmac.compare_digest(given.encode(), token.encode())

    class Guarded(Server):
        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.router.add_get("/ws/{token}", self.handle_websocket)
            if info is not None:  # the page, live, beside the terminal
                app.router.add_get("/live", live_page)
                app.router.add_get("/live/ws/{token}",
                                   lambda request: live_socket(request, info))
            app.middlewares.append(guard)
            return app

        async def on_startup(self, app: web.Application) -> None:
            pass  # textual-serve's banner: we print our own line, with the token


        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            # the URLs in the page are the ones this visitor used (textual-serve would
            # write its bind address, 0.0.0.0 included), and the websocket's carries the
            # token in its path: textual.js adds `?width=...` to it
            context = await Server.handle_index.__wrapped__(self, request)  # type: ignore[attr-defined]
            here = f"{request.scheme}://{request.host}"
            ws = "wss" if request.scheme == "https" else "ws"
            context["app_websocket_url"] = f"{ws}://{request.host}/ws/{token}"
            context["config"]["static"]["url"] = f"{here}/static/"
            response = aiohttp_jinja2.render_template("app_index.html", request, context)
            if info is not None and response.text is not None:
                response.text = response.text.replace(
                    "</body>", PANEL.replace("{token}", token) + "</body>", 1)
            response.headers["Cache-Control"] = "no-store"  # it holds the token
            response.headers["Referrer-Policy"] = "no-referrer"
            return response

    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        if request.path.startswith("/static/"):
            return await handler(request)
        given = request.match_info.get("token") if request.path.startswith(
            ("/ws/", "/live/ws/")) else request.query.get("token")
        if given is None or not matches(given):
            raise web.HTTPForbidden(text="cockpit web: this needs the token of the URL "
                                         "`cockpit web` printed (…/?token=...)\n")
        return await handler(request)

    async def live_page(request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html", headers={
            "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

    return Guarded(command, title=title)


async def serve(command: str, session: str, host: str, port: int, info: Any = None) -> int:
    async with served(command, session, host, port, info) as url:
        print(f"cockpit web: session {session!r} at {url}"
              f"\n  each visitor gets an attached cockpit (commands typed there run as "
              f"human), with the page live beside it (alone: /live?token=...); "
              f"Ctrl+C stops", flush=True)
        from .live import stop_signals
        with stop_signals() as stop:
            await stop.wait()
    return EXIT_OK


@contextlib.asynccontextmanager
async def served(command: str, session: str, host: str, port: int,
                 info: Any = None) -> AsyncIterator[str]:
    """The cockpit's web page (and, with the live session's `info`, the page live) served
    on host:port while the block runs: its URL with the token. The session is told where
    its live view is (announce). OSError when it cannot listen there."""
    from aiohttp import web
    token = secrets.token_urlsafe(24)
    server = guarded_server(command, token, f"Cockpit: {session}", info)
    runner = web.AppRunner(await server._make_app(), handle_signals=False)
    await runner.setup()
    told = None
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0][1] if runner.addresses else port
        shown = f"[{host}]" if ":" in host else host
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else shown
        here = f"http://{shown}:{bound}"
        told = await announce(info, f"{here}/live", f"{here}/live?token={token}")
        yield f"{here}/?token={token}"
    finally:
        if told is not None:
            await told.close()  # the session no longer names this web view
        await runner.cleanup()  # each visitor's cockpit quits; the session goes on


async def announce(info: Any, url: str, link: str) -> Any:
    """Tell the session its page is served live at `url` (`link`: with the token), so
    its NEEDS A HUMAN notices and handoffs name it; it is said while the connection
    returned stays open. None when the session cannot be told (an older one): logged."""
    if info is None:
        return None
    from ..control.async_client import AsyncCockpit
    from ..control.discovery import Unreachable
    session = AsyncCockpit(socket_path=str(info.socket), client="web")
    try:
        await session.connect()
        answer = await session.request("web", url=url, link=link)
    except (OSError, Unreachable) as exc:
        log.warning("cockpit web could not tell the session where it serves: %s", exc)
        await session.close()
        return None
    if not answer.get("ok"):
        log.warning("the session does not take the web view's URL: %s", answer.get("error"))
        await session.close()
        return None
    return session
