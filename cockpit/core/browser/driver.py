"""Playwright's driver (a Node process) for a session's browser, and started ahead.

A face that starts a session calls `warm_driver()` first, before the engine is imported
(`cockpit serve`: about a third of a second of Python): the driver boots on another core
meanwhile, and the session's start takes it (`start_driver()`) instead of starting one
then. Nothing else changes: the same driver, with its stderr logged, owned and stopped by
the session that took it. A driver started ahead that no session took (the face failed
first) is stopped by `drop_warm_driver()`."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from ..base.logs import child_stderr_logged, driver_end_noted, tolerated

if TYPE_CHECKING:
    from playwright.async_api import Playwright

log = logging.getLogger(__name__)

_ahead: asyncio.Task[Playwright] | None = None  # started by warm_driver(), not yet taken


async def _start() -> Playwright:
    from playwright.async_api import async_playwright
    with child_stderr_logged("playwright driver", log):  # never our terminal
        manager = async_playwright()
        playwright = await manager.start()
    driver_end_noted(manager, log)  # its death must not print a stray traceback
    return playwright


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
