"""Playwright's driver (a Node process) for a session's browser, and started ahead.

A face that starts a session calls `warm_driver()` first, before the engine is imported
(`cockpit serve`: about a third of a second of Python): the driver boots on another core
meanwhile, and the session's start takes it (`start_driver()`) instead of starting one
then. Nothing else changes: the same driver, with its stderr logged, owned and stopped by
the session that took it. A driver started ahead that no session took (the face failed
first) is stopped by `drop_warm_driver()`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

from ..base.logs import child_stderr_logged, driver_end_noted, tolerated

if TYPE_CHECKING:
    from playwright.async_api import Playwright

log = logging.getLogger(__name__)

CACHES_KEPT = 3  # Node's compile caches (one a Node version) kept: _prune
_ahead: asyncio.Task[Playwright] | None = None  # started by warm_driver(), not yet taken


async def _start() -> Playwright:
    from playwright.async_api import async_playwright
    with child_stderr_logged("playwright driver", log), compile_cache():  # never our terminal
        manager = async_playwright()
        playwright = await manager.start()
    driver_end_noted(manager, log)  # its death must not print a stray traceback
    return playwright


@contextlib.contextmanager
def compile_cache() -> Iterator[None]:
    """Node's compile cache for the driver's spawn: the ~10 MB of JavaScript it loads at
    each start is compiled once and kept (a quarter of its boot, ~60 ms here). In the
    user's own cache directory, made private: code run from a cache another user could
    write would be theirs (the directory and ours above it, links refused). Set in this
    process's environment while the driver starts (a child another task spawns meanwhile
    inherits it: a cache of compiled code, private to the user, nothing more); a
    NODE_COMPILE_CACHE of the user's own is left as it is, and COCKPIT_NODE_CACHE=0
    turns it off."""
    if "NODE_COMPILE_CACHE" in os.environ or os.environ.get("COCKPIT_NODE_CACHE") == "0":
        yield
        return
    ours = Path(platformdirs.user_cache_dir("cockpit"))
    where = ours / "node-compile-cache"
    try:
        where.mkdir(parents=True, exist_ok=True, mode=0o700)
        private = all(_private_dir(path) for path in (ours, where))
    except OSError as exc:
        log.info("no compile cache for Playwright's driver (%s): it starts without", exc)
        private = False
    if not private:
        yield
        return
    _prune(where)
    os.environ["NODE_COMPILE_CACHE"] = str(where)
    try:
        yield
    finally:
        os.environ.pop("NODE_COMPILE_CACHE", None)


def _prune(where: Path) -> None:
    """Node keeps a folder a version (v26.13.1-x64-...): a Playwright upgrade leaves the
    old ones behind, a few MB each. The CACHES_KEPT last written stay (the one in use, and
    another Playwright's this user runs, as a test of the lowest versions does)."""
    try:
        folders = [f for f in where.iterdir() if f.is_dir() and not f.is_symlink()]
        folders.sort(key=lambda f: f.stat().st_mtime, reverse=True)
        for old in folders[CACHES_KEPT:]:
            shutil.rmtree(old)
            log.info("removed the compile cache of an older driver: %s", old.name)
    except OSError as exc:  # another process pruning too, or one in use: next time
        log.info("the driver's compile cache was not pruned: %s", exc)


def _private_dir(path: Path) -> bool:
    """A directory itself (no link to one), ours, that nobody else may write to."""
    info = path.lstat()
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not (
        info.st_mode & 0o022)


def warm_driver() -> None:
    """Start Playwright's driver now, in the running loop, for the next session of this
    process to start: it boots while the face still imports and builds the session."""
    global _ahead
    if _ahead is None:
        _ahead = asyncio.get_running_loop().create_task(_start(), name="playwright driver")


async def start_driver() -> Playwright:
    """A running driver, the caller's to stop: the one started ahead in this loop when
    there is one, else a new one."""
    global _ahead
    ahead, _ahead = _ahead, None
    if ahead is not None and ahead.get_loop() is asyncio.get_running_loop():
        return await ahead
    if ahead is not None:  # another loop's (a test's): it cannot be used nor awaited here
        ahead.cancel()
    return await _start()


async def drop_warm_driver() -> None:
    """Stop the driver started ahead, if no session took it."""
    global _ahead
    ahead, _ahead = _ahead, None
    if ahead is None or ahead.get_loop() is not asyncio.get_running_loop():
        return
    with tolerated("stopping a Playwright driver no session took", log):
        playwright = await ahead
        await playwright.stop()
