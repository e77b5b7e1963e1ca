"""Playwright's driver started ahead (core/browser/driver.py): a face starts it before it
imports the engine; the session that starts next runs on that very driver (one Node
process, not two), and a driver no session took is stopped, never left behind."""

from __future__ import annotations

import os
import uuid

from conftest import ok

from cockpit.core import Session, drop_warm_driver, warm_driver


def drivers() -> set[int]:
    """The pids of Playwright drivers (Node running `run-driver`) started by this process."""
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rpartition(")")[2].split()[1])
        except OSError:
            continue
        if ppid == os.getpid() and b"run-driver" in argv:
            found.add(int(pid))
    return found


async def test_the_session_runs_on_the_driver_started_ahead(base):
    before = drivers()
    warm_driver()
    session = Session(f"ahead-{uuid.uuid4().hex[:6]}")
    try:
        await session.start()
        assert len(drivers() - before) == 1  # the one started ahead; none of its own
        await ok(session, f"goto {base}/")
    finally:
        await session.close()
        await drop_warm_driver()  # nothing left to drop: the session took it
    assert drivers() - before == set()  # the session stopped the driver it took


async def test_a_driver_no_session_took_is_stopped(base):
    before = drivers()
    warm_driver()
    await drop_warm_driver()
    assert drivers() - before == set()
    # and the next session starts a driver of its own
    session = Session(f"ahead-{uuid.uuid4().hex[:6]}")
    try:
        await session.start()
        assert len(drivers() - before) == 1
    finally:
        await session.close()
