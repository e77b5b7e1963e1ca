"""The processes of the browsers Cockpit starts: finding them in /proc (Playwright does
not expose a launched browser's process), and their CPU priority.

A headless browser an agent drives is background work, and ten of them load pages
without pause: on a small machine, at the same priority as the person's terminal, they
left `cockpit watch` a few percent of a core, and a key took up to a second to echo.
So a headless Chromium Cockpit starts runs at a lower priority (nice 10 by default,
`COCKPIT_BROWSER_NICE`; 0 leaves it as it is), and at the normal one while a person has
it (a handoff in the terminal or the web view); a headed one, a window a person may use,
keeps the normal one. Playwright starts the browser as the leader of a session of its
own, so on Linux (where each session is one "autogroup" of the scheduler) the priority
is set on that autogroup: it holds that browser's processes and nothing else, and unlike
a process's nice, it may be set back to 0 without privileges. Where the kernel has no
autogroups, the browser's process group gets the nice instead (and keeps it). Each
launch is found by a switch of its own (`--cockpit-browser=…`). A browser attached to
(`--cdp`, `--ws-endpoint`) is not ours and is left alone.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
import uuid
from pathlib import Path

from ..base.logs import spawn

log = logging.getLogger(__name__)

BACKGROUND_NICE = 10
RETRY_S = 5.0  # how long a change waits for its turn (see set_priority)


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


def set_priority(mark: str, nice: int) -> None:
    """The browser given `mark` at `nice`: its own session's autogroup (else its process
    group). A browser that does not lead its own session is left as it is (renicing its
    session would renice the terminal it runs in). The kernel takes one autogroup change
    a tenth of a second from an unprivileged user, machine-wide: ten sessions starting
    together wait their turns."""
    deadline = time.monotonic() + RETRY_S
    for pid in pids_with(mark):
        while True:
            try:  # the latest asked: a handoff's change may overtake the launch's
                _set(pid, mark, _wanted.get(mark, nice))
                break
            except BlockingIOError:  # EAGAIN: another change within the last 0.1 s
                if time.monotonic() > deadline:
                    log.warning("the priority of browser process %d was not set: the "
                                "kernel was busy with other changes", pid)
                    break
                time.sleep(random.uniform(0.1, 0.2))
            except OSError as exc:  # gone meanwhile, or not allowed: it runs as it was
                log.info("the priority of browser process %d was not set: %s", pid, exc)
                break


def _set(pid: int, mark: str, nice: int) -> None:
    if os.getsid(pid) != pid:
        log.info("browser process %d is not its own session's leader: its priority is "
                 "left as it is", pid)
        return
    if mark.encode() not in _argv(str(pid)):  # it ended, and its number was given again
        return
    if _autogroups():
        Path(f"/proc/{pid}/autogroup").write_text(str(nice))
    elif nice > 0:  # a process's nice, once raised, cannot go back unprivileged
        os.setpriority(os.PRIO_PGRP, pid, nice)


def new_mark() -> str:
    """A switch that finds this launch's browser process: Chromium ignores a switch it
    does not know (and passes none to its helpers)."""
    return f"--cockpit-browser={uuid.uuid4().hex}"


def to_background(mark: str) -> None:
    """The headless browser given `mark` at the background priority, in a thread (reading
    /proc takes a few ms): the launch goes on meanwhile."""
    _ask(mark, background_nice())


def to_foreground(mark: str) -> None:
    """The browser given `mark` back at the normal priority: a person uses it now."""
    if background_nice():
        _ask(mark, 0)


# What was last asked for each browser: the threads that set it may finish out of order.
_wanted: dict[str, int] = {}


def _ask(mark: str, nice: int) -> None:
    if not nice and mark not in _wanted:  # never lowered: nothing to put back
        return
    _wanted[mark] = nice
    spawn(asyncio.to_thread(set_priority, mark, nice), "setting the browser's priority")
