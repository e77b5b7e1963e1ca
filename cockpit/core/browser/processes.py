"""The processes of the browsers Cockpit starts: finding them in /proc (Playwright does
not expose a launched browser's process), and their CPU priority.

A headless browser an agent drives is background work, and ten of them load pages
without pause: on a small machine, at the same priority as the person's terminal, they
left `cockpit watch` a few percent of a core, and a key took up to a second to echo.
So a headless browser Cockpit starts runs at a lower priority (nice 10 by default,
`COCKPIT_BROWSER_NICE`; 0 leaves it as it is); a headed one, which a person may be
using, keeps the normal one. Playwright starts the browser as the leader of a session of
its own, so on Linux (where each session is one "autogroup" of the scheduler) the
priority is set on that autogroup: it holds that browser's processes and nothing else,
and unlike a process's nice, it may be set back to 0 without privileges. Where the
kernel has no autogroups, the browser's process group gets the nice instead.
A browser attached to (`--cdp`, `--ws-endpoint`) is not ours and is left alone.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

from ..base.logs import spawn

log = logging.getLogger(__name__)

BACKGROUND_NICE = 10


def background_nice() -> int:
    """The nice a headless browser gets: `COCKPIT_BROWSER_NICE` (0 to 19), else 10."""
    given = os.environ.get("COCKPIT_BROWSER_NICE", "").strip()
    if not given:
        return BACKGROUND_NICE
    try:
        return min(19, max(0, int(given)))
    except ValueError:
        log.warning("COCKPIT_BROWSER_NICE=%r is not a number from 0 to 19: %d is used",
                    given, BACKGROUND_NICE)
        return BACKGROUND_NICE


def _argv(pid: str) -> list[bytes]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:  # it ended meanwhile, or is another user's
        return []


def _pids() -> list[str]:
    try:
        return [entry.name for entry in Path("/proc").iterdir() if entry.name.isdigit()]
    except OSError:  # not Linux
        return []


def browser_pids(profile_dir: Path) -> list[int]:
    """The browser's main process (not its renderers) for this profile."""
    return pids_with(f"--user-data-dir={profile_dir}")


def pids_with(argument: str) -> list[int]:
    """Browser main processes (not renderers nor other helpers) given this argument."""
    wanted = argument.encode()
    return [int(pid) for pid in _pids() if wanted in (argv := _argv(pid)) and not any(
        arg.startswith(b"--type=") for arg in argv)]


def _autogroups() -> bool:
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return False


def set_priority(pids: set[int] | list[int], nice: int) -> None:
    """Each browser's own session (or else process group) at `nice`; a browser that is
    not the leader of its own session is left as it is (renicing its session would
    renice the terminal it runs in)."""
    for pid in pids:
        try:
            if os.getsid(pid) != pid:
                log.info("browser process %d is not its own session's leader: its "
                         "priority is left as it is", pid)
                continue
            if _autogroups():
                Path(f"/proc/{pid}/autogroup").write_text(str(nice))
            elif nice > 0:  # a process's nice, once raised, cannot go back unprivileged
                os.setpriority(os.PRIO_PGRP, pid, nice)
        except OSError as exc:  # gone meanwhile, or not allowed: it runs as it was
            log.info("the priority of browser process %d was not set: %s", pid, exc)


def to_background(argument: str) -> None:
    """The headless browser given `argument` (its profile, or a mark of its own) at the
    background priority, in a thread of the loop's (reading /proc takes a few ms):
    the launch goes on meanwhile."""
    nice = background_nice()
    if nice:
        spawn(asyncio.to_thread(lambda: set_priority(pids_with(argument), nice)),
              "setting the browser's priority")
