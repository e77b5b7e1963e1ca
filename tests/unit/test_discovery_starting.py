"""A session that is starting is not a stale one: its socket is never removed by whoever
looks at the directory then (a `watch`, `cockpit sessions`, another session starting).

A session's socket exists from its bind(); it accepts connections from its listen(), and
its .json is written after that. A probe in between is refused, and before this fix the
socket was removed as a dead session's leftover: the session then served on a socket
nobody could find (a `watch` never listed it)."""

from __future__ import annotations

import json
import os
import socket
import tempfile
import time
from pathlib import Path

import pytest

from cockpit.control import discovery

pytestmark = pytest.mark.unit


@pytest.fixture
def private(monkeypatch):
    with tempfile.TemporaryDirectory(prefix="d", dir="/tmp") as base:  # short: a socket path
        monkeypatch.setenv("XDG_RUNTIME_DIR", base)
        yield Path(discovery.private_dir(create=True))


def bound_not_listening(path: Path) -> socket.socket:
    """A socket file as a session has it between bind() and listen()."""
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    return sock


def test_a_socket_bound_but_not_yet_listening_is_left_alone(private):
    path = private / "w-starting.sock"
    with bound_not_listening(path) as starting:
        assert discovery.alive(path) is None  # not usable yet ...
        assert path.exists()  # ... and not removed
        assert discovery.live_sessions() == [] and path.exists()
        starting.listen()  # it listens, then writes its .json: now it is found
        Path(discovery.info_path(path)).write_text(
            json.dumps({"session": "starting", "token": "t", "pid": os.getpid(),
                        "workspace": "/"}))
        info = discovery.alive(path)
        assert info is not None and info.session == "starting"


def test_a_leftover_socket_without_its_json_is_removed_once_old(private):
    path = private / "w-leftover.sock"
    with bound_not_listening(path):
        old = time.time() - discovery.STARTING_S - 5
        os.utime(path, (old, old))
        assert discovery.alive(path) is None
        assert not path.exists()


async def test_the_watch_finds_a_session_its_first_look_missed(private, monkeypatch):
    """A session whose socket was not yet usable when the watch looked, and which then
    made no change in the directory the watch saw (it came up while the watch was still
    starting its watcher): found by the next scan all the same."""
    import asyncio

    from cockpit.control import monitor as monitoring

    monkeypatch.setattr(monitoring, "RESCAN_MS", 200)
    path = private / "w-late.sock"
    with bound_not_listening(path) as late:
        late.listen()
        Path(discovery.info_path(path)).write_text(
            json.dumps({"session": "late", "token": "t", "pid": os.getpid(),
                        "workspace": "/"}))
        real_alive, looks = discovery.alive, []

        def not_yet_the_first_time(sock, probe=None):
            looks.append(sock)
            return None if len(looks) == 1 else real_alive(sock, probe)

        monkeypatch.setattr(discovery, "alive", not_yet_the_first_time)
        watch = await monitoring.Monitor().start()
        try:
            end = time.monotonic() + 5
            while not any(row.session == "late" for row in watch.rows()):
                assert time.monotonic() < end, f"never listed; looked {len(looks)} time(s)"
                await asyncio.sleep(0.05)
        finally:
            await watch.close()
