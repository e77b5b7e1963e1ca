"""Many MCP clients on one `cockpit mcp --port` (cli/mcp_fleet.py): ten real SDK clients
at once, each in a session of its own named after it (refs, page and recording apart),
all of them live sessions that `cockpit sessions` and watch's model list, on one shared
browser; a client that leaves ends its session; /mcp/NAME is one session clients share."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import uuid
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from conftest import page
from test_mcp import COCKPIT, ref, text
from test_shared_browser import chromium_browsers
from test_watch import until

pytest.importorskip("mcp")
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import Implementation

CLIENTS = 10
PAGES = [page(f"fleet-{i}", f"<button>Button {i}</button><input aria-label='Field {i}'>")
         for i in range(CLIENTS)]


@asynccontextmanager
async def mcp_server(*extra: str):
    """`cockpit mcp --port 0 ...`: yields (process, url, token, what it said so far)."""
    proc = await asyncio.create_subprocess_exec(
        *COCKPIT, "mcp", "--port", "0", *extra, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    said: list[str] = []

    async def read() -> None:
        while line := await proc.stderr.readline():
            said.append(line.decode())

    reader = asyncio.ensure_future(read())
    try:
        await until(lambda: "token file:" in "".join(said) or reader.done(), 120)
        head = "".join(said)
        assert "token file:" in head, head
        url = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", head)[1]
        token = re.search(r"Bearer (\S+)", head)[1]
        yield proc, url, token, said
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.wait(), 60)
        await reader


@asynccontextmanager
async def client(url: str, token: str, name: str):
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http, \
            Client(streamable_http_client(url, http_client=http),
                   client_info=Implementation(name=name, version="1")) as connected:
        yield connected


async def call(connected: Client, tool: str, **arguments) -> str:
    result = await connected.call_tool(tool, arguments)
    assert not result.is_error, text(result)
    return text(result)


def sessions() -> dict[str, dict]:
    done = subprocess.run([*COCKPIT, "sessions", "--json"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return {row["session"]: row for row in json.loads(done.stdout)}


def open_files(pid: int) -> set[str]:
    found = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            found.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
    return found


async def test_ten_clients_each_get_a_session_of_their_own(base, tmp_path):
    from cockpit.control.monitor import Monitor

    agent = f"agent-{uuid.uuid4().hex[:6]}"  # one client name for all ten: suffixes
    record = tmp_path / "fleet.jsonl"
    async with mcp_server("--record", str(record)) as (proc, url, token, said):
        assert "each client a session of its own" in "".join(said)
        names = [agent] + [f"{agent}-{n}" for n in range(2, CLIENTS + 1)]
        ready = asyncio.Event()
        leave = [asyncio.Event() for _ in range(CLIENTS)]
        seen: dict[int, tuple[str, str]] = {}

        async def one(i: int) -> None:
            async with client(url, token, agent) as connected:
                await call(connected, "browser_navigate", url=base + PAGES[i])
                snap = await call(connected, "browser_snapshot", interactive=True)
                seen[i] = (snap, ref(snap, "button", f"Button {i}"))
                await ready.wait()
                # its refs are its own: a click on its button lands on its page
                await call(connected, "browser_click", target=seen[i][1])
                assert (await call(connected, "browser_run", command="url")).endswith(
                    PAGES[i])
                await leave[i].wait()

        runs = [asyncio.ensure_future(one(i)) for i in range(CLIENTS)]
        try:
            await until(lambda: len(seen) == CLIENTS or any(r.done() for r in runs), 300)
            for r in runs:
                if r.done():
                    r.result()  # a failed client says why
            for i, (snap, _) in seen.items():
                assert f"Button {i}" in snap
                assert not [j for j in range(CLIENTS) if j != i and f"Button {j}\"" in snap]
            live = sessions()
            assert set(names) <= set(live), sorted(live)
            assert {live[n]["pid"] for n in names} == {proc.pid}
            # each on its own page: the session that shows page i is one of the ten
            on_page = {i: [n for n in names if (live[n]["url"] or "").endswith(PAGES[i])]
                       for i in range(CLIENTS)}
            assert all(len(found) == 1 for found in on_page.values()), on_page
            assert all("shared with other sessions" in live[n]["browser"]["description"]
                       for n in names)
            assert len(chromium_browsers(proc.pid)) == 1  # one Chromium for all ten
            # and watch's model: every one, from its own socket
            monitor = await Monitor().start()
            try:
                await until(lambda: set(names) <= {r.session for r in monitor.rows()
                                                   if r.connected}, 60)
            finally:
                await monitor.close()
            ready.set()

            # one client leaves: its session ends, and its recording is closed
            (gone_name,) = on_page[0]
            leave[0].set()
            await runs[0]
            await until(lambda: f"session {gone_name!r} ended" in "".join(said), 60)
            assert gone_name not in sessions()
            recording = Path(tmp_path / f"fleet-{gone_name}.jsonl")
            steps = [json.loads(line) for line in recording.read_text().splitlines()]
            assert [s["command"] for s in steps if s["type"] == "step"][:2] == [
                f"goto {base}{PAGES[0]}", "snapshot --interactive"]
            assert str(recording) not in open_files(proc.pid)
            assert set(names) - {gone_name} <= set(sessions())
        finally:
            for event in leave:
                event.set()
            await asyncio.gather(*runs, return_exceptions=True)
    assert proc.returncode == 0, "".join(said)
    assert not [n for n in names if n in sessions()]  # all ended with the server


async def test_clients_share_a_session_they_name(base):
    shared = f"shared-{uuid.uuid4().hex[:6]}"
    async with mcp_server("--no-record") as (proc, url, token, said):
        async with client(f"{url}/{shared}", token, "first") as one, \
                client(f"{url}/{shared}", token, "second") as two:
            await call(one, "browser_navigate", url=base + PAGES[1])
            snap = await call(two, "browser_snapshot", interactive=True)
            assert "Button 1" in snap  # the same page: the same session
            await call(two, "browser_click", target=ref(snap, "button", "Button 1"))
        assert shared in sessions()  # a shared session outlives its clients
        with pytest.raises(Exception):  # noqa: B017 (the SDK's error for a 404 varies)
            async with client(url + "/bad$name", token, "third"):
                pass
    assert proc.returncode == 0, "".join(said)


async def test_a_client_has_its_session_from_its_handshake_to_its_leaving():
    agent = f"quiet-{uuid.uuid4().hex[:6]}"
    async with mcp_server("--no-record") as (proc, url, token, said):
        async with client(url, token, agent):
            # no call yet: the session opened as its initialize was answered
            await until(lambda: agent in sessions(), 60)
        await until(lambda: f"session {agent!r} ended" in "".join(said), 60)
        assert agent not in sessions()
    assert proc.returncode == 0, "".join(said)
