"""List every live session of this user, in any workspace: its name, workspace, browser
(our own, or one attached over CDP or from a browser server), who has control, and its
agent. Each live one is asked over its socket, briefly; one that does not answer in
time is listed from its socket's .json file.

No browser and no asyncio here: it only reads files and sockets."""

from __future__ import annotations

import argparse
import json
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..core import EXIT_OK

ASK_TIMEOUT_S = 2.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="one JSON array: an object per session")
    parser.add_argument("--follow", action="store_true",
                        help="one JSON array a line (session, socket, workspace, pid: nothing "
                             "asked of the sessions), now and whenever a session starts or "
                             "ends, until stdin closes (what `watch --host` runs over ssh)")
    parser.add_argument("--timeout", type=float, default=ASK_TIMEOUT_S, metavar="S",
                        help=f"seconds to wait for each session's answer (default "
                             f"{ASK_TIMEOUT_S:g})")


def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if not args.timeout > 0:
        parser.error("--timeout takes a number of seconds above 0, like 2")
    if args.follow:
        import asyncio
        return asyncio.run(follow())
    from ..control import discovery
    found = discovery.live_sessions()
    with ThreadPoolExecutor(max_workers=min(8, len(found)) or 1) as pool:
        rows = list(pool.map(lambda info: describe(info, args.timeout), found))
    rows.sort(key=lambda r: (r["workspace"], r["session"]))
    if args.json:
        print(json.dumps(rows, ensure_ascii=False), flush=True)
    elif not rows:
        print(f"no live sessions of yours (sockets in {discovery.runtime_dir()}): start one "
              f"with `cockpit serve` or `cockpit`")
    else:
        print(table(rows), flush=True)
    return EXIT_OK


def listed() -> str:
    from ..control import discovery
    return json.dumps([{"session": info.session, "socket": str(info.socket),
                        "workspace": info.workspace, "pid": info.pid}
                       for info in discovery.live_sessions()], ensure_ascii=False)


async def follow() -> int:
    """The live sessions, a line each time the set changes (the socket directory is
    watched, nothing polled), until stdin ends: the watcher at the other end of an ssh
    connection has gone."""
    import asyncio
    import sys

    from watchfiles import awatch

    from ..control import discovery
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def read_stdin() -> None:
        if not os.read(sys.stdin.fileno(), 4096):
            loop.remove_reader(sys.stdin.fileno())
            stop.set()

    loop.add_reader(sys.stdin.fileno(), read_stdin)
    directory = discovery.private_dir(create=True)
    last = listed()
    print(last, flush=True)
    async for _ in awatch(directory, stop_event=stop, debounce=50, step=20, recursive=False):
        now = listed()
        if now != last:
            print(now, flush=True)
            last = now
    return EXIT_OK


def describe(info, timeout: float) -> dict[str, Any]:
    """One session's row: what its .json file says, then what it answers (`state`)."""
    from ..control import discovery
    try:
        with open(discovery.info_path(info.socket), encoding="utf-8") as file:
            on_disk = json.load(file)
    except (OSError, ValueError):
        on_disk = {}
    row: dict[str, Any] = {
        "session": info.session, "workspace": info.workspace, "pid": info.pid,
        "socket": str(info.socket), "answered": False,
        "browser": {"kind": on_disk.get("browser", "local"),
                    "endpoint": on_disk.get("endpoint"), "description": None},
        "control": None, "agents_held": None, "handoff": None, "agent": None,
        "tabs": None, "url": None, "error": None}
    status = _ask(info, timeout, row)
    if status is None:
        return row
    handoff = status.get("handoff") or {}
    row.update(answered=True, agents_held=status.get("agents_held"),
               handoff=handoff.get("mode"), agent=status.get("agent"),
               tabs=status.get("tabs"), url=(status.get("active") or {}).get("url"))
    row["browser"].update(kind=status.get("browser_kind", row["browser"]["kind"]),
                          endpoint=status.get("endpoint"),
                          description=status.get("browser"))
    row["control"] = ("human" if handoff.get("human_has_control") else
                      "held" if status.get("agents_held") else "agent")
    return row


def _ask(info, timeout: float, row: dict[str, Any]) -> dict[str, Any] | None:
    from ..control.client import Cockpit, Unreachable
    try:
        with Cockpit(socket_path=str(info.socket), client="sessions",
                     connect_timeout=timeout) as cockpit:
            reply = cockpit.request("state", wait=timeout)
    except (Unreachable, TimeoutError, OSError, ValueError) as exc:
        row["error"] = f"did not answer: {exc}"
        return None
    if not reply.get("ok"):
        row["error"] = str(reply.get("error"))
        return None
    return (reply.get("data") or {}).get("status") or {}


def _home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home != "/" and (
        path == home or path.startswith(home + os.sep)) else path


def _browser(row: dict[str, Any]) -> str:
    browser = row["browser"]
    if browser["kind"] == "local":
        return "local"
    return f"{browser['kind']} {browser['endpoint'] or ''}".strip()


def _control(row: dict[str, Any]) -> str:
    if not row["answered"]:
        return "?"
    if row["control"] == "human":
        return f"human ({row['handoff']})" if row["handoff"] else "human"
    return "held" if row["control"] == "held" else "agent"


def table(rows: list[dict[str, Any]]) -> str:
    head = ("SESSION", "WORKSPACE", "BROWSER", "CONTROL", "AGENT", "TABS", "PID")
    lines = [head] + [(r["session"], _home(r["workspace"] or "?"), _browser(r), _control(r),
                       (r["agent"] or "-") if r["answered"] else "?",
                       str(r["tabs"]) if r["tabs"] is not None else "?", str(r["pid"]))
                      for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    text = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip()
            for line in lines]
    for r in rows:
        if r["error"]:
            text.append(f"{r['session']} ({_home(r['workspace'] or '?')}): {r['error']}")
    text.append("reach one from anywhere: `cockpit exec --socket SOCKET ...` (`--json` "
                "lists the sockets), or `cockpit attach --socket SOCKET`")
    return "\n".join(text)

