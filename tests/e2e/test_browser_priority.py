"""The headless browsers Cockpit starts for agents run as background work (nice 10 on the
browser's own scheduler autogroup), so a person's terminal stays quick beside ten of them;
the visible window of a handoff, which a person uses, runs at the normal priority."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from cockpit.core import Session
from cockpit.core.browser.processes import browser_pids, pids_with
from conftest import ok

AUTOGROUPS = Path("/proc/sys/kernel/sched_autogroup_enabled")
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux's /proc")


def nice_of(pid: int) -> int:
    """What the scheduler gives the browser: its autogroup's nice where the kernel groups
    by session, else the process's own."""
    if AUTOGROUPS.exists() and AUTOGROUPS.read_text().strip() == "1":
        return int(Path(f"/proc/{pid}/autogroup").read_text().split()[-1])
    return os.getpriority(os.PRIO_PROCESS, pid)


async def settled_nice(profile_dir: Path | None, wanted: int) -> int:
    """The browser's nice once the background thread that sets it has run (it does not
    hold the launch up)."""
    assert profile_dir is not None
    deadline = time.monotonic() + 10
    while True:
        pids = browser_pids(profile_dir)
        got = nice_of(pids[0]) if len(pids) == 1 else None
        if got == wanted or time.monotonic() > deadline:
            return -1 if got is None else got
        await asyncio.sleep(0.05)


@pytest.fixture(autouse=True)
def background_priority(monkeypatch):
    """The product's default (the suite's conftest turns it off for the other tests)."""
    monkeypatch.setenv("COCKPIT_BROWSER_NICE", "10")


async def test_an_agents_headless_browser_runs_in_the_background(fresh, site):
    await ok(fresh, f"goto {site.url}/")
    assert await settled_nice(fresh.profile_dir, 10) == 10
    if AUTOGROUPS.exists():  # the browser's group is its own, not the test's terminal's
        assert Path(f"/proc/{browser_pids(fresh.profile_dir)[0]}/autogroup").read_text() \
            != Path("/proc/self/autogroup").read_text()


async def test_the_handoff_window_runs_at_the_normal_priority_and_resume_backgrounds(
        fresh, site, display):
    await ok(fresh, f"goto {site.url}/")
    assert await settled_nice(fresh.profile_dir, 10) == 10
    await ok(fresh, 'handoff "a person looks"')
    assert fresh.headed
    assert await settled_nice(fresh.profile_dir, 0) == 0
    await ok(fresh, "resume")
    assert await settled_nice(fresh.profile_dir, 10) == 10


async def test_cockpit_browser_nice_0_leaves_the_browser_as_it_is(monkeypatch, site):
    monkeypatch.setenv("COCKPIT_BROWSER_NICE", "0")
    session = Session(f"prio-zero-{os.getpid()}")
    await session.start()
    try:
        await ok(session, f"goto {site.url}/")
        await asyncio.sleep(0.5)  # what a background setting would have taken
        assert await settled_nice(session.profile_dir, 0) == 0
    finally:
        await session.close()


async def test_a_shared_headless_browser_runs_in_the_background():
    from cockpit.core.browser.shared import SharedBrowser
    shared = await SharedBrowser(headed=False).start()
    try:
        assert shared.mark is not None
        deadline = time.monotonic() + 10
        while not (pids := pids_with(shared.mark)) or nice_of(pids[0]) != 10:
            assert time.monotonic() < deadline, (pids, [nice_of(p) for p in pids])
            await asyncio.sleep(0.05)
    finally:
        await shared.close()


async def test_a_person_driving_the_headless_browser_has_it_at_the_normal_priority(
        fresh, site):
    """A handoff in the terminal or the web view keeps the browser headless: while the
    person drives it, it is theirs, not background work."""
    await ok(fresh, f"goto {site.url}/")
    assert await settled_nice(fresh.profile_dir, 10) == 10
    await ok(fresh, 'handoff --terminal "a person looks"')
    assert not fresh.headed
    assert await settled_nice(fresh.profile_dir, 0) == 0
    await ok(fresh, "resume")
    assert await settled_nice(fresh.profile_dir, 10) == 10
