"""Failures that the session goes on past still leave a trace: in the "cockpit" log.

Loggers are children of "cockpit" (`logging.getLogger(__name__)`); the CLI decides where
the log goes (`--log FILE`, `$COCKPIT_LOG`). Without that configuration, Python shows
warnings and errors on stderr and drops debug lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine, Iterator
from typing import Any

log = logging.getLogger(__name__)

# Tasks started and not awaited: asyncio holds only weak references to them, so an
# unreferenced task can vanish mid-run. Each stays here until it is done.
_background: set[asyncio.Task[Any]] = set()


@contextlib.contextmanager
def tolerated(what: str, logger: logging.Logger = log) -> Iterator[None]:
    """Go on past a failure that is expected now and then (a page or window closing under
    us), logged at debug level with its traceback instead of swallowed."""
    try:
        yield
    except Exception:
        logger.debug("%s failed; going on", what, exc_info=True)


def spawn(coro: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
    """Run `coro` in the background, keep it referenced until done, and log its failure
    (an unawaited task's exception would otherwise surface only at garbage collection)."""
    task = asyncio.ensure_future(coro)
    _background.add(task)

    def done(task: asyncio.Task[Any]) -> None:
        _background.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("%s failed", what, exc_info=exc)

    task.add_done_callback(done)
    return task
